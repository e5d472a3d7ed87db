package approx_test

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// keySets makes the key sets of sets with the keys jointest.Input gives the
// collection path (uint64 of each token), each set sorted and distinct.
func keySets(sets [][]uint32) *approx.KeySets {
	ks := &approx.KeySets{Offs: []int{0}}
	for _, s := range sets {
		start := len(ks.Keys)
		for _, w := range s {
			ks.Keys = append(ks.Keys, uint64(w))
		}
		set := ks.Keys[start:]
		slices.Sort(set)
		ks.Keys = ks.Keys[:start+len(slices.Compact(set))]
		ks.Offs = append(ks.Offs, len(ks.Keys))
	}
	return ks
}

// collectPairs gathers the pairs of run, sorted by (A, B), and its stats
// without the measured times.
func collectPairs(t *testing.T, run func(yield func(join.Pair) bool) (approx.Stats, error)) ([]join.Pair, approx.Stats) {
	t.Helper()
	var got []join.Pair
	st, err := run(func(p join.Pair) bool { got = append(got, p); return true })
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b join.Pair) int {
		if c := cmp.Compare(a.A, b.A); c != 0 {
			return c
		}
		return cmp.Compare(a.B, b.B)
	})
	st.SignTime, st.BandTime, st.JoinTime = 0, 0, 0
	st.SignCPU, st.BandCPU, st.JoinCPU = 0, 0, 0
	st.Words = 0 // a collection's join hashes its dictionary's entries; key sets have none
	return got, st
}

// TestKeysMatchCollection: on every fixture, for each measure, scheme and
// verification, the key-set joins report exactly the pairs, similarities and
// statistics of the collection joins over the same sets.
func TestKeysMatchCollection(t *testing.T) {
	const seed = 11
	t.Logf("fixture seed %d", seed)
	ctx := context.Background()
	fixtures := jointest.Fixtures(seed)
	fixtures = append(fixtures, jointest.Fixture{Name: "docs", Sets: docSets(3, 600, 200, 100)})
	for _, fx := range fixtures {
		c, err := order.New(jointest.Input(fx.Sets))
		if err != nil {
			t.Fatal(err)
		}
		half := len(fx.Sets) / 2
		cs, err := order.Build(jointest.Input(fx.Sets[:half]), jointest.Input(fx.Sets[half:]))
		if err != nil {
			t.Fatal(err)
		}
		ks, kr, kss := keySets(fx.Sets), keySets(fx.Sets[:half]), keySets(fx.Sets[half:])
		for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine} {
			for _, ts := range []string{"0.5", "0.8"} {
				th, _ := prefix.ParseThreshold(m, ts)
				for _, opt := range []approx.Options{
					{Measure: m, Threshold: th, Workers: 2},
					{Measure: m, Threshold: th, Scheme: approx.Classic, K: 32, Bits: 16},
					{Measure: m, Threshold: th, Verify: approx.VerifyEstimate, MinSize: 3},
					{Measure: m, Threshold: th, K: 8, Shape: approx.Shape{B: 2, R: 1}, MaxBucket: 5},
				} {
					name := fx.Name + "/" + m.String() + "/" + ts + "/" + opt.Scheme.String() + "/" + opt.Verify.String()
					want, wst := collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) {
						return approx.SelfJoin(ctx, c, opt, y)
					})
					got, gst := collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) {
						return approx.SelfJoinKeys(ctx, ks, opt, y)
					})
					if !slices.Equal(got, want) {
						t.Errorf("%s: self-join: %d pairs from keys, %d from the collection", name, len(got), len(want))
					}
					if gst != wst {
						t.Errorf("%s: self-join stats\nkeys       %+v\ncollection %+v", name, gst, wst)
					}
					want, wst = collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) {
						return approx.RSJoin(ctx, cs[0], cs[1], opt, y)
					})
					got, gst = collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) {
						return approx.JoinKeys(ctx, kr, kss, opt, y)
					})
					if !slices.Equal(got, want) {
						t.Errorf("%s: R-S join: %d pairs from keys, %d from the collection", name, len(got), len(want))
					}
					if gst != wst {
						t.Errorf("%s: R-S stats\nkeys       %+v\ncollection %+v", name, gst, wst)
					}
				}
			}
		}
	}
}

// TestKeysDeterministic: the key-set self-join's output order is the same
// for any number of workers and does not depend on the keys' hashes beyond
// the documented order: copies come first, ids ascending within a pair.
func TestKeysDeterministic(t *testing.T) {
	sets := docSets(9, 800, 200, 100)
	for i := 0; i < 40; i++ { // copies of earlier sets
		sets = append(sets, sets[i*7])
	}
	ks := keySets(sets)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	var ref []join.Pair
	for _, w := range []int{1, 2, 5} {
		var got []join.Pair
		_, err := approx.SelfJoinKeys(context.Background(), ks, approx.Options{Threshold: th, Workers: w}, func(p join.Pair) bool {
			if p.A >= p.B {
				t.Fatalf("pair (%d, %d) not ordered", p.A, p.B)
			}
			got = append(got, p)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = got
		} else if !slices.Equal(got, ref) {
			t.Errorf("workers=%d: output differs from workers=1", w)
		}
	}
	if len(ref) < 40 || ref[0].Sim != 1 {
		t.Errorf("%d pairs, first %+v: want the copies first", len(ref), ref[0])
	}
}

// TestKeysCopiesAndStop: Options.Copies receives each group of identical
// sets once, and yield returning false stops the join.
func TestKeysCopiesAndStop(t *testing.T) {
	sets := [][]uint32{{1, 2, 3}, {4, 5}, {1, 2, 3}, {}, {1, 2, 3}, {4, 5}, {9}}
	ks := keySets(sets)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "1")
	var groups [][]int
	opt := approx.Options{Threshold: th, Copies: func(ids []int) bool { groups = append(groups, slices.Clone(ids)); return true }}
	st, err := approx.SelfJoinKeys(context.Background(), ks, opt, func(join.Pair) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 5}, {0, 2, 4}} // by size, then hash: {4,5} before {1,2,3}
	if !slices.EqualFunc(groups, want, slices.Equal) || st.Results != 4 || st.Skipped != 1 || st.Units != 3 {
		t.Errorf("groups %v, results %d, skipped %d, units %d; want %v, 4, 1, 3", groups, st.Results, st.Skipped, st.Units, want)
	}
	n := 0
	if _, err := approx.SelfJoinKeys(context.Background(), ks, approx.Options{Threshold: th}, func(join.Pair) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("stopped join: %d pairs, %v", n, err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if _, err := approx.SelfJoinKeys(ctx, keySets(docSets(2, 300, 50, 0)), approx.Options{Threshold: th}, func(join.Pair) bool { return true }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled join: %v", err)
	}
}

// TestKeysInvalid: key sets that are not sorted and distinct, or whose
// offsets do not fit, are refused with ErrKeySets.
func TestKeysInvalid(t *testing.T) {
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	for _, ks := range []approx.KeySets{
		{Keys: []uint64{3, 1}, Offs: []int{0, 2}},
		{Keys: []uint64{1, 1}, Offs: []int{0, 2}},
		{Keys: []uint64{1, 2}, Offs: []int{0, 3}},
		{Keys: []uint64{1, 2}, Offs: []int{1, 2}},
		{Keys: []uint64{1, 2, 3}, Offs: []int{0, 2, 1, 3}},
	} {
		_, err := approx.SelfJoinKeys(context.Background(), &ks, approx.Options{Threshold: th}, func(join.Pair) bool { return true })
		if !errors.Is(err, approx.ErrKeySets) {
			t.Errorf("%+v: error %v, want ErrKeySets", ks, err)
		}
	}
	var empty approx.KeySets
	st, err := approx.SelfJoinKeys(context.Background(), &empty, approx.Options{Threshold: th}, func(join.Pair) bool { return true })
	if err != nil || st.Records != 0 {
		t.Errorf("no sets: %+v, %v", st, err)
	}
}

// hashedKeySets spreads fixture tokens over 64 bits, as shingle's keys are.
func hashedKeySets(sets [][]uint32) *approx.KeySets {
	ks := &approx.KeySets{Offs: []int{0}}
	for _, s := range sets {
		start := len(ks.Keys)
		for _, w := range s {
			ks.Keys = append(ks.Keys, mix.Mix64(uint64(w)))
		}
		set := ks.Keys[start:]
		slices.Sort(set)
		ks.Keys = ks.Keys[:start+len(slices.Compact(set))]
		ks.Offs = append(ks.Offs, len(ks.Keys))
	}
	return ks
}

// TestKeysRecallWithinSCurve: on keys spread over 64 bits, every reported
// pair is a true pair with its exact overlap, and the recall sits within
// the S-curve's bounds (as TestRecallWithinSCurve for collections).
func TestKeysRecallWithinSCurve(t *testing.T) {
	const seed = 23
	t.Logf("seed %d", seed)
	sets := docSets(seed, 700, 250, 150)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	want := jointest.SelfJoin(sets, prefix.Jaccard, th)
	truth := map[jointest.Pair]bool{}
	for _, p := range want {
		truth[p] = true
	}
	shape := approx.Shape{B: 8, R: 6}
	got, _ := collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) {
		return approx.SelfJoinKeys(context.Background(), hashedKeySets(sets), approx.Options{Threshold: th, Shape: shape}, y)
	})
	for _, p := range got {
		if !truth[jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap}] {
			t.Errorf("false pair %+v", p)
		}
	}
	var expect, variance float64
	for _, p := range want {
		sim := float64(p.Overlap) / float64(len(dedup(sets[p.A]))+len(dedup(sets[p.B]))-p.Overlap)
		pr := shape.P(sim)
		expect += pr
		variance += pr * (1 - pr)
	}
	t.Logf("%d of %d found, S-curve expects %.1f ± %.1f", len(got), len(want), expect, math.Sqrt(variance))
	if math.Abs(float64(len(got))-expect) > 4*math.Sqrt(variance)+1 {
		t.Errorf("found %d, S-curve expects %.1f ± %.1f", len(got), expect, math.Sqrt(variance))
	}
}

// TestKeySetsAddBatch: batches and single sets added one after another make
// the sets in order, each sorted and distinct, empty sets included.
func TestKeySetsAddBatch(t *testing.T) {
	var ks approx.KeySets
	ks.AddBatch([]uint64{1, 2, 3, 9}, []int{0, 2, 2, 4})
	ks.AddBatch(nil, []int{0})
	ks.AddBatch([]uint64{5, 7}, []int{0, 2})
	ks.Add([]uint64{8, 4, 8, 6})
	ks.Add(nil)
	want := [][]uint64{{1, 2}, {}, {3, 9}, {5, 7}, {4, 6, 8}, {}}
	if ks.Len() != len(want) || ks.Tokens() != 9 {
		t.Fatalf("%d sets of %d keys, want %d of 9", ks.Len(), ks.Tokens(), len(want))
	}
	var none approx.KeySets
	if none.Len() != 0 || none.Tokens() != 0 {
		t.Errorf("zero KeySets: %d sets of %d keys", none.Len(), none.Tokens())
	}
	for i, w := range want {
		if !slices.Equal(ks.Set(i), w) {
			t.Errorf("set %d = %v, want %v", i, ks.Set(i), w)
		}
	}
}

// TestKeysMatchCollectionRandom: random collections of 64-bit keys (so that
// key order and the rare-first id order differ), with copies and empty
// sets: the key-set and collection self-joins agree on pairs and Stats.
func TestKeysMatchCollectionRandom(t *testing.T) {
	const seed = 31
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	total := 0
	for round := range 40 {
		n := 5 + r.IntN(120)
		vocab := make([]uint64, 3+r.IntN(60))
		for i := range vocab {
			vocab[i] = r.Uint64()
		}
		ks := &approx.KeySets{}
		in := new(order.Input)
		var prev []uint64
		for range n {
			var set []uint64
			if prev != nil && r.IntN(5) == 0 {
				set = slices.Clone(prev) // a copy
			} else {
				for range r.IntN(12) {
					set = append(set, vocab[r.IntN(len(vocab))])
				}
			}
			ks.Add(set)
			in.Add(set)
			prev = set
		}
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		th, _ := prefix.ParseThreshold(prefix.Jaccard, []string{"0.3", "0.5", "0.8"}[round%3])
		opt := approx.Options{Threshold: th, K: 32, Shape: approx.Shape{B: 16, R: 2}, Seed: uint64(round)}
		want, wst := collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) { return approx.SelfJoin(ctx, c, opt, y) })
		got, gst := collectPairs(t, func(y func(join.Pair) bool) (approx.Stats, error) { return approx.SelfJoinKeys(ctx, ks, opt, y) })
		if !slices.Equal(got, want) || gst != wst {
			t.Fatalf("round %d: %d pairs from keys, %d from the collection\nkeys       %+v\ncollection %+v", round, len(got), len(want), gst, wst)
		}
		total += len(got)
	}
	if total < 100 {
		t.Errorf("%d pairs in all rounds: the collections hardly join", total)
	}
	t.Logf("%d pairs in all", total)
}
