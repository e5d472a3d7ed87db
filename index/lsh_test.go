package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
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

// TestLSHTopKMinThreshold: an LSH top-k search, like an exact one, answers
// only records at or above the index's minimum threshold. With 64 bands of
// one row a record at similarity 1/9 shares a band with the query (with
// probability 1 - (8/9)^64, and surely for this seed); it is left out, with
// raw sets by its exact similarity, without by its estimate.
func TestLSHTopKMinThreshold(t *testing.T) {
	ctx := context.Background()
	for _, raw := range []bool{true, false} {
		cfg := Config{Tokens: shingle.Spec{Kind: shingle.Words}, Method: LSH, Measure: prefix.Jaccard,
			MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Perm: 64, Bands: 64, Rows: 1, RawSets: raw}
		ix, _ := mustCreate(t, cfg)
		if _, err := ix.Insert(ctx, [][]byte{[]byte("a b c d e")}, prefix.Threshold{}); err != nil {
			t.Fatal(err)
		}
		far, near := []byte("a f g h i"), []byte("a b c d f")
		res, err := ix.Search(ctx, [][]byte{far, near}, SearchOptions{TopK: 5, RefineK: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(res[0]) != 0 || len(res[1]) != 1 || res[1][0].ID != 1 {
			t.Errorf("raw sets %v: top-5 of a record at 1/9 and one at 2/3 with minimum 1/2: %v", raw, res)
		}
		ix.Close()
	}
}

// TestBloomFPP: a band filter answers yes for every key added, and for
// keys never added at most about as often as the probability it was sized
// for (1.5 times it, over 200,000 lookups; and at least 1/1.5 of it for
// many keys, where the blocks are not rounded up), whatever the number of
// keys.
func TestBloomFPP(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, fpp := range []float64{MinBloomFPP, DefaultBloomFPP, MaxBloomFPP} {
		for _, n := range []int{1, 100, 20000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64()
			}
			f := buildBlooms(1, n, fpp, func(_, r int) uint64 { return keys[r] })
			for _, k := range keys {
				if !bloomHas(f, k) {
					t.Fatalf("fpp %v, %d keys: a key added is not found", fpp, n)
				}
			}
			const probes = 200000
			fp := 0
			for range probes {
				if bloomHas(f, r.Uint64()) {
					fp++
				}
			}
			got := float64(fp) / probes
			if n >= 100 && got > 1.5*fpp || n >= 20000 && got < fpp/1.5 {
				t.Errorf("fpp %v, %d keys (%d bytes): %.5f of the keys not added pass", fpp, n, 4*len(f), got)
			}
			t.Logf("fpp %v, %d keys: %d bytes (%.1f bits a key), measured %.5f", fpp, n, 4*len(f), float64(32*len(f))/float64(n), got)
		}
	}
}

// TestBloomSkips: the band filters make a search skip the band tables of
// segments that cannot hold its keys (a lookup counter), and change no
// answer: the same index without filters answers every query the same.
func TestBloomSkips(t *testing.T) {
	smallCheckpoints(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	var recs, queries [][]byte
	for i := range 300 {
		s := distinct([]uint32{uint32(r.IntN(500)), uint32(r.IntN(500)), uint32(r.IntN(500)), uint32(r.IntN(500)), uint32(r.IntN(500))})
		recs = append(recs, textOf(s))
		if i%3 == 0 {
			queries = append(queries, textOf(s))
		}
	}
	var answers [2][][]Hit
	var looked [2]int64
	var lookups atomic.Int64
	countBuckets = &lookups
	defer func() { countBuckets = nil }()
	for k, fpp := range []float64{DefaultBloomFPP, NoBloom} {
		cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
			MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Perm: 32, Bands: 16, Rows: 2, RawSets: true, BloomFPP: fpp}
		ix, _ := mustCreate(t, cfg)
		for i := 0; i < len(recs); i += 20 {
			if _, err := ix.Insert(ctx, recs[i:i+20], prefix.Threshold{}); err != nil {
				t.Fatal(err)
			}
		}
		if ix.Stats().Segments < 3 {
			t.Fatalf("%d segments", ix.Stats().Segments)
		}
		before := lookups.Load()
		res, err := ix.Search(ctx, queries, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}})
		if err != nil {
			t.Fatal(err)
		}
		looked[k] = lookups.Load() - before
		answers[k] = res
		ix.Close()
	}
	if fmt.Sprint(answers[0]) != fmt.Sprint(answers[1]) {
		t.Errorf("with band filters the answers differ")
	}
	if looked[0]*2 > looked[1] {
		t.Errorf("band table lookups: %d with filters, %d without", looked[0], looked[1])
	}
	t.Logf("band table lookups: %d with filters, %d without", looked[0], looked[1])
}

// TestEstimateSearch: a search with Estimate on an LSH index with raw sets
// answers from the signatures alone, exactly as the same index without raw
// sets (same seed and banding, so the same signatures) answers, by
// threshold and by top-k; without Estimate its similarities are exact; an
// exact index refuses Estimate.
func TestEstimateSearch(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	var recs [][]byte
	for range 200 {
		recs = append(recs, textOf(distinct([]uint32{uint32(r.IntN(60)), uint32(r.IntN(60)), uint32(r.IntN(60)), uint32(r.IntN(60)), uint32(r.IntN(60)), uint32(r.IntN(60))})))
	}
	var ixs [2]*Index
	for k, raw := range []bool{true, false} {
		cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
			MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Perm: 64, Bands: 16, Rows: 2, RawSets: raw, Seed: 9}
		ixs[k], _ = mustCreate(t, cfg)
		defer ixs[k].Close()
		if _, err := ixs[k].Insert(ctx, recs, prefix.Threshold{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, opt := range []SearchOptions{{Threshold: prefix.Threshold{Num: 1, Den: 2}}, {TopK: 3, RefineK: 12}} {
		est := opt
		est.Estimate = true
		a, err := ixs[0].Search(ctx, recs[:50], est)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ixs[1].Search(ctx, recs[:50], opt)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%+v: estimates on the index with raw sets differ from the index without", opt)
		}
		exact, err := ixs[0].Search(ctx, recs[:50], opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, hits := range exact {
			for _, h := range hits {
				if h.Estimated {
					t.Fatalf("%+v: an estimate without Estimate: %+v", opt, h)
				}
			}
		}
	}
	ex, _ := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	defer ex.Close()
	var oe *OptionError
	if err := ex.ValidateSearch(SearchOptions{TopK: 1, Estimate: true}); !errors.As(err, &oe) || oe.Option != "Estimate" {
		t.Errorf("Estimate of an exact index: %v", err)
	}
}

// TestBatchLookups: a search whose queries share their band lookups
// (batchLookups) answers each query as one searched alone does, over
// several segments with deleted records, with and without band filters,
// by threshold and top-k, with repeated and empty queries among them.
func TestBatchLookups(t *testing.T) {
	smallCheckpoints(t)
	ctx := context.Background()
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	var recs [][]byte
	for range 417 {
		recs = append(recs, textOf(distinct([]uint32{uint32(r.IntN(80)), uint32(r.IntN(80)), uint32(r.IntN(80)), uint32(r.IntN(80)), uint32(r.IntN(80))})))
	}
	queries := append(slices.Clone(recs[:60]), recs[5], []byte(""), recs[7], recs[410])
	for _, fpp := range []float64{DefaultBloomFPP, NoBloom} {
		cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
			MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Perm: 48, Bands: 16, Rows: 3, RawSets: true, BloomFPP: fpp}
		ix, _ := mustCreate(t, cfg)
		for i := 0; i < 400; i += 25 {
			if _, err := ix.Insert(ctx, recs[i:i+25], prefix.Threshold{}); err != nil {
				t.Fatal(err)
			}
		}
		// 17 more: a segment of its own, after the 400's.
		if _, err := ix.Insert(ctx, recs[400:], prefix.Threshold{}); err != nil {
			t.Fatal(err)
		}
		ix.Delete([]ID{3, 50, 200, 399, 405})
		if ix.Stats().Segments < 2 {
			t.Fatalf("%d segments", ix.Stats().Segments)
		}
		for _, opt := range []SearchOptions{{Threshold: prefix.Threshold{Num: 1, Den: 2}}, {TopK: 4, RefineK: 20}} {
			old := batchLookups
			batchLookups = 1
			shared, err := ix.Search(ctx, queries, opt)
			batchLookups = 1 << 30
			alone, err2 := ix.Search(ctx, queries, opt)
			batchLookups = old
			if err != nil || err2 != nil {
				t.Fatal(err, err2)
			}
			if fmt.Sprint(shared) != fmt.Sprint(alone) {
				for i := range queries {
					if fmt.Sprint(shared[i]) != fmt.Sprint(alone[i]) {
						t.Fatalf("fpp %v, %+v, query %d: shared lookups %v, alone %v", fpp, opt, i, shared[i], alone[i])
					}
				}
			}
		}
		ix.Close()
	}
}

// TestGallop checks gallop against a linear scan on tables with runs.
func TestGallop(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for n := 0; n < 60; n++ {
		tab := make([]bandEntry, n)
		for i := range tab {
			tab[i].key = uint64(r.IntN(20))
		}
		slices.SortFunc(tab, compareBandEntries)
		for pos := 0; pos <= n; pos++ {
			for key := uint64(0); key < 22; key++ {
				want := pos
				for want < n && tab[want].key < key {
					want++
				}
				if got := gallop(tab, pos, key); got != want {
					t.Fatalf("n %d, pos %d, key %d: %d, want %d", n, pos, key, got, want)
				}
			}
		}
	}
}
