package order

import (
	"context"
	"runtime"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
)

// table maps 64-bit token keys to local ids (in order of first appearance)
// and counts each key's document frequency. It is an open-addressing hash
// table with linear probing over a power-of-two array, kept at most three
// quarters full. Against the runtime's map it saves a second hash and most of
// the per-entry overhead: keys from the shingle package are already hashes,
// so one mixing step spreads even packed q-gram keys.
//
// A slot holds the key beside its id, so a lookup costs one cache miss.
// Memory: 16 bytes a slot (1.3 to 2.7 slots a key) plus 12 bytes a key.
type table struct {
	slots []slot
	mask  uint64
	keys  []uint64 // by local id
	df    []uint32 // by local id
}

type slot struct {
	key uint64
	id  uint32 // id + 1; 0 is empty
}

func (t *table) init(capacity int) {
	n := 16
	for 3*n < 4*capacity {
		n *= 2
	}
	t.slots = make([]slot, n)
	t.mask = uint64(n - 1)
}

// add returns the local id of key, whose mixed hash is h, adding it if new,
// and adds df to its document frequency.
func (t *table) add(key, h uint64, df uint32) uint32 {
	if 4*(len(t.keys)+1) > 3*len(t.slots) {
		t.grow()
	}
	i := h & t.mask
	for {
		s := &t.slots[i]
		if s.id == 0 {
			id := uint32(len(t.keys))
			*s = slot{key, id + 1}
			t.keys = append(t.keys, key)
			t.df = append(t.df, df)
			return id
		}
		if s.key == key {
			t.df[s.id-1] += df
			return s.id - 1
		}
		i = (i + 1) & t.mask
	}
}

// lookup returns the id of key, whose mixed hash is h, and whether it is present.
func (t *table) lookup(key, h uint64) (uint32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	i := h & t.mask
	for {
		s := &t.slots[i]
		if s.id == 0 {
			return 0, false
		}
		if s.key == key {
			return s.id - 1, true
		}
		i = (i + 1) & t.mask
	}
}

// grow doubles the table. It walks the old slots in order, not the keys:
// an entry at slot i moves to slot i or i + old size (give or take its probe
// run), so the writes go to two advancing streams instead of random places,
// which on large tables saves most of the cache misses of rehashing.
func (t *table) grow() {
	old := t.slots
	t.init(max(2*len(t.keys), 256))
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := mix.Mix64(s.key) & t.mask
		for t.slots[i].id != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = s
	}
}

// shardBits splits the vocabulary into 2^shardBits tables by the top bits of
// a key's mixed hash (the tables index by the low bits), so that batches of
// records can be entered on all cores. The number is fixed, not derived from
// the number of cores, so that provisional ids, and with them the order, are
// the same on every machine.
const (
	shardBits = 3
	shards    = 1 << shardBits
)

// vocab is the sharded key table. A provisional id is local<<shardBits | shard.
type vocab struct {
	tabs [shards]table
}

func shardOf(h uint64) uint32 { return uint32(h >> (64 - shardBits)) }

// add returns the provisional id of key, adding it if new, and counts one
// occurrence.
func (v *vocab) add(key uint64) uint32 {
	h := mix.Mix64(key)
	s := shardOf(h)
	return v.tabs[s].add(key, h, 1)<<shardBits | s
}

// lookup returns the id stored for key (provisional, or final once the
// dictionary is built).
func (v *vocab) lookup(key uint64) (uint32, bool) {
	h := mix.Mix64(key)
	return v.tabs[shardOf(h)].lookup(key, h)
}

// len returns the number of distinct keys.
func (v *vocab) len() int {
	n := 0
	for s := range v.tabs {
		n += len(v.tabs[s].keys)
	}
	return n
}

// parallelBatch is the number of keys below which addBatch works alone.
const parallelBatch = 1 << 14

// addBatch enters keys, writing each one's provisional id to the same index
// of ids. With enough keys, one goroutine per core takes a subset of the
// shards: each reads every key and enters those of its shards, so no two
// goroutines touch one table and the result does not depend on their number.
func (v *vocab) addBatch(keys []uint64, ids []uint32) {
	workers := min(shards, runtime.GOMAXPROCS(0))
	if workers <= 1 || len(keys) < parallelBatch {
		for j, k := range keys {
			ids[j] = v.add(k)
		}
		return
	}
	parallel.For(context.Background(), workers, 1, workers, func(_, g, _ int) {
		for j, k := range keys {
			h := mix.Mix64(k)
			s := shardOf(h)
			if int(s)%workers == g {
				ids[j] = v.tabs[s].add(k, h, 1)<<shardBits | s
			}
		}
	})
}
