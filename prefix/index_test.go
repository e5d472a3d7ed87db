package prefix_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// TestIndex checks NewIndex against a map of postings: every prefix token
// of every record is listed once under its token, in ascending record
// order, with its position; tokens outside the vocabulary have no postings.
func TestIndex(t *testing.T) {
	seed := uint64(9)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	const vocab = 50
	sets := make([][]uint32, 200)
	for i := range sets {
		s := make([]uint32, 0, 10)
		for range 1 + r.IntN(10) {
			s = append(s, uint32(r.IntN(vocab)))
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	plen := func(rec int) int { return (len(sets[rec]) + 1) / 2 }
	ix := prefix.NewIndex(len(sets), vocab, func(rec int) []uint32 { return sets[rec] },
		func(size int) int { return (size + 1) / 2 })
	want := map[uint32][]prefix.Posting{}
	total := 0
	for rec, s := range sets {
		for pos, w := range s[:plen(rec)] {
			want[w] = append(want[w], prefix.Posting{Rec: uint32(rec), Pos: uint32(pos), Size: uint32(len(s))})
			total++
		}
	}
	if ix.Len() != total {
		t.Errorf("Len() = %d, want %d", ix.Len(), total)
	}
	lengths := prefix.CountPrefixes(len(sets), vocab, func(rec int) []uint32 { return sets[rec] },
		func(size int) int { return (size + 1) / 2 })
	for w := uint32(0); w < vocab; w++ {
		if got := ix.Postings(w); !slices.Equal(got, want[w]) {
			t.Fatalf("Postings(%d) = %v, want %v", w, got, want[w])
		}
		if lengths.Len(w) != len(want[w]) {
			t.Fatalf("Lengths.Len(%d) = %d, want %d", w, lengths.Len(w), len(want[w]))
		}
	}
	if from := lengths.Index(); from.Len() != ix.Len() || !slices.Equal(from.Postings(7), ix.Postings(7)) {
		t.Errorf("Lengths.Index: %d postings, want %d", from.Len(), ix.Len())
	}
	for _, w := range []uint32{vocab, vocab + 1, 1 << 31} {
		if got := ix.Postings(w); got != nil {
			t.Errorf("Postings(%d) outside the vocabulary = %v, want nil", w, got)
		}
	}
	if empty := prefix.NewIndex(0, 0, nil, nil); empty.Len() != 0 || empty.Postings(0) != nil {
		t.Errorf("empty index: Len %d, Postings(0) %v", empty.Len(), empty.Postings(0))
	}
}
