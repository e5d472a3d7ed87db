package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// plantedPairs returns n base sets of size k over disjoint tokens and for each
// a variant sharing exactly o tokens with it: Jaccard o/(2k-o).
func plantedPairs(r *rand.Rand, n, k, o int) (bases, variants [][]uint32) {
	next := uint32(0)
	fresh := func() uint32 { next++; return next + uint32(r.IntN(1<<20))<<8 }
	for i := 0; i < n; i++ {
		b := make([]uint32, k)
		for j := range b {
			b[j] = fresh()
		}
		v := append([]uint32{}, b[:o]...)
		for len(v) < k {
			v = append(v, fresh())
		}
		bases, variants = append(bases, distinct(b)), append(variants, distinct(v))
	}
	return
}

// TestLSHRecall checks, for every stored bit width, with and without raw
// sets, that search-before-insert flags a planted near-duplicate at least as
// often as the S-curve says (less a 4.5-sigma binomial margin) and never
// flags a pair below the threshold when the sets are kept.
func TestLSHRecall(t *testing.T) {
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	ctx := context.Background()
	const n, k = 150, 40
	for _, bits := range []int{8, 16, 32, 64} {
		for _, raw := range []bool{true, false} {
			for _, o := range []int{30, 36} { // J = 0.6, 0.818
				name := fmt.Sprintf("bits=%d/raw=%v/J=%d-%d", bits, raw, o, 2*k-o)
				t.Run(name, func(t *testing.T) {
					cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
						Perm: 64, Bands: 16, Bits: bits, Seed: seed, RawSets: raw}
					ix, _ := mustCreate(t, cfg)
					defer ix.Close()
					bases, variants := plantedPairs(r, n, k, o)
					thr := prefix.Threshold{Num: 1, Den: 2}
					var texts [][]byte
					for _, b := range bases {
						texts = append(texts, textOf(b))
					}
					if _, err := ix.Insert(ctx, texts, prefix.Threshold{}); err != nil {
						t.Fatal(err)
					}
					texts = texts[:0]
					for _, v := range variants {
						texts = append(texts, textOf(v))
					}
					got, err := ix.Insert(ctx, texts, thr)
					if err != nil {
						t.Fatal(err)
					}
					j := float64(o) / float64(2*k-o)
					found := 0
					for i, g := range got {
						if g.Inserted {
							continue
						}
						if g.ID != ID(i)+1 {
							t.Fatalf("variant %d flagged as a duplicate of %d", i, g.ID)
						}
						if g.Estimated == raw {
							t.Fatalf("Estimated = %v with raw sets %v", g.Estimated, raw)
						}
						if raw && math.Abs(g.Sim-j) > 1e-12 {
							t.Fatalf("exact similarity %v, want %v", g.Sim, j)
						}
						found++
					}
					p := approx.SCurve(j, 16, 4)
					if !raw {
						// Without sets the estimate must also reach the threshold:
						// P(found) is lower; only check the estimate's sanity.
						p *= 0.5
					}
					margin := 4.5*math.Sqrt(p*(1-p)/n) + 3.0/n // a few misses allowed where p is near 1 (one-permutation minima are not independent)
					if rate := float64(found) / n; rate < p-margin {
						t.Fatalf("found %d of %d planted duplicates (%.3f), the S-curve promises %.3f (margin %.3f)", found, n, rate, p, margin)
					}
					t.Logf("found %d of %d, S-curve %.3f", found, n, p)
				})
			}
		}
	}
}
