package order

import (
	"context"
	"math"
	"runtime"

	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/parallel"
)

// entry is a vocabulary slot's value, packed in one word so that a probe
// tests a slot with one comparison: a key's document frequency in the high
// half, its local id + 1 in the low half (in order of first appearance
// within the shard; 0 marks an empty slot, see keymap). With the count in
// the slot, a repeated key costs one cache miss, not two; a slot is 16 bytes.
type entry uint64

func (e entry) id() uint32 { return uint32(e) } // local id + 1
func (e entry) df() uint32 { return uint32(e >> 32) }

// shardBits splits the vocabulary into 2^shardBits tables by the top bits of
// a key's hash (the tables place keys by the bits below them), so that batches of
// records can be entered on several cores. The number is fixed, not derived
// from the number of workers, so that provisional ids, and with them the
// order, are the same on every machine.
const (
	shardBits = 3
	shards    = 1 << shardBits
)

// vocab is the sharded key table. A provisional id is local<<shardBits | shard.
// Memory: 16 bytes a slot, 1.33 to 2.67 slots a key (1.9 on average over
// the shards); nothing else a key.
//
// The shards fill at one pace (a key's shard is a few bits of its hash), so
// tables of one length would double all at once, and for a moment hold
// their old slots beside twice as many new ones: 2.5 times the table's
// memory (the Go tree's 4.0M keys: 192 MiB). Shard s's table starts at
// firstSlots·2^(s/shards) slots instead (stagger) and doubles from there, so that the
// tables double one after another, each an eighth of the whole.
type vocab struct {
	tabs  [shards]keymap.Map[entry]
	ready bool // the tables have their hash and first lengths (prepare)
}

// firstSlots is the length of shard 0's table before its first doubling.
const firstSlots = 256

func shardOf(h uint64) uint32 { return uint32(h >> (64 - shardBits)) }

// tabHash places a key in its shard's table: the bits of keymap.Hash below
// those that chose the shard (the table scales its hash to its length, so
// it reads the top bits).
func tabHash(key uint64) uint64 { return keymap.Hash(key) << shardBits }

// stagger returns 2^(s·spread/shards) (s < shards): the ratio of shard s's
// table length to shard 0's when the lengths spread over a factor 2^spread.
func stagger(s int, spread float64) float64 { return math.Exp2(float64(s) * spread / shards) }

// prepare gives the tables their hash and their first, staggered, lengths
// (over a whole doubling), unless they have them.
func (v *vocab) prepare() {
	if v.ready {
		return
	}
	for s := range v.tabs {
		v.tabs[s].InitHash(0, tabHash)
		v.tabs[s].InitSlots(int(firstSlots * stagger(s, 1)))
	}
	v.ready = true
}

// size empties the tables and sizes shard s's for keys[s] keys at three
// quarters full, times stagger(s, spread): with spread 0 exactly (for keys
// known), with spread > 0 with room that grows with s, so that if keys[s]
// falls short the tables double one after another.
func (v *vocab) size(keys *[shards]int, spread float64) {
	for s := range v.tabs {
		v.tabs[s].InitHash(0, tabHash)
		v.tabs[s].InitSlots(int(float64(keys[s]+1) * 4 / 3 * stagger(s, spread)))
	}
	v.ready = true
}

// addHash returns the provisional id of key, whose keymap.Hash is h, adding
// it if new, and adds df to its document frequency.
func (v *vocab) addHash(key, h uint64, df uint32) uint32 {
	s := shardOf(h)
	t := &v.tabs[s]
	e, ok := t.InsertHash(key, h<<shardBits)
	if ok {
		*e += entry(df) << 32
	} else {
		*e = entry(df)<<32 | entry(t.Len())
	}
	return (e.id()-1)<<shardBits | s
}

// add returns the provisional id of key, adding it if new, and counts one
// occurrence. The tables must be prepared.
func (v *vocab) add(key uint64) uint32 { return v.addHash(key, keymap.Hash(key), 1) }

// lookup returns the id stored for key (provisional, or final once the
// dictionary is built).
func (v *vocab) lookup(key uint64) (uint32, bool) {
	h := keymap.Hash(key)
	e, ok := v.tabs[shardOf(h)].FindHash(key, h<<shardBits)
	return e.id() - 1, ok
}

// len returns the number of distinct keys.
func (v *vocab) len() int {
	n := 0
	for s := range v.tabs {
		n += v.tabs[s].Len()
	}
	return n
}

// parallelBatch is the number of keys below which addBatch works alone.
const parallelBatch = 1 << 14

// addBatch enters keys, writing each one's provisional id to the same index
// of ids. With enough keys, each of workers goroutines takes a subset of the
// shards: each reads every key and enters those of its shards, so no two
// goroutines touch one table and the result does not depend on their number.
// As every goroutine hashes every key, it starts no more than can run at
// once (GOMAXPROCS).
func (v *vocab) addBatch(keys []uint64, ids []uint32, workers int) {
	v.prepare()
	workers = min(shards, parallel.Workers(workers), runtime.GOMAXPROCS(0))
	if workers <= 1 || len(keys) < parallelBatch {
		v.enter(keys, ids, 0, 1)
		return
	}
	parallel.For(context.Background(), workers, 1, workers, func(_, g, _ int) {
		v.enter(keys, ids, g, workers)
	})
}

// window is the number of keys enter hashes and hints at a time.
const window = 32

// enter adds the keys of the shards s with s % workers == g. It goes through
// the keys a window at a time, one window ahead: it picks the next window's
// keys of its shards (without a branch, which would mispredict half the
// time) and hints the first slot of each one's probe into cache
// (keymap.Hint), then adds the current window's keys, whose slots were
// hinted a window earlier and are mostly in cache by then. Each key still
// costs its miss, but the misses of a window overlap each other and the
// work on the window before.
func (v *vocab) enter(keys []uint64, ids []uint32, g, workers int) {
	var hs [2][window]uint64 // the hashes of the picked keys of the current and the next window
	var js [2][window]int32  // their indexes within the window
	var ns [2]int            // how many were picked
	pick := func(b, lo int) {
		n := 0
		for j, k := range keys[lo:min(lo+window, len(keys))] {
			h := keymap.Hash(k)
			hs[b][n&(window-1)], js[b][n&(window-1)] = h, int32(j)
			if int(shardOf(h))%workers == g {
				n++
			}
		}
		ns[b] = n
		for _, h := range hs[b][:n] {
			v.tabs[shardOf(h)].Hint(h << shardBits)
		}
	}
	pick(0, 0)
	for lo, b := 0, 0; lo < len(keys); lo, b = lo+window, b^1 {
		if lo+window < len(keys) {
			pick(b^1, lo+window)
		}
		for i, h := range hs[b][:ns[b]] {
			j := lo + int(js[b][i])
			ids[j] = v.addHash(keys[j], h, 1)
		}
	}
}
