package keymap

import (
	"math/rand/v2"
	"testing"
)

type pair struct{ a, b uint32 }

// TestAgainstMap inserts, updates and finds keys drawn from small and large
// universes (so that probe runs wrap and the table grows many times) and
// checks every answer against the runtime's map, then walks Slots.
func TestAgainstMap(t *testing.T) {
	seed := uint64(11)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	// A hash of its own that clusters keys (every 8 consecutive keys
	// share a home) makes long probe runs that wrap around the table.
	clump := func(k uint64) uint64 { return k >> 3 }
	for _, universe := range []uint64{1, 7, 1000, 1 << 40} {
		for _, sized := range []bool{false, true} {
			for _, own := range []func(uint64) uint64{nil, clump} {
				var m Map[pair]
				if own != nil {
					m.InitHash(16, own)
				}
				if sized {
					m.Init(500)
				}
				mul := uint64(0x9e3779b97f4a7c15)
				if own != nil {
					mul = 1
				}
				want := map[uint64]pair{}
				for range 20000 {
					k := r.Uint64N(universe) * mul // 0 included
					v, ok := m.Insert(k)
					w, wok := want[k]
					if ok != wok || *v != w {
						t.Fatalf("universe %d: Insert(%d) = %v, %v; want %v, %v", universe, k, *v, ok, w, wok)
					}
					if !ok {
						*v = pair{uint32(len(want)) + 1, 0}
					}
					v.b++
					want[k] = *v
					if m.Len() != len(want) {
						t.Fatalf("Len %d, want %d", m.Len(), len(want))
					}
					q := r.Uint64N(universe) * mul
					got, gok := m.Find(q)
					w, wok = want[q]
					if got != w || gok != wok {
						t.Fatalf("Find(%d) = %v, %v; want %v, %v", q, got, gok, w, wok)
					}
					if 4*m.Len() > 3*len(m.Slots()) {
						t.Fatalf("%d keys in %d slots: over three quarters full", m.Len(), len(m.Slots()))
					}
				}
				n := 0
				for _, s := range m.Slots() {
					if s.Val == (pair{}) {
						continue
					}
					n++
					if want[s.Key] != s.Val {
						t.Fatalf("slot of %d holds %v, want %v", s.Key, s.Val, want[s.Key])
					}
				}
				if n != len(want) {
					t.Fatalf("Slots holds %d keys, want %d", n, len(want))
				}
			}
		}
	}
}

// TestEmpty checks the zero Map and Peek on it.
func TestEmpty(t *testing.T) {
	var m Map[uint32]
	if _, ok := m.Find(3); ok || m.Len() != 0 || m.Peek(Hash(3)) != 0 {
		t.Fatal("zero Map not empty")
	}
	v, _ := m.Insert(3)
	*v = 9
	if m.Peek(Hash(3)) != 3 {
		t.Fatal("Peek does not read the key's first slot")
	}
}

// TestInitSlots checks maps of lengths that are not powers of two (as the
// order's vocabulary makes them): every answer against the runtime's map
// while they fill and double, and every key at its Home or after it with no
// empty slot between (wrapping past the end).
func TestInitSlots(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 0))
	for _, slots := range []int{4, 5, 100, 777, 1000} {
		var m Map[uint32]
		m.InitSlots(slots)
		if len(m.Slots()) != slots {
			t.Fatalf("InitSlots(%d): %d slots", slots, len(m.Slots()))
		}
		want := map[uint64]uint32{}
		for range 5000 {
			k := r.Uint64N(3000) * 0x9e3779b97f4a7c15
			v, ok := m.Insert(k)
			if _, wok := want[k]; ok != wok {
				t.Fatalf("%d slots: Insert(%d) found %v, want %v", slots, k, ok, wok)
			}
			*v++
			want[k] = *v
		}
		for k, w := range want {
			if got, ok := m.Find(k); !ok || got != w {
				t.Fatalf("%d slots: Find(%d) = %d, %v; want %d", slots, k, got, ok, w)
			}
		}
		s := m.Slots()
		for i, sl := range s {
			if sl.Val == 0 {
				continue
			}
			for j := m.Home(Hash(sl.Key)); j != i; j = (j + 1) % len(s) {
				if s[j].Val == 0 {
					t.Fatalf("%d slots: key %d at slot %d, its home %d, an empty slot %d between", len(s), sl.Key, i, m.Home(Hash(sl.Key)), j)
				}
			}
		}
	}
}
