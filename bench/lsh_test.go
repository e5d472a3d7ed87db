package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"

	minhashlsh "github.com/ekzhu/minhash-lsh"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// The workload: synth.BenchDocs, 20,000 documents of about 300 64-bit
// shingles, 2,000 pairs planted with J in [0.6, 0.95], 1,000 distractors with
// J in [0.2, 0.6]; threshold 0.8, K = 128.
const (
	seed      = 1
	threshold = 0.8
	numHash   = 128
)

var docs = sync.OnceValue(func() synth.Docs { return synth.Documents(synth.BenchDocs(seed)) })

// truth returns the planted pairs at or above the threshold (the only pairs
// with any similarity, up to chance).
func truth(d synth.Docs) map[[2]int]bool {
	out := map[[2]int]bool{}
	for _, p := range d.Pairs {
		if p.J >= threshold {
			out[[2]int{p.A, p.B}] = true
		}
	}
	return out
}

// jaccard returns the exact Jaccard similarity of two sorted key sets.
func jaccard(a, b []uint64) float64 {
	o := join.OverlapAtLeast(a, b, 0)
	return float64(o) / float64(len(a)+len(b)-o)
}

// runEkzhu is the whole run with ekzhu/minhash-lsh as its README shows it:
// a signature per document (each shingle pushed as its 8 bytes), Add, Index,
// then a Query for every document, each candidate verified exactly.
func runEkzhu(d synth.Docs) (pairs [][2]int, k, l int) {
	lsh := minhashlsh.NewMinhashLSH(numHash, threshold)
	sigs := make([][]uint64, len(d.Sets))
	var buf [8]byte
	for i, set := range d.Sets {
		mh := minhashlsh.NewMinhash(seed, numHash)
		for _, key := range set {
			binary.LittleEndian.PutUint64(buf[:], key)
			mh.Push(buf[:])
		}
		sigs[i] = mh.Signature()
		lsh.Add(i, sigs[i])
	}
	lsh.Index()
	for i := range d.Sets {
		for _, c := range lsh.Query(sigs[i]) {
			j := c.(int)
			if j > i && jaccard(d.Sets[i], d.Sets[j]) >= threshold {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	k, l = lsh.Params()
	return pairs, k, l
}

// runIndex is the whole run with simjoin's query index: Add every document,
// Build (signatures, band tables), then the self-join over it, verified
// exactly.
func runIndex(d synth.Docs, opt approx.Options) ([][2]int, approx.Stats) {
	b, err := approx.NewBuilder(opt)
	if err != nil {
		panic(err)
	}
	b.Grow(len(d.Sets), keyCount(d))
	for _, s := range d.Sets {
		b.Add(s)
	}
	ix, err := b.Build(context.Background())
	if err != nil {
		panic(err)
	}
	var pairs [][2]int
	st, err := ix.SelfJoin(context.Background(), func(p join.Pair) bool {
		pairs = append(pairs, [2]int{p.A, p.B})
		return true
	})
	if err != nil {
		panic(err)
	}
	return pairs, st
}

// runQueries is the whole run the way ekzhu's is measured: Build, then a
// query for every document (QueryAll, in parallel).
func runQueries(d synth.Docs, opt approx.Options) [][2]int {
	b, _ := approx.NewBuilder(opt)
	b.Grow(len(d.Sets), keyCount(d))
	for _, s := range d.Sets {
		b.Add(s)
	}
	ix, _ := b.Build(context.Background())
	var pairs [][2]int
	ix.QueryAll(context.Background(), d.Sets, func(q int, m approx.Match) bool {
		if m.ID > q {
			pairs = append(pairs, [2]int{q, m.ID})
		}
		return true
	})
	return pairs
}

// runCollection is the whole run through a Collection, the CLI's path:
// order.New (the global token order) then approx.SelfJoin.
func runCollection(d synth.Docs, opt approx.Options) [][2]int {
	in := new(order.Input)
	for _, s := range d.Sets {
		in.AddSorted(s)
	}
	c, err := order.New(in)
	if err != nil {
		panic(err)
	}
	var pairs [][2]int
	if _, err := approx.SelfJoin(context.Background(), c, opt, func(p join.Pair) bool {
		pairs = append(pairs, [2]int{p.A, p.B})
		return true
	}); err != nil {
		panic(err)
	}
	return pairs
}

func keyCount(d synth.Docs) int {
	n := 0
	for _, s := range d.Sets {
		n += len(s)
	}
	return n
}

func options(scheme approx.Scheme) approx.Options {
	th, _ := prefix.ThresholdOf(prefix.Jaccard, threshold)
	return approx.Options{Threshold: th, K: numHash, Scheme: scheme, Seed: seed}
}

func recall(pairs [][2]int, want map[[2]int]bool) (float64, int) {
	hit, false_ := 0, 0
	for _, p := range pairs {
		if want[p] {
			hit++
		} else {
			false_++
		}
	}
	return float64(hit) / float64(len(want)), false_
}

// TestRecall: on the workload simjoin finds at least as many of the pairs at
// or above the threshold as ekzhu/minhash-lsh, and at least 95% of them.
func TestRecall(t *testing.T) {
	d := docs()
	want := truth(d)
	ek, k, l := runEkzhu(d)
	rEk, fEk := recall(ek, want)
	t.Logf("ekzhu/minhash-lsh %dx%d: recall %.4f (%d of %d), %d false", l, k, rEk, len(ek)-fEk, len(want), fEk)
	for _, sc := range []approx.Scheme{approx.OnePerm, approx.Classic} {
		pairs, st := runIndex(d, options(sc))
		r, f := recall(pairs, want)
		t.Logf("simjoin %s %s: recall %.4f, %d false; predicted >= %.3f", sc, st.Shape, r, f, st.PredictedRecall)
		if r < rEk || r < 0.95 || f != 0 {
			t.Errorf("simjoin %s: recall %.4f (ekzhu %.4f), %d false pairs", sc, r, rEk, f)
		}
	}
	q := runQueries(d, options(approx.OnePerm))
	slices.SortFunc(q, func(a, b [2]int) int { return a[0]*len(d.Sets) + a[1] - b[0]*len(d.Sets) - b[1] })
	if r, _ := recall(q, want); r < 0.95 {
		t.Errorf("QueryAll: recall %.4f", r)
	}
}

// BenchmarkEndToEnd runs the whole workload (signatures, index, candidates,
// exact verification) with each implementation, side by side: compare the
// ratios, not the absolute times (the machine is shared and noisy).
func BenchmarkEndToEnd(b *testing.B) {
	d := docs()
	want := truth(d)
	for _, tc := range []struct {
		name string
		run  func() [][2]int
	}{
		{"impl=ekzhu-minhash-lsh", func() [][2]int { p, _, _ := runEkzhu(d); return p }},
		{"impl=simjoin/path=index/scheme=oneperm", func() [][2]int { p, _ := runIndex(d, options(approx.OnePerm)); return p }},
		{"impl=simjoin/path=index/scheme=classic", func() [][2]int { p, _ := runIndex(d, options(approx.Classic)); return p }},
		{"impl=simjoin/path=queries/scheme=oneperm", func() [][2]int { return runQueries(d, options(approx.OnePerm)) }},
		{"impl=simjoin/path=collection/scheme=oneperm", func() [][2]int { return runCollection(d, options(approx.OnePerm)) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var r float64
			for b.Loop() {
				r, _ = recall(tc.run(), want)
			}
			b.ReportMetric(r, "recall")
		})
	}
}

// BenchmarkSignatures times the signatures alone, K = 128, for the 20,000
// documents.
func BenchmarkSignatures(b *testing.B) {
	d := docs()
	b.Run("impl=ekzhu-minhash-lsh", func(b *testing.B) {
		b.ReportAllocs()
		var buf [8]byte
		for b.Loop() {
			for _, set := range d.Sets {
				mh := minhashlsh.NewMinhash(seed, numHash)
				for _, key := range set {
					binary.LittleEndian.PutUint64(buf[:], key)
					mh.Push(buf[:])
				}
				_ = mh.Signature()
			}
		}
	})
	for _, sc := range []approx.Scheme{approx.OnePerm, approx.Classic} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("impl=simjoin/scheme=%s/workers=%d", sc, workers), func(b *testing.B) {
				b.ReportAllocs()
				h, _ := approx.NewHasher(sc, numHash, seed)
				sigs, _ := approx.NewSignatures(len(d.Sets), numHash, 32)
				for b.Loop() {
					var wg sync.WaitGroup
					for w := 0; w < workers; w++ {
						wg.Go(func() {
							var buf []uint64
							for i := w; i < len(d.Sets); i += workers {
								buf = h.Sign(buf, d.Sets[i])
								sigs.Put(i, buf)
							}
						})
					}
					wg.Wait()
				}
			})
		}
	}
}
