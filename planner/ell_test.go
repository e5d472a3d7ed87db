package planner

import (
	"context"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// passwordGrams returns the bigram sets of n generated passwords: short
// sets over a small vocabulary, where the join takes the ℓ-prefix path.
func passwordGrams(t testing.TB, n int) *order.Collection {
	t.Helper()
	in := new(order.Input)
	var keys []uint64
	for pw := range synth.Passwords(synth.PasswordsConfig{N: n, Seed: 3, Distinct: true}) {
		keys = shingle.AppendQGrams(keys[:0], string(pw), 2)
		in.Add(keys)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPlanEll checks that the plan prices the path the join takes: on
// password bigrams at t = 0.8 the join takes ℓ = 2 (join.ChooseEll), so the
// plan's work counts keys and its predicted postings and candidates are
// those of that path (within a factor of what the run counts, not the
// prefix filter's five times as many), the run takes the planned keys, and
// the predicted cost is below the prefix filter's.
func TestPlanEll(t *testing.T) {
	ctx := context.Background()
	c := passwordGrams(t, 20000)
	p := plan(t, c, "0.8", Options{Budget: 4})
	if p.Exact.Work.Ell != 2 || p.Sample.Ell != 2 {
		t.Fatalf("plan counts ℓ = %d (sample %d), want 2", p.Exact.Work.Ell, p.Sample.Ell)
	}
	me, err := p.RunMethod(ctx, Exact, c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if me.Exact.Ell != p.Exact.Work.Ell {
		t.Fatalf("run took ℓ = %d, plan priced %d", me.Exact.Ell, p.Exact.Work.Ell)
	}
	within := func(what string, pred float64, got int64, factor float64) {
		t.Logf("%s predicted %.0f, measured %d", what, pred, got)
		if r := pred / max(float64(got), 1); r > factor || r < 1/factor {
			t.Errorf("%s predicted %.0f, measured %d: off by more than %gx", what, pred, got, factor)
		}
	}
	within("key postings", float64(p.Exact.Work.Postings), windowPostings(*me.Exact), 1.5)
	within("candidates", p.Exact.Candidates, me.Candidates, 1.5)
	within("results", p.Sample.Predicted, me.Results, 1.5)
	ch, err := join.ChooseEll(c, join.Options{Threshold: p.Threshold})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Exact.Work.ProbeTokens; got < ch.Keys {
		t.Errorf("plan counts %d keys looked up, the join's choice %d", got, ch.Keys)
	}
	// The prefix filter's work, priced with the same ratios: the ℓ-prefix
	// path's predicted cost must be below it (that is why it is taken).
	prefixWork := SelfWork(c, p.Bounds())
	post := float64(prefixWork.Postings)
	cal := DefaultCalibration()
	prefixCost := cal.exactCost(p.FrontEnd, exactCounts{work: prefixWork, setTokens: float64(c.Tokens()), examined: post, candidates: post, verified: post,
		meanSize: float64(c.Tokens()) / float64(c.Len()), results: p.Sample.Predicted})
	if p.Exact.Cost.CPU >= prefixCost.CPU {
		t.Errorf("ℓ-prefix path predicted at %.3g s of CPU, the prefix filter's bound at %.3g s", p.Exact.Cost.CPU, prefixCost.CPU)
	}
}

// TestPlanEllNotTaken checks that where the join keeps the prefix filter
// (long sets), the plan's work is SelfWork's, exact.
func TestPlanEllNotTaken(t *testing.T) {
	c := sets(t, synth.SetsConfig{N: 6000, MinSize: 50, MaxSize: 100, Universe: 5000, DupFraction: 0.1, Replace: 0.1, Seed: 6})
	p := plan(t, c, "0.6", Options{})
	if w := SelfWork(c, p.Bounds()); p.Exact.Work != w || w.Ell != 1 {
		t.Errorf("plan's work %+v, SelfWork %+v", p.Exact.Work, w)
	}
}
