package simjoin

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/cluster"
)

// Dedup clusters the records of a self-join: two records are in one cluster
// when a chain of pairs at or above the threshold links them (the connected
// components of the pairs; package cluster). It joins as Join does, with
// the records of identical sets reported as one group, so that n copies
// cost n - 1 unions rather than n(n-1)/2 pairs; Stats.Results and
// Stats.Similarity still count record pairs.
//
// observe, if not nil, is given every record pair as it is found (from the
// calling goroutine; false stops the join), and copies then come as pairs,
// one each. The forest's clusters do not depend on the order of the pairs,
// the method's choice aside. It fails with ErrSources for an R-S input.
//
// Cost: that of Join, plus O(α(n)) a union and 8 bytes a record.
func (in *Input) Dedup(ctx context.Context, observe func(Pair) bool) (*cluster.Forest, Stats, error) {
	if in.rs() {
		return nil, in.Stats(), fmt.Errorf("%w: Dedup clusters one collection, not an R-S join", ErrSources)
	}
	var st Stats
	f, err := cluster.Join(in.loaded.Records, func(union func(Pair) bool) error {
		yield, copies := union, func(ids []int) bool {
			for _, id := range ids[1:] {
				union(Pair{A: ids[0], B: id})
			}
			return true
		}
		if observe != nil {
			yield = func(p Pair) bool { return observe(p) && union(p) }
			copies = nil
		}
		if in.opts.CheckRecall {
			copies = nil // planner.MeasureLSH reports record pairs
		}
		var err error
		st, err = in.run(ctx, yield, copies)
		return err
	})
	return f, st, err
}
