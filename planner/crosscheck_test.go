package planner

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

func TestClopperPearsonKnown(t *testing.T) {
	for _, tc := range []struct {
		k, n   int64
		lo, hi float64
	}{
		// Closed forms at the ends: (α/2)^(1/n) and 1-(α/2)^(1/n).
		{0, 10, 0, 1 - math.Pow(0.025, 0.1)},
		{10, 10, math.Pow(0.025, 0.1), 1},
		// Published values (e.g. R's binom.test(5, 10)).
		{5, 10, 0.1870860, 0.8129140},
		{1, 20, 0.001265, 0.248733},
		{0, 0, 0, 1},
	} {
		iv := ClopperPearson(tc.k, tc.n, 0.95)
		if math.Abs(iv.Lo-tc.lo) > 1e-5 || math.Abs(iv.Hi-tc.hi) > 1e-5 {
			t.Errorf("ClopperPearson(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tc.k, tc.n, iv.Lo, iv.Hi, tc.lo, tc.hi)
		}
	}
}

// TestClopperPearsonCoverage draws binomial counts and checks that the
// interval covers the true proportion at least as often as it claims (less a
// margin for the simulation's own error).
func TestClopperPearsonCoverage(t *testing.T) {
	seed := uint64(11)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	const trials = 2000
	for _, n := range []int64{10, 50, 300} {
		for _, p := range []float64{0.02, 0.3, 0.5, 0.9, 0.99} {
			covered := 0
			for i := 0; i < trials; i++ {
				var k int64
				for j := int64(0); j < n; j++ {
					if r.Float64() < p {
						k++
					}
				}
				iv := ClopperPearson(k, n, 0.95)
				if iv.Lo <= p && p <= iv.Hi {
					covered++
				}
			}
			// 0.95 less three standard errors of a 2,000-trial estimate.
			if rate := float64(covered) / trials; rate < 0.95-3*math.Sqrt(0.95*0.05/trials) {
				t.Errorf("n=%d p=%v: covered %.3f of trials, want >= 0.95", n, p, rate)
			}
		}
	}
}

// planted is a collection of documents of random 64-bit shingles with pairs
// planted at known Jaccard similarities: the true pairs at t = 0.5 are the
// planted ones, and they share no records.
func planted(t testing.TB, n, pairs int, lo, hi float64, seed uint64) *order.Collection {
	d := synth.Documents(synth.DocsConfig{N: n, MinSize: 60, MaxSize: 100, Planted: pairs, PlantedLo: lo, PlantedHi: hi, Seed: seed})
	in := new(order.Input)
	for _, s := range d.Sets {
		in.Add(s)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCrossCheckCoverage: in repeated seeded trials, the cross-check's 95%
// interval for LSH's recall, measured on a sample of half the records,
// contains the recall LSH has on the whole input at least as often as it
// claims. The banding is chosen to give a recall far from 1 (about 0.6), so
// that the intervals are narrow enough to fail.
func TestCrossCheckCoverage(t *testing.T) {
	ctx := context.Background()
	c := planted(t, 4000, 1200, 0.5, 0.8, 5)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	opt := Options{Threshold: th, Method: LSH, LSH: approx.Options{Shape: approx.Shape{B: 6, R: 5}, Seed: 9}}
	p, err := New(ctx, c, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The true recall: LSH against exact on the whole input.
	whole, err := p.CrossCheck(ctx, c, nil, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	truth := whole.Bandings[0].Runs[0].Recall.Estimate
	if !whole.Whole || whole.Pairs < 1000 || truth < 0.4 || truth > 0.8 {
		t.Fatalf("whole input: %+v; want about 1,200 true pairs and a recall near 0.6", whole.Bandings[0].Runs[0].Recall)
	}
	// The S-curve's prediction for the same pairs is close to what LSH did.
	if pr := whole.Bandings[0].Predicted; math.Abs(pr-truth) > 0.05 {
		t.Errorf("S-curve predicts recall %.3f over the true pairs, measured %.3f", pr, truth)
	}
	trials := 100
	if testing.Short() {
		trials = 30
	}
	covered := 0
	var width float64
	for seed := uint64(1); seed <= uint64(trials); seed++ {
		cc, err := p.CrossCheck(ctx, c, nil, CheckOptions{Records: 2000, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if cc.Whole || cc.Records[0] != 2000 {
			t.Fatalf("seed %d: checked %v records, whole %v", seed, cc.Records, cc.Whole)
		}
		run := cc.Bandings[0].Runs[0]
		iv := run.Recall
		width += iv.Hi - iv.Lo
		if iv.Lo <= truth && truth <= iv.Hi {
			covered++
		} else {
			t.Logf("seed %d: [%.3f, %.3f] (%d of %d) misses %.3f", seed, iv.Lo, iv.Hi, iv.K, iv.N, truth)
		}
		if iv.N < 150 || run.Precision.Estimate != 1 {
			t.Errorf("seed %d: %d true pairs in the sample, precision %v", seed, iv.N, run.Precision.Estimate)
		}
	}
	rate := float64(covered) / float64(trials)
	t.Logf("true recall %.4f; covered in %d of %d trials; mean width %.3f", truth, covered, trials, width/float64(trials))
	// A 95% interval misses in 5% of trials at most; allow three standard
	// errors of the trial count.
	if rate < 0.95-3*math.Sqrt(0.95*0.05/float64(trials)) {
		t.Errorf("coverage %.3f, want >= 0.95", rate)
	}
	if width/float64(trials) > 0.25 {
		t.Errorf("mean interval width %.3f: too wide to tell anything", width/float64(trials))
	}
}

// TestCrossCheckBins: per-bin recall sits beside the S-curve's prediction, the
// bins partition the true pairs, and the exact path's own pairs are all found
// when LSH is given a banding that cannot miss (one row per band, K bands).
func TestCrossCheckBins(t *testing.T) {
	ctx := context.Background()
	c := planted(t, 1000, 300, 0.5, 1, 6)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	p, err := New(ctx, c, nil, Options{Threshold: th, LSH: approx.Options{Shape: approx.Shape{B: 10, R: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := p.CrossCheck(ctx, c, nil, CheckOptions{Bins: 10})
	if err != nil {
		t.Fatal(err)
	}
	var n, k int64
	shape := approx.Shape{B: 10, R: 4}
	band := cc.Bandings[0]
	run := band.Runs[0]
	if len(band.Bins) != 10 {
		t.Fatalf("%d bins, want 10", len(band.Bins))
	}
	for _, b := range band.Bins {
		if b.Pairs == 0 {
			continue
		}
		n += b.Recall.N
		k += b.Recall.K
		if b.From < 0.5-1e-9 || b.To > 1 || b.To-b.From > 0.1+1e-9 { // every true pair is at 0.5 or above
			t.Errorf("bin [%v, %v)", b.From, b.To)
		}
		if b.Predicted < shape.P(b.From)-1e-9 || b.Predicted > shape.P(b.To)+1e-9 {
			t.Errorf("bin [%v, %v): predicted %v outside the S-curve's range there", b.From, b.To, b.Predicted)
		}
	}
	if n != run.Recall.N || k != run.Recall.K || n < 290 {
		t.Errorf("bins hold %d of %d pairs, %d of %d found", n, run.Recall.N, k, run.Recall.K)
	}
	if run.LSH.Candidates < run.Recall.K || run.CandidatePrecision.Estimate <= 0 {
		t.Errorf("candidates %d, found %d, candidate precision %v", run.LSH.Candidates, run.Recall.K, run.CandidatePrecision)
	}
	// Overlap has no LSH path.
	pov, err := New(ctx, c, nil, Options{Measure: prefix.Overlap, Threshold: prefix.Threshold{Num: 3, Den: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pov.CrossCheck(ctx, c, nil, CheckOptions{}); err != ErrNoLSH {
		t.Errorf("overlap: %v, want ErrNoLSH", err)
	}
}

// TestCrossCheckDeterministic checks that a cross-check gives bit-identical
// figures on every run and for any workers: its sums over the true pairs
// follow the exact join's order, which does not depend on them.
func TestCrossCheckDeterministic(t *testing.T) {
	ctx := context.Background()
	c := planted(t, 1000, 300, 0.5, 1, 6)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	p, err := New(ctx, c, nil, Options{Threshold: th, LSH: approx.Options{Shape: approx.Shape{B: 10, R: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	lsh, _ := p.LSHOptions()
	var first *CrossCheck
	for run := range 8 {
		lsh.Workers = 1 + run%3
		cc, err := MeasureLSH(ctx, c, nil, CheckOptions{LSH: lsh})
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = cc
			continue
		}
		got, want := cc.Bandings[0], first.Bandings[0]
		if math.Float64bits(got.Predicted) != math.Float64bits(want.Predicted) {
			t.Fatalf("run %d: predicted recall %v, first run %v", run, got.Predicted, want.Predicted)
		}
		for b := range got.Bins {
			if math.Float64bits(got.Bins[b].Predicted) != math.Float64bits(want.Bins[b].Predicted) {
				t.Fatalf("run %d: bin %d predicted %v, first run %v", run, b, got.Bins[b].Predicted, want.Bins[b].Predicted)
			}
		}
	}
}

// TestCheckOptionsCheck: CheckOptions.Validate refuses, before any input, the
// options Check would refuse, naming the field in an *OptionError (ErrNoLSH
// for Overlap); Check refuses the same, and a floor for an R-S join.
func TestCheckOptionsCheck(t *testing.T) {
	th := prefix.Threshold{Num: 1, Den: 2}
	lsh := approx.Options{Threshold: th, K: 16}
	with := func(f func(o *CheckOptions)) CheckOptions {
		o := CheckOptions{LSH: lsh, Floor: 0.2, PairSample: 10}
		f(&o)
		return o
	}
	if err := with(func(*CheckOptions) {}).Validate(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, tc := range []struct {
		name, option string
		opt          CheckOptions
	}{
		{"recall", "LSH", with(func(o *CheckOptions) { o.LSH.Recall = 1 })},
		{"confidence", "Confidence", with(func(o *CheckOptions) { o.Confidence = 1 })},
		{"confidence NaN", "Confidence", with(func(o *CheckOptions) { o.Confidence = math.NaN() })},
		{"bins", "Bins", with(func(o *CheckOptions) { o.Bins = 1001 })},
		{"floor for cosine", "Floor", with(func(o *CheckOptions) { o.LSH.Measure = prefix.Cosine })},
		{"seeds", "Seeds", with(func(o *CheckOptions) { o.Seeds = -1 })},
		{"pair sample", "PairSample", with(func(o *CheckOptions) { o.PairSample = -1 })},
		{"records", "Records", with(func(o *CheckOptions) { o.Records = -1 })},
		{"floor", "Floor", with(func(o *CheckOptions) { o.Floor = 1.5 })},
		{"floor NaN", "Floor", with(func(o *CheckOptions) { o.Floor = math.NaN() })},
		{"sample without a floor", "PairSample", with(func(o *CheckOptions) { o.Floor = 0 })},
		{"banding", "Shapes", with(func(o *CheckOptions) { o.Shapes = []approx.Shape{{B: 4, R: 4}, {B: 5, R: 4}} })},
	} {
		err := tc.opt.Validate()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: %v, want an *OptionError for %s", tc.name, err, tc.option)
		}
		if tc.option == "Shapes" && oe != nil && (oe.Value != "5x4" || !errors.Is(err, approx.ErrShape)) {
			t.Errorf("%s: value %q, error %v", tc.name, oe.Value, err)
		}
	}
	if err := with(func(o *CheckOptions) { o.LSH.Measure = prefix.Overlap }).Validate(); err != ErrNoLSH {
		t.Errorf("overlap: %v, want ErrNoLSH", err)
	}
	c, err := order.New(jointest.Input([][]uint32{{1, 2, 3}, {1, 2, 4}, {5, 6}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MeasureLSH(context.Background(), c, nil, with(func(o *CheckOptions) { o.Seeds = -1 })); !errors.As(err, new(*OptionError)) {
		t.Errorf("Check with negative seeds: %v", err)
	}
	if _, err := MeasureLSH(context.Background(), c, c, with(func(*CheckOptions) {})); err == nil {
		t.Errorf("Check of an R-S join with a floor: no error")
	}
}
