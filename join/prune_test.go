package join_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// These tests check the cost, not the answer (STYLE.md item 16): that the
// filters prune and that Stats accounts for every candidate.

// zipfSets is a collection in the style of the literature: Zipf token
// frequencies, sizes from 5 to 60, a third of the sets near-duplicates of
// earlier ones.
func zipfSets(n int, seed uint64) [][]uint32 {
	return synth.Sets(synth.SetsConfig{N: n, MinSize: 5, MaxSize: 60, Universe: 3000, Zipf: 1,
		DupFraction: 0.3, Replace: 0.15, Seed: seed})
}

// statsOf runs a self-join (s == nil) or an R-S join and returns its
// statistics, the pairs, and the collections.
func statsOf(t *testing.T, r, s [][]uint32, m prefix.Measure, th prefix.Threshold) (join.Stats, []join.Pair, []*order.Collection) {
	t.Helper()
	return statsOfEll(t, r, s, m, th, 0)
}

// statsOfEll is statsOf with Options.Ell set.
func statsOfEll(t *testing.T, r, s [][]uint32, m prefix.Measure, th prefix.Threshold, ell int) (join.Stats, []join.Pair, []*order.Collection) {
	t.Helper()
	var cs []*order.Collection
	var err error
	if s == nil {
		cs, err = order.Build(jointest.Input(r))
	} else {
		cs, err = order.Build(jointest.Input(r), jointest.Input(s))
	}
	if err != nil {
		t.Fatal(err)
	}
	var pairs []join.Pair
	yield := func(p join.Pair) bool { pairs = append(pairs, p); return true }
	opt := join.Options{Measure: m, Threshold: th, Workers: 2, Ell: ell}
	var st join.Stats
	if s == nil {
		st, err = join.SelfJoin(context.Background(), cs[0], opt, yield)
	} else {
		st, err = join.RSJoin(context.Background(), cs[0], cs[1], opt, yield)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st, pairs, cs
}

// checkAccounting checks the identities every join's Stats must satisfy.
func checkAccounting(t *testing.T, what string, st join.Stats, pairs []join.Pair, r, s [][]uint32) {
	t.Helper()
	if sum := st.Positional + st.BoundPruned + st.BitmapPruned + st.Verified; sum != st.Candidates {
		t.Errorf("%s: Positional %d + BoundPruned %d + BitmapPruned %d + Verified %d = %d, want Candidates %d",
			what, st.Positional, st.BoundPruned, st.BitmapPruned, st.Verified, sum, st.Candidates)
	}
	if st.Verified > st.Candidates || st.Candidates > st.Postings {
		t.Errorf("%s: Verified %d <= Candidates %d <= Postings %d does not hold", what, st.Verified, st.Candidates, st.Postings)
	}
	if st.Results != int64(len(pairs)) {
		t.Errorf("%s: Results %d, but %d pairs yielded", what, st.Results, len(pairs))
	}
	records, skipped := len(r)+len(s), 0
	for _, set := range slices.Concat(r, s) {
		if len(set) == 0 {
			skipped++
		}
	}
	if st.Records != records || st.Skipped != skipped {
		t.Errorf("%s: Records %d Skipped %d, want %d and %d", what, st.Records, st.Skipped, records, skipped)
	}
	// Each verified candidate is a pair of distinct sets; identical sets
	// (in a self-join) are paired without a probe. So the pairs of distinct
	// sets, counted once per pair of sets, are at most Verified.
	keys := func(sets [][]uint32) []string {
		out := make([]string, len(sets))
		for i, set := range sets {
			out[i] = fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(set))))
		}
		return out
	}
	rk, sk := keys(r), keys(s)
	if s == nil {
		sk = rk
	}
	setPairs := map[[2]string]bool{}
	identical := 0
	for _, p := range pairs {
		ka, kb := rk[p.A], sk[p.B]
		if s == nil {
			if ka == kb {
				identical++
				continue
			}
			ka, kb = min(ka, kb), max(ka, kb) // a self-join pair of sets is unordered
		}
		setPairs[[2]string{ka, kb}] = true
	}
	if int64(len(setPairs)) > st.Verified {
		t.Errorf("%s: %d distinct pairs of sets reported, but only %d candidates verified", what, len(setPairs), st.Verified)
	}
	if st.Results > st.Verified+int64(identical) && s == nil && !hasDuplicates(r) {
		t.Errorf("%s: Results %d > Verified %d + identical pairs %d", what, st.Results, st.Verified, identical)
	}
}

func hasDuplicates(sets [][]uint32) bool {
	seen := map[string]bool{}
	for _, s := range sets {
		k := fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(s))))
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// TestFiltersPrune joins a Zipf collection at 0.8 under each measure and
// checks that the filters do the work: candidates far below n(n-1)/2, the
// positional filter and the bound before merging both prune, the size filter
// skips postings, and only prefixes are indexed.
func TestFiltersPrune(t *testing.T) {
	const n = 4000
	sets := zipfSets(n, 1)
	for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice} {
		th, _ := prefix.ParseThreshold(m, "0.8")
		st, pairs, cs := statsOf(t, sets, nil, m, th)
		what := fmt.Sprintf("zipf n=%d %s t=0.8", n, m)
		t.Logf("%s: %+v", what, st)
		checkAccounting(t, what, st, pairs, sets, nil)
		if all := int64(n) * (n - 1) / 2; st.Candidates*50 > all {
			t.Errorf("%s: %d candidates, more than 2%% of the %d pairs", what, st.Candidates, all)
		}
		if st.Positional == 0 || st.BoundPruned == 0 {
			t.Errorf("%s: positional filter pruned %d, bound before merge %d; want both > 0", what, st.Positional, st.BoundPruned)
		}
		if st.Verified == 0 || len(pairs) == 0 {
			t.Errorf("%s: %d verified, %d pairs: the collection should have near-duplicates", what, st.Verified, len(pairs))
		}
		if st.SizePruned == 0 {
			t.Errorf("%s: the size filter skipped nothing, though sizes range from 5 to 60", what)
		}
		if st.IndexEntries >= cs[0].Tokens() {
			t.Errorf("%s: %d index entries for %d tokens: more than the prefixes", what, st.IndexEntries, cs[0].Tokens())
		}
		if st.Groups >= cs[0].Len() {
			t.Errorf("%s: %d groups for %d sets, though a share are exact duplicates", what, st.Groups, cs[0].Len())
		}
	}
}

// TestIndexOnlyPrefixes checks the index size exactly against the prefix
// lengths the join documents: index prefixes of distinct sets in a
// self-join, probe prefixes of S's distinct sets in an R-S join.
func TestIndexOnlyPrefixes(t *testing.T) {
	sets := zipfSets(1500, 2)
	for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap} {
		ts := "0.7"
		if m == prefix.Overlap {
			ts = "4"
		}
		th, _ := prefix.ParseThreshold(m, ts)
		b := prefix.NewBounds(m, th)
		distinct := map[string]int{}
		for _, s := range sets {
			distinct[fmt.Sprint(slices.Sorted(slices.Values(s)))] = distinctSize(s)
		}
		wantSelf, wantRS := 0, 0
		for _, size := range distinct {
			wantSelf += b.IndexPrefix(size)
			wantRS += b.ProbePrefix(size)
		}
		st, _, _ := statsOf(t, sets, nil, m, th)
		if st.IndexEntries > wantSelf {
			t.Errorf("%s self-join: %d index entries, the index prefixes hold %d", m, st.IndexEntries, wantSelf)
		}
		st, _, _ = statsOf(t, sets[:1], sets, m, th)
		if st.IndexEntries > wantRS {
			t.Errorf("%s R-S join: %d index entries, the probe prefixes of S hold %d", m, st.IndexEntries, wantRS)
		}
	}
}

// TestSizeFilterIdleOnEqualSizes checks the other side of the size filter:
// when every set has the same size there is nothing for it to skip.
func TestSizeFilterIdleOnEqualSizes(t *testing.T) {
	sets := synth.Sets(synth.SetsConfig{N: 2000, MinSize: 20, MaxSize: 20, Universe: 2000, Zipf: 1, DupFraction: 0.3, Replace: 0.1, Seed: 3})
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.7")
	st, pairs, _ := statsOf(t, sets, nil, prefix.Jaccard, th)
	checkAccounting(t, "equal sizes", st, pairs, sets, nil)
	if st.SizePruned != 0 {
		t.Errorf("equal sizes: the size filter skipped %d postings, want 0", st.SizePruned)
	}
	if st.Candidates == 0 {
		t.Errorf("equal sizes: no candidates; the test needs some")
	}
}

// TestCostFallsWithThreshold checks that raising the threshold never makes
// the join scan more postings or meet more candidates: every prefix and size
// range shrinks.
func TestCostFallsWithThreshold(t *testing.T) {
	sets := zipfSets(3000, 4)
	for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap} {
		texts := []string{"0.5", "0.6", "0.7", "0.8", "0.9", "0.95", "1"}
		if m == prefix.Overlap {
			texts = []string{"12", "16", "24", "32"} // lower ones report millions of pairs
		}
		var prev join.Stats
		for k, ts := range texts {
			th, _ := prefix.ParseThreshold(m, ts)
			st, pairs, _ := statsOf(t, sets, nil, m, th)
			what := fmt.Sprintf("%s t=%s", m, ts)
			checkAccounting(t, what, st, pairs, sets, nil)
			if k > 0 && (st.Postings > prev.Postings || st.Candidates > prev.Candidates || st.Results > prev.Results || st.IndexEntries > prev.IndexEntries) {
				t.Errorf("%s: postings %d, candidates %d, results %d, index %d; at the lower threshold %d, %d, %d, %d",
					what, st.Postings, st.Candidates, st.Results, st.IndexEntries, prev.Postings, prev.Candidates, prev.Results, prev.IndexEntries)
			}
			prev = st
		}
	}
}

// TestAccountingOnFixtures checks the Stats identities on every fixture,
// measure and threshold, in both joins and on every path of the self-join.
func TestAccountingOnFixtures(t *testing.T) {
	for _, fx := range jointest.Fixtures(5) {
		for _, m := range measures {
			ths := []string{"0.5", "0.8", "1"}
			if m == prefix.Overlap {
				ths = []string{"1", "3"}
			}
			for _, ts := range ths {
				th, _ := prefix.ParseThreshold(m, ts)
				what := fmt.Sprintf("%s/%s/t=%s", fx.Name, m, ts)
				for ell := range 4 {
					if ell > 1 && join.EllKeys(collection(t, fx.Sets), prefix.NewBounds(m, th), ell) > maxForcedKeys {
						continue
					}
					st, pairs, _ := statsOfEll(t, fx.Sets, nil, m, th, ell)
					checkAccounting(t, fmt.Sprintf("%s/self/ell=%d", what, ell), st, pairs, fx.Sets, nil)
				}
				half := len(fx.Sets) / 2
				st, pairs, _ := statsOf(t, fx.Sets[:half], fx.Sets[half:], m, th)
				checkAccounting(t, what+"/rs", st, pairs, fx.Sets[:half], fx.Sets[half:])
			}
		}
	}
}
