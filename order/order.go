package order

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/internal/gcpace"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
)

// ErrTooLarge is returned (wrapped) when a structure would exceed the 32-bit
// ids it is built on: a collection of 2³²-1 records, tokens or distinct
// tokens here, a key index of as many entries (package join), a password
// list of as many lines or 2³² bytes (package passwords). It is the one
// sentinel for that condition.
var ErrTooLarge = errors.New("too large for 32-bit ids")

// New builds the order from in and returns the collection over it. It
// consumes in: the Input is empty afterwards, so that its arena can be freed
// while the collection is built.
//
// Cost: O(T log k) for T tokens in sets of size k, on in.Workers goroutines,
// and a sort of the vocabulary; peak memory about 8 bytes a token plus the
// vocabulary's table.
func New(in *Input) (*Collection, error) {
	cs, err := Build(in)
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// Build builds one order from the document frequencies over all inputs (for an
// R-S join: the union of R and S) and returns one collection per input, all
// sharing one Dictionary. It consumes the inputs, and runs on the first
// input's Workers goroutines.
func Build(inputs ...*Input) ([]*Collection, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	workers := inputs[0].Workers
	for _, in := range inputs {
		if in.Len() >= 1<<32-1 || in.Tokens() >= 1<<32-1 {
			return nil, fmt.Errorf("order: collection %w", ErrTooLarge)
		}
	}
	for _, in := range inputs {
		in.flush(0.125) // no key comes after: tables of the length the sketch asks for
	}
	dense := true
	for _, in := range inputs {
		dense = dense && in.dense != nil && in.values == inputs[0].values
	}
	if dense {
		// Every input's records are values: their vocabularies merged
		// into the first's, and the collections built over its final id
		// by value.
		mergeDense(inputs, workers)
		distinct := inputs[0].distinct
		dict, final := buildDenseDictionary(inputs[0], workers)
		// The first-seen values and their shards are dropped (5 bytes
		// a value), then the dense array (8 bytes an entry): their
		// pages, returned, are the ones the arrays made next take
		// (gcpace.Release, where the process asked for it).
		gcpace.Release(int64(distinct) * 5)
		hashes := rewriteAll(final, inputs, uint32(dict.Len()), workers)
		dict.vals = denseValues(final, dict.Len(), workers)
		dropped := int64(len(final)) * 8
		final = nil // not held beside the new arenas
		gcpace.Release(dropped)
		if invariants.Enabled {
			dict.check()
		}
		return arrangeAll(dict, inputs, hashes, workers), nil
	}
	for _, in := range inputs {
		if in.dense != nil {
			in.toKeys()
		}
	}
	// Merge every input's vocabulary into the first one's, each shard's keys
	// in order of first appearance (so that the ties of the order are the
	// same however the records were split into inputs' shards).
	base := &inputs[0].voc
	base.prepare()
	for _, in := range inputs[1:] {
		var remap [shards][]uint32
		for sh := range in.voc.tabs {
			slots := in.voc.tabs[sh].Slots()
			remap[sh] = localOrder(&in.voc.tabs[sh])
			for local, si := range remap[sh] {
				s := slots[si]
				remap[sh][local] = base.addHash(s.Key, keymap.Hash(s.Key), s.Val.df())
			}
		}
		for _, c := range in.chunks {
			for j, pid := range c {
				c[j] = remap[pid&(shards-1)][pid>>shardBits]
			}
		}
		in.voc = vocab{}
	}
	if base.len() >= 1<<32-1 {
		return nil, fmt.Errorf("order: vocabulary %w", ErrTooLarge)
	}
	dict, final := buildDictionary(base, workers)
	hashes := rewriteAll(final, inputs, uint32(dict.Len()), workers)
	final = nil // 4 bytes a provisional id: not held beside the new arenas
	return arrangeAll(dict, inputs, hashes, workers), nil
}

// rewriteAll rewrites every input's sets over the final ids (rewriteSets)
// and returns their records' set hashes, by input. Build drops final before
// arrangeAll makes the collections' arenas.
func rewriteAll[F uint32 | uint64](final []F, inputs []*Input, limit uint32, workers int) [][]uint64 {
	hashes := make([][]uint64, len(inputs))
	for i, in := range inputs {
		hashes[i] = rewriteSets(final, in, limit, workers)
	}
	return hashes
}

// arrangeAll returns the collection of each input over dict, its sets
// rewritten and hashed (rewriteAll), each arranged in turn (arrange). The
// inputs are consumed.
func arrangeAll(dict *Dictionary, inputs []*Input, hashes [][]uint64, workers int) []*Collection {
	out := make([]*Collection, len(inputs))
	for i, in := range inputs {
		h := hashes[i]
		hashes[i] = nil // arrange drops it when it has sorted the records
		out[i] = arrange(dict, in, h, workers)
		*in = Input{}
	}
	return out
}

// rewriteSets maps the provisional ids of in to final ids (uint32 of
// final[pid], all below limit) in place, sorts each set, and returns each record's set hash (for the
// record order of arrange), each set hashed while it is in cache; on
// workers goroutines.
func rewriteSets[F uint32 | uint64](final []F, in *Input, limit uint32, workers int) []uint64 {
	n := in.Len()
	hashes := make([]uint64, n)
	forRecords(n, workers, func(lo, hi int) {
		var sorter keysort.Sorter // ids are dense, below limit
		k := in.chunkOf(lo)
		// The final ids of the record a few ahead are hinted into cache
		// (one random access a token otherwise waited for in turn).
		const ahead = 4
		ka := in.chunkOf(min(lo+ahead, max(hi-1, lo)))
		for r := lo; r < hi; r++ {
			if a := r + ahead; a < hi {
				for ka+1 < len(in.first) && in.first[ka+1] <= a {
					ka++
				}
				prefetch.Indexes(final, in.set(ka, a), 0)
			}
			for k+1 < len(in.first) && in.first[k+1] <= r {
				k++
			}
			rec := in.set(k, r)
			for j, pid := range rec {
				rec[j] = uint32(final[pid])
			}
			// A set given in order of its tokens' frequency, most frequent
			// first (ids numbered beforehand, read as values by AddValues),
			// comes out nearly descending, the worst case of the insertion
			// sort SortIDs uses on short sets; reversed, it is its best.
			if len(rec) > 1 && rec[0] > rec[len(rec)-1] {
				slices.Reverse(rec)
			}
			sorter.SortIDs(rec, limit)
			hashes[r] = mix.SetHash(rec)
		}
	})
	return hashes
}

// arrange orders the records of in, whose sets rewriteSets has rewritten
// and hashed (hashes), by size, set hash and original index, and copies
// them into the collection's arena, on workers goroutines.
func arrange(dict *Dictionary, in *Input, hashes []uint64, workers int) *Collection {
	n := in.Len()
	offs := in.offs
	// Order the records by (size, hash of the set, index): identical sets,
	// having equal hashes, end up adjacent. A counting sort by size (stable,
	// so each size's run keeps the records' order), then each run sorted by
	// (hash, index), the runs on the workers; no comparison touches a set.
	maxSize := 0
	for r := 0; r < n; r++ {
		maxSize = max(maxSize, offs[r+1]-offs[r])
	}
	start := make([]int, maxSize+2) // the run of size z is recs[start[z]:start[z+1]]
	for r := 0; r < n; r++ {
		start[offs[r+1]-offs[r]+1]++
	}
	start[1] = 0 // empty records are not stored
	for z := 1; z < len(start); z++ {
		start[z] += start[z-1]
	}
	recs := make([]rec, start[maxSize+1])
	next := slices.Clone(start)
	for r := 0; r < n; r++ {
		if z := offs[r+1] - offs[r]; z > 0 {
			recs[next[z]] = rec{hash: hashes[r], idx: uint32(r)}
			next[z]++
		}
	}
	next, hashes = nil, nil
	parallel.For(context.Background(), maxSize+1, 1, workers, func(_, lo, hi int) {
		var scratch []rec
		for z := lo; z < hi; z++ {
			scratch = sortRecs(recs[start[z]:start[z+1]], scratch)
		}
	})
	c := &Collection{
		dict:    dict,
		offs:    make([]int, len(recs)+1),
		ids:     make([]uint32, len(recs)),
		records: n,
	}
	for k, r := range recs {
		c.ids[k] = r.idx
		c.offs[k+1] = c.offs[k] + offs[r.idx+1] - offs[r.idx]
	}
	recs = nil // 16 bytes a record, not needed beside the new arena
	c.tokens = make([]uint32, in.Tokens())
	// Each set is copied to its place in the new arena: where the set of
	// record r starts is scattered into at[r] first, so that the sets can
	// then be read in the old arena's order (sequential loads) and written
	// all over the new one (stores, which do not hold up the loop as the
	// loads of a gather in the new order would: each waited on a miss for
	// the record's offsets and another for its set).
	at := make([]uint32, n)
	for k, r := range c.ids {
		at[r] = uint32(c.offs[k]) // below 2³², as Build checked the tokens
	}
	forRecords(n, workers, func(lo, hi int) {
		k := in.chunkOf(lo)
		for r := lo; r < hi; r++ {
			for k+1 < len(in.first) && in.first[k+1] <= r {
				k++
			}
			set := in.set(k, r)
			copy(c.tokens[at[r]:int(at[r])+len(set)], set)
		}
	})
	c.findGroups()
	return c
}

// forRecords splits the records [0, n) into blocks and runs f on them on
// workers goroutines (parallel.For); one worker takes them in one block.
func forRecords(n, workers int, f func(lo, hi int)) {
	workers = parallel.Workers(workers)
	// Blocks small enough that a few thousand long records (documents)
	// still spread over the workers, large enough to amortise taking them.
	block := min(4096, max(16, n/(8*workers)))
	if workers == 1 {
		block = n
	}
	parallel.For(context.Background(), n, block, workers, func(_, lo, hi int) { f(lo, hi) })
}
