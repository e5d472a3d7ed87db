package approx_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
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

// docSets returns a small planted-pair workload as uint32 token sets (keys
// folded to 32 bits; the oracle and LSH see the same sets).
func docSets(seed uint64, n, planted, distract int) [][]uint32 {
	d := synth.Documents(synth.DocsConfig{N: n, MinSize: 80, MaxSize: 120,
		Planted: planted, PlantedLo: 0.4, PlantedHi: 0.95,
		Distractors: distract, DistractLo: 0.1, DistractHi: 0.4, Seed: seed})
	out := make([][]uint32, len(d.Sets))
	for i, s := range d.Sets {
		for _, k := range s {
			out[i] = append(out[i], uint32(k>>32)^uint32(k))
		}
	}
	return out
}

// TestRecallWithinSCurve: recall against the exact oracle sits within the
// S-curve's bounds: the number of true pairs found is Σ P(s) over the true
// pairs within 4 binomial deviations, for both schemes and several shapes,
// and every reported pair is true.
func TestRecallWithinSCurve(t *testing.T) {
	const seed = 21
	t.Logf("seed %d", seed)
	sets := docSets(seed, 700, 250, 150)
	for _, ts := range []string{"0.5", "0.7"} {
		th, _ := prefix.ParseThreshold(prefix.Jaccard, ts)
		want := jointest.SelfJoin(sets, prefix.Jaccard, th)
		for _, sc := range schemes {
			for _, shape := range []approx.Shape{{}, {B: 8, R: 6}, {B: 20, R: 3}} {
				opt := approx.Options{Threshold: th, Scheme: sc, Shape: shape, Seed: seed}
				got, st := lshSelfJoin(t, sets, opt)
				truth := map[[2]int]int{}
				for _, p := range want {
					truth[[2]int{p.A, p.B}] = p.Overlap
				}
				var expect, variance float64
				for _, p := range want {
					s := float64(p.Overlap) / float64(len(dedup(sets[p.A]))+len(dedup(sets[p.B]))-p.Overlap)
					pr := st.Shape.P(s)
					expect += pr
					variance += pr * (1 - pr)
				}
				for _, p := range got {
					if _, ok := truth[[2]int{p.A, p.B}]; !ok {
						t.Errorf("false pair %+v", p)
					}
				}
				recall := float64(len(got)) / float64(len(want))
				t.Logf("t=%s %s %s: %d of %d found (recall %.3f), S-curve expects %.1f ± %.1f; P(t) = %.3f",
					ts, sc, st.Shape, len(got), len(want), recall, expect, math.Sqrt(variance), st.PredictedRecall)
				if math.Abs(float64(len(got))-expect) > 4*math.Sqrt(variance)+1 {
					t.Errorf("t=%s %s %s: found %d, S-curve expects %.1f ± %.1f", ts, sc, st.Shape, len(got), expect, math.Sqrt(variance))
				}
				if shape == (approx.Shape{}) && recall < st.PredictedRecall-4*math.Sqrt(variance)/float64(len(want)) {
					t.Errorf("default shape: recall %.3f below the predicted lower bound %.3f", recall, st.PredictedRecall)
				}
			}
		}
	}
}

func dedup(s []uint32) []uint32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// TestDeterministic: the output sequence is the same for any number of
// workers and for both verification modes' own runs.
func TestDeterministic(t *testing.T) {
	sets := docSets(5, 900, 200, 100)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	for _, v := range []approx.Verify{approx.VerifyExact, approx.VerifyEstimate} {
		var ref []jointest.Pair
		for _, w := range []int{1, 2, 5} {
			got, _ := lshSelfJoin(t, sets, approx.Options{Threshold: th, Workers: w, Verify: v, Seed: 3})
			if ref == nil {
				ref = got
				continue
			}
			if !slices.Equal(got, ref) {
				t.Errorf("verify=%s workers=%d: output differs from workers=1", v, w)
			}
		}
		if len(ref) == 0 {
			t.Errorf("verify=%s: no pairs", v)
		}
	}
}

// TestRSJoin: R-S pairs are true pairs of the oracle, and the identical
// pairs across the sides are found.
func TestRSJoin(t *testing.T) {
	sets := docSets(8, 400, 120, 60)
	r, s := sets[:200], sets[200:]
	s = append(s, r[:10]...) // exact copies: always found
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.6")
	want := jointest.RSJoin(r, s, prefix.Jaccard, th)
	truth := map[jointest.Pair]bool{}
	for _, p := range want {
		truth[p] = true
	}
	cs, _ := order.Build(jointest.Input(r), jointest.Input(s))
	found := 0
	st, err := approx.RSJoin(context.Background(), cs[0], cs[1], approx.Options{Threshold: th}, func(p join.Pair) bool {
		if !truth[jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap}] {
			t.Errorf("false pair %+v", p)
		}
		found++
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("found %d of %d", found, len(want))
	if found < 10 || float64(found) < 0.85*float64(len(want)) {
		t.Errorf("found %d of %d", found, len(want))
	}
	// Identical sets of the two sides meet in the bands: no same-set pairs.
	if st.Results != int64(found) || st.SameSetPairs != 0 || st.Passed == 0 || st.Passed > st.Candidates || st.Passed > st.Results {
		t.Errorf("%d pairs found; stats %+v", found, st)
	}
}

// TestCappedBucket: a bucket over MaxBucket is counted, not silently lost,
// and MinSize drops near-empty sets before banding.
func TestCappedBucket(t *testing.T) {
	var sets [][]uint32
	for i := 0; i < 300; i++ {
		sets = append(sets, []uint32{0, uint32(i + 1)}) // pairwise J = 1/3
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.3")
	got, st := lshSelfJoin(t, sets, approx.Options{Threshold: th, K: 1, Shape: approx.Shape{B: 1, R: 1}, MaxBucket: 50})
	m := int64(st.LargestBucket)
	t.Logf("largest bucket %d, capped %d buckets, %d pairs; %d results", m, st.CappedBuckets, st.CappedPairs, len(got))
	if st.CappedBuckets != 1 || st.CappedPairs != m*(m-1)/2 || m <= 50 {
		t.Errorf("capped %d buckets, %d pairs, largest %d", st.CappedBuckets, st.CappedPairs, m)
	}
	got, st = lshSelfJoin(t, sets, approx.Options{Threshold: th, K: 1, Shape: approx.Shape{B: 1, R: 1}, MaxBucket: -1})
	if int64(len(got)) < m*(m-1)/2 || st.CappedBuckets != 0 {
		t.Errorf("uncapped: %d results, want >= %d", len(got), m*(m-1)/2)
	}
	got, st = lshSelfJoin(t, sets, approx.Options{Threshold: th, MinSize: 3})
	if len(got) != 0 || st.Dropped != 300 {
		t.Errorf("MinSize 3: %d results, %d dropped", len(got), st.Dropped)
	}
}

// TestBadOptions: shapes, bits, recall and measures that do not fit are
// refused before any work.
func TestBadOptions(t *testing.T) {
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.8")
	ov, _ := prefix.ParseThreshold(prefix.Overlap, "3")
	for _, tc := range []struct {
		name string
		opt  approx.Options
		want error
	}{
		{"no threshold", approx.Options{}, prefix.ErrNoThreshold},
		{"threshold above 1", approx.Options{Threshold: prefix.Threshold{Num: 3, Den: 2}}, prefix.ErrThreshold},
		{"threshold 0/5", approx.Options{Threshold: prefix.Threshold{Num: 0, Den: 5}}, prefix.ErrThreshold},
		{"B*R > K", approx.Options{Threshold: th, K: 64, Shape: approx.Shape{B: 9, R: 13}}, approx.ErrShape},
		{"K too large", approx.Options{Threshold: th, K: approx.MaxK + 1}, approx.ErrShape},
		{"K negative", approx.Options{Threshold: th, K: -1}, approx.ErrShape},
		{"bits 12", approx.Options{Threshold: th, Bits: 12}, approx.ErrShape},
		{"rows 0", approx.Options{Threshold: th, Shape: approx.Shape{B: 4}}, approx.ErrShape},
		{"recall 1", approx.Options{Threshold: th, Recall: 1}, approx.ErrRecall},
		{"recall -0.5", approx.Options{Threshold: th, Recall: -0.5}, approx.ErrRecall},
		{"recall unreachable", approx.Options{Threshold: th, K: 4, Recall: 0.9999}, approx.ErrRecall},
		{"overlap", approx.Options{Measure: prefix.Overlap, Threshold: ov}, approx.ErrNoJaccardBound},
	} {
		_, err := tc.opt.Resolve()
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestWorkersClamped: Workers far beyond the machine is lowered to
// 4·GOMAXPROCS instead of exhausting memory; the pairs do not change.
func TestWorkersClamped(t *testing.T) {
	sets := [][]uint32{{1, 2, 3, 4}, {1, 2, 3, 5}, {7, 8, 9}, {7, 8, 9, 10}}
	th := prefix.Threshold{Num: 1, Den: 2}
	want, _ := lshSelfJoin(t, sets, approx.Options{Threshold: th, Workers: 1})
	got, st := lshSelfJoin(t, sets, approx.Options{Threshold: th, Workers: 1 << 40})
	if st.Workers != 4*runtime.GOMAXPROCS(0) {
		t.Errorf("Stats.Workers = %d, want %d", st.Workers, 4*runtime.GOMAXPROCS(0))
	}
	jointest.Sort(want)
	jointest.Diff(t, "Workers 1<<40", got, want)
}

// TestSelfJoinCopies checks Options.Copies: the clusters of the groups and
// group pairs are those of every record pair, Results counts the record
// pairs stood for, and n copies are one call. It checks the counters of
// both runs: Results is the pairs yielded without Copies; with Copies one
// pair comes per candidate that passed; SameSetPairs counts the pairs of
// identical sets either way.
func TestSelfJoinCopies(t *testing.T) {
	for _, fx := range jointest.Fixtures(6) {
		c, err := order.New(jointest.Input(fx.Sets))
		if err != nil {
			t.Fatal(err)
		}
		th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
		opt := approx.Options{Threshold: th, Workers: 2}
		all := cluster.New(c.Records())
		var pairs, groupPairs int64
		st, err := approx.SelfJoin(context.Background(), c, opt, func(p join.Pair) bool { pairs++; all.Union(p.A, p.B); return true })
		if err != nil {
			t.Fatal(err)
		}
		grouped := cluster.New(c.Records())
		calls := 0
		opt.Copies = func(ids []int) bool {
			calls++
			for _, id := range ids[1:] {
				grouped.Union(ids[0], id)
			}
			return true
		}
		gst, err := approx.SelfJoin(context.Background(), c, opt, func(p join.Pair) bool { groupPairs++; grouped.Union(p.A, p.B); return true })
		if err != nil {
			t.Fatal(err)
		}
		var same int64
		for g := range c.Groups() {
			lo, hi := c.Group(g)
			same += int64(hi-lo) * int64(hi-lo-1) / 2
		}
		if st.Results != pairs || groupPairs != gst.Passed || st.Passed != gst.Passed || st.SameSetPairs != same || gst.SameSetPairs != same ||
			st.Passed > st.Candidates || st.Candidates > st.Collisions || st.SameSetPairs+st.Passed > st.Results {
			t.Fatalf("%s: %d pairs, %d with Copies, %d same-set pairs; stats %+v, with Copies %+v", fx.Name, pairs, groupPairs, same, st, gst)
		}
		if !slices.Equal(all.Labels(), grouped.Labels()) {
			t.Fatalf("%s: clusters with Copies differ from those of every pair", fx.Name)
		}
		if gst.Results != st.Results {
			t.Fatalf("%s: Results %d with Copies, %d without", fx.Name, gst.Results, st.Results)
		}
		if fx.Name == "all-identical" && (calls != 1 || grouped.Unions() != int64(c.Records()-1)) {
			t.Fatalf("%s: %d Copies calls, %d unions; want 1 and %d", fx.Name, calls, grouped.Unions(), c.Records()-1)
		}
	}
}

// TestStatsCountSigning: a join counts the signing work it did: the tokens
// of the distinct sets signed, the dictionary entries hashed for a
// collection's join, and the densification probes, which one-permutation
// hashing makes for sets smaller than K (about K·e^(-S/K)/(1-e^(-S/K)) per
// set of S tokens) and the classic scheme never makes.
func TestStatsCountSigning(t *testing.T) {
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	sets := synth.Sets(synth.SetsConfig{N: 500, MinSize: 8, MaxSize: 8, Universe: 2000, Seed: 2})
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	var tokens int64
	for g := range c.Groups() {
		lo, _ := c.Group(g)
		tokens += int64(c.Size(lo))
	}
	_, st := lshSelfJoin(t, sets, approx.Options{Threshold: th, K: 128})
	e := math.Exp(-8.0 / 128)
	want := float64(c.Groups()) * 128 * e / (1 - e)
	if st.Tokens != tokens || st.Words != c.Dict().Len() || st.Units != c.Groups() ||
		float64(st.Probes) < want/1.5 || float64(st.Probes) > want*1.5 {
		t.Errorf("tokens %d (want %d), words %d (want %d), units %d (want %d), probes %d (want about %.0f)",
			st.Tokens, tokens, st.Words, c.Dict().Len(), st.Units, c.Groups(), st.Probes, want)
	}
	if _, cl := lshSelfJoin(t, sets, approx.Options{Threshold: th, K: 128, Scheme: approx.Classic}); cl.Probes != 0 || cl.Tokens != tokens {
		t.Errorf("classic: %d probes, %d tokens", cl.Probes, cl.Tokens)
	}
}
