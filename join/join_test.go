package join_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

var measures = []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap}

func selfJoin(t testing.TB, sets [][]uint32, m prefix.Measure, th prefix.Threshold, workers int) ([]jointest.Pair, join.Stats) {
	t.Helper()
	return selfJoinEll(t, sets, m, th, workers, 0)
}

// selfJoinEll is selfJoin with Options.Ell set (0: chosen by cost).
func selfJoinEll(t testing.TB, sets [][]uint32, m prefix.Measure, th prefix.Threshold, workers, ell int) ([]jointest.Pair, join.Stats) {
	t.Helper()
	return selfJoinOn(t, collection(t, sets), m, th, workers, ell)
}

// collection orders sets into a Collection.
func collection(t testing.TB, sets [][]uint32) *order.Collection {
	t.Helper()
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// selfJoinOn is selfJoinEll on a collection already ordered.
func selfJoinOn(t testing.TB, c *order.Collection, m prefix.Measure, th prefix.Threshold, workers, ell int) ([]jointest.Pair, join.Stats) {
	t.Helper()
	var got []jointest.Pair
	st, err := join.SelfJoin(context.Background(), c, join.Options{Measure: m, Threshold: th, Workers: workers, Ell: ell}, func(p join.Pair) bool {
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

func rsJoin(t testing.TB, r, s [][]uint32, m prefix.Measure, th prefix.Threshold, workers int) []jointest.Pair {
	t.Helper()
	return rsJoinOn(t, collections(t, r, s), m, th, workers)
}

// collections orders r and s into Collections over one dictionary.
func collections(t testing.TB, r, s [][]uint32) []*order.Collection {
	t.Helper()
	cs, err := order.Build(jointest.Input(r), jointest.Input(s))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// rsJoinOn is rsJoin on collections already ordered.
func rsJoinOn(t testing.TB, cs []*order.Collection, m prefix.Measure, th prefix.Threshold, workers int) []jointest.Pair {
	t.Helper()
	var got []jointest.Pair
	_, err := join.RSJoin(context.Background(), cs[0], cs[1], join.Options{Measure: m, Threshold: th, Workers: workers}, func(p join.Pair) bool {
		got = append(got, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestAgainstOracle runs every fixture, measure and threshold through the
// self-join (on every path: chosen by cost, the prefix filter, ℓ = 2 and 3)
// and the R-S join and compares with the nested-loop oracle, for a few
// fixture seeds (all 60 with -long).
func TestAgainstOracle(t *testing.T) {
	for _, seed := range jointest.Seeds(60, 4) {
		r := rand.New(rand.NewPCG(seed, 99))
		for _, fx := range jointest.Fixtures(seed) {
			half := len(fx.Sets) / 2
			rs, ss := fx.Sets[:half], fx.Sets[half:]
			self, cross := jointest.SelfOverlaps(fx.Sets), jointest.RSOverlaps(rs, ss)
			c, cs := collection(t, fx.Sets), collections(t, rs, ss)
			for _, m := range measures {
				for _, th := range jointest.Thresholds(m, fx.Sets, r) {
					name := fmt.Sprintf("seed=%d/%s/%s/t=%s", seed, fx.Name, m, th)
					want := self.Join(m, th)
					for ell := range 4 {
						if ell > 1 && join.EllKeys(c, prefix.NewBounds(m, th), ell) > maxForcedKeys {
							continue
						}
						got, st := selfJoinOn(t, c, m, th, 1+int(seed%3), ell)
						jointest.Diff(t, fmt.Sprintf("%s/self/ell=%d", name, ell), got, want)
						if ell > 0 && st.Ell != ell {
							t.Fatalf("%s: Ell %d forced, Stats.Ell %d", name, ell, st.Ell)
						}
					}
					jointest.Diff(t, name+"/rs", rsJoinOn(t, cs, m, th, 1+int(seed%2)), cross.Join(m, th))
				}
			}
		}
	}
}

// maxForcedKeys bounds the ℓ-prefix keys a forced ℓ may look up in the
// oracle tests: forced on long sets at low thresholds, the keys are the
// binomial of the prefix length (a 400-token set at t = 0.001 would look up
// ten million triples), which the cost-based choice never takes.
const maxForcedKeys = 20_000

// TestExactBoundary plants pairs whose Jaccard similarity is exactly the
// threshold, in sizes where a float computation of the bounds rounds the
// wrong way, and checks none is lost and none just below is kept.
func TestExactBoundary(t *testing.T) {
	for _, ts := range []string{"0.9", "0.8", "0.7", "0.6", "0.3", "0.1"} {
		th, err := prefix.ParseThreshold(prefix.Jaccard, ts)
		if err != nil {
			t.Fatal(err)
		}
		var sets [][]uint32
		next := uint32(1 << 20)
		fresh := func(n int) []uint32 {
			s := make([]uint32, n)
			for i := range s {
				s[i] = next
				next++
			}
			return s
		}
		// For union u with t·u an integer, overlap o = t·u is exactly at t,
		// and o - 1 is just below.
		planted := 0
		for u := 10; u <= 400; u += 10 {
			o := int(th.Num) * u / int(th.Den)
			if o*int(th.Den) != int(th.Num)*u || o < 1 {
				continue
			}
			for _, oo := range []int{o, o - 1} {
				if oo < 1 {
					continue
				}
				common := fresh(oo)
				rest := u - oo
				a := append(slices.Clone(common), fresh(rest/2)...)
				b := append(slices.Clone(common), fresh(rest-rest/2)...)
				sets = append(sets, a, b)
				if oo == o {
					planted++
				}
			}
		}
		want := jointest.SelfJoin(sets, prefix.Jaccard, th)
		exact := 0
		for _, p := range want {
			if p.B == p.A+1 && p.A%2 == 0 {
				exact++
			}
		}
		if exact < planted {
			t.Fatalf("t=%s: oracle finds %d of %d planted pairs", ts, exact, planted)
		}
		got, _ := selfJoin(t, sets, prefix.Jaccard, th, 2)
		jointest.Diff(t, "boundary t="+ts, got, want)
	}
}

// TestWorkersSameOutput checks that the output sequence, not just the set,
// is the same for every number of workers.
func TestWorkersSameOutput(t *testing.T) {
	sets := jointest.Fixtures(7)[len(jointest.Fixtures(7))-1].Sets
	for len(sets) < 3000 {
		sets = append(sets, sets...)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.6")
	ref, _ := selfJoin(t, sets, prefix.Jaccard, th, 1)
	for _, w := range []int{2, 3, 8} {
		got, _ := selfJoin(t, sets, prefix.Jaccard, th, w)
		if !slices.Equal(got, ref) {
			t.Fatalf("workers=%d: output differs from workers=1 (%d vs %d pairs)", w, len(got), len(ref))
		}
	}
}

// TestSkipIntroducedSameStats checks that skipping the keys a probe's group
// introduces (their runs start with the probe, which meets only the groups
// before it) changes neither the output sequence nor a single statistic,
// on every fixture at ℓ = 2, with one and two workers.
func TestSkipIntroducedSameStats(t *testing.T) {
	defer join.SetSkipIntroduced(join.SetSkipIntroduced(true))
	skipped := false
	for _, seed := range jointest.Seeds(8, 2) {
		r := rand.New(rand.NewPCG(seed, 7))
		for _, fx := range jointest.Fixtures(seed) {
			c := collection(t, fx.Sets)
			for _, m := range measures {
				for _, th := range jointest.Thresholds(m, fx.Sets, r) {
					if join.EllKeys(c, prefix.NewBounds(m, th), 2) > maxForcedKeys {
						continue
					}
					for _, w := range []int{1, 2} {
						name := fmt.Sprintf("seed=%d/%s/%s/t=%s/workers=%d", seed, fx.Name, m, th, w)
						join.SetSkipIntroduced(false)
						want, wst := selfJoinOn(t, c, m, th, w, 2)
						join.SetSkipIntroduced(true)
						got, gst := selfJoinOn(t, c, m, th, w, 2)
						if !slices.Equal(got, want) {
							t.Fatalf("%s: output differs when introduced keys are skipped (%d vs %d pairs)", name, len(got), len(want))
						}
						gst.IndexTime, gst.JoinTime, wst.IndexTime, wst.JoinTime = 0, 0, 0, 0
						gst.IndexCPU, gst.JoinCPU, wst.IndexCPU, wst.JoinCPU = 0, 0, 0, 0
						// The keys looked up are fewer: that is what skipping does.
						gst.ProbeTokens, wst.ProbeTokens = 0, 0
						if gst != wst {
							t.Fatalf("%s: statistics differ when introduced keys are skipped:\n%+v\n%+v", name, gst, wst)
						}
						skipped = skipped || gst.Postings > 0
					}
				}
			}
		}
	}
	if !skipped {
		t.Fatal("no fixture scanned a posting at ℓ = 2")
	}
}

// TestLongSetsAgainstOracle runs the shape of BENCHMARKS.md's long sets,
// scaled down for the nested-loop oracle (sizes varying fourfold, Zipf
// tokens, near-duplicates), through the prefix filter at low thresholds,
// where the prefixes run far past the tokens a pair needs: late postings,
// counted tokens past a partner's own least prefix, both cases of the count
// bound and the verification's resumption after the prefix that ends first
// all occur. It compares with the oracle, one and two workers alike, and
// their statistics with each other.
func TestLongSetsAgainstOracle(t *testing.T) {
	for _, seed := range jointest.Seeds(8, 2) {
		sets := synth.Sets(synth.SetsConfig{N: 300, MinSize: 40, MaxSize: 160, Universe: 600, Zipf: 1,
			DupFraction: 0.2, Replace: 0.2, Seed: seed})
		self := jointest.SelfOverlaps(sets)
		c := collection(t, sets)
		for _, m := range measures[:3] {
			for _, ts := range []string{"0.3", "0.5", "0.7"} {
				th, err := prefix.ParseThreshold(m, ts)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("seed=%d/%s/t=%s", seed, m, ts)
				want := self.Join(m, th)
				var ref join.Stats
				for _, w := range []int{1, 2} {
					got, st := selfJoinOn(t, c, m, th, w, 1)
					jointest.Diff(t, fmt.Sprintf("%s/workers=%d", name, w), got, want)
					st.IndexTime, st.JoinTime, st.IndexCPU, st.JoinCPU, st.Workers = 0, 0, 0, 0, 0
					if w == 1 {
						ref = st
					} else if st != ref {
						t.Errorf("%s: statistics differ between one and two workers:\n%+v\n%+v", name, ref, st)
					}
				}
				if ref.LateSkipped == 0 || ref.Positional == 0 || ref.BoundPruned == 0 {
					t.Errorf("%s: late %d, positional %d, count bound %d: want all > 0", name, ref.LateSkipped, ref.Positional, ref.BoundPruned)
				}
			}
		}
	}
}

// TestThresholdValidated: every entry of the joins validates its threshold
// by prefix.Validate: the zero Threshold is ErrNoThreshold, and a fraction
// above 1 (or an Overlap threshold that is not a whole number) is
// ErrThreshold, not a join at a meaningless bound.
func TestThresholdValidated(t *testing.T) {
	ctx := context.Background()
	c, err := order.New(jointest.Input([][]uint32{{1, 2}, {1, 2, 3}, {2, 3}}))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := order.Build(jointest.Input([][]uint32{{1, 2}}), jointest.Input([][]uint32{{1, 2, 3}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m    prefix.Measure
		t    prefix.Threshold
		want error
	}{
		{prefix.Jaccard, prefix.Threshold{}, prefix.ErrNoThreshold},
		{prefix.Overlap, prefix.Threshold{}, prefix.ErrNoThreshold},
		{prefix.Jaccard, prefix.Threshold{Num: 3, Den: 2}, prefix.ErrThreshold},
		{prefix.Cosine, prefix.Threshold{Num: 0, Den: 2}, prefix.ErrThreshold},
		{prefix.Overlap, prefix.Threshold{Num: 3, Den: 2}, prefix.ErrThreshold},
	} {
		opt := join.Options{Measure: tc.m, Threshold: tc.t}
		none := func(join.Pair) bool { return true }
		_, err1 := join.SelfJoin(ctx, c, opt, none)
		_, err2 := join.RSJoin(ctx, cs[0], cs[1], opt, none)
		_, err3 := join.NewIndex(c, opt)
		for k, err := range []error{err1, err2, err3} {
			if !errors.Is(err, tc.want) {
				t.Errorf("%s %d/%d, entry %d: %v, want %v", tc.m, tc.t.Num, tc.t.Den, k, err, tc.want)
			}
		}
	}
}

// TestVerify: the one pair check agrees with the oracle's exact rule
// (jointest.Reaches) on every pair of small random sets, for every measure
// and a threshold of each kind, on token ids and on token keys alike; two
// empty sets never reach a threshold.
func TestVerify(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var sets [][]uint32
	for range 60 {
		var s []uint32
		for v := range uint32(12) {
			if r.IntN(3) == 0 {
				s = append(s, v)
			}
		}
		sets = append(sets, s)
	}
	for _, m := range measures {
		ts := []string{"0.5", "2/3", "0.8", "1"}
		if m == prefix.Overlap {
			ts = []string{"1", "2", "4"}
		}
		for _, s := range ts {
			th, err := prefix.ParseThreshold(m, s)
			if err != nil {
				t.Fatal(err)
			}
			b := prefix.NewBounds(m, th)
			for _, x := range sets {
				keys := func(s []uint32) []uint64 {
					k := make([]uint64, len(s))
					for i, v := range s {
						k[i] = uint64(v) << 40
					}
					return k
				}
				for _, y := range sets {
					o := join.Overlap(x, y)
					want := len(x)+len(y) > 0 && jointest.Reaches(m, th, o, len(x), len(y))
					got, ok := join.Verify(b, x, y)
					kgot, kok := join.Verify(b, keys(x), keys(y))
					if ok != want || kok != want || ok && (got != o || kgot != o) {
						t.Fatalf("%s %s: %v ~ %v: Verify %d %v (keys %d %v), overlap %d, want %v", m, s, x, y, got, ok, kgot, kok, o, want)
					}
				}
			}
		}
	}
	if _, ok := join.Verify(prefix.NewBounds(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}), []uint32{}, nil); ok {
		t.Error("two empty sets reach a threshold")
	}
}
