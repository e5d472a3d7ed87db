package approx_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// TestIndexSelfJoinStats: an Index's self-join groups no identical sets, so
// its results are its candidates that passed, one record pair each, and it
// has no same-set pairs; its units are its sets.
func TestIndexSelfJoinStats(t *testing.T) {
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	b, err := approx.NewBuilder(approx.Options{Threshold: th, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	sets := synth.Documents(synth.DocsConfig{N: 300, MinSize: 20, MaxSize: 40, Planted: 80, PlantedLo: 0.5, PlantedHi: 1, Seed: 5}).Sets
	for _, s := range append(sets, sets[0], nil) {
		b.Add(s)
	}
	ix, err := b.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var pairs int64
	st, err := ix.SelfJoin(context.Background(), func(join.Pair) bool { pairs++; return true })
	if err != nil {
		t.Fatal(err)
	}
	if st.Units != ix.Len() || st.Skipped != 1 || st.SameSetPairs != 0 || st.Results != pairs || st.Passed != pairs || pairs == 0 ||
		st.Passed > st.Candidates || st.Candidates > st.Collisions {
		t.Errorf("%d pairs of %d sets; stats %+v", pairs, ix.Len(), st)
	}
}

// TestIndexQuery: Query returns only true matches with exact similarities,
// QueryAll gives the same answers in query order, and TopK agrees with a
// brute-force ranking of the candidates it refines.
func TestIndexQuery(t *testing.T) {
	const seed = 31
	t.Logf("seed %d", seed)
	cfg := synth.DocsConfig{N: 600, MinSize: 60, MaxSize: 90, Planted: 150, PlantedLo: 0.5, PlantedHi: 0.95,
		Distractors: 50, DistractLo: 0.2, DistractHi: 0.5, Seed: seed}
	d := synth.Documents(cfg)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	b, err := approx.NewBuilder(approx.Options{Threshold: th, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sets {
		b.Add(s)
	}
	ix, err := b.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	jac := func(a, b []uint64) (int, float64) {
		o := 0
		for _, k := range a {
			if _, ok := slices.BinarySearch(b, k); ok {
				o++
			}
		}
		return o, float64(o) / float64(len(a)+len(b)-o)
	}
	var all [][]approx.Match
	found, want := 0, 0
	for q, s := range d.Sets {
		ms := ix.Query(nil, s)
		all = append(all, ms)
		self := false
		for _, m := range ms {
			o, sim := jac(s, ix.Set(m.ID))
			if o != m.Overlap || sim != m.Sim || sim < 0.5 {
				t.Errorf("query %d: match %+v, exact overlap %d sim %.4f", q, m, o, sim)
			}
			self = self || m.ID == q
		}
		if !self {
			t.Errorf("query %d did not find itself", q)
		}
	}
	for _, p := range d.Pairs {
		if p.J >= 0.5 {
			want++
			if slices.ContainsFunc(all[p.A], func(m approx.Match) bool { return m.ID == p.B }) {
				found++
			}
		}
	}
	t.Logf("planted pairs found by Query: %d of %d", found, want)
	if found < want*9/10 {
		t.Errorf("Query found %d of %d planted pairs", found, want)
	}
	k := 0
	err = ix.QueryAll(context.Background(), d.Sets, func(q int, m approx.Match) bool {
		for k < len(d.Sets) && len(all[k]) == 0 {
			k++
		}
		if q != k || all[q][0] != m {
			t.Fatalf("QueryAll gave query %d match %+v; Query gave %+v for query %d", q, m, all[k], k)
		}
		all[q] = all[q][1:]
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	for i := 0; i < 50; i++ {
		q := d.Sets[r.IntN(len(d.Sets))]
		top := ix.TopK(nil, q, 3, 10)
		if len(top) == 0 || top[0].Sim != 1 {
			t.Fatalf("TopK did not rank the query's own set first: %+v", top)
		}
		for j := 1; j < len(top); j++ {
			if top[j].Sim > top[j-1].Sim {
				t.Errorf("TopK not ranked: %+v", top)
			}
		}
		for _, m := range top {
			if o, sim := jac(q, ix.Set(m.ID)); o != m.Overlap || sim != m.Sim {
				t.Errorf("TopK match %+v, exact %d %.4f", m, o, sim)
			}
		}
	}
}

// FuzzParseShape: ParseShape accepts exactly "BxR" with B, R >= 1 and
// round-trips through String.
func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"9x13", "1x1", "0x4", "12X4", " 3x3 ", "x", "4x", "-1x5", "99999999999999999999x1", "1x2x3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := approx.ParseShape(s)
		if err != nil {
			return
		}
		if sh.B < 1 || sh.R < 1 {
			t.Fatalf("ParseShape(%q) = %+v", s, sh)
		}
		back, err := approx.ParseShape(sh.String())
		if err != nil || back != sh {
			t.Fatalf("ParseShape(%q) = %s does not round-trip: %v %v", s, sh, back, err)
		}
	})
}
