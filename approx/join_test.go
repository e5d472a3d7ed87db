package approx_test

import (
	"context"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

func lshSelfJoin(t testing.TB, sets [][]uint32, opt approx.Options) ([]jointest.Pair, approx.Stats) {
	t.Helper()
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	var got []jointest.Pair
	st, err := approx.SelfJoin(context.Background(), c, opt, func(p join.Pair) bool {
		if p.A >= p.B {
			t.Errorf("pair (%d, %d) not ordered", p.A, p.B)
		}
		got = append(got, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, st
}

// TestNoFalsePairs: with exact verification every reported pair is a true
// pair with its exact overlap, each reported once, on every fixture.
func TestNoFalsePairs(t *testing.T) {
	const seed = 7
	t.Logf("fixture seed %d", seed)
	for _, fx := range jointest.Fixtures(seed) {
		for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Dice, prefix.Cosine} {
			for _, ts := range []string{"0.5", "0.8", "1"} {
				th, _ := prefix.ParseThreshold(m, ts)
				want := jointest.SelfJoin(fx.Sets, m, th)
				truth := map[jointest.Pair]bool{}
				for _, p := range want {
					truth[p] = true
				}
				got, st := lshSelfJoin(t, fx.Sets, approx.Options{Measure: m, Threshold: th})
				seen := map[jointest.Pair]bool{}
				for _, p := range got {
					if !truth[p] {
						t.Errorf("%s %s %s: false pair %+v", fx.Name, m, ts, p)
					}
					if seen[p] {
						t.Errorf("%s %s %s: pair %+v reported twice", fx.Name, m, ts, p)
					}
					seen[p] = true
				}
				if int64(len(got)) != st.Results {
					t.Errorf("%s: Results %d, reported %d", fx.Name, st.Results, len(got))
				}
			}
		}
	}
}
