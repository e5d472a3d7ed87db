package join_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

func keysOf(set []uint32) []uint64 {
	out := make([]uint64, len(set))
	for i, w := range set {
		out[i] = uint64(w)
	}
	return out
}

// TestIndexAgainstOracle queries an Index of one half of every fixture with
// each set of the other half (tokens the index never saw included), with the
// prefix index and with pair keys, and compares Query, QueryAll and TopK with
// the nested-loop R-S join.
func TestIndexAgainstOracle(t *testing.T) {
	for _, seed := range jointest.Seeds(60, 2) {
		r := rand.New(rand.NewPCG(seed, 31))
		for _, fx := range jointest.Fixtures(seed) {
			half := len(fx.Sets) / 2
			queries, known := fx.Sets[:half], fx.Sets[half:]
			cross := jointest.RSOverlaps(queries, known)
			c, err := order.New(jointest.Input(known))
			if err != nil {
				t.Fatal(err)
			}
			qkeys := make([][]uint64, len(queries))
			for i, q := range queries {
				qkeys[i] = keysOf(q)
			}
			for _, m := range measures {
				for _, th := range jointest.Thresholds(m, fx.Sets, r) {
					want := cross.Join(m, th)
					for _, ell := range []int{0, 1, 2} {
						name := fmt.Sprintf("seed=%d/%s/%s/t=%s/ell=%d", seed, fx.Name, m, th, ell)
						ix, err := join.NewIndex(c, join.Options{Measure: m, Threshold: th, Workers: 2, Ell: ell})
						if err != nil {
							t.Fatal(err)
						}
						var got []jointest.Pair
						var ms []join.Match
						for i, q := range qkeys {
							ms = ix.Query(ms[:0], q)
							if !slices.IsSortedFunc(ms, func(a, b join.Match) int { return a.ID - b.ID }) {
								t.Fatalf("%s: query %d: matches not sorted by ID: %+v", name, i, ms)
							}
							for _, mt := range ms {
								got = append(got, jointest.Pair{A: i, B: mt.ID, Overlap: mt.Overlap})
							}
							top := ix.TopK(nil, q, 3)
							rank := slices.Clone(ms)
							slices.SortFunc(rank, join.ByRank)
							if !slices.Equal(top, rank[:min(3, len(rank))]) {
								t.Fatalf("%s: query %d: TopK(3) %+v, want %+v", name, i, top, rank[:min(3, len(rank))])
							}
						}
						jointest.Diff(t, name+"/query", slices.Clone(got), want)
						var all []jointest.Pair
						err = ix.QueryAll(context.Background(), qkeys, func(q int, mt join.Match) bool {
							all = append(all, jointest.Pair{A: q, B: mt.ID, Overlap: mt.Overlap})
							return true
						})
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(all, got) {
							t.Fatalf("%s: QueryAll gave %d matches in another order than Query's %d", name, len(all), len(got))
						}
					}
				}
			}
		}
	}
}

// TestIndexConcurrent queries one index from several goroutines at once
// (run with -race) and checks every answer against a sequential one.
func TestIndexConcurrent(t *testing.T) {
	fx := jointest.Fixtures(4)
	sets := fx[len(fx)-1].Sets
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	for _, ell := range []int{1, 2} {
		ix, err := join.NewIndex(c, join.Options{Measure: prefix.Jaccard, Threshold: th, Ell: ell})
		if err != nil {
			t.Fatal(err)
		}
		want := make([][]join.Match, len(sets))
		for i, s := range sets {
			want[i] = ix.Query(nil, keysOf(s))
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				var ms []join.Match
				for k := range sets {
					i := (k + g*7) % len(sets)
					ms = ix.Query(ms[:0], keysOf(sets[i]))
					if !slices.Equal(ms, want[i]) {
						t.Errorf("ell=%d: concurrent query %d: %+v, want %+v", ell, i, ms, want[i])
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// TestIndexOptions checks the errors of NewIndex and the keys it reports.
func TestIndexOptions(t *testing.T) {
	c, err := order.New(jointest.Input([][]uint32{{1, 2}, {2, 3}}))
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	for _, opt := range []join.Options{{}, {Threshold: th, Ell: 3}, {Threshold: th, Ell: -1}} {
		if _, err := join.NewIndex(c, opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
	for _, ell := range []int{1, 2} {
		ix, err := join.NewIndex(c, join.Options{Threshold: th, Ell: ell})
		if err != nil {
			t.Fatal(err)
		}
		if st := ix.Stats(); st.Ell != ell || st.Records != 2 || st.Groups != 2 {
			t.Errorf("ell=%d: stats %+v", ell, st)
		}
	}
	if ix, _ := join.NewIndex(c, join.Options{Threshold: th}); ix.Stats().Ell != 1 {
		t.Errorf("two sets: chose ℓ = %d, want the prefix index", ix.Stats().Ell)
	}
}
