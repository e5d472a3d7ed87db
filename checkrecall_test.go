package simjoin_test

import (
	"context"
	"slices"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

// TestCheckRecall: with Options.CheckRecall the LSH join reports the same
// pairs as without it, and Stats.Check holds its recall against the
// brute-force join, on every fixture, self and R-S; Dedup's clusters are
// unchanged by it.
func TestCheckRecall(t *testing.T) {
	ctx := context.Background()
	const seed = 5
	t.Logf("fixture seed %d", seed)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	opts := simjoin.Options{Threshold: th, Method: simjoin.LSH}
	opts.LSH.K, opts.LSH.Seed = 32, 3
	stopped := 0
	for _, fx := range jointest.Fixtures(seed) {
		half := len(fx.Sets) / 2
		for _, rs := range []bool{false, true} {
			var plain, checked []simjoin.Pair
			var st simjoin.Stats
			var err error
			var truth []jointest.Pair
			check := opts
			check.CheckRecall = true
			if rs {
				r, s := fx.Sets[:half], fx.Sets[half:]
				plain, _, err = simjoin.Collect(ctx, records.Sets(r), records.Sets(s), opts)
				if err == nil {
					checked, st, err = simjoin.Collect(ctx, records.Sets(r), records.Sets(s), check)
				}
				truth = jointest.RSJoin(r, s, prefix.Jaccard, th)
			} else {
				plain, _, err = simjoin.Collect(ctx, records.Sets(fx.Sets), records.Source{}, opts)
				if err == nil {
					checked, st, err = simjoin.Collect(ctx, records.Sets(fx.Sets), records.Source{}, check)
				}
				truth = jointest.SelfJoin(fx.Sets, prefix.Jaccard, th)
			}
			if err != nil {
				t.Fatalf("%s (R-S %v): %v", fx.Name, rs, err)
			}
			if !slices.Equal(plain, checked) {
				t.Errorf("%s (R-S %v): %d pairs with CheckRecall, %d without", fx.Name, rs, len(checked), len(plain))
			}
			if st.CrossCheck == nil {
				t.Fatalf("%s (R-S %v): no Stats.Check", fx.Name, rs)
			}
			run := st.CrossCheck.Bandings[0].Runs[0]
			if st.CrossCheck.Pairs != int64(len(truth)) || run.Recall.K != int64(len(checked)) || run.Recall.N != int64(len(truth)) {
				t.Errorf("%s (R-S %v): recall %d/%d, oracle %d of %d", fx.Name, rs, run.Recall.K, run.Recall.N, len(checked), len(truth))
			}
		}
		// A callback that stops the join stops it without error, and
		// without a measurement.
		check := opts
		check.CheckRecall = true
		n := 0
		st, err := simjoin.Run(ctx, records.Sets(fx.Sets), records.Source{}, check, func(simjoin.Pair) bool { n++; return false })
		if err != nil || n > 1 || (n == 1) != (st.CrossCheck == nil) {
			t.Errorf("%s: stopped after %d pairs: %v, check %v", fx.Name, n, err, st.CrossCheck != nil)
		}
		stopped += n
		in, err := simjoin.Load(ctx, records.Sets(fx.Sets), records.Source{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		inCheck, err := simjoin.Load(ctx, records.Sets(fx.Sets), records.Source{}, check)
		if err != nil {
			t.Fatal(err)
		}
		f1, _, err1 := in.Dedup(ctx, nil)
		f2, st, err2 := inCheck.Dedup(ctx, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !slices.Equal(f1.Labels(), f2.Labels()) || st.CrossCheck == nil {
			t.Errorf("%s: Dedup's clusters differ with CheckRecall (check %v)", fx.Name, st.CrossCheck != nil)
		}
	}
	if stopped < 5 {
		t.Errorf("the callback stopped %d joins: too few fixtures with pairs", stopped)
	}
}

// TestInputMeasureLSH: Input.MeasureLSH is planner.MeasureLSH on the input's collections
// with its LSH options, measure, threshold and workers.
func TestInputMeasureLSH(t *testing.T) {
	ctx := context.Background()
	sets := jointest.Fixtures(2)[len(jointest.Fixtures(2))-1].Sets
	opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}}
	opts.LSH.K = 24
	in, err := simjoin.Load(ctx, records.Sets(sets), records.Source{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	co := planner.CheckOptions{Shapes: []approx.Shape{{B: 6, R: 4}, {B: 8, R: 3}}, Seeds: 2, Floor: 0.2, PairSample: 500}
	got, err := in.MeasureLSH(ctx, co)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := in.Collections()
	co.LSH, err = approx.Options{Measure: prefix.Jaccard, Threshold: prefix.Threshold{Num: 1, Den: 2}, K: 24}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want, err := planner.MeasureLSH(ctx, r, nil, co)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want.Bandings {
		g, w := got.Bandings[k], want.Bandings[k]
		if g.Shape != w.Shape || g.Recall != w.Recall || g.Candidates != w.Candidates || !slices.Equal(g.Bins, w.Bins) {
			t.Errorf("banding %v: Input.MeasureLSH %+v, planner.MeasureLSH %+v", w.Shape, g, w)
		}
	}
	if want.AboveFloor == 0 || want.Sampled == 0 {
		t.Fatalf("%d pairs above the floor, %d drawn below: the fixture tests nothing", want.AboveFloor, want.Sampled)
	}
	if got.Pairs != want.Pairs || got.AboveFloor != want.AboveFloor || got.Below != want.Below || got.Sampled != want.Sampled {
		t.Errorf("Input.MeasureLSH %d/%d/%v/%d pairs, planner.MeasureLSH %d/%d/%v/%d", got.Pairs, got.AboveFloor, got.Below, got.Sampled, want.Pairs, want.AboveFloor, want.Below, want.Sampled)
	}
}
