package simjoin

import (
	"cmp"
	"context"
	"slices"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/records"
)

// collect runs f with a callback that gathers the pairs, then sorts them.
func collect(f func(yield func(Pair) bool) (Stats, error)) ([]Pair, Stats, error) {
	var pairs []Pair
	st, err := f(func(p Pair) bool {
		pairs = append(pairs, p)
		return true
	})
	if err != nil {
		return nil, st, err
	}
	slices.SortFunc(pairs, join.ComparePairs)
	return pairs, st, nil
}

// SelfJoin returns every pair of records whose similarity reaches
// opts.Threshold, each once with A < B, sorted by (A, B): Run over
// Strings(records), collected. Records whose set is empty never join (they
// are counted in Stats.Skipped); identical records join with similarity 1.
// With opts.Method Exact every pair is found; Auto may choose LSH on large
// inputs at low thresholds (Stats.Plan says why).
//
// Cost: tokenizing is O(total length) on the calling goroutine; ordering
// O(T log T) for T tokens; the join as package join (or approx) describes.
// Memory: the sets (about 16 bytes per token while ordering, 4 after), the
// path's index, and the result slice.
func SelfJoin(ctx context.Context, recs []string, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return SelfJoinFunc(ctx, recs, opts, yield)
	})
}

// SelfJoinFunc is SelfJoin with the pairs streamed to yield instead of
// collected, as Input.Join streams them.
func SelfJoinFunc(ctx context.Context, recs []string, opts Options, yield func(Pair) bool) (Stats, error) {
	return Run(ctx, records.Strings(recs), records.Source{}, opts, yield)
}

// Join returns every pair (r[A], s[B]) whose similarity reaches
// opts.Threshold, sorted by (A, B). The token order is built over r and s
// together. Otherwise as SelfJoin.
func Join(ctx context.Context, r, s []string, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return JoinFunc(ctx, r, s, opts, yield)
	})
}

// JoinFunc is Join with the pairs streamed to yield, as SelfJoinFunc does.
func JoinFunc(ctx context.Context, r, s []string, opts Options, yield func(Pair) bool) (Stats, error) {
	return Run(ctx, records.Strings(r), records.Strings(s), opts, yield)
}

// SelfJoinSets is SelfJoin over ready token sets (the Sets source):
// sets[i] is the set of record i, in any order, duplicates ignored.
// opts.Tokens is ignored. The sets are only read.
func SelfJoinSets[T cmp.Ordered](ctx context.Context, sets [][]T, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return SelfJoinSetsFunc(ctx, sets, opts, yield)
	})
}

// SelfJoinSetsFunc is SelfJoinSets with the pairs streamed to yield, as
// SelfJoinFunc does.
func SelfJoinSetsFunc[T cmp.Ordered](ctx context.Context, sets [][]T, opts Options, yield func(Pair) bool) (Stats, error) {
	return Run(ctx, records.Sets(sets), records.Source{}, opts, yield)
}

// JoinSets is Join over ready token sets, as SelfJoinSets is SelfJoin.
func JoinSets[T cmp.Ordered](ctx context.Context, r, s [][]T, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return JoinSetsFunc(ctx, r, s, opts, yield)
	})
}

// JoinSetsFunc is JoinSets with the pairs streamed to yield, as JoinFunc
// does.
func JoinSetsFunc[T cmp.Ordered](ctx context.Context, r, s [][]T, opts Options, yield func(Pair) bool) (Stats, error) {
	return Run(ctx, records.Sets(r), records.Sets(s), opts, yield)
}
