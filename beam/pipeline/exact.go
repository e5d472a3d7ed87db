package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// DefaultBlockSize is the most records a group of the exact join holds before
// it is split into blocks.
const DefaultBlockSize = 4096

// Join configures the exact join and the LSH verification: the measure, the
// threshold as an exact fraction, and for an R-S join the first id of S.
type Join struct {
	Measure   prefix.Measure
	Threshold prefix.Threshold
	// SFrom is the first record id of S in an R-S join (the ids of R's files
	// come first); 0 means a self-join.
	SFrom uint64
	// BlockSize caps the records of one group: a prefix token held by more
	// records is split into blocks of about this many, joined pairwise.
	// 0 means DefaultBlockSize.
	BlockSize int
}

// joinFn carries a Join into a DoFn (exported fields only).
type joinFn struct {
	Measure   int
	Num, Den  uint64
	SFrom     uint64
	BlockSize int
}

func (j Join) fn() joinFn {
	bs := j.BlockSize
	if bs <= 0 {
		bs = DefaultBlockSize
	}
	return joinFn{Measure: int(j.Measure), Num: j.Threshold.Num, Den: j.Threshold.Den, SFrom: j.SFrom, BlockSize: bs}
}

func (j joinFn) bounds() prefix.Bounds {
	return prefix.NewBounds(prefix.Measure(j.Measure), prefix.Threshold{Num: j.Num, Den: j.Den})
}

// isS reports whether a record id is on the S side of an R-S join.
func (j joinFn) isS(id uint64) bool { return j.SFrom != 0 && id >= j.SFrom }

func init() {
	register.Function2x1(sumCounts)
	register.DoFn3x0[context.Context, Record, func(uint64, int64)](&tokenCountFn{})
	register.Function4x0(keepShared)
	register.Emitter2[uint64, int64]()
	register.DoFn4x0[context.Context, Record, func(*uint64, *int64) bool, func(uint64, Routed)](&routeFn{})
	register.Emitter2[uint64, Routed]()
	register.Iter2[uint64, int64]()
	register.Function3x0(routedKey)
	register.Emitter1[uint64]()
	register.DoFn4x0[context.Context, uint64, int64, func(uint64, int64)](&hotFn{})
	register.DoFn5x0[context.Context, uint64, Routed, func(*uint64, *int64) bool, func(GroupKey, Routed)](&blockFn{})
	register.Emitter2[GroupKey, Routed]()
	register.DoFn4x1[context.Context, GroupKey, func(*Routed) bool, func(Pair), error](&groupJoinFn{})
	register.Emitter1[Pair]()
	register.Iter1[Routed]()
}

func sumCounts(a, b int64) int64 { return a + b }

// ExactJoin is the exact set-similarity join of Vernica, Carey and Li,
// "Efficient parallel set-similarity joins using MapReduce" (SIGMOD 2010),
// over records (a PCollection of Record; for an R-S join both sides, told
// apart by j.SFrom). It returns the result pairs as a PCollection of Pair,
// each pair once. See the package documentation for the stages and their
// cost.
func ExactJoin(s beam.Scope, records beam.PCollection, j Join) beam.PCollection {
	return exactJoin(s.Scope("ExactJoin"), records, j, true)
}

// ExactLinks is ExactJoin for a dedup (a self-join): only the edges
// (KV<uint64, uint64> of record ids) the clusters need. Identical sets are
// first grouped into units (one shuffle of every record keyed by a
// fingerprint of its set, as LSHLinks groups them); the units' first
// records are joined by ExactJoin's stages, each pair found an edge, and
// every unit's first record is linked to its other records: n copies cost
// n-1 edges and one record in the join, not n(n-1)/2 pairs.
func ExactLinks(s beam.Scope, records beam.PCollection, j Join) beam.PCollection {
	s = s.Scope("ExactLinks")
	fn := lshFn{Measure: int(j.Measure), Num: j.Threshold.Num, Den: j.Threshold.Den}
	units, _ := groupUnits(s, records, fn, false)
	pairs := exactJoin(s, beam.ParDo(s, unitRecord, units), j, false)
	return beam.Flatten(s, beam.ParDo(s, pairLink, pairs), unitMembers(s, units, fn))
}

func init() {
	register.Function1x1(unitRecord)
	register.Function1x2(pairLink)
}

// unitRecord is a unit as the record that stands for it: its first record's
// id and its set.
func unitRecord(u Unit) Record { return Record{ID: u.ID, Keys: u.Keys} }

// pairLink is a result pair as an edge of the dedup graph.
func pairLink(p Pair) (uint64, uint64) { return p.A, p.B }

// exactJoin is ExactJoin; count counts the records read (false when they
// are units whose records were counted as they were grouped).
func exactJoin(s beam.Scope, records beam.PCollection, j Join, count bool) beam.PCollection {
	fn := j.fn()
	// Stage 1: document frequencies; only tokens held by two records or more
	// can be shared, so only they are broadcast.
	ones := beam.ParDo(s.Scope("Stage1"), &tokenCountFn{Count: count}, records)
	df := beam.CombinePerKey(s.Scope("Stage1"), sumCounts, ones)
	shared := beam.ParDo(s.Scope("Stage1"), keepShared, df)
	// Stage 2: route every record to the groups of its prefix tokens.
	routed := beam.ParDo(s.Scope("Stage2"), &routeFn{J: fn}, records, beam.SideInput{Input: shared})
	// Groups over BlockSize records are split into blocks.
	gsize := beam.CombinePerKey(s.Scope("Stage2"), sumCounts, beam.ParDo(s.Scope("Stage2"), routedKey, routed))
	hot := beam.ParDo(s.Scope("Stage2"), &hotFn{BlockSize: fn.BlockSize}, gsize)
	blocked := beam.ParDo(s.Scope("Stage2"), &blockFn{J: fn}, routed, beam.SideInput{Input: hot})
	groups := beam.GroupByKey(s.Scope("Stage2"), blocked)
	return beam.ParDo(s.Scope("Stage2"), &groupJoinFn{J: fn}, groups)
}

// tokenCountFn emits (key, 1) for every token of every record and, with
// Count, counts the records.
type tokenCountFn struct {
	Count bool
}

func (f *tokenCountFn) ProcessElement(ctx context.Context, r Record, emit func(uint64, int64)) {
	if f.Count {
		mRecords.Inc(ctx, 1)
	}
	if len(r.Keys) == 0 {
		if f.Count {
			mSkipped.Inc(ctx, 1)
		}
		return
	}
	if f.Count {
		mSetTokens.Inc(ctx, int64(len(r.Keys)))
	}
	for _, k := range r.Keys {
		emit(k, 1)
	}
	mShuffleDF.Inc(ctx, int64(9*len(r.Keys)))
}

// keepShared passes the tokens held by two records or more.
func keepShared(ctx context.Context, key uint64, df int64, emit func(uint64, int64)) {
	mVocabulary.Inc(ctx, 1)
	if df >= 2 {
		emit(key, df)
	}
}

// globalOrder sorts keys rare-first: document frequency ascending, ties by
// key (a fixed hash of the token), as package order ranks tokens. Tokens
// missing from df are held by one record: df 1.
func globalOrder(keys []uint64, df map[uint64]int64) {
	dfOf := func(k uint64) int64 {
		if d, ok := df[k]; ok {
			return d
		}
		return 1
	}
	slices.SortFunc(keys, func(a, b uint64) int {
		if c := cmp.Compare(dfOf(a), dfOf(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

// loadCounts reads a (key, count) side input into a map.
func loadCounts(it func(*uint64, *int64) bool) map[uint64]int64 {
	m := map[uint64]int64{}
	var k uint64
	var v int64
	for it(&k, &v) {
		m[k] = v
	}
	return m
}

// routeFn is stage 2's map: it writes a record in the global order and sends
// it to the group of every token of its probe prefix that another record
// holds.
type routeFn struct {
	J  joinFn
	df map[uint64]int64 // the side input, read once per DoFn instance
}

func (f *routeFn) ProcessElement(ctx context.Context, r Record, shared func(*uint64, *int64) bool, emit func(uint64, Routed)) {
	if len(r.Keys) == 0 {
		return
	}
	if f.df == nil {
		f.df = loadCounts(shared)
	}
	keys := slices.Clone(r.Keys)
	globalOrder(keys, f.df)
	b := f.J.bounds()
	p := min(b.ProbePrefix(len(keys)), len(keys))
	for i, w := range keys[:max(p, 0)] {
		if _, ok := f.df[w]; !ok {
			continue // held by this record alone: no partner in its group
		}
		v := Routed{ID: r.ID, Pos: uint32(i), Keys: keys}
		emit(w, v)
		mRouted.Inc(ctx, 1)
	}
}

// routedKey emits a group's token once per record routed to it.
func routedKey(w uint64, _ Routed, emit func(uint64, int64)) { emit(w, 1) }

// hotFn passes the groups larger than the block size, which are split.
type hotFn struct {
	BlockSize int
}

func (f *hotFn) ProcessElement(ctx context.Context, w uint64, n int64, emit func(uint64, int64)) {
	if n > int64(f.BlockSize) {
		mSplitGroups.Inc(ctx, 1)
		emit(w, n)
	}
}

// blockFn keys routed records by group. A record of a split group of n
// records goes to nb = ⌈n/BlockSize⌉ block pairs: in a self-join block b
// meets every block c in group (min(b,c), max(b,c)); in an R-S join an R
// record of block b goes to (b, c) and an S record of block b to (c, b) for
// every c. Every pair of records of the group meets in exactly one block pair.
type blockFn struct {
	J   joinFn
	hot map[uint64]int64
}

// blockOf is the block of a record in a group split in nb.
func blockOf(id uint64, nb uint32) uint32 { return uint32(mix.Mix64(id) % uint64(nb)) }

func (f *blockFn) ProcessElement(ctx context.Context, w uint64, r Routed, hot func(*uint64, *int64) bool, emit func(GroupKey, Routed)) {
	if f.hot == nil {
		f.hot = loadCounts(hot)
	}
	n, ok := f.hot[w]
	if !ok {
		emit(GroupKey{Token: w}, r)
		mShuffleGroup.Inc(ctx, int64(9+routedSize(r)))
		return
	}
	nb := uint32((n + int64(f.J.BlockSize) - 1) / int64(f.J.BlockSize))
	b := blockOf(r.ID, nb)
	for c := range nb {
		k := GroupKey{Token: w, Blocks: nb}
		switch {
		case f.J.SFrom == 0:
			k.Lo, k.Hi = min(b, c), max(b, c)
		case f.J.isS(r.ID):
			k.Lo, k.Hi = c, b
		default:
			k.Lo, k.Hi = b, c
		}
		emit(k, r)
		mShuffleGroup.Inc(ctx, int64(len(encGroupKey(k))+routedSize(r)))
	}
}

// groupJoinFn joins one group with package join and keeps the pairs whose
// first shared token, in the global order, is the group's token: every
// other group holding both records has a later token, so each pair is
// reported by exactly one group.
type groupJoinFn struct {
	J joinFn
}

func (f *groupJoinFn) ProcessElement(ctx context.Context, k GroupKey, it func(*Routed) bool, emit func(Pair)) error {
	var left, right []Routed
	var r Routed
	for it(&r) {
		switch {
		case f.J.SFrom != 0:
			if f.J.isS(r.ID) {
				right = append(right, r)
			} else {
				left = append(left, r)
			}
		case k.Blocks == 0 || k.Lo == k.Hi:
			left = append(left, r)
		case blockOf(r.ID, k.Blocks) == k.Lo:
			left = append(left, r)
		default:
			right = append(right, r)
		}
	}
	mGroups.Inc(ctx, 1)
	mLargestGroup.Update(ctx, int64(len(left)+len(right)))
	self := f.J.SFrom == 0 && (k.Blocks == 0 || k.Lo == k.Hi)
	if self && len(left) < 2 || !self && (len(left) == 0 || len(right) == 0) {
		return nil
	}
	opt := join.Options{Measure: prefix.Measure(f.J.Measure), Threshold: prefix.Threshold{Num: f.J.Num, Den: f.J.Den}, Workers: 1}
	var before [2][][]uint64 // sorted keys before the group's token, built as needed
	first := func(side, i int, recs []Routed) []uint64 {
		if before[side] == nil {
			before[side] = make([][]uint64, len(recs))
		}
		if before[side][i] == nil {
			x := slices.Clone(recs[i].Keys[:recs[i].Pos])
			slices.Sort(x)
			before[side][i] = append(x, 0)[:len(x)] // non-nil even when empty
		}
		return before[side][i]
	}
	var kept int64
	report := func(x, y Routed, bx, by []uint64, p join.Pair) {
		if sharesAny(bx, by) {
			mElsewhere.Inc(ctx, 1)
			return
		}
		a, b := x, y
		if f.J.SFrom == 0 && b.ID < a.ID {
			a, b = b, a
		}
		emit(Pair{A: a.ID, B: b.ID, Overlap: uint32(p.Overlap), SA: uint32(len(a.Keys)), SB: uint32(len(b.Keys))})
		kept++
	}
	var st join.Stats
	var err error
	if self {
		in := &order.Input{Workers: opt.Workers}
		for _, x := range left {
			in.Add(x.Keys)
		}
		c, e := order.New(in)
		if e != nil {
			return e
		}
		st, err = join.SelfJoin(ctx, c, opt, func(p join.Pair) bool {
			report(left[p.A], left[p.B], first(0, p.A, left), first(0, p.B, left), p)
			return true
		})
	} else {
		inL, inR := &order.Input{Workers: opt.Workers}, &order.Input{Workers: opt.Workers}
		for _, x := range left {
			inL.Add(x.Keys)
		}
		for _, x := range right {
			inR.Add(x.Keys)
		}
		cs, e := order.Build(inL, inR)
		if e != nil {
			return e
		}
		st, err = join.RSJoin(ctx, cs[0], cs[1], opt, func(p join.Pair) bool {
			report(left[p.A], right[p.B], first(0, p.A, left), first(1, p.B, right), p)
			return true
		})
	}
	if err != nil {
		return fmt.Errorf("group join: %w", err)
	}
	addJoinStats(ctx, st)
	mResults.Inc(ctx, kept)
	return nil
}

// sharesAny reports whether two sorted key lists have a key in common.
func sharesAny(a, b []uint64) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			return true
		}
	}
	return false
}
