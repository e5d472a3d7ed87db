// Package simjoin finds every pair of records whose token sets have
// similarity at least a threshold t: the exact all-pairs similarity join, as
// one library call.
//
// The join is AllPairs (Bayardo, Ma and Srikant, "Scaling up all pairs
// similarity search", WWW 2007) with the positional filter and suffix
// verification of PPJoin (Xiao, Wang, Lin and Yu, "Efficient similarity joins
// for near duplicate detection", WWW 2008). Every "similarity >= t" decision
// is made in integer arithmetic against t as an exact fraction, so a pair
// whose similarity is exactly t is always reported and no pair below it is.
// See package join for the algorithm and package prefix for the bounds.
//
// # Lifecycle
//
// Each call is one pass and keeps nothing afterwards: it tokenizes the
// records (package shingle) or maps the given tokens to keys, builds the
// rare-first token order and the size-sorted collection (package order),
// indexes the prefixes and joins (package join). All goroutines have ended
// when a call returns. The calls are safe for concurrent use; the records and
// sets passed in are only read.
//
// The functions come in two forms: SelfJoin and friends collect the pairs and
// return them sorted by (A, B); SelfJoinFunc and friends stream them to a
// callback as they are found (in an order that is the same on every run and
// for any number of workers) and hold none of them.
//
// # What it does not do
//
// It does not estimate: there is no MinHash or LSH path here, and no planner.
// It reads lines (ReadLines: one record a line, tokenized on all cores) but
// keeps no index for later queries, and it holds the
// whole collection in memory (about 4 bytes per distinct token of every set).
// For those, and for reusing one tokenized collection across several joins,
// use the packages shingle, order and join directly.
package simjoin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// Pair is one result: A and B are 0-based indices into the records (A < B in
// a self-join; A indexes r and B indexes s in an R-S join), Overlap the exact
// size of the intersection of their sets, and Sim the similarity computed
// from it (for prefix.Overlap, Sim equals Overlap).
type Pair = join.Pair

// Stats counts what a join did: records, skipped empty records, candidates
// and how the filters disposed of them. See join.Stats.
type Stats = join.Stats

// Options configures a join. The zero value of every field but Threshold
// works: whitespace-separated tokens, Jaccard, one worker per core.
type Options struct {
	// Tokens says how a record string becomes a set (shingle.Spec{} takes
	// whitespace-separated tokens as they are). The *Sets functions ignore it.
	Tokens shingle.Spec
	// Measure is the similarity measure; the zero value is prefix.Jaccard.
	Measure prefix.Measure
	// Threshold is t: in (0, 1] for Jaccard, Cosine and Dice, an integer >= 1
	// for Overlap. It is converted exactly by prefix.ThresholdOf: the
	// shortest decimal that reads back as the float, rounded to
	// prefix.MaxDecimals places, so 0.8 means exactly 4/5 (and 2.0/3 means
	// 0.666666667, which a pair at exactly 2/3 does not reach).
	Threshold float64
	// Workers is the number of goroutines probing; 0 or less means GOMAXPROCS,
	// and more than 4·GOMAXPROCS means 4·GOMAXPROCS. The result does not
	// depend on it.
	Workers int
}

// Errors returned (wrapped) by the join calls. They are the sentinels of the
// packages that detect them, so errors.Is works with either name.
var (
	// ErrThreshold: Options.Threshold is outside its range for the measure.
	ErrThreshold = prefix.ErrThreshold
	// ErrMeasure: Options.Measure is not one of the prefix measures.
	ErrMeasure = prefix.ErrMeasure
	// ErrTokens: Options.Tokens is not a valid specification (an unknown
	// kind or normalisation, or a length outside 1..shingle.MaxN).
	ErrTokens = shingle.ErrSpec
	// ErrUTF8: a record is not valid UTF-8 and Options.Tokens needs text.
	// It comes wrapped in a *RecordError.
	ErrUTF8 = shingle.ErrUTF8
)

// RecordError reports a record that could not be tokenized. It names the
// record by side and index, and never quotes its text (records may be
// passwords).
type RecordError struct {
	Side  string // "r" or "s" in an R-S join, "" in a self-join
	Index int    // 0-based index of the record
	Err   error  // such as ErrUTF8
}

func (e *RecordError) Error() string {
	if e.Side == "" {
		return fmt.Sprintf("simjoin: record %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("simjoin: record %s[%d]: %v", e.Side, e.Index, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// joinOptions checks o and converts it for package join.
func (o Options) joinOptions() (join.Options, error) {
	if o.Measure > prefix.Overlap {
		return join.Options{}, fmt.Errorf("simjoin: %w: %v", ErrMeasure, o.Measure)
	}
	t, err := prefix.ThresholdOf(o.Measure, o.Threshold)
	if err != nil {
		return join.Options{}, fmt.Errorf("simjoin: %w", err)
	}
	return join.Options{Measure: o.Measure, Threshold: t, Workers: max(o.Workers, 0)}, nil
}

// checkTokens reports whether spec is one that shingle can apply: a known
// kind, a length from 1 to shingle.MaxN where the kind takes one, and a known
// normalisation.
func checkTokens(spec shingle.Spec) error {
	ok := spec.Kind <= shingle.Go && spec.Norm&^(shingle.KeepCase|shingle.KeepPunct) == 0
	switch spec.Kind {
	case shingle.QGram, shingle.Shingle, shingle.Go:
		ok = ok && spec.N >= 1 && spec.N <= shingle.MaxN
	}
	if !ok {
		return fmt.Errorf("simjoin: %w: %s", ErrTokens, spec)
	}
	return nil
}

// tokenize adds the token set of every record to a new Input.
func tokenize(records []string, spec shingle.Spec, side string) (*order.Input, error) {
	in := new(order.Input)
	var buf []uint64
	for i, rec := range records {
		var err error
		if buf, err = spec.Append(buf[:0], rec); err != nil {
			return nil, &RecordError{Side: side, Index: i, Err: err}
		}
		in.Add(buf)
	}
	return in, nil
}

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
// opts.Threshold, each once with A < B, sorted by (A, B). Records whose set
// is empty never join (they are counted in Stats.Skipped); identical records
// join with similarity 1.
//
// Cost: tokenizing is O(total length) on the calling goroutine; ordering
// O(T log T) for T tokens; the join as package join describes. Memory: the
// sets (about 16 bytes per token while ordering, 4 after), the prefix index,
// and the result slice.
func SelfJoin(ctx context.Context, records []string, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return SelfJoinFunc(ctx, records, opts, yield)
	})
}

// SelfJoinFunc is SelfJoin with the pairs streamed to yield instead of
// collected. yield is called from the calling goroutine; returning false
// stops the join early, without error. Pairs come grouped by probe set in
// size order, the same on every run and for any number of workers.
func SelfJoinFunc(ctx context.Context, records []string, opts Options, yield func(Pair) bool) (Stats, error) {
	jo, err := opts.joinOptions()
	if err != nil {
		return Stats{}, err
	}
	if err := checkTokens(opts.Tokens); err != nil {
		return Stats{}, err
	}
	in, err := tokenize(records, opts.Tokens, "")
	if err != nil {
		return Stats{}, err
	}
	return selfJoin(ctx, in, jo, yield)
}

// Join returns every pair (r[A], s[B]) whose similarity reaches
// opts.Threshold, sorted by (A, B). The token order is built over r and s
// together. Otherwise as SelfJoin.
func Join(ctx context.Context, r, s []string, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return JoinFunc(ctx, r, s, opts, yield)
	})
}

// JoinFunc is Join with the pairs streamed to yield, as SelfJoinFunc does;
// they come grouped by the record of r in size order.
func JoinFunc(ctx context.Context, r, s []string, opts Options, yield func(Pair) bool) (Stats, error) {
	jo, err := opts.joinOptions()
	if err != nil {
		return Stats{}, err
	}
	if err := checkTokens(opts.Tokens); err != nil {
		return Stats{}, err
	}
	rin, err := tokenize(r, opts.Tokens, "r")
	if err != nil {
		return Stats{}, err
	}
	sin, err := tokenize(s, opts.Tokens, "s")
	if err != nil {
		return Stats{}, err
	}
	return rsJoin(ctx, rin, sin, jo, yield)
}

// SelfJoinSets is SelfJoin over ready token sets: sets[i] is the set of
// record i, in any order, duplicates ignored. Tokens are equal when
// cmp.Compare says so (so every NaN is one token, and -0.0 equals 0.0).
// opts.Tokens is ignored. The sets are only read.
//
// Cost: one hash-map operation per token to map tokens to keys, then as
// SelfJoin.
func SelfJoinSets[T cmp.Ordered](ctx context.Context, sets [][]T, opts Options) ([]Pair, Stats, error) {
	return collect(func(yield func(Pair) bool) (Stats, error) {
		return SelfJoinSetsFunc(ctx, sets, opts, yield)
	})
}

// SelfJoinSetsFunc is SelfJoinSets with the pairs streamed to yield, as
// SelfJoinFunc does.
func SelfJoinSetsFunc[T cmp.Ordered](ctx context.Context, sets [][]T, opts Options, yield func(Pair) bool) (Stats, error) {
	jo, err := opts.joinOptions()
	if err != nil {
		return Stats{}, err
	}
	var k keyer[T]
	return selfJoin(ctx, k.input(sets), jo, yield)
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
	jo, err := opts.joinOptions()
	if err != nil {
		return Stats{}, err
	}
	var k keyer[T]
	return rsJoin(ctx, k.input(r), k.input(s), jo, yield)
}

// keyer numbers the distinct tokens of one join in order of first
// appearance. NaN, which a map never finds again, gets a number of its own.
type keyer[T cmp.Ordered] struct {
	keys   map[T]uint64
	next   uint64
	nan    uint64
	hasNaN bool
}

func (k *keyer[T]) key(v T) uint64 {
	if v != v { // only NaN is unequal to itself
		if !k.hasNaN {
			k.nan, k.hasNaN = k.next, true
			k.next++
		}
		return k.nan
	}
	id, ok := k.keys[v]
	if !ok {
		id = k.next
		k.keys[v] = id
		k.next++
	}
	return id
}

func (k *keyer[T]) input(sets [][]T) *order.Input {
	if k.keys == nil {
		k.keys = make(map[T]uint64)
	}
	in := new(order.Input)
	var buf []uint64
	for _, set := range sets {
		buf = buf[:0]
		for _, v := range set {
			buf = append(buf, k.key(v))
		}
		in.Add(buf)
	}
	return in
}

func selfJoin(ctx context.Context, in *order.Input, jo join.Options, yield func(Pair) bool) (Stats, error) {
	c, err := order.New(in)
	if err != nil {
		return Stats{}, fmt.Errorf("simjoin: %w", err)
	}
	return wrap(join.SelfJoin(ctx, c, jo, yield))
}

func rsJoin(ctx context.Context, r, s *order.Input, jo join.Options, yield func(Pair) bool) (Stats, error) {
	cs, err := order.Build(r, s)
	if err != nil {
		return Stats{}, fmt.Errorf("simjoin: %w", err)
	}
	return wrap(join.RSJoin(ctx, cs[0], cs[1], jo, yield))
}

// wrap passes context errors through unchanged, so that err == ctx.Err()
// holds, and prefixes others.
func wrap(st Stats, err error) (Stats, error) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return st, err
	}
	return st, fmt.Errorf("simjoin: %w", err)
}
