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

// Summary is a forest's clusters counted: what a deduplication kept and
// removed, and how the cluster sizes are distributed.
type Summary struct {
	Records    int       // records in the forest (Len)
	Clusters   int       // clusters, singletons included
	Singletons int       // clusters of one record
	Largest    int       // records in the largest cluster (0 for no record)
	Unions     int64     // pairs the forest was given (Unions)
	Sizes      []SizeBin // the size distribution in bins 1, 2, 3-4, 5-8, 9-16, ...; only bins that occur
}

// SizeBin counts the clusters whose size lies in [From, To] and their
// records.
type SizeBin struct {
	From, To          int
	Clusters, Records int
}

// Summary counts f's clusters. Cost: O(n), as Sizes.
func (f *Forest) Summary() Summary {
	sizes := f.Sizes()
	s := Summary{Records: f.Len(), Unions: f.Unions()}
	for _, sc := range sizes {
		s.Clusters += sc.Clusters
		if sc.Size == 1 {
			s.Singletons = sc.Clusters
		}
		s.Largest = max(s.Largest, sc.Size)
		from, to := 1, 1
		for to < sc.Size {
			from, to = to+1, 2*to
		}
		if len(s.Sizes) == 0 || s.Sizes[len(s.Sizes)-1].From != from {
			s.Sizes = append(s.Sizes, SizeBin{From: from, To: to})
		}
		b := &s.Sizes[len(s.Sizes)-1]
		b.Clusters += sc.Clusters
		b.Records += sc.Clusters * sc.Size
	}
	return s
}
