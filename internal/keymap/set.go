package keymap

import "github.com/simjoin/simjoin/internal/mix"

// Set is a set of uint64 keys by open addressing with linear probing, as Map
// is, but a slot is the key alone (8 bytes, not a key and a value): 0 marks
// a free slot and the key 0 is held aside. It is kept at most half full, so
// that a large set (the distinct keys of a long record) costs 16 to 32 bytes
// a key. The zero value is an empty set ready for use. A Set is not safe for
// concurrent use.
type Set struct {
	slots   []uint64 // len a power of two (or 0); at most half hold a key
	n       int      // slots holding a key
	hasZero bool     // the key 0, which no slot can hold
}

// Add adds k. Cost: O(1) expected, amortised over doublings.
func (s *Set) Add(k uint64) {
	if k == 0 {
		s.hasZero = true
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix.Mix64(k) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return
		case 0:
			s.slots[i] = k
			s.n++
			return
		}
	}
}

// Len returns the number of keys held.
func (s *Set) Len() int {
	if s.hasZero {
		return s.n + 1
	}
	return s.n
}

func (s *Set) grow() {
	old := s.slots
	s.slots = make([]uint64, max(2*len(old), 1<<10))
	s.n = 0
	for _, k := range old {
		if k != 0 {
			s.Add(k)
		}
	}
}

// Drain appends the keys of s to dst, in no particular order (that of the
// slots, which depends on the keys alone), returns the extended slice, and
// empties s, keeping its slots for the keys of its next use (emptied on the
// same walk over them).
func (s *Set) Drain(dst []uint64) []uint64 {
	if s.hasZero {
		dst = append(dst, 0)
	}
	for i, k := range s.slots {
		if k != 0 {
			dst = append(dst, k)
			s.slots[i] = 0
		}
	}
	s.n, s.hasZero = 0, false
	return dst
}
