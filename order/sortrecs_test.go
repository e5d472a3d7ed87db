package order

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRecs checks sortRecs against a comparison sort by (hash, idx) on
// runs of every length up to a few hundred and some large ones, with hashes
// even, repeated (identical sets) and crowded into one bucket (all sharing
// their top bits), so that every branch of it runs.
func TestSortRecs(t *testing.T) {
	seed := uint64(5)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	gens := map[string]func() uint64{
		"even":     r.Uint64,
		"repeated": func() uint64 { return r.Uint64N(4) * 0x9e3779b97f4a7c15 },
		"crowded":  func() uint64 { return r.Uint64N(1 << 40) },
	}
	var scratch []rec
	for name, gen := range gens {
		for _, n := range append([]int{0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 257, 1000}, 20000) {
			recs := make([]rec, n)
			for i := range recs {
				recs[i] = rec{hash: gen(), idx: uint32(3 * i)}
			}
			want := slices.Clone(recs)
			slices.SortFunc(want, func(a, b rec) int {
				if c := cmp.Compare(a.hash, b.hash); c != 0 {
					return c
				}
				return cmp.Compare(a.idx, b.idx)
			})
			scratch = sortRecs(recs, scratch)
			if !slices.Equal(recs, want) {
				t.Fatalf("%s hashes, %d records: sortRecs differs from the sort by (hash, idx)", name, n)
			}
		}
	}
}
