package cluster_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/cluster"
)

// TestAgainstFlood compares the forest's components with a breadth-first
// flood fill over the same random graphs.
func TestAgainstFlood(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		n := 1 + r.IntN(60)
		adj := make([][]int, n)
		f := cluster.New(n)
		for k := r.IntN(2 * n); k > 0; k-- {
			a, b := r.IntN(n), r.IntN(n)
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
			f.Union(a, b)
		}
		want := make([]int, n)
		for i := range want {
			want[i] = -1
		}
		next := 0
		for i := range want {
			if want[i] >= 0 {
				continue
			}
			queue := []int{i}
			want[i] = next
			for len(queue) > 0 {
				v := queue[0]
				queue = queue[1:]
				for _, u := range adj[v] {
					if want[u] < 0 {
						want[u] = next
						queue = append(queue, u)
					}
				}
			}
			next++
		}
		if got := f.Labels(); !slices.Equal(got, want) {
			t.Fatalf("seed %d: labels %v, want %v", seed, got, want)
		}
		total := 0
		for _, c := range f.Clusters(1) {
			total += len(c)
			if f.Size(c[0]) != len(c) {
				t.Fatalf("seed %d: Size %d, cluster has %d", seed, f.Size(c[0]), len(c))
			}
		}
		if total != n {
			t.Fatalf("seed %d: clusters hold %d records of %d", seed, total, n)
		}
	}
}

func ExampleForest() {
	f := cluster.New(6)
	f.Union(0, 3)
	f.Union(3, 5)
	f.Union(1, 2)
	fmt.Println(f.Clusters(2))
	fmt.Println(f.Labels())
	// Output:
	// [[0 3 5] [1 2]]
	// [0 1 1 0 2 0]
}

// TestSummary: the counts and size bins of a forest of clusters of sizes
// 1, 1, 2, 3, 4 and 9 (20 records), and of an empty forest.
func TestSummary(t *testing.T) {
	f := cluster.New(20)
	link := func(lo, hi int) {
		for i := lo + 1; i < hi; i++ {
			f.Union(lo, i)
		}
	}
	link(2, 4)   // size 2
	link(4, 7)   // size 3
	link(7, 11)  // size 4
	link(11, 20) // size 9
	got := f.Summary()
	want := cluster.Summary{Records: 20, Clusters: 6, Singletons: 2, Largest: 9, Unions: 14,
		Sizes: []cluster.SizeBin{{1, 1, 2, 2}, {2, 2, 1, 2}, {3, 4, 2, 7}, {9, 16, 1, 9}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary %+v\nwant    %+v", got, want)
	}
	if got := cluster.New(0).Summary(); !reflect.DeepEqual(got, cluster.Summary{}) {
		t.Errorf("empty forest: %+v", got)
	}
}
