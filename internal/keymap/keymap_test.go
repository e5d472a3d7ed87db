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
	for _, universe := range []uint64{1, 7, 1000, 1 << 40} {
		for _, sized := range []bool{false, true} {
			var m Map[pair]
			if sized {
				m.Init(500)
			}
			want := map[uint64]pair{}
			for range 20000 {
				k := r.Uint64N(universe) * 0x9e3779b97f4a7c15 // 0 included
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
				q := r.Uint64N(universe) * 0x9e3779b97f4a7c15
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
