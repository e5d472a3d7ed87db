package cluster

import (
	"context"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// Join clusters the records 0..n-1 by the pairs of a self-join: it calls run
// with a yield that unions the two records of every pair, and returns the
// forest, whose clusters are then the connected components of the pairs
// (near-duplicates, transitively). run is any self-join over those records,
// exact or approximate:
//
//	f, err := cluster.Join(c.Records(), func(yield func(join.Pair) bool) error {
//		_, err := join.SelfJoin(ctx, c, opt, yield)
//		return err
//	})
//
// The clusters do not depend on the order in which pairs arrive. Cost: that
// of the join, plus O(α(n)) a pair and 8 bytes a record; no pair is kept.
// run must call yield from one goroutine at a time (the joins of this
// module call it from the calling goroutine).
func Join(n int, run func(yield func(join.Pair) bool) error) (*Forest, error) {
	f := New(n)
	err := run(func(p join.Pair) bool {
		f.Union(p.A, p.B)
		return true
	})
	if invariants.Enabled {
		f.check()
	}
	return f, err
}

// SelfJoin clusters the records of c by the exact self-join at opt: records
// with identical sets are one group, unioned once (n - 1 unions for n
// copies, through join.Options.Copies), and groups are joined, one pair per
// pair of distinct sets; so n exact copies cost O(n), not the O(n²) of
// unioning every record pair. The clusters are those of Join over every
// record pair. opt.Copies is set here. Cost: that of join.SelfJoin, plus
// O(α(n)) a union and 8 bytes a record.
func SelfJoin(ctx context.Context, c *order.Collection, opt join.Options) (*Forest, join.Stats, error) {
	f := New(c.Records())
	opt.Copies = func(ids []int) bool {
		for _, id := range ids[1:] {
			f.Union(ids[0], id)
		}
		return true
	}
	st, err := join.SelfJoin(ctx, c, opt, func(p join.Pair) bool {
		f.Union(p.A, p.B)
		return true
	})
	if invariants.Enabled {
		f.check()
	}
	return f, st, err
}

// Firsts returns the first record (lowest index) of every cluster, ascending:
// the records a deduplication keeps, one a cluster. Cost: O(n).
func (f *Forest) Firsts() []int {
	var out []int
	for i, l := range f.Labels() {
		if l == len(out) { // clusters are numbered in order of first record
			out = append(out, i)
		}
	}
	return out
}

// SizeCount is one entry of a cluster size distribution.
type SizeCount struct {
	Size     int // records in a cluster
	Clusters int // clusters of that size
}

// Sizes returns the distribution of cluster sizes, by size ascending, only
// sizes that occur. Cost: O(n).
func (f *Forest) Sizes() []SizeCount {
	count := map[int]int{}
	largest := 0
	for i := range f.parent {
		if f.Find(i) == i {
			s := int(f.size[i])
			count[s]++
			largest = max(largest, s)
		}
	}
	var out []SizeCount
	for s := 1; s <= largest; s++ {
		if c := count[s]; c > 0 {
			out = append(out, SizeCount{s, c})
		}
	}
	return out
}
