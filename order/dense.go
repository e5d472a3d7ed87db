package order

import (
	"cmp"
	"context"
	"math/bits"
	"slices"

	"github.com/simjoin/simjoin/internal/hugepage"
	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
)

// Records whose tokens are small values (token ids numbered beforehand, the
// q-grams of ASCII text) skip the vocabulary's hash table: a value indexes
// an array of counts directly (Input.dense), which for a million values is
// 8 MiB against the table's 16 bytes a slot for each distinct key, and
// holds no key to compare. The keys come back only once a value, when the
// order is built: each distinct value's key (Values.Key) is entered in the
// order the table would have seen it, so that the order, and every figure
// of a join, is the one the keys give.

// ValueLimit bounds the values of AddValues: every value is below it.
const ValueLimit = 1 << valBits

// Values says which key each value of AddValues stands for: Key(v) is the
// key the caller's tokenizer gives the token that v spells, and distinct
// values below ValueLimit have distinct keys. An Input takes one Values at
// a time (compared with ==, so implementations should be comparable types,
// such as shingle.IntValues and shingle.GramValues): values of another
// kind move it to keys. Key must be safe for concurrent use.
type Values interface {
	Key(v uint32) uint64
}

// denseFloor is the length up to which the dense array may grow whatever
// the tokens read so far (32 MiB): beyond it, to at most twice the tokens
// added, so the array costs at most 16 bytes a token.
const denseFloor = 1 << 22

// AddValues appends len(offs)-1 records at once, as AddBatch does: record
// r has the tokens vals[offs[r]:offs[r+1]] (offs[0] must be 0), each a
// value below ValueLimit that stands for the key vk.Key(v), in any order,
// repeats ignored. The result is the same as adding each record's
// keys with Add. While every record has come this way, with one vk, and the
// values stay below twice the tokens added (or denseFloor), a token costs one step in
// an array indexed by its value instead of a hash-table step, on the
// calling goroutine; otherwise the values are turned into keys and
// entered as keys (and the records so far moved to the table, once).
// Cost: O(tokens) and, when the array grows, O(its length).
func (in *Input) AddValues(vals []uint32, offs []int, vk Values) {
	if len(offs) < 2 {
		return
	}
	n := offs[len(offs)-1]
	if n == 0 {
		in.AddBatch(nil, offs)
		return
	}
	if !in.denseFor(vals[:n], vk) {
		in.addValuesAsKeys(vals, offs, vk)
		return
	}
	if in.offs == nil {
		in.offs = append(in.offs, 0)
	}
	base := in.Tokens()
	ids := in.reserve(n)
	d := in.dense
	w := 0
	stamp := uint32(in.Len()) + 1 // the low half of dense[v] for the record at hand
	in.offs = slices.Grow(in.offs, len(offs)-1)
	// The counts of the values of the record a few ahead are hinted into
	// cache: the array is larger than the processor's nearer caches, and
	// its loads would otherwise wait one after another.
	const ahead = 4
	for r := 1; r < len(offs); r++ {
		if a := r + ahead; a < len(offs) {
			prefetch.Indexes(d, vals[offs[a-1]:offs[a]], 0)
		}
		blk := in.firstBlock(offs[r] - offs[r-1])
		first := len(blk)
		for _, v := range vals[offs[r-1]:offs[r]] {
			s := d[v]
			if uint32(s) == stamp {
				continue // a repeat within the record
			}
			if s == 0 {
				blk = append(blk, v) // within its capacity
			}
			d[v] = (s>>32+1)<<32 | uint64(stamp)
			ids[w] = v
			w++
		}
		if k := len(blk) - first; k > 0 {
			in.blocks[len(in.blocks)-1] = blk
			in.distinct += k
			if k > 1 {
				in.unsorted = append(in.unsorted, in.distinct-k, in.distinct)
			}
		}
		in.offs = append(in.offs, base+w)
		stamp++
	}
	in.unreserve(n - w)
}

// denseFor reports whether vals of vk can be added to the dense array,
// growing it if they need: the Input is empty, or dense with values of vk,
// and the largest value fits in an array of at most max(denseFloor,
// 2·tokens) entries. A dense Input that cannot take them is moved to the
// table.
func (in *Input) denseFor(vals []uint32, vk Values) bool {
	if in.dense == nil && (in.voc.len() > 0 || in.Tokens() > 0) {
		return false
	}
	top := uint32(0)
	for _, v := range vals {
		top = max(top, v)
	}
	if top >= ValueLimit {
		panic("order: AddValues value not below ValueLimit")
	}
	if in.dense != nil && in.values != vk {
		in.toKeys()
		return false
	}
	if int(top) >= len(in.dense) {
		size := 1 << bits.Len32(top)
		if size > max(denseFloor, 2*(in.Tokens()+len(vals))) {
			if in.dense != nil {
				in.toKeys()
			}
			return false
		}
		if in.dense == nil {
			in.voc = vocab{} // tables sized by Grow, empty: not needed
		}
		in.growDense(size)
	}
	in.values = vk
	return true
}

// growDense lengthens the dense array to size entries (at least its
// length), the counts kept.
func (in *Input) growDense(size int) {
	if size <= len(in.dense) {
		return
	}
	d := make([]uint64, size)
	hugepage.Advise(d) // read and written at random
	copy(d, in.dense)
	in.dense = d
}

// firstBlock returns the last block of first-seen values, with room for n
// more: a new one, appended to blocks (appendChunk, as the chunks grow),
// if the last has not.
func (in *Input) firstBlock(n int) []uint32 {
	if k := len(in.blocks) - 1; k < 0 || cap(in.blocks[k])-len(in.blocks[k]) < n {
		in.blocks = appendChunk(in.blocks, n)
	}
	return in.blocks[len(in.blocks)-1]
}

// blockStarts returns the index of each block's first value in the
// blocks joined (the indexes of unsorted), and their total length last.
func (in *Input) blockStarts() []int {
	starts := make([]int, len(in.blocks)+1)
	for k, b := range in.blocks {
		starts[k+1] = starts[k] + len(b)
	}
	return starts
}

// eachFirst calls f with each stretch of the first-seen values lo..hi-1
// (indexes over the blocks joined, starts from blockStarts) that one block
// holds, and the index of its first value. Cost: O(blocks) beyond f.
func (in *Input) eachFirst(starts []int, lo, hi int, f func(at int, vals []uint32)) {
	for k, b := range in.blocks {
		from, to := max(lo, starts[k]), min(hi, starts[k+1])
		if from < to {
			f(from, b[from-starts[k]:to-starts[k]])
		}
	}
}

// firstKeys sorts each run of first-seen values that one record saw first
// by key, the order in which the table takes a record's keys, on workers
// goroutines, and returns the key of every first-seen value, by index over
// the blocks joined.
func (in *Input) firstKeys(workers int) []uint64 {
	in.sortRuns(nil, workers)
	starts := in.blockStarts()
	keys := make([]uint64, starts[len(starts)-1])
	parallel.For(context.Background(), len(keys), 1<<14, workers, func(_, lo, hi int) {
		in.eachFirst(starts, lo, hi, func(at int, vals []uint32) {
			for i, v := range vals {
				keys[at+i] = in.values.Key(v)
			}
		})
	})
	return keys
}

// sortRuns sorts each run of first-seen values that one record saw first
// (unsorted: each within one block) by key, on workers goroutines, and
// writes the shard of each value of a run to the same index of sh (unless
// nil).
func (in *Input) sortRuns(sh []uint8, workers int) {
	runs := in.unsorted
	starts := in.blockStarts()
	sorters := make([]keysort.Sorter, parallel.Workers(workers))
	packed := make([][]uint64, len(sorters)) // scratch of each worker
	parallel.For(context.Background(), len(runs)/2, 16, workers, func(w, lo, hi int) {
		k := 0 // the block of run r
		for r := lo; r < hi; r++ {
			from, to := runs[2*r], runs[2*r+1]
			if r == lo {
				k, _ = slices.BinarySearch(starts, from+1)
				k--
			}
			for starts[k+1] <= from {
				k++
			}
			var s []uint8
			if sh != nil {
				s = sh[from:to]
			}
			packed[w] = sortRun(&sorters[w], in.values, in.blocks[k][from-starts[k]:to-starts[k]], s, packed[w])
		}
	})
	in.unsorted = nil
}

// mergeDense adds the vocabularies of the dense inputs[1:] to inputs[0]'s
// (dense too), as Build merges tables: each input's values in the order of
// their first appearance in it, after those of the inputs before it, and
// their document frequencies summed. The records keep their values, which
// the merged vocabulary numbers. Cost: O(distinct values) and a sort of
// each input's runs.
func mergeDense(inputs []*Input, workers int) {
	base := inputs[0]
	for _, in := range inputs[1:] {
		in.sortRuns(nil, workers)
		base.growDense(len(in.dense))
		for _, b := range in.blocks {
			for _, v := range b {
				s := base.dense[v]
				if s>>32 == 0 {
					// A run of one value: the base's runs stay sorted.
					blk := base.firstBlock(1)
					base.blocks[len(base.blocks)-1] = append(blk, v)
					base.distinct++
				}
				// The record stamps are of no use once the records are in.
				base.dense[v] = (s>>32 + in.dense[v]>>32) << 32
			}
		}
		in.dense, in.blocks, in.distinct = nil, nil, 0
	}
}

// valBits is the width of a value below ValueLimit.
const valBits = 24

// sortRun sorts vals by key (vk.Key), with s and packed as scratch
// (returned for the next run), and writes each sorted value's shard to sh
// (unless nil). Each value is sorted packed in one word under the top 37
// bits of its key, its shard and itself, by keysort's bucket sort (the keys
// are hashes, so the buckets are even); values whose keys share those bits,
// which the packing orders by shard and value, are then put in key order.
// Cost: O(n) expected, one key made a value (and again for the rare ties).
func sortRun(s *keysort.Sorter, vk Values, vals []uint32, sh []uint8, packed []uint64) []uint64 {
	const keyShift = valBits + shardBits
	packed = packed[:0]
	for _, v := range vals {
		k := vk.Key(v)
		packed = append(packed, k>>keyShift<<keyShift|uint64(shardOf(keymap.Hash(k)))<<valBits|uint64(v))
	}
	s.SortDistinct(packed) // distinct: so are the values
	const low = 1<<valBits - 1
	for i, p := range packed {
		vals[i] = uint32(p & low)
		if sh != nil {
			sh[i] = uint8(p>>valBits) & (shards - 1)
		}
	}
	for i := 1; i < len(packed); i++ {
		if packed[i]>>keyShift != packed[i-1]>>keyShift {
			continue
		}
		j := i + 1
		for j < len(packed) && packed[j]>>keyShift == packed[i]>>keyShift {
			j++
		}
		tied := vals[i-1 : j]
		slices.SortFunc(tied, func(a, b uint32) int { return cmp.Compare(vk.Key(a), vk.Key(b)) })
		if sh != nil {
			for t, v := range tied {
				sh[i-1+t] = uint8(shardOf(keymap.Hash(vk.Key(v))))
			}
		}
		i = j - 1
	}
	return packed
}

// addValuesAsKeys adds the records of AddValues by their keys.
func (in *Input) addValuesAsKeys(vals []uint32, offs []int, vk Values) {
	keys := make([]uint64, 0, offs[len(offs)-1])
	kofs := make([]int, 1, len(offs))
	for r := 1; r < len(offs); r++ {
		from := len(keys)
		for _, v := range vals[offs[r-1]:offs[r]] {
			keys = append(keys, vk.Key(v))
		}
		slices.Sort(keys[from:])
		keys = keys[:from+len(slices.Compact(keys[from:]))]
		kofs = append(kofs, len(keys))
	}
	in.AddBatch(keys, kofs)
}

// toKeys moves a dense Input's vocabulary to the table: each value's key
// entered with its document frequency, in the order of the blocks, and the
// records' ids rewritten from values to the table's provisional ids.
func (in *Input) toKeys() {
	d := in.dense
	keys := in.firstKeys(in.Workers)
	var counts [shards]int
	for _, k := range keys {
		counts[shardOf(keymap.Hash(k))]++
	}
	// Room to grow: the table keeps taking keys after the move.
	in.voc.size(&counts, 1)
	i := 0
	for _, b := range in.blocks {
		for _, v := range b {
			d[v] = uint64(in.voc.addHash(keys[i], keymap.Hash(keys[i]), uint32(d[v]>>32)))
			i++
		}
	}
	for _, c := range in.chunks {
		for j, v := range c {
			c[j] = uint32(d[v])
		}
	}
	in.dense, in.blocks, in.values, in.distinct = nil, nil, nil, 0
}

// unreserve gives back the last n ids that reserve handed out.
func (in *Input) unreserve(n int) {
	if n > 0 {
		k := len(in.chunks) - 1
		in.chunks[k] = in.chunks[k][:len(in.chunks[k])-n]
	}
}

// buildDenseDictionary is buildDictionary for a dense Input (AddValues): the
// same dictionary the keys would give, and the final id of each value in
// place of its count in the Input's dense array, which it returns (final):
// uint32(final[v]) is value v's id, and final[v] is 0 for the values no
// record holds. The dictionary's values by id are left for denseValues to
// make from final, once the sets are rewritten: until then neither they
// nor a second array by value are held beside the dense one.
//
// The ids are given in a stable counting sort by (document frequency,
// shard, first appearance: the blocks' order, each record's run sorted by
// key), the order orderShards gives the table's provisional ids, on
// workers goroutines: the first-seen values are split into one stretch a
// worker, each counted by (frequency, shard) (countDense), and then each
// numbered from the offsets the counts of the stretches before it give.
// The few values held by smallDF records or more are listed apart and
// numbered in a sort of their own, after all others. Memory: 1 byte a distinct value (its
// shard) and 4 a value held by two records or more (the dictionary's
// frequencies) besides the Input's arrays. Cost: O(distinct values), the
// values' keys made once, the dense array read twice at random and written
// once.
func buildDenseDictionary(in *Input, workers int) (*Dictionary, []uint64) {
	values, dense := in.values, in.dense
	cs := countDense(in, workers)
	sh := cs.sh
	n := len(sh)
	// The first id of each (frequency, shard) of each stretch: frequency
	// major, then shard, then stretch.
	next := make([][]uint32, len(cs.small))
	for k := range next {
		next[k] = make([]uint32, len(cs.small[k]))
	}
	id := uint32(0)
	for fs := range smallDF * shards {
		for k, c := range cs.small {
			next[k][fs] = id
			id += c[fs]
		}
	}
	ones := 0
	for k := range cs.small {
		for s := range shards {
			ones += int(cs.small[k][1*shards+s])
		}
	}
	dict := &Dictionary{ones: ones, df: make([]uint32, n-ones), values: values, lazy: true, workers: workers}
	// The values held by smallDF records or more, after all others.
	big := slices.Concat(cs.big...)
	slices.SortFunc(big, func(a, b bigDF) int {
		return cmp.Or(cmp.Compare(a.f, b.f), cmp.Compare(sh[a.at], sh[b.at]), cmp.Compare(a.at, b.at))
	})
	for _, e := range big {
		dense[e.v] = assigned | uint64(id)
		dict.df[int(id)-ones] = e.f
		id++
	}
	starts := in.blockStarts()
	parallel.For(context.Background(), n, cs.stretch, workers, func(_, lo, hi int) {
		nx := next[lo/cs.stretch]
		in.eachFirst(starts, lo, hi, func(at int, vals []uint32) {
			for i, v := range vals {
				if a := i + 16; a < len(vals) {
					prefetch.At(dense, int(vals[a]))
				}
				e := dense[v]
				if e&assigned != 0 {
					continue // held by smallDF records or more
				}
				f := uint32(e >> 32)
				fs := f*shards + uint32(sh[at+i])
				id := nx[fs]
				nx[fs]++
				dense[v] = assigned | uint64(id)
				if f > 1 {
					dict.df[int(id)-ones] = f
				}
			}
		})
	})
	in.dense, in.blocks, in.distinct = nil, nil, 0
	return dict, dense
}

// smallDF bounds the document frequencies that countDense counts by
// (frequency, shard) in an array (32 KiB a stretch): a value held by
// smallDF records or more is listed apart (bigDF), and there are at most
// tokens/smallDF of them.
const smallDF = 1024

// bigDF is a first-seen value held by smallDF records or more: the value,
// its index over the blocks joined, and its document frequency.
type bigDF struct {
	v, at, f uint32
}

// assigned marks the entries of the dense array that buildDenseDictionary
// has replaced by an id.
const assigned = 1 << 63

// denseValues returns the value of each of the n ids of final, the dense
// array of buildDenseDictionary (the dictionary's values by id), on workers
// goroutines. Cost: a pass over final, a store at random a value.
func denseValues(final []uint64, n, workers int) []uint32 {
	vals := make([]uint32, n)
	parallel.For(context.Background(), len(final), 1<<16, workers, func(_, lo, hi int) {
		for v, f := range final[lo:hi] {
			if f != 0 {
				vals[uint32(f)] = uint32(lo + v)
			}
		}
	})
	return vals
}

// denseCounts is what buildDenseDictionary numbers the values from: the
// shard of each first-seen value by index over the blocks joined (sh),
// and for each stretch of stretch values, the count of its values of each
// (frequency, shard) below smallDF (small[k][f*shards+s]) and its values
// held by smallDF records or more (big[k]).
type denseCounts struct {
	sh      []uint8
	stretch int
	small   [][]uint32
	big     [][]bigDF
}

// countDense returns the counts of a dense Input's first-seen values, in
// one stretch a worker (made on workers goroutines): the table's shard of
// each value's key (found by the sort of the runs, made here for the
// rest) and its document frequency.
func countDense(in *Input, workers int) denseCounts {
	d := in.dense
	starts := in.blockStarts()
	n := starts[len(starts)-1]
	const unknown = 0xff
	sh := make([]uint8, n)
	for i := range sh {
		sh[i] = unknown
	}
	in.sortRuns(sh, workers)
	nw := parallel.Workers(workers)
	cs := denseCounts{sh: sh, stretch: max(1, (n+nw-1)/nw)}
	k := (n + cs.stretch - 1) / cs.stretch
	cs.small, cs.big = make([][]uint32, k), make([][]bigDF, k)
	parallel.For(context.Background(), n, cs.stretch, workers, func(_, lo, hi int) {
		c := make([]uint32, smallDF*shards)
		var big []bigDF
		in.eachFirst(starts, lo, hi, func(at int, vals []uint32) {
			for i, v := range vals {
				// The counts are read at random: hinted a few ahead.
				if a := i + 16; a < len(vals) {
					prefetch.At(d, int(vals[a]))
				}
				if sh[at+i] == unknown {
					sh[at+i] = uint8(shardOf(keymap.Hash(in.values.Key(v))))
				}
				f := uint32(d[v] >> 32)
				if f >= smallDF {
					big = append(big, bigDF{v: v, at: uint32(at + i), f: f})
					continue
				}
				c[f*shards+uint32(sh[at+i])]++
			}
		})
		cs.small[lo/cs.stretch], cs.big[lo/cs.stretch] = c, big
	})
	return cs
}
