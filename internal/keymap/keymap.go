// Package keymap is the project's open addressing: Map, a hash table from
// 64-bit keys to small fixed-size values, with linear probing over a
// array of slots kept at most three quarters full (Knuth, The
// Art of Computer Programming vol. 3, 6.4, algorithm L), and Set, the same
// probing over slots that hold the key alone. The vocabulary of the order
// (key to provisional id and document frequency), the ℓ-prefix key index of
// the joins and the password list use Map; the tokenizer's set of a long
// record's distinct keys uses Set. (The persistent index's dictionary keeps
// a table in its file's own layout, two arrays mapped from disk, which
// neither wraps; and its searches mark the rows they meet in a small table
// of 32-bit rows stamped with the query's generation, emptied by a new
// stamp rather than cleared, which neither Map nor Set could do without a
// stamp in every slot of every table.)
//
// Against the runtime's map it saves a second hash and most of the per-entry
// overhead: a slot is the key beside its value, so a lookup of a present key
// costs one cache miss. A key's probe starts at its hash scaled to the
// table's length, h·len/2⁶⁴ (the high half of one multiplication, Lemire's
// "fast alternative to the modulo reduction"), so that a table may have any
// length, not only a power of two, and a key's home depends on the hash's
// top bits: by default Hash (mix.Mix64, one mixing step, which spreads even
// packed q-gram keys); a map may be given a cheaper function that suits its
// keys (the ℓ-prefix index's packed id pairs take one multiplication), which
// callers on a hot path compute inline and pass to the *Hash methods. What
// it does not do: delete, iterate in insertion order, or hold values that
// may be zero.
//
// A slot is empty while its value is the zero value of V: the caller stores
// only non-zero values (an id + 1, a non-empty run). That keeps a slot as
// small as the key and value, with no flag beside them.
package keymap

import (
	"math/bits"

	"github.com/simjoin/simjoin/internal/hugepage"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/prefetch"
)

// Hash is the default hash keys are placed by: mix.Mix64. Callers that need
// it for something else too (choosing a shard) pass it to the *Hash methods,
// so it is computed once.
func Hash(key uint64) uint64 { return mix.Mix64(key) }

// Slot is one slot of the table: a key and its value, or empty when Val is
// the zero value.
type Slot[V comparable] struct {
	Key uint64
	Val V
}

// Map maps uint64 keys to non-zero values of V. The zero value is an empty
// map ready for use. A Map is not safe for concurrent mutation; concurrent
// Find calls on a map no one mutates are safe.
//
// Memory: one Slot (8 bytes plus V, padded) per slot, 1.33 to 2.67 slots a
// key after growth, 1.33 or more when sized with Init or InitSlots.
type Map[V comparable] struct {
	slots []Slot[V] // any length (0 when unused); at most 3/4 hold a value
	n     int       // slots holding a value
	// hash places keys: a key is in the slots from home(hash(key)) onward,
	// wrapping, with no empty slot between. nil means Hash.
	hash func(uint64) uint64
}

// home returns the first slot of the probe of a key whose hash is h:
// h·len(slots)/2⁶⁴, in [0, len(slots)).
func (m *Map[V]) home(h uint64) uint64 {
	i, _ := bits.Mul64(h, uint64(len(m.slots)))
	return i
}

// Home returns the slot a key whose hash is h is placed from (the first of
// its probe), for a check that a key sits where a lookup finds it. It panics
// on an empty map.
func (m *Map[V]) Home(h uint64) int { return int(m.home(h)) }

// Init empties m and sizes it for capacity keys without growing (a power of
// two of at least 16 slots), keeping its hash function. Cost: O(capacity)
// to allocate and clear.
func (m *Map[V]) Init(capacity int) {
	n := 16
	for 3*n < 4*capacity {
		n *= 2
	}
	m.InitSlots(n)
}

// InitSlots empties m and gives it exactly slots slots (at least 4),
// keeping its hash function: a map sized to its keys without rounding up,
// or tables whose lengths differ so that they do not all grow at once (the
// order's vocabulary). It holds up to three quarters of slots keys before
// it doubles. Cost: O(slots) to allocate and clear.
func (m *Map[V]) InitSlots(slots int) {
	m.slots = make([]Slot[V], max(slots, 4))
	hugepage.Advise(m.slots)
	m.n = 0
}

// Len returns the number of keys held.
func (m *Map[V]) Len() int { return m.n }

// InitHash is Init for an empty map that places keys by hash (nil: Hash)
// instead of Hash. Every h given to the *Hash methods must then be
// hash(key).
func (m *Map[V]) InitHash(capacity int, hash func(uint64) uint64) {
	m.hash = hash
	m.Init(capacity)
}

// hashOf returns the hash key is placed by.
func (m *Map[V]) hashOf(key uint64) uint64 {
	if m.hash != nil {
		return m.hash(key)
	}
	return Hash(key)
}

// Slots returns the slot array, empty slots included, for a walk over every
// key (in slot order, which depends on the keys alone) or an update of the
// values in place. The caller must keep a non-zero value non-zero and must
// not change keys. The slice aliases the map until its next insertion.
func (m *Map[V]) Slots() []Slot[V] { return m.slots }

// Insert returns a pointer to key's value and whether the key was present.
// When it was not, the key now holds a slot whose value is zero and the
// caller must store a non-zero value through the pointer before any other
// call on m. The pointer is valid until the next insertion. Cost: O(1)
// expected, amortised over doublings.
func (m *Map[V]) Insert(key uint64) (*V, bool) { return m.InsertHash(key, m.hashOf(key)) }

// InsertHash is Insert for a key whose hash (Hash, or the map's own) is h.
func (m *Map[V]) InsertHash(key, h uint64) (*V, bool) {
	var zero V
	if 4*(m.n+1) > 3*len(m.slots) {
		m.grow()
	}
	i, n := m.home(h), uint64(len(m.slots))
	for {
		s := &m.slots[i]
		if s.Val == zero {
			s.Key = key
			m.n++
			return &s.Val, false
		}
		if s.Key == key {
			return &s.Val, true
		}
		if i++; i == n {
			i = 0
		}
	}
}

// Find returns key's value and whether it is present. Cost: O(1) expected.
func (m *Map[V]) Find(key uint64) (V, bool) { return m.FindHash(key, m.hashOf(key)) }

// FindHash is Find for a key whose hash (Hash, or the map's own) is h.
func (m *Map[V]) FindHash(key, h uint64) (V, bool) {
	var zero V
	if len(m.slots) == 0 {
		return zero, false
	}
	i, n := m.home(h), uint64(len(m.slots))
	for {
		s := &m.slots[i]
		if s.Val == zero {
			return zero, false
		}
		if s.Key == key {
			return s.Val, true
		}
		if i++; i == n {
			i = 0
		}
	}
}

// Peek returns the key held in the first slot of the probe of a key whose
// hash is h (0 for an empty map). It changes nothing: a caller entering many
// keys reads the slots of the next few before inserting them (as the order's
// vocabulary does), so that their cache misses overlap instead of coming one
// after another.
func (m *Map[V]) Peek(h uint64) uint64 {
	if len(m.slots) == 0 {
		return 0
	}
	return m.slots[m.home(h)].Key
}

// Hint asks the processor to bring the first slot of the probe of a key
// whose hash is h into cache (internal/prefetch): a caller about to look up
// or enter many keys hints the next few while it works on the current ones,
// so that their cache misses overlap its work. Unlike Peek, it does not
// wait for the slot. It changes nothing.
func (m *Map[V]) Hint(h uint64) {
	if len(m.slots) > 0 {
		prefetch.At(m.slots, int(m.home(h)))
	}
}

// grow doubles the table (to 256 slots at least). It walks the old slots in
// order, not in insertion order: a key's home is its hash scaled to the
// length, so an entry at slot i moves to about slot 2i (give or take its
// probe run) and the writes advance through the new slots instead of going
// to random places, which on large tables saves most of the cache misses of
// rehashing.
func (m *Map[V]) grow() {
	var zero V
	old, n := m.slots, m.n
	m.InitSlots(max(2*len(old), 256))
	size := uint64(len(m.slots))
	for _, s := range old {
		if s.Val == zero {
			continue
		}
		i := m.home(m.hashOf(s.Key))
		for m.slots[i].Val != zero {
			if i++; i == size {
				i = 0
			}
		}
		m.slots[i] = s
	}
	m.n = n
}
