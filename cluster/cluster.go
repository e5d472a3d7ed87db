// Package cluster groups records into clusters of near-duplicates: the
// connected components of the similar pairs a join reports, found with a
// union-find forest (union by size, path halving).
//
// Build a Forest, Union every pair as it streams out of a join, then read the
// clusters. Cost: O(α(n)) amortised per Union; 8 bytes per record. A Forest
// is not safe for concurrent use.
package cluster

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// Forest is a union-find forest over records 0..n-1.
type Forest struct {
	// parent links every record to another of its cluster or to itself: a
	// record is its cluster's root (representative) exactly when
	// parent[i] == i, and following the links from any record reaches its
	// root without a cycle, in O(log n) steps (union by size).
	parent []uint32
	// size[r] is the number of records of root r's cluster (meaningless for
	// a record that is no longer a root); the roots' sizes sum to Len().
	size   []uint32
	unions int64 // calls of Union: the clustering's work, at least Len() - (number of roots)
}

// New returns a forest of n singleton clusters.
func New(n int) *Forest {
	f := &Forest{parent: make([]uint32, n), size: make([]uint32, n)}
	for i := range f.parent {
		f.parent[i] = uint32(i)
		f.size[i] = 1
	}
	return f
}

// Len returns the number of records.
func (f *Forest) Len() int { return len(f.parent) }

// Find returns the representative of a's cluster.
func (f *Forest) Find(a int) int {
	x := uint32(a)
	for f.parent[x] != x {
		f.parent[x] = f.parent[f.parent[x]]
		x = f.parent[x]
	}
	return int(x)
}

// Union merges the clusters of a and b and reports whether they were apart.
func (f *Forest) Union(a, b int) bool {
	f.unions++
	ra, rb := uint32(f.Find(a)), uint32(f.Find(b))
	if ra == rb {
		return false
	}
	if f.size[ra] < f.size[rb] {
		ra, rb = rb, ra
	}
	f.parent[rb] = ra
	f.size[ra] += f.size[rb]
	return true
}

// Unions returns the number of Union calls so far: the pairs the clustering
// handled (with SelfJoin, n - 1 for n identical copies, not n(n-1)/2).
func (f *Forest) Unions() int64 { return f.unions }

// Size returns the number of records in a's cluster.
func (f *Forest) Size(a int) int { return int(f.size[f.Find(a)]) }

// Labels returns, for every record, the number of its cluster: clusters are
// numbered 0, 1, ... in the order of their first record (lowest index), so
// the labelling is the same however the pairs arrived.
func (f *Forest) Labels() []int {
	labels := make([]int, len(f.parent))
	first := make(map[int]int)
	for i := range labels {
		r := f.Find(i)
		l, ok := first[r]
		if !ok {
			l = len(first)
			first[r] = l
		}
		labels[i] = l
	}
	return labels
}

// Clusters returns the clusters with at least minSize records, each as its
// record indices ascending, largest cluster first and ties by first record.
func (f *Forest) Clusters(minSize int) [][]int {
	labels := f.Labels()
	var groups [][]int
	for i, l := range labels {
		for l >= len(groups) {
			groups = append(groups, nil)
		}
		groups[l] = append(groups[l], i)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g) >= minSize {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, func(a, b []int) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// check panics unless the invariants stated on Forest's fields hold (called
// under -tags invariants after a join's unions). It follows the links
// without compressing them. Cost: O(n log n).
func (f *Forest) check() {
	n := len(f.parent)
	// Union by size keeps every tree at most log2(n)+1 levels deep.
	depth := bits.Len(uint(n)) + 1
	members := make(map[uint32]int)
	for i := range f.parent {
		x := uint32(i)
		for steps := 0; f.parent[x] != x; steps++ {
			if int(f.parent[x]) >= n || steps > depth {
				panic(fmt.Sprintf("cluster: record %d: link to %d out of range or a path longer than %d (a cycle?)", i, f.parent[x], depth))
			}
			x = f.parent[x]
		}
		members[x]++
	}
	for r, m := range members {
		if int(f.size[r]) != m {
			panic(fmt.Sprintf("cluster: root %d has size %d but %d members", r, f.size[r], m))
		}
	}
	if f.unions < int64(n-len(members)) {
		panic(fmt.Sprintf("cluster: %d clusters of %d records after %d unions", len(members), n, f.unions))
	}
}
