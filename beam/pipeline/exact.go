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
// it is split into blocks, and the most indexed records of a block.
const DefaultBlockSize = 4096

// Join configures the exact join and the LSH verification: the measure, the
// threshold as an exact fraction, and for an R-S join the first id of S.
type Join struct {
	Measure   prefix.Measure
	Threshold prefix.Threshold
	// SFrom is the first record id of S in an R-S join (the ids of R's files
	// come first); 0 means a self-join.
	SFrom uint64
	// BlockSize caps the records of one group: the group of a prefix token
	// routed more records is split into blocks of at most this many
	// indexed records of consecutive set sizes (more only where one size
	// has more), each with the records that probe it. 0 means
	// DefaultBlockSize.
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
	register.DoFn5x0[context.Context, uint64, Routed, func(*uint64, *int64) bool, func(SizeKey, int64)](&indexSizeFn{})
	register.Emitter2[SizeKey, int64]()
	register.Iter2[SizeKey, int64]()
	register.DoFn6x0[context.Context, uint64, Routed, func(*uint64, *int64) bool, func(*SizeKey, *int64) bool, func(GroupKey, Routed)](&blockFn{})
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
	isizes := beam.ParDo(s.Scope("Stage2"), &indexSizeFn{J: fn}, routed, beam.SideInput{Input: hot})
	sizes := beam.CombinePerKey(s.Scope("Stage2"), sumCounts, isizes)
	blocked := beam.ParDo(s.Scope("Stage2"), &blockFn{J: fn}, routed, beam.SideInput{Input: hot}, beam.SideInput{Input: sizes})
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
	if f.df == nil {
		f.df = loadCounts(shared)
	}
	mRouted.Inc(ctx, int64(f.J.route(r, f.df, emit)))
}

// route writes r in the global order (df holds the tokens of two records or
// more) and emits it for the group of every token of its probe prefix that
// another record holds. It returns the number of groups.
func (j joinFn) route(r Record, df map[uint64]int64, emit func(uint64, Routed)) int {
	if len(r.Keys) == 0 {
		return 0
	}
	keys := slices.Clone(r.Keys)
	globalOrder(keys, df)
	p := min(j.bounds().ProbePrefix(len(keys)), len(keys))
	n := 0
	for i, w := range keys[:max(p, 0)] {
		if _, ok := df[w]; !ok {
			continue // held by this record alone: no partner in its group
		}
		emit(w, Routed{ID: r.ID, Pos: uint32(i), Keys: keys})
		n++
	}
	return n
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

// indexes reports whether a record routed to the group of its token at
// r.Pos is indexed there. In a self-join these are the tokens of its index
// prefix (prefix.Bounds.IndexPrefix): of two similar sets x and y with
// |x| <= |y|, the first token they share lies in x's index prefix and in
// y's probe prefix (AllPairs, Bayardo, Ma and Srikant 2007), so the pair is
// reported where x is indexed and y probes. In an R-S join the R records
// are indexed under their whole probe prefix and the S records only probe.
func (j joinFn) indexes(r Routed) bool {
	if j.SFrom != 0 {
		return !j.isS(r.ID)
	}
	return int(r.Pos) < j.bounds().IndexPrefix(len(r.Keys))
}

// probeSizes is the range of set sizes a record of size n probes: the sizes
// of the indexed records it can be reported with.
func (j joinFn) probeSizes(n int) (lo, hi int) {
	lo, hi = j.bounds().SizeRange(n)
	if j.SFrom == 0 {
		hi = min(hi, n) // the indexed record of a self-join pair is the smaller
	}
	return lo, hi
}

// indexSizeFn counts the records indexed in each split group by set size:
// the counts every worker cuts the same blocks from (groupPlans).
type indexSizeFn struct {
	J   joinFn
	hot map[uint64]int64
}

func (f *indexSizeFn) ProcessElement(ctx context.Context, w uint64, r Routed, hot func(*uint64, *int64) bool, emit func(SizeKey, int64)) {
	if f.hot == nil {
		f.hot = loadCounts(hot)
	}
	if _, ok := f.hot[w]; ok && f.J.indexes(r) {
		k := SizeKey{Token: w, Size: uint32(len(r.Keys))}
		emit(k, 1)
		mShuffleGroup.Inc(ctx, int64(len(encSizeKey(k))+1))
	}
}

// sizeBlock is one block of a split group. Invariants: the records indexed
// in it have set sizes lo..hi (lo <= hi); the blocks of a plan are in
// ascending order of size and their size ranges do not overlap, except that
// a size held by more than the block size fills of > 1 consecutive blocks
// with lo = hi of its own (sub = 0..of-1), its records cut among them by a
// hash of the id (blockOf).
type sizeBlock struct {
	lo, hi  int
	sub, of uint32
}

// newPlan cuts a split group whose indexed records have the given sizes
// (ascending, distinct) and counts into blocks of consecutive sizes of at
// most bs records each, and a size of more than bs records into
// ⌈count/bs⌉ blocks of its own. The plan depends on the counts alone, so
// every worker computes the same one. Cost: O(len(sizes) + blocks).
func newPlan(sizes []int, counts []int64, bs int) []sizeBlock {
	var p []sizeBlock
	var held int64 // records in the last block while it takes more sizes
	open := false
	for i, s := range sizes {
		c := counts[i]
		switch {
		case c > int64(bs):
			of := uint32((c + int64(bs) - 1) / int64(bs))
			for sub := range of {
				p = append(p, sizeBlock{lo: s, hi: s, sub: sub, of: of})
			}
			open = false
		case open && held+c <= int64(bs):
			p[len(p)-1].hi = s
			held += c
		default:
			p = append(p, sizeBlock{lo: s, hi: s, of: 1})
			held, open = c, true
		}
	}
	return p
}

// groupPlans cuts every split group into blocks (newPlan) from the counts
// of its indexed records by set size.
func groupPlans(counts map[SizeKey]int64, bs int) map[uint64][]sizeBlock {
	keys := make([]SizeKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b SizeKey) int {
		return cmp.Or(cmp.Compare(a.Token, b.Token), cmp.Compare(a.Size, b.Size))
	})
	plans := map[uint64][]sizeBlock{}
	for i := 0; i < len(keys); {
		j := i
		var sizes []int
		var cs []int64
		for ; j < len(keys) && keys[j].Token == keys[i].Token; j++ {
			sizes = append(sizes, int(keys[j].Size))
			cs = append(cs, counts[keys[j]])
		}
		plans[keys[i].Token] = newPlan(sizes, cs, bs)
		i = j
	}
	return plans
}

// indexBlock returns the block of a plan that a record of size n with the
// given id is indexed in (n must be one of the plan's sizes).
func indexBlock(p []sizeBlock, n int, id uint64) uint32 {
	i, _ := slices.BinarySearchFunc(p, n, func(b sizeBlock, n int) int { return cmp.Compare(b.hi, n) })
	if p[i].of > 1 {
		return uint32(i) + blockOf(id, p[i].of)
	}
	return uint32(i)
}

// blockOf is the block of a record among nb blocks cut by id.
func blockOf(id uint64, nb uint32) uint32 { return uint32(mix.Mix64(id) % uint64(nb)) }

// blockFn keys routed records by group and marks those indexed there
// (send).
type blockFn struct {
	J     joinFn
	hot   map[uint64]int64       // the split groups: token -> records routed
	plans map[uint64][]sizeBlock // the blocks of each split group
}

func (f *blockFn) ProcessElement(ctx context.Context, w uint64, r Routed, hot func(*uint64, *int64) bool, sizes func(*SizeKey, *int64) bool, emit func(GroupKey, Routed)) {
	if f.hot == nil {
		f.hot = loadCounts(hot)
		counts := map[SizeKey]int64{}
		var k SizeKey
		var c int64
		for sizes(&k, &c) {
			counts[k] += c
		}
		f.plans = groupPlans(counts, f.J.BlockSize)
	}
	f.J.send(w, r, f.hot, f.plans, func(k GroupKey, r Routed) {
		emit(k, r)
		mShuffleGroup.Inc(ctx, int64(len(encGroupKey(k))+routedSize(r)))
	})
}

// send emits the copies of r, routed to the group of token w, with Index
// set on the copy where r is indexed (indexes). A group that is not split
// (not in hot) gets r once. A split group is cut by plans[w]: its indexed
// records, in order of set size, into blocks of about BlockSize
// (newPlan). An indexed record goes to its own block, and every record
// that probes (in a self-join, every record, the indexed ones too; in an
// R-S join, the S records) to each block holding a size it can be
// reported with (probeSizes), so that blocks whose sizes cannot meet are
// never paired. A record meets an indexed partner in exactly one block,
// that partner's, and a split group nobody is indexed in is not sent at
// all. So a record has at most one copy per block of the sizes it meets,
// not one per block of the group.
func (j joinFn) send(w uint64, r Routed, hot map[uint64]int64, plans map[uint64][]sizeBlock, emit func(GroupKey, Routed)) {
	indexed := j.indexes(r)
	if _, ok := hot[w]; !ok {
		r.Index = indexed
		emit(GroupKey{Token: w}, r)
		return
	}
	p := plans[w]
	if len(p) == 0 {
		return
	}
	put := func(b int, index bool) {
		r.Index = index
		emit(GroupKey{Token: w, Blocks: uint32(len(p)), Block: uint32(b)}, r)
	}
	own := -1
	if indexed {
		own = int(indexBlock(p, len(r.Keys), r.ID))
		if j.SFrom != 0 { // R-S: an R record is indexed and never probes
			put(own, true)
			return
		}
	}
	lo, hi := j.probeSizes(len(r.Keys))
	b, _ := slices.BinarySearchFunc(p, lo, func(sb sizeBlock, lo int) int { return cmp.Compare(sb.hi, lo) })
	for ; b < len(p) && p[b].lo <= hi; b++ {
		put(b, b == own)
	}
}

// groupJoinFn joins one group (or block) with package join and keeps the
// pairs whose first record, in the order of set size then id (R-S: the R
// record), is indexed there and whose first shared token, in the global
// order, is the group's token: every other group holding both records has a
// later token, so each pair is reported by exactly one group. As in
// AllPairs, only pairs with an indexed record are looked for: the indexed
// records (R-S: the R records) joined among themselves (self-join) and with
// those that only probe (R-S: the S records), never the probing records
// with one another, so a block of B indexed records costs B·(B + probes)
// candidate pairs at most, however many records probe it.
type groupJoinFn struct {
	J joinFn
}

func (f *groupJoinFn) ProcessElement(ctx context.Context, k GroupKey, it func(*Routed) bool, emit func(Pair)) error {
	var left, right []Routed // indexed (R) records, and the others
	var r Routed
	self := f.J.SFrom == 0
	for it(&r) {
		if self && r.Index || !self && !f.J.isS(r.ID) {
			left = append(left, r)
		} else {
			right = append(right, r)
		}
	}
	mGroups.Inc(ctx, 1)
	mLargestGroup.Update(ctx, int64(len(left)+len(right)))
	if len(left) == 0 || len(left)+len(right) < 2 || !self && len(right) == 0 {
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
	report := func(x, y Routed, xs, ys, xi, yi int, p join.Pair) {
		xl, yl := left, left
		if ys == 1 {
			yl = right
		}
		if self && cmp.Or(cmp.Compare(len(y.Keys), len(x.Keys)), cmp.Compare(y.ID, x.ID)) < 0 {
			x, y, xs, ys, xi, yi, xl, yl = y, x, ys, xs, yi, xi, yl, xl
		}
		if !x.Index {
			return // reported where the first record is indexed
		}
		if sharesAny(first(xs, xi, xl), first(ys, yi, yl)) {
			mElsewhere.Inc(ctx, 1)
			return
		}
		a, b := x, y
		if self && b.ID < a.ID {
			a, b = b, a
		}
		emit(Pair{A: a.ID, B: b.ID, Overlap: uint32(p.Overlap), SA: uint32(len(a.Keys)), SB: uint32(len(b.Keys))})
		kept++
	}
	if self && len(left) >= 2 {
		in := &order.Input{Workers: opt.Workers}
		for _, x := range left {
			in.Add(x.Keys)
		}
		c, err := order.New(in)
		if err != nil {
			return err
		}
		st, err := join.SelfJoin(ctx, c, opt, func(p join.Pair) bool {
			report(left[p.A], left[p.B], 0, 0, p.A, p.B, p)
			return true
		})
		if err != nil {
			return fmt.Errorf("group join: %w", err)
		}
		addJoinStats(ctx, st)
	}
	if len(right) > 0 {
		inL, inR := &order.Input{Workers: opt.Workers}, &order.Input{Workers: opt.Workers}
		for _, x := range left {
			inL.Add(x.Keys)
		}
		for _, x := range right {
			inR.Add(x.Keys)
		}
		cs, err := order.Build(inL, inR)
		if err != nil {
			return err
		}
		st, err := join.RSJoin(ctx, cs[0], cs[1], opt, func(p join.Pair) bool {
			report(left[p.A], right[p.B], 0, 1, p.A, p.B, p)
			return true
		})
		if err != nil {
			return fmt.Errorf("group join: %w", err)
		}
		addJoinStats(ctx, st)
	}
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
