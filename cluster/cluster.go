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
	"slices"
)

// Forest is a union-find forest over records 0..n-1.
type Forest struct {
	parent []uint32
	size   []uint32
	unions int64 // calls of Union: the clustering's work
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
