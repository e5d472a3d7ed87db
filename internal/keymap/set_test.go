package keymap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSetAgainstMap adds random keys, repeats and the key 0 to a Set and to
// the runtime's map, through several doublings, and checks that both hold
// the same keys.
func TestSetAgainstMap(t *testing.T) {
	seed := uint64(5)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	var s Set
	want := map[uint64]bool{}
	for i := range 20_000 {
		k := r.Uint64N(15_000) * 0x9e3779b97f4a7c15 // repeats, spread
		if i%1000 == 0 {
			k = 0
		}
		s.Add(k)
		want[k] = true
	}
	if s.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", s.Len(), len(want))
	}
	got := s.Drain(nil)
	if len(got) != len(want) {
		t.Fatalf("Drain gave %d keys, want %d", len(got), len(want))
	}
	if s.Len() != 0 || len(s.Drain(nil)) != 0 {
		t.Fatalf("Drain left %d keys", s.Len())
	}
	s.Add(7)
	if again := s.Drain(nil); !slices.Equal(again, []uint64{7}) {
		t.Fatalf("a drained Set given 7 holds %v", again)
	}
	slices.Sort(got)
	for i, k := range got {
		if !want[k] || i > 0 && got[i-1] == k {
			t.Fatalf("Drain gave key %#x, not added or twice", k)
		}
	}
	var empty Set
	if empty.Len() != 0 || len(empty.Drain(nil)) != 0 {
		t.Error("the zero Set is not empty")
	}
}
