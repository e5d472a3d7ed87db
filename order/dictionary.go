package order

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/simjoin/simjoin/internal/hugepage"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/parallel"
)

// Dictionary is the global token order: dense ids 0..Len()-1 assigned by
// document frequency ascending (rare first), ties broken by a fixed hash of
// the key and then by first appearance in the input (so the same input always
// gives the same order; any order gives the same join results). It is immutable once built and safe for
// concurrent use.
type Dictionary struct {
	// keys holds the key of every id (distinct), made on first use
	// (keyList) in a dictionary built from values (lazy): then vals holds
	// each id's value, whose key is values.Key of it, until keys are made
	// (4 bytes an id held instead of 8, and no key made for a join that
	// never asks for one).
	keys     []uint64
	vals     []uint32
	values   Values
	lazy     bool
	keysOnce sync.Once
	// ones is the number of ids of document frequency 1: ids 0..ones-1
	// (rare first), whose frequencies are not stored. Most keys of a large
	// vocabulary are held by one set (the Go tree's shingles: 3.2M of 4.0M).
	ones int
	df   []uint32 // by id - ones, for ids ones..Len()-1: >= 2, non-decreasing
	// voc maps every key of keys to its id + 1, and no other key. It is
	// built on the first Lookup (once), not kept from the Input's
	// vocabulary: most joins never look a key up, and the vocabulary's
	// table is the largest structure of the order, freed before the
	// collection is built.
	once sync.Once
	voc  vocab
	// workers is the number of goroutines that build voc: the Workers of
	// the Input the dictionary was built from.
	workers int
}

// Len returns the number of distinct tokens.
func (d *Dictionary) Len() int { return d.ones + len(d.df) }

// Key returns the 64-bit key of token id. The first call on a dictionary
// built from values (Input.AddValues) makes every key, on the dictionary's
// workers.
func (d *Dictionary) Key(id uint32) uint64 { return d.keyList()[id] }

// keyList returns the keys by id, making them first if the dictionary was
// built from values.
func (d *Dictionary) keyList() []uint64 {
	if d.lazy {
		d.keysOnce.Do(func() {
			keys := make([]uint64, len(d.vals))
			parallel.For(context.Background(), len(keys), 1<<14, d.workers, func(_, lo, hi int) {
				for id, v := range d.vals[lo:hi] {
					keys[lo+id] = d.values.Key(v)
				}
			})
			d.keys, d.vals, d.values = keys, nil, nil
		})
	}
	return d.keys
}

// FirstShared returns the first token id held by two sets or more (Len()
// when none is): the ids below it, the rarest, are each held by one set
// only, so no probe of a join over the dictionary looks them up. Cost: O(1),
// the dictionary stores it.
func (d *Dictionary) FirstShared() uint32 { return uint32(d.ones) }

// DF returns the document frequency of token id over the collections the
// dictionary was built from.
func (d *Dictionary) DF(id uint32) int {
	if int(id) < d.ones {
		return 1
	}
	return int(d.df[int(id)-d.ones])
}

// Lookup returns the id of key, and false when key is not in the dictionary.
// Cost: O(1) expected; the first call builds the dictionary's hash table
// (O(Len()), 16 to 43 bytes a key). Safe for concurrent use.
func (d *Dictionary) Lookup(key uint64) (uint32, bool) {
	d.once.Do(d.index)
	return d.voc.lookup(key)
}

// index builds voc from keys, each shard's keys entered in id order.
func (d *Dictionary) index() {
	var counts [shards]int
	keys := d.keyList()
	for _, k := range keys {
		counts[shardOf(keymap.Hash(k))]++
	}
	d.voc.size(&counts, 0)
	parallel.For(context.Background(), shards, 1, d.workers, func(_, lo, hi int) {
		for id, k := range keys {
			h := keymap.Hash(k)
			if sh := int(shardOf(h)); sh >= lo && sh < hi {
				e, _ := d.voc.tabs[sh].InsertHash(k, h<<shardBits)
				*e = entry(id + 1)
			}
		}
	})
}

// Map appends to dst the ids of the distinct keys of a query set, sorted
// ascending, and returns the extended slice. Keys outside the dictionary get
// ids from Len() upward in order of appearance: they are distinct tokens that
// no indexed set shares, which keeps every bound valid. keys must be
// de-duplicated (as Input.Add would make them).
func (d *Dictionary) Map(dst []uint32, keys []uint64) []uint32 {
	start := len(dst)
	next := uint32(d.Len())
	for _, k := range keys {
		if id, ok := d.Lookup(k); ok {
			dst = append(dst, id)
		} else {
			dst = append(dst, next)
			next++
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// localOrder returns the slot index of every key of t by local id.
func localOrder(t *keymap.Map[entry]) []uint32 {
	at := make([]uint32, t.Len())
	for i, s := range t.Slots() {
		if s.Val.id() != 0 {
			at[s.Val.id()-1] = uint32(i)
		}
	}
	return at
}

// buildDictionary orders the provisional ids rare-first (document frequency
// ascending, ties by shard and then first appearance within it, which the
// provisional ids record) with a counting sort, and returns the dictionary
// and the final id of each provisional id (final[pid]). The vocabulary is
// consumed: each shard's table gives its keys and frequencies by local id
// and is dropped at once, before the dictionary's arrays are made, so that
// the tables (21 to 43 bytes a key) and the dictionary (8 to 12) are never
// held together. The slots are walked in order, on workers goroutines, and
// the per-key arrays by local id are written at random or walked in order,
// so that no step reads at random. Cost: O(V + max df); memory at most
// about what the tables held.
func buildDictionary(v *vocab, workers int) (*Dictionary, []uint32) {
	var keys [shards][]uint64 // by local id
	var df [shards][]uint32   // document frequency by local id
	parallel.For(context.Background(), shards, 1, workers, func(_, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			t := &v.tabs[sh]
			f, ks := make([]uint32, t.Len()), make([]uint64, t.Len())
			for _, s := range t.Slots() {
				if s.Val.id() != 0 {
					f[s.Val.id()-1], ks[s.Val.id()-1] = s.Val.df(), s.Key
				}
			}
			*t = keymap.Map[entry]{}
			df[sh], keys[sh] = f, ks
		}
	})
	*v = vocab{}
	d, final := orderShards(&df, workers)
	d.keys = make([]uint64, d.Len())
	// The keys by id, each shard's dropped once placed.
	parallel.For(context.Background(), shards, 1, workers, func(_, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			f := final[sh]
			for local, k := range keys[sh] {
				d.keys[f[local]] = k
			}
			keys[sh] = nil
		}
	})
	if invariants.Enabled {
		d.check()
	}
	// The final ids by provisional id, in one array (one random access a
	// token in rewriteSets, which it can hint into cache).
	most := 0
	for sh := range final {
		most = max(most, len(final[sh]))
	}
	flat := make([]uint32, most*shards)
	hugepage.Advise(flat) // read at random by rewriteSets
	parallel.For(context.Background(), shards, 1, workers, func(_, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			for local, id := range final[sh] {
				flat[local<<shardBits|sh] = id
			}
			final[sh] = nil
		}
	})
	return d, flat
}

// orderShards makes the dictionary of the document frequencies given by
// shard and local id, and returns it with each key's final id by shard and
// local id (in df's arrays, which it takes over). The dictionary's keys are
// left for the caller to place (Dictionary.keys or vals, by final id), and
// to check the dictionary after.
func orderShards(df *[shards][]uint32, workers int) (*Dictionary, [shards][]uint32) {
	n, m := 0, uint32(0)
	for sh := range df {
		n += len(df[sh])
		for _, f := range df[sh] {
			m = max(m, f)
		}
	}
	final := *df // document frequency by local id, then final id
	start := make([]uint32, m+2)
	for sh := range final {
		for _, f := range final[sh] {
			start[f+1]++
		}
	}
	for f := 1; f < len(start); f++ {
		start[f] += start[f-1]
	}
	// start[f] is now the first id of frequency f: those below start[2]
	// have frequency 1 (every key has 1 or more).
	ones := int(start[min(2, len(start)-1)])
	d := &Dictionary{ones: ones, df: make([]uint32, n-ones), workers: workers}
	for sh := range final {
		for local, f := range final[sh] {
			id := start[f]
			start[f]++
			final[sh][local] = id
			if f > 1 {
				d.df[int(id)-ones] = f
			}
		}
	}
	return d, final
}

// check panics unless the invariants stated on Dictionary's fields hold
// (called under -tags invariants). Cost: O(Len()) lookups.
func (d *Dictionary) check() {
	keys := d.keyList()
	if d.Lookup(0); d.voc.len() != len(keys) || d.ones+len(d.df) != len(keys) {
		panic(fmt.Sprintf("order: dictionary of %d keys, %d+%d frequencies, %d keys in its table", len(keys), d.ones, len(d.df), d.voc.len()))
	}
	for id, key := range keys {
		if got, ok := d.Lookup(key); !ok || int(got) != id {
			panic(fmt.Sprintf("order: dictionary id %d: its key maps to %d (found: %v)", id, got, ok))
		}
	}
	for k, f := range d.df {
		if f < 2 || k > 0 && f < d.df[k-1] {
			panic(fmt.Sprintf("order: dictionary id %d: document frequency %d after %d: not rare first", d.ones+k, f, d.DF(uint32(max(d.ones+k-1, 0)))))
		}
	}
}
