package cluster_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// floodLabels numbers the connected components of the oracle's pairs by
// breadth-first search, in order of first record.
func floodLabels(n int, pairs []jointest.Pair) []int {
	adj := make([][]int, n)
	for _, p := range pairs {
		adj[p.A] = append(adj[p.A], p.B)
		adj[p.B] = append(adj[p.B], p.A)
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	next := 0
	for i := range labels {
		if labels[i] >= 0 {
			continue
		}
		labels[i] = next
		queue := []int{i}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, u := range adj[v] {
				if labels[u] < 0 {
					labels[u] = next
					queue = append(queue, u)
				}
			}
		}
		next++
	}
	return labels
}

// TestJoinAgainstOracle clusters every fixture through the exact join and
// compares with the components of the brute-force pairs.
func TestJoinAgainstOracle(t *testing.T) {
	seed := uint64(20260)
	t.Logf("Using fixture seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	for _, fx := range jointest.Fixtures(seed) {
		c, err := order.New(jointest.Input(fx.Sets))
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range jointest.Thresholds(prefix.Jaccard, fx.Sets, r) {
			opt := join.Options{Measure: prefix.Jaccard, Threshold: th, Workers: 2}
			f, err := cluster.Join(c.Records(), func(yield func(join.Pair) bool) error {
				_, err := join.SelfJoin(context.Background(), c, opt, yield)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := floodLabels(len(fx.Sets), jointest.SelfJoin(fx.Sets, prefix.Jaccard, th))
			if got := f.Labels(); !slices.Equal(got, want) {
				t.Fatalf("%s t=%s: labels\n%v\nwant\n%v", fx.Name, th, got, want)
			}
			// SelfJoin (groups unioned once) on every path of the join.
			for ell := range 4 {
				o := opt
				o.Ell = ell
				if ell > 1 && th.Float() < 0.3 {
					continue // keys of long sets at low thresholds: slow, not different
				}
				g, st, err := cluster.SelfJoin(context.Background(), c, o)
				if err != nil {
					t.Fatal(err)
				}
				if got := g.Labels(); !slices.Equal(got, want) {
					t.Fatalf("%s t=%s ell=%d: SelfJoin labels\n%v\nwant\n%v", fx.Name, th, ell, got, want)
				}
				if st.Results != int64(len(jointest.SelfJoin(fx.Sets, prefix.Jaccard, th))) {
					t.Fatalf("%s t=%s ell=%d: Results %d, want the %d record pairs stood for", fx.Name, th, ell, st.Results, len(jointest.SelfJoin(fx.Sets, prefix.Jaccard, th)))
				}
			}
			// Firsts: the first record of each component, ascending.
			var firsts []int
			for i, l := range want {
				if l == len(firsts) {
					firsts = append(firsts, i)
				}
			}
			if got := f.Firsts(); !slices.Equal(got, firsts) {
				t.Errorf("%s t=%s: firsts %v, want %v", fx.Name, th, got, firsts)
			}
			// Sizes: counts of component sizes, summing to n.
			count := map[int]int{}
			sizeOf := map[int]int{}
			for _, l := range want {
				sizeOf[l]++
			}
			for _, s := range sizeOf {
				count[s]++
			}
			total := 0
			for _, sc := range f.Sizes() {
				if count[sc.Size] != sc.Clusters {
					t.Errorf("%s t=%s: %d clusters of size %d, want %d", fx.Name, th, sc.Clusters, sc.Size, count[sc.Size])
				}
				total += sc.Size * sc.Clusters
				delete(count, sc.Size)
			}
			if total != len(fx.Sets) || len(count) != 0 {
				t.Errorf("%s t=%s: sizes cover %d records (want %d), missing %v", fx.Name, th, total, len(fx.Sets), count)
			}
		}
	}
}

// TestSelfJoinCopiesLinear clusters many exact copies of a few sets: the
// unions must grow with the records (n - 1 for n copies), not with the
// n(n-1)/2 pairs among the copies.
func TestSelfJoinCopiesLinear(t *testing.T) {
	var sets [][]uint32
	for i := range 3000 {
		sets = append(sets, []uint32{1, 2, 3, 4, 5}, []uint32{1, 2, 3, 4, 6}, []uint32{uint32(100 + i%7), 200})
	}
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.6")
	f, st, err := cluster.SelfJoin(context.Background(), c, join.Options{Threshold: th})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(sets))
	if f.Unions() > n {
		t.Errorf("%d records: %d unions, want at most %d (one a record, not one a pair of copies)", n, f.Unions(), n)
	}
	// The pairs stood for: the 6000 copies of the first two sets all pair
	// (Jaccard 4/6 between them), and each 3000/7 copies of the others.
	want := 6000 * 5999 / 2
	for k := range 7 {
		m := (3000 - k + 6) / 7
		want += m * (m - 1) / 2
	}
	if st.Results != int64(want) {
		t.Errorf("Results %d, want %d", st.Results, want)
	}
	if got := f.Sizes(); len(got) != 3 || f.Size(0) != 6000 {
		t.Errorf("sizes %v, cluster of record 0 %d: want one of 6000 and seven of about 429", got, f.Size(0))
	}
}

func TestJoinError(t *testing.T) {
	want := fmt.Errorf("stopped")
	f, err := cluster.Join(3, func(yield func(join.Pair) bool) error {
		yield(join.Pair{A: 0, B: 2})
		return want
	})
	if err != want || f.Find(0) != f.Find(2) {
		t.Errorf("err %v, clusters %v", err, f.Labels())
	}
}

func ExampleJoin() {
	in := new(order.Input)
	for _, set := range [][]uint64{{1, 2, 3, 4}, {9}, {1, 2, 3, 5}, {1, 2, 3, 4, 5}, {7, 8}} {
		in.Add(set)
	}
	c, _ := order.New(in)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.6")
	f, _ := cluster.Join(c.Records(), func(yield func(join.Pair) bool) error {
		_, err := join.SelfJoin(context.Background(), c, join.Options{Threshold: th}, yield)
		return err
	})
	fmt.Println("labels:", f.Labels())
	fmt.Println("kept:", f.Firsts())
	fmt.Println("sizes:", f.Sizes())
	// Output:
	// labels: [0 1 0 0 2]
	// kept: [0 1 4]
	// sizes: [{1 2} {3 1}]
}
