package simjoin

import (
	"context"
	"slices"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/records"
)

// SelfJoin returns every pair of the strings recs whose similarity reaches
// opts.Threshold, each once with A < B (indices into recs), sorted by
// (A, B): Run over records.Strings(recs), the pairs collected. Records whose
// set is empty never join (they are counted in Stats.Skipped); identical
// records join with similarity 1. With opts.Method Exact every pair is
// found; Auto may choose LSH on large inputs at low thresholds (Stats.Plan
// says why). For an R-S join, ready sets, lines or files, or pairs streamed
// rather than held, call Run (or Load) with the sources of package records.
//
// Cost: tokenizing is O(total length) on the calling goroutine; ordering
// O(T log T) for T tokens; the join as package join (or approx) describes.
// Memory: the sets (about 16 bytes per token while ordering, 4 after), the
// path's index, and the result slice.
func SelfJoin(ctx context.Context, recs []string, opts Options) ([]Pair, Stats, error) {
	return collect(ctx, records.Strings(recs), records.Source{}, opts)
}

// collect runs the join of r and s (the zero Source: a self-join) and
// returns its pairs sorted by (A, B).
func collect(ctx context.Context, r, s records.Source, opts Options) ([]Pair, Stats, error) {
	var pairs []Pair
	st, err := Run(ctx, r, s, opts, func(p Pair) bool {
		pairs = append(pairs, p)
		return true
	})
	if err != nil {
		return nil, st, err
	}
	slices.SortFunc(pairs, join.ComparePairs)
	return pairs, st, nil
}
