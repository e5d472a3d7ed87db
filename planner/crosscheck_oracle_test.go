package planner

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// distinct returns s sorted without repeats (the set a record stands for).
func distinct(s []uint32) []uint32 {
	return slices.Compact(slices.Sorted(slices.Values(s)))
}

// reported runs LSH as Check runs a banding and returns the pairs it
// reports, keyed (a, b).
func reported(t *testing.T, c, s *order.Collection, opt approx.Options) map[[2]int]join.Pair {
	t.Helper()
	got := map[[2]int]join.Pair{}
	_, err := approx.Join(context.Background(), c, s, opt, func(p join.Pair) bool {
		got[[2]int{p.A, p.B}] = p
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestCheckAgainstOracle: on every fixture, with a floor and every pair
// below it taken, Check's counts are those of the brute-force join against
// the pairs each LSH run reported: true pairs at the threshold and the
// floor, the pairs of distinct sets below the floor, every bin's pairs and
// finds, each run's recall and precision; Exact and Found get the exact
// pairs at the threshold and the first run's pairs.
func TestCheckAgainstOracle(t *testing.T) {
	ctx := context.Background()
	const seed = 3
	t.Logf("fixture seed %d", seed)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	floorT, _ := prefix.ParseThreshold(prefix.Jaccard, "0.2")
	shapes := []approx.Shape{{B: 4, R: 2}, {B: 2, R: 4}}
	for _, fx := range jointest.Fixtures(seed) {
		c, err := order.New(jointest.Input(fx.Sets))
		if err != nil {
			t.Fatal(err)
		}
		lsh, err := approx.Options{Measure: prefix.Jaccard, Threshold: th, K: 16, Seed: 5, Workers: 2}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		var exactGot []join.Pair
		var foundGot []join.Pair
		cc, err := MeasureLSH(ctx, c, nil, CheckOptions{LSH: lsh, Shapes: shapes, Seeds: 2, Floor: 0.2, PairSample: 1 << 30,
			Exact: func(p join.Pair) bool { exactGot = append(exactGot, p); return true },
			Found: func(p join.Pair) bool { foundGot = append(foundGot, p); return true }})
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}

		// The oracle: sizes, true pairs, and the distinct sets.
		sets := make([][]uint32, len(fx.Sets))
		for i, s := range fx.Sets {
			sets[i] = distinct(s)
		}
		jac := func(o, a, b int) float64 { return float64(o) / float64(len(sets[a])+len(sets[b])-o) }
		truth := jointest.SelfOverlaps(fx.Sets).Join(prefix.Jaccard, floorT)
		var atT []jointest.Pair
		for _, p := range truth {
			if jointest.Reaches(prefix.Jaccard, th, p.Overlap, len(sets[p.A]), len(sets[p.B])) {
				atT = append(atT, p)
			}
		}
		var firsts []int // the lowest id of each distinct non-empty set
		for i, s := range sets {
			if len(s) > 0 && !slices.ContainsFunc(firsts, func(j int) bool { return slices.Equal(s, sets[j]) }) {
				firsts = append(firsts, i)
			}
		}
		var below []jointest.Pair // pairs of distinct sets below the floor
		var aboveUnits int64
		for x, a := range firsts {
			for _, b := range firsts[x+1:] {
				o := jointest.Overlap(sets[a], sets[b])
				if jointest.Reaches(prefix.Jaccard, floorT, o, len(sets[a]), len(sets[b])) {
					aboveUnits++
				} else {
					below = append(below, jointest.Pair{A: a, B: b, Overlap: o})
				}
			}
		}

		nu := int64(len(firsts))
		if cc.Pairs != int64(len(atT)) || cc.AboveFloor != int64(len(truth)) || cc.Floor != 0.2 {
			t.Errorf("%s: %d pairs at t, %d at the floor %v; oracle %d and %d", fx.Name, cc.Pairs, cc.AboveFloor, cc.Floor, len(atT), len(truth))
		}
		if want := float64(nu*(nu-1)/2 - aboveUnits); cc.Below != max(want, 0) || cc.Sampled != len(below) || (len(below) > 0) != cc.AllBelow {
			t.Errorf("%s: below the floor %v pairs, %d drawn (all %v); oracle %v and %d", fx.Name, cc.Below, cc.Sampled, cc.AllBelow, want, len(below))
		}
		if len(exactGot) != len(atT) {
			t.Errorf("%s: Exact got %d pairs, want %d", fx.Name, len(exactGot), len(atT))
		}
		for _, p := range exactGot {
			if !jointest.Reaches(prefix.Jaccard, th, p.Overlap, len(sets[p.A]), len(sets[p.B])) {
				t.Errorf("%s: Exact got %+v below the threshold", fx.Name, p)
			}
		}

		for k, shape := range shapes {
			b := cc.Bandings[k]
			if b.Shape != shape || len(b.Runs) != 2 || len(b.Bins) != 20 {
				t.Fatalf("%s: banding %d: %v with %d runs, %d bins", fx.Name, k, b.Shape, len(b.Runs), len(b.Bins))
			}
			wantBins := make([]Bin, 20)
			binOf := func(j float64) int { return min(int(j*20+1e-9), 19) }
			for _, p := range truth {
				wantBins[binOf(jac(p.Overlap, p.A, p.B))].Pairs++
			}
			for _, p := range below {
				wantBins[binOf(jac(p.Overlap, p.A, p.B))].Pairs++
			}
			for r, run := range b.Runs {
				opt := lsh
				opt.Shape, opt.Seed = shape, lsh.Seed+uint64(r)
				opt.Threshold, opt.Verify = prefix.Threshold{Num: 1, Den: 1_000_000_000}, approx.VerifyExact
				got := reported(t, c, nil, opt)
				if k == 0 && r == 0 && len(foundGot) != len(got) {
					t.Errorf("%s: Found got %d pairs, the run reported %d", fx.Name, len(foundGot), len(got))
				}
				var found, atTReported int64
				for _, p := range got {
					if jointest.Reaches(prefix.Jaccard, th, p.Overlap, len(sets[p.A]), len(sets[p.B])) {
						atTReported++
					}
				}
				for _, p := range truth {
					if _, ok := got[[2]int{p.A, p.B}]; ok {
						wantBins[binOf(jac(p.Overlap, p.A, p.B))].Found++
					}
				}
				for _, p := range atT {
					if _, ok := got[[2]int{p.A, p.B}]; ok {
						found++
					}
				}
				for _, p := range below {
					if _, ok := got[[2]int{p.A, p.B}]; ok {
						wantBins[binOf(jac(p.Overlap, p.A, p.B))].Found++
					}
				}
				if run.Seed != opt.Seed || run.Recall.K != found || run.Recall.N != int64(len(atT)) || run.Precision.N != atTReported || run.LSH.Results != int64(len(got)) {
					t.Errorf("%s %v seed %d: recall %d/%d, precision of %d, %d results; oracle %d/%d, %d, %d",
						fx.Name, shape, run.Seed, run.Recall.K, run.Recall.N, run.Precision.N, run.LSH.Results, found, len(atT), atTReported, len(got))
				}
			}
			var sumP float64
			for _, p := range atT {
				sumP += shape.P(jac(p.Overlap, p.A, p.B))
			}
			if len(atT) > 0 && math.Abs(b.Predicted-sumP/float64(len(atT))) > 1e-9 {
				t.Errorf("%s %v: predicted recall %v, oracle %v", fx.Name, shape, b.Predicted, sumP/float64(len(atT)))
			}
			for i, bn := range b.Bins {
				if bn.Pairs != wantBins[i].Pairs || bn.Found != wantBins[i].Found || bn.Recall.N != 2*bn.Pairs || bn.Sampled != (!cc.AllBelow && bn.To <= 0.2+1e-9) {
					t.Errorf("%s %v bin %d: %d pairs, %d found (sampled %v); oracle %d and %d", fx.Name, shape, i, bn.Pairs, bn.Found, bn.Sampled, wantBins[i].Pairs, wantBins[i].Found)
				}
			}
		}
	}
}

// TestCheckRSOracle: without a floor, on an R-S join with the cosine
// measure and estimated similarities, each run's recall and precision are
// the brute-force join's pairs against those LSH reported, false pairs
// included.
func TestCheckRSOracle(t *testing.T) {
	ctx := context.Background()
	const seed = 4
	t.Logf("fixture seed %d", seed)
	th, _ := prefix.ParseThreshold(prefix.Cosine, "0.6")
	for _, fx := range jointest.Fixtures(seed) {
		half := len(fx.Sets) / 2
		r, s := fx.Sets[:half], fx.Sets[half:]
		cs, err := order.Build(jointest.Input(r), jointest.Input(s))
		if err != nil {
			t.Fatal(err)
		}
		lsh, err := approx.Options{Measure: prefix.Cosine, Threshold: th, K: 24, Bits: 8, Verify: approx.VerifyEstimate, Seed: 11}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		cc, err := MeasureLSH(ctx, cs[0], cs[1], CheckOptions{LSH: lsh})
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		truth := jointest.RSJoin(r, s, prefix.Cosine, th)
		got := reported(t, cs[0], cs[1], lsh)
		var found int64
		for _, p := range truth {
			if _, ok := got[[2]int{p.A, p.B}]; ok {
				found++
			}
		}
		run := cc.Bandings[0].Runs[0]
		if cc.Pairs != int64(len(truth)) || run.Recall.K != found || run.Recall.N != int64(len(truth)) || run.Precision.N != int64(len(got)) || run.Precision.K != found {
			t.Errorf("%s: recall %d/%d, precision %d/%d; oracle %d/%d and %d/%d", fx.Name, run.Recall.K, run.Recall.N, run.Precision.K, run.Precision.N, found, len(truth), found, len(got))
		}
		var n int64
		for _, bn := range cc.Bandings[0].Bins {
			n += bn.Pairs
		}
		if n != int64(len(truth)) || len(cc.Records) != 2 || !cc.Whole {
			t.Errorf("%s: bins hold %d of %d pairs; records %v", fx.Name, n, len(truth), cc.Records)
		}
	}
}

// TestCheckWithinSCurve: over many seeds, the pairs each banding finds per
// similarity bin agree with the S-curve: the sum over seeds of a bin's finds
// lies within four standard deviations of Σ P(s) (a sum of independent
// Bernoulli trials, one per pair and seed), below the threshold as above it.
func TestCheckWithinSCurve(t *testing.T) {
	ctx := context.Background()
	c := planted(t, 1500, 400, 0.2, 1, 8)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.6")
	lsh, err := approx.Options{Measure: prefix.Jaccard, Threshold: th, K: 48, Seed: 1}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	shapes := []approx.Shape{{B: 12, R: 4}, {B: 16, R: 3}}
	cc, err := MeasureLSH(ctx, c, nil, CheckOptions{LSH: lsh, Shapes: shapes, Seeds: seeds, Floor: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Pairs < 200 || cc.AboveFloor < 350 {
		t.Fatalf("%d true pairs at t, %d at the floor: the workload is too small to test", cc.Pairs, cc.AboveFloor)
	}
	for _, b := range cc.Bandings {
		tested := 0
		for _, bn := range b.Bins {
			if bn.Pairs < 10 {
				continue
			}
			tested++
			// The pairs of a bin have similarities within the bin, so P
			// varies little across them: bound the variance by the
			// binomial's at the bin's mean P.
			n := float64(bn.Pairs) * float64(seeds)
			expect := bn.Predicted * n
			sd := math.Sqrt(n * bn.Predicted * (1 - bn.Predicted))
			if math.Abs(float64(bn.Found)-expect) > 4*sd+2 {
				t.Errorf("%v bin [%.2f, %.2f): found %d of %.0f, S-curve expects %.1f ± %.1f", b.Shape, bn.From, bn.To, bn.Found, n, expect, sd)
			}
		}
		if tested < 4 {
			t.Errorf("%v: only %d bins with pairs", b.Shape, tested)
		}
		// Recall at the threshold: the mean over the seeds beside the
		// prediction, within four of its standard deviations (the runs are
		// independent).
		sd := b.PredictedSD / math.Sqrt(float64(seeds))
		if b.PredictedSD <= 0 || math.Abs(b.Recall-b.Predicted) > 4*sd+0.005 {
			t.Errorf("%v: mean recall %.4f over %d seeds, S-curve predicts %.4f ± %.4f", b.Shape, b.Recall, seeds, b.Predicted, sd)
		}
		if b.Predicted < b.AtThreshold || b.RecallMin > b.Recall || b.RecallMax < b.Recall {
			t.Errorf("%v: predicted %.3f below P(t) %.3f, or recall %.3f outside [%.3f, %.3f]", b.Shape, b.Predicted, b.AtThreshold, b.Recall, b.RecallMin, b.RecallMax)
		}
	}
}
