package records

import (
	"context"
	"slices"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/parallel"
)

// KeyBatches collects a source's key sets batch by batch, as readers make
// them, and joins them into one approx.KeySets arena at the end: one copy of
// every key, on all workers, into memory allocated once. An arena grown as
// batches arrive doubles instead, copying what it holds and clearing fresh
// memory each time (a third of reading the 1M Zipf sets). The zero value is
// empty and ready; it is not safe for concurrent use.
type KeyBatches struct {
	batches []keyBatch
	records int
	keys    int
	own     bool // the last batch was made by Add and may grow
}

// keyBatch is len(offs)-1 sets: set r is keys[offs[r]:offs[r+1]].
type keyBatch struct {
	keys []uint64
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

// Sets joins the batches into one arena, copying them on workers
// goroutines, and releases them.
func (k *KeyBatches) Sets(workers int) *approx.KeySets {
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
			copy(ks.Keys[starts[i]:], k.batches[i].keys)
		}
	})
	*k = KeyBatches{}
	return ks
}
