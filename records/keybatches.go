package records

import (
	"context"
	"slices"
	"sort"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/order"
)

// KeyBatches collects a source's key sets batch by batch, as readers make
// them, and joins them into one approx.KeySets arena at the end: one copy of
// every key, on all workers, into memory allocated once. An arena grown as
// batches arrive doubles instead, copying what it holds and clearing fresh
// memory each time (a third of reading the 1M Zipf sets). The zero value is
// empty and ready; it is not safe for concurrent use.
//
// With Values set (a join whose method the planner chooses once the
// records are read), it also keeps blocks of small values as readers give
// them (order.Input.AddValues's form), each record's values sorted and
// distinct: the order is then built from the batches as they came (Input),
// values and all, or the key sets made of them (Sets, KeepSets).
type KeyBatches struct {
	batches []keyBatch
	records int
	keys    int
	own     bool // the last batch was made by Add and may grow
	// Values says the batches take blocks of small values as they come
	// (addValues) rather than as keys; set before the first batch.
	Values bool
	starts []int // each batch's first record, made by Index
}

// keyBatch is len(offs)-1 sets: set r is keys[offs[r]:offs[r+1]], or, for
// a block of values (vk not nil), the keys vk gives the values
// vals[offs[r]:offs[r+1]] (sorted and distinct).
type keyBatch struct {
	keys []uint64
	vals []uint32
	vk   order.Values
	offs []int
}

// Add appends one record's keys (any order, repeats ignored), copied.
func (k *KeyBatches) Add(keys []uint64) {
	if !k.own {
		k.batches = append(k.batches, keyBatch{offs: []int{0}})
		k.own = true
	}
	b := &k.batches[len(k.batches)-1]
	start := len(b.keys)
	b.keys = append(b.keys, keys...)
	set := b.keys[start:]
	slices.Sort(set)
	b.keys = b.keys[:start+len(slices.Compact(set))]
	b.offs = append(b.offs, len(b.keys))
	k.records++
	k.keys += len(b.keys) - start
}

// AddBatch appends records whose keys are sorted and distinct
// (order.Input.AddBatch's form), copied.
func (k *KeyBatches) AddBatch(keys []uint64, offs []int) {
	if len(offs) >= 2 {
		k.take(slices.Clone(keys[:offs[len(offs)-1]]), slices.Clone(offs))
	}
}

// take appends a batch as AddBatch does, keeping keys and offs when keys is
// not mostly spare capacity (and then reports true: the caller must not
// reuse them), copying them otherwise.
func (k *KeyBatches) take(keys []uint64, offs []int) bool {
	n := offs[len(offs)-1]
	kept := 2*cap(keys) <= 3*n
	if kept {
		keys = keys[:n:n]
	} else {
		keys, offs = slices.Clone(keys[:n]), slices.Clone(offs)
	}
	k.batches = append(k.batches, keyBatch{keys: keys, offs: offs})
	k.own = false
	k.records += len(offs) - 1
	k.keys += n
	return kept
}

// addValues appends a block of records given as small values
// (order.Input.AddValues's form: any order, repeats), copied, each record's
// values sorted and made distinct.
func (k *KeyBatches) addValues(vals []uint32, offs []int, vk order.Values) {
	if len(offs) < 2 {
		return
	}
	b := keyBatch{vals: make([]uint32, 0, offs[len(offs)-1]), vk: vk, offs: make([]int, 1, len(offs))}
	for r := 1; r < len(offs); r++ {
		start := len(b.vals)
		b.vals = append(b.vals, vals[offs[r-1]:offs[r]]...)
		set := b.vals[start:]
		if !strictlyAscending(set) {
			slices.Sort(set)
			b.vals = b.vals[:start+len(slices.Compact(set))]
		}
		b.offs = append(b.offs, len(b.vals))
	}
	k.batches = append(k.batches, b)
	k.own = false
	k.records += len(offs) - 1
	k.keys += len(b.vals)
}

func strictlyAscending(s []uint32) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}

// Sets joins the batches into one arena, copying them (a block of values
// as its keys, each record's sorted) on workers goroutines, and releases
// them.
func (k *KeyBatches) Sets(workers int) *approx.KeySets { return k.sets(workers, false) }

// KeepSets is Sets that keeps the batches (it only reads them): safe for
// concurrent use with the other reading methods.
func (k *KeyBatches) KeepSets(workers int) *approx.KeySets { return k.sets(workers, true) }

// sets is Sets, releasing the batches unless keep is set.
func (k *KeyBatches) sets(workers int, keep bool) *approx.KeySets {
	ks := &approx.KeySets{Keys: make([]uint64, k.keys), Offs: make([]int, 1, k.records+1)}
	starts := make([]int, len(k.batches))
	for i, b := range k.batches {
		starts[i] = ks.Offs[len(ks.Offs)-1]
		for _, o := range b.offs[1:] {
			ks.Offs = append(ks.Offs, starts[i]+o)
		}
	}
	parallel.For(context.Background(), len(k.batches), 1, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			b := &k.batches[i]
			if b.vk == nil {
				copy(ks.Keys[starts[i]:], b.keys)
				continue
			}
			dst := ks.Keys[starts[i] : starts[i]+len(b.vals)]
			for j, v := range b.vals {
				dst[j] = b.vk.Key(v)
			}
			for r := 1; r < len(b.offs); r++ {
				slices.Sort(dst[b.offs[r-1]:b.offs[r]])
			}
		}
	})
	if !keep {
		*k = KeyBatches{}
	}
	return ks
}

// HasValues reports whether a batch holds values.
func (k *KeyBatches) HasValues() bool {
	for _, b := range k.batches {
		if b.vk != nil {
			return true
		}
	}
	return false
}

// Input enters the batches into an order.Input as they came (blocks of
// values through AddValues, keys through AddBatch) on workers goroutines,
// its vocabulary sized for about distinct keys, and releases them as Sets
// does: each batch is dropped once entered, so that the records are held
// about once, not twice, while the order is built (on the 1M Zipf sets, a
// peak of 378-391 MiB rather than 545-554). k is empty afterwards.
func (k *KeyBatches) Input(workers int, distinct int) *order.Input {
	in := &order.Input{Workers: workers}
	if len(k.batches) > 0 && k.batches[0].vk == nil {
		in.Grow(distinct)
	}
	for i := range k.batches {
		b := &k.batches[i]
		if b.vk != nil {
			in.AddValues(b.vals, b.offs, b.vk)
		} else {
			in.AddBatch(b.keys, b.offs)
		}
		*b = keyBatch{} // entered (AddBatch may hold the keys until it flushes)
	}
	if len(k.batches) == 0 {
		in.AddBatch(nil, []int{0})
	}
	*k = KeyBatches{}
	return in
}

// Len returns the records collected; with Size and AppendKeys it makes
// the batches a planner.Keys. Safe for concurrent use once the batches are
// complete (Index called).
func (k *KeyBatches) Len() int { return k.records }

// Keys returns the keys the batches hold, all records together.
func (k *KeyBatches) Keys() int { return k.keys }

// Index numbers the batches' records (their first records), for Size and
// AppendKeys; call it once the batches are complete.
func (k *KeyBatches) Index() {
	k.starts = make([]int, len(k.batches))
	n := 0
	for i, b := range k.batches {
		k.starts[i] = n
		n += len(b.offs) - 1
	}
}

// record returns record i's batch and its index in it.
func (k *KeyBatches) record(i int) (*keyBatch, int) {
	b := sort.Search(len(k.starts), func(j int) bool { return k.starts[j] > i }) - 1
	return &k.batches[b], i - k.starts[b]
}

// Size returns the distinct tokens of record i.
func (k *KeyBatches) Size(i int) int {
	b, r := k.record(i)
	return b.offs[r+1] - b.offs[r]
}

// AppendKeys appends record i's distinct keys (a block of values' in value
// order).
func (k *KeyBatches) AppendKeys(dst []uint64, i int) []uint64 {
	b, r := k.record(i)
	if b.vk == nil {
		return append(dst, b.keys[b.offs[r]:b.offs[r+1]]...)
	}
	for _, v := range b.vals[b.offs[r]:b.offs[r+1]] {
		dst = append(dst, b.vk.Key(v))
	}
	return dst
}

// Each calls f with every record in order and its distinct tokens: the
// keys of a block of keys, and for a block of values a mix of each value
// (valueID), which costs less than its key (planner.Keys).
func (k *KeyBatches) Each(f func(i int, ids []uint64)) {
	var buf []uint64
	i := 0
	for _, b := range k.batches {
		for r := 1; r < len(b.offs); r++ {
			if b.vk == nil {
				f(i, b.keys[b.offs[r-1]:b.offs[r]])
			} else {
				buf = buf[:0]
				for _, v := range b.vals[b.offs[r-1]:b.offs[r]] {
					buf = append(buf, valueID(v))
				}
				f(i, buf)
			}
			i++
		}
	}
}

// valueID stands for the token of small value v in planning's scan
// (KeyBatches.Each): distinct values, distinct ids.
func valueID(v uint32) uint64 { return mix.Mix64(uint64(v) + 0x5bd1e995) }
