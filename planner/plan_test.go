package planner

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

func sets(t testing.TB, cfg synth.SetsConfig) *order.Collection {
	t.Helper()
	c, err := order.New(jointest.Input(synth.Sets(cfg)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func threshold(t testing.TB, m prefix.Measure, s string) prefix.Threshold {
	t.Helper()
	th, err := prefix.ParseThreshold(m, s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func plan(t testing.TB, c *order.Collection, th string, opt Options) *Plan {
	t.Helper()
	opt.Threshold = threshold(t, opt.Measure, th)
	p, err := New(context.Background(), c, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanChoices runs the planner on generated collections whose better path
// is clear (measured with both paths on this project's machines, see
// BENCHMARKS.md) and checks its choice, and that the choice follows the
// figures it gives.
func TestPlanChoices(t *testing.T) {
	rare := planted(t, 5000, 300, 0.5, 0.9, 8) // 60-100 random 64-bit shingles a document
	long := func(n int) *order.Collection {
		d := synth.Documents(synth.DocsConfig{N: n, MinSize: 250, MaxSize: 350, Planted: 200, PlantedLo: 0.5, PlantedHi: 0.95, Seed: 2})
		in := new(order.Input)
		for _, s := range d.Sets {
			in.Add(s)
		}
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}(5000)
	for _, tc := range []struct {
		name string
		c    *order.Collection
		t    string
		want Method
	}{
		{"short sets, zipf, t=0.9", sets(t, synth.SetsConfig{N: 50000, MinSize: 5, MaxSize: 20, Universe: 100000, Zipf: 1, DupFraction: 0.2, Replace: 0.1, Seed: 1}), "0.9", Exact},
		{"short sets, zipf, t=0.7", sets(t, synth.SetsConfig{N: 50000, MinSize: 5, MaxSize: 20, Universe: 100000, Zipf: 1, DupFraction: 0.2, Replace: 0.1, Seed: 1}), "0.7", Exact},
		{"medium sets, t=0.8", sets(t, synth.SetsConfig{N: 20000, MinSize: 10, MaxSize: 40, Universe: 20000, Zipf: 0.5, DupFraction: 0.2, Replace: 0.1, Seed: 2}), "0.8", Exact},
		{"documents of rare shingles, t=0.5", long, "0.5", Exact},
		{"documents of rare shingles, t=0.7", long, "0.7", Exact},
		{"short documents of rare shingles, t=0.5", rare, "0.5", Exact},
		{"long sets of frequent tokens, t=0.5", sets(t, synth.SetsConfig{N: 5000, MinSize: 300, MaxSize: 300, Universe: 20000, DupFraction: 0.05, Replace: 0.1, Seed: 3}), "0.5", LSH},
		{"long sets of frequent tokens, t=0.4", sets(t, synth.SetsConfig{N: 5000, MinSize: 100, MaxSize: 200, Universe: 5000, DupFraction: 0.05, Replace: 0.1, Seed: 4}), "0.4", LSH},
		{"medium sets of frequent tokens, t=0.5", sets(t, synth.SetsConfig{N: 10000, MinSize: 50, MaxSize: 100, Universe: 5000, DupFraction: 0.1, Replace: 0.1, Seed: 5}), "0.5", LSH},
	} {
		p := plan(t, tc.c, tc.t, Options{})
		if p.Method != tc.want {
			t.Errorf("%s: chose %s, want %s: %+v", tc.name, p.Method, tc.want, p.Reason)
			continue
		}
		t.Logf("%s: %+v", tc.name, p.Reason)
		e, l := p.Exact.Cost.CPU, p.LSH.Cost.CPU
		if (p.Method == Exact) != (e <= p.Prefer*l) {
			t.Errorf("%s: chose %s with exact %v s, lsh %v s, prefer %v", tc.name, p.Method, e, l, p.Prefer)
		}
		if p.Method == Exact && p.Recall != 1 || p.Method == LSH && (p.Recall < 0.9 || p.Recall > 1) {
			t.Errorf("%s: predicted recall %v", tc.name, p.Recall)
		}
		r := p.Reason
		want := map[Method]ReasonCode{Exact: ReasonExactWithin, LSH: ReasonLSHCheaper}[p.Method]
		if r.Code != want || r.ExactCPU != e || r.LSHCPU != l || r.Prefer != p.Prefer || len(p.Figures) < 5 {
			t.Errorf("%s: reason %+v, %d figures", tc.name, r, len(p.Figures))
		}
		if p.Method == LSH && (r.Recall != p.LSH.Recall || r.AtThreshold != p.LSH.AtThreshold) {
			t.Errorf("%s: reason %+v, lsh recall %v at threshold %v", tc.name, r, p.LSH.Recall, p.LSH.AtThreshold)
		}
	}
}

// TestPlanEstimates checks the plan's predicted counts against what the runs
// count: the exact path's postings exactly, its candidates, LSH's candidates
// and the results within a factor. The inputs are small (joins of a few tens
// of milliseconds), so the default budget allows only small samples, which
// see few of the rare similar pairs; the estimators are tested with a budget
// of four times the cheaper path's least cost.
func TestPlanEstimates(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  synth.SetsConfig
		t    string
	}{
		{"uniform 50-100/5k t=0.6", synth.SetsConfig{N: 6000, MinSize: 50, MaxSize: 100, Universe: 5000, DupFraction: 0.1, Replace: 0.1, Seed: 6}, "0.6"},
		{"zipf 10-30 t=0.7", synth.SetsConfig{N: 20000, MinSize: 10, MaxSize: 30, Universe: 20000, Zipf: 0.8, DupFraction: 0.2, Replace: 0.1, Seed: 7}, "0.7"},
	} {
		c := sets(t, tc.cfg)
		p := plan(t, c, tc.t, Options{Budget: 4})
		me, err := p.RunMethod(ctx, Exact, c, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ml, err := p.RunMethod(ctx, LSH, c, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Exact.Work.Postings != windowPostings(*me.Exact) {
			t.Errorf("%s: predicted %d postings, join met %d", tc.name, p.Exact.Work.Postings, windowPostings(*me.Exact))
		}
		within := func(what string, pred float64, got int64, factor float64) {
			t.Logf("%s: %s predicted %.0f, measured %d", tc.name, what, pred, got)
			r := pred / math.Max(float64(got), 1)
			if r > factor || r < 1/factor {
				t.Errorf("%s: %s predicted %.0f, measured %d", tc.name, what, pred, got)
			}
		}
		within("exact candidates", p.Exact.Candidates, me.Candidates, 1.25)
		within("lsh candidates", p.LSH.Candidates, ml.Candidates, 2)
		within("results", p.Sample.Predicted, me.Results, 2)
	}
}

func TestPlanDeterministic(t *testing.T) {
	c := sets(t, synth.SetsConfig{N: 3000, MinSize: 20, MaxSize: 60, Universe: 3000, DupFraction: 0.1, Replace: 0.1, Seed: 8})
	var texts []string
	for _, workers := range []int{1, 2, 4} {
		p := plan(t, c, "0.6", Options{Workers: workers, Seed: 3})
		p.Seconds, p.CPU = 0, 0
		p.workers = 0
		// Predicted wall time depends on the cores; nothing else may.
		p.Exact.Cost.Seconds, p.LSH.Cost.Seconds = 0, 0
		p.Exact.Cost.Parallel, p.LSH.Cost.Parallel = 0, 0
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts[1:] {
		if s != texts[0] {
			t.Fatalf("plans differ:\n%s\n%s", texts[0], s)
		}
	}
}

func TestPlanForcedAndUnavailable(t *testing.T) {
	ctx := context.Background()
	c := sets(t, synth.SetsConfig{N: 2000, MinSize: 5, MaxSize: 20, Universe: 5000, Zipf: 1, DupFraction: 0.2, Replace: 0.1, Seed: 9})
	p := plan(t, c, "0.9", Options{Method: LSH})
	if p.Method != LSH || !p.Forced || p.Reason.Code != ReasonAsked || p.Exact.Cost.Seconds <= 0 || p.LSH.Cost.Seconds <= 0 || p.Recall >= 1 {
		t.Errorf("forced lsh: %+v", p)
	}
	// Overlap: no Jaccard bound, so no LSH.
	p = plan(t, c, "3", Options{Measure: prefix.Overlap})
	if p.Method != Exact || p.LSH.Available || p.Reason.Code != ReasonNoLSH || p.LSH.Why == nil {
		t.Errorf("overlap: %+v, lsh %+v", p.Reason, p.LSH)
	}
	if _, err := p.RunMethod(ctx, LSH, c, nil, nil); err == nil {
		t.Error("running LSH without an LSH path succeeded")
	}
	// A banding that cannot reach the recall: LSH is unavailable, with why.
	p = plan(t, c, "0.9", Options{LSH: approx.Options{K: 2, Recall: 0.9999}})
	if p.Method != Exact || p.LSH.Available || p.Reason.Code != ReasonNoLSH || p.LSH.Why == nil {
		t.Errorf("impossible recall: %+v, lsh %+v", p.Reason, p.LSH)
	}
	// Cosine and Dice plan LSH at the Jaccard bound.
	p = plan(t, c, "0.8", Options{Measure: prefix.Dice})
	if !p.LSH.Available || math.Abs(p.LSH.JaccardThreshold-0.8/1.2) > 1e-12 {
		t.Errorf("dice: %+v", p.LSH)
	}
	if _, err := New(ctx, c, nil, Options{}); !errors.Is(err, prefix.ErrNoThreshold) {
		t.Errorf("no threshold: %v", err)
	}
	if _, err := New(ctx, c, nil, Options{Threshold: prefix.Threshold{Num: 3, Den: 2}}); !errors.Is(err, prefix.ErrThreshold) {
		t.Errorf("threshold 3/2: %v, want ErrThreshold", err)
	}
	if _, err := New(ctx, c, nil, Options{Threshold: threshold(t, prefix.Jaccard, "0.5"), Prefer: 0.5}); err == nil {
		t.Error("Prefer 0.5 accepted")
	}
}

// TestPlanTiny: empty and one-record inputs plan exact without error, and
// running the plan reports nothing.
func TestPlanTiny(t *testing.T) {
	ctx := context.Background()
	for _, s := range [][][]uint32{nil, {{}}, {{1, 2, 3}}, {{1, 2}, {1, 2}}} {
		c, err := order.New(jointest.Input(s))
		if err != nil {
			t.Fatal(err)
		}
		p := plan(t, c, "0.5", Options{})
		if p.Method != Exact {
			t.Errorf("%v: %+v", s, p.Reason)
		}
		var n int
		if _, err := p.Run(ctx, c, nil, func(join.Pair) bool { n++; return true }); err != nil {
			t.Fatal(err)
		}
		want := 0
		if len(s) == 2 {
			want = 1
		}
		if n != want {
			t.Errorf("%v: %d pairs, want %d", s, n, want)
		}
	}
}

// TestPlanRS plans and runs an R-S join: the postings are exact and the run
// of the chosen path matches the oracle (exact) or is a subset of it (LSH).
func TestPlanRS(t *testing.T) {
	ctx := context.Background()
	r := synth.Sets(synth.SetsConfig{N: 1500, MinSize: 20, MaxSize: 40, Universe: 2000, DupFraction: 0.1, Replace: 0.1, Seed: 10})
	s := synth.Sets(synth.SetsConfig{N: 1000, MinSize: 20, MaxSize: 40, Universe: 2000, DupFraction: 0.1, Replace: 0.1, Seed: 10})
	cs, err := order.Build(jointest.Input(r), jointest.Input(s))
	if err != nil {
		t.Fatal(err)
	}
	th := threshold(t, prefix.Jaccard, "0.6")
	want := jointest.RSJoin(r, s, prefix.Jaccard, th)
	for _, m := range []Method{Exact, LSH} {
		p, err := New(ctx, cs[0], cs[1], Options{Threshold: th, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Stats) != 2 || len(p.Sample.ExactRecords) != 2 {
			t.Errorf("%s: %d sides of stats, sample %v", m, len(p.Stats), p.Sample.ExactRecords)
		}
		truth := map[[2]int]bool{}
		for _, pr := range want {
			truth[[2]int{pr.A, pr.B}] = true
		}
		var got int
		me, err := p.Run(ctx, cs[0], cs[1], func(pr join.Pair) bool {
			got++
			if !truth[[2]int{pr.A, pr.B}] {
				t.Errorf("%s: false pair %v", m, pr)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if m == Exact {
			if got != len(want) || p.Exact.Work.Postings != windowPostings(*me.Exact) {
				t.Errorf("exact: %d pairs of %d; postings %d predicted, %d met", got, len(want), p.Exact.Work.Postings, windowPostings(*me.Exact))
			}
		} else if got < len(want)*8/10 {
			t.Errorf("lsh: %d pairs of %d", got, len(want))
		}
	}
}

// TestWorkersClamped: Workers far beyond the machine is lowered to
// 4·GOMAXPROCS instead of exhausting memory.
func TestWorkersClamped(t *testing.T) {
	c := sets(t, synth.SetsConfig{N: 300, MinSize: 5, MaxSize: 20, Universe: 500, DupFraction: 0.1, Replace: 0.1, Seed: 2})
	p := plan(t, c, "0.6", Options{Workers: 1 << 40})
	if p.workers != 4*runtime.GOMAXPROCS(0) {
		t.Errorf("plan workers = %d, want %d", p.workers, 4*runtime.GOMAXPROCS(0))
	}
	if _, err := p.Run(context.Background(), c, nil, func(join.Pair) bool { return true }); err != nil {
		t.Fatal(err)
	}
}
