package planner

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

var measures = []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap}

// TestSelfWorkMatchesJoin checks that the predicted postings and index
// entries equal what the exact self-join counts on the prefix-filter path
// (Ell 1, the path the cost model describes), on every fixture, measure and
// threshold.
func TestSelfWorkMatchesJoin(t *testing.T) {
	seed := uint64(20240601)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for _, fx := range jointest.Fixtures(seed) {
		c, err := order.New(jointest.Input(fx.Sets))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range measures {
			for _, th := range jointest.Thresholds(m, fx.Sets, r) {
				b := prefix.NewBounds(m, th)
				w := SelfWork(c, b)
				st, err := join.SelfJoin(context.Background(), c, join.Options{Measure: m, Threshold: th, Ell: 1}, func(join.Pair) bool { return true })
				if err != nil {
					t.Fatal(err)
				}
				if w.Postings != windowPostings(st) || w.IndexEntries != int64(st.IndexEntries) || w.Groups != st.Groups || w.ProbeTokens != st.ProbeTokens {
					t.Errorf("%s %s %s: predicted postings %d index %d groups %d; join counted %d, %d, %d; probe tokens %d, join %d",
						fx.Name, m, th, w.Postings, w.IndexEntries, w.Groups, windowPostings(st), st.IndexEntries, st.Groups, w.ProbeTokens, st.ProbeTokens)
				}
				if w.Postings < st.Candidates {
					t.Errorf("%s %s %s: postings %d below candidates %d", fx.Name, m, th, w.Postings, st.Candidates)
				}
			}
		}
	}
}

// TestRSWorkMatchesJoin does the same for the R-S join.
func TestRSWorkMatchesJoin(t *testing.T) {
	seed := uint64(7)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	fxs := jointest.Fixtures(seed)
	for i, fr := range fxs {
		fs := fxs[(i+3)%len(fxs)]
		cs, err := order.Build(jointest.Input(fr.Sets), jointest.Input(fs.Sets))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range measures {
			for _, th := range jointest.Thresholds(m, fr.Sets, r) {
				b := prefix.NewBounds(m, th)
				w := RSWork(cs[0], cs[1], b)
				st, err := join.RSJoin(context.Background(), cs[0], cs[1], join.Options{Measure: m, Threshold: th}, func(join.Pair) bool { return true })
				if err != nil {
					t.Fatal(err)
				}
				if w.Postings != windowPostings(st) || w.IndexEntries != int64(st.IndexEntries) || w.Groups != st.Groups || w.ProbeTokens != st.ProbeTokens {
					t.Errorf("%s x %s %s %s: predicted postings %d index %d groups %d; join counted %d, %d, %d; probe tokens %d, join %d",
						fr.Name, fs.Name, m, th, w.Postings, w.IndexEntries, w.Groups, windowPostings(st), st.IndexEntries, st.Groups, w.ProbeTokens, st.ProbeTokens)
				}
			}
		}
	}
}
