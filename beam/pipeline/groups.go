package pipeline

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// groupKey names a group of the exact join: the rank of a prefix token and,
// for a token whose group was split, one of its blocks.
type groupKey struct {
	Rank   uint32
	Blocks uint32 // blocks the group was split in; 0: not split
	Block  uint32 // this block, below Blocks; 0 when not split
}

func (a groupKey) compare(b groupKey) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Blocks, b.Blocks), cmp.Compare(a.Block, b.Block))
}

// partOf is the partition of a group among parts.
func partOf(g groupKey, parts uint32) uint32 {
	return uint32(mix.Mix64(uint64(g.Rank)<<32^uint64(g.Block)) % uint64(parts))
}

// indexes reports whether a record of the given id and set size, routed
// to the group of its token at position pos (in the global order), is
// indexed there. In a self-join these are the tokens of its index prefix
// (prefix.Bounds.IndexPrefix): of two similar sets x and y with |x| <= |y|,
// the first token they share lies in x's index prefix and in y's probe
// prefix (AllPairs, Bayardo, Ma and Srikant 2007), so the pair is reported
// where x is indexed and y probes. In an R-S join the R records are
// indexed under their whole probe prefix and the S records only probe.
func (j joinFn) indexes(id uint64, pos, size int) bool {
	if j.SFrom != 0 {
		return !j.isS(id)
	}
	return pos < j.bounds().IndexPrefix(size)
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

// routes calls fn for every shared token of record i of b that the record
// is routed on: those of its probe prefix (prefix.Bounds.ProbePrefix), as
// their position in its order and their rank. A token held by the record
// alone has no partner in its group and is never routed.
func (j joinFn) routes(b *RankBatch, i int, fn func(pos int, rank uint32)) {
	n := b.Size(i)
	p := min(j.bounds().ProbePrefix(n), n)
	priv := int(b.Private[i])
	for k, r := range b.At(i) {
		pos := priv + k
		if pos >= p {
			break
		}
		fn(pos, r)
	}
}

// sizeKey counts the records of one set size indexed in the group of one
// hot token.
type sizeKey struct {
	Rank, Size uint32
}

// hotSizeFn counts, over a bundle, the records indexed in the group of
// each token from HotFrom on by set size, and emits the counts as one
// element (appendSizes): the counts every worker cuts the same blocks from
// (groupPlans).
type hotSizeFn struct {
	J joinFn
	n map[sizeKey]uint64
}

func (f *hotSizeFn) ProcessElement(b RankBatch, _ func([]byte)) {
	if f.n == nil {
		f.n = map[sizeKey]uint64{}
	}
	f.J.hotSizes(&b, f.n)
}

func (f *hotSizeFn) FinishBundle(ctx context.Context, emit func([]byte)) {
	if len(f.n) == 0 {
		return
	}
	b := appendSizes(nil, f.n)
	mShuffleGroup.Inc(ctx, int64(len(b)))
	emit(b)
	clear(f.n)
}

// hotSizes adds to n the records of b indexed in the group of a token
// from b.HotFrom on, by set size.
func (j joinFn) hotSizes(b *RankBatch, n map[sizeKey]uint64) {
	for i := range b.Len() {
		size := b.Size(i)
		j.routes(b, i, func(pos int, r uint32) {
			if r >= b.HotFrom && j.indexes(b.IDs[i], pos, size) {
				n[sizeKey{r, uint32(size)}]++
			}
		})
	}
}

// appendSizes writes counts by (rank, size) as their number, then each in
// ascending order as rank, size and count.
func appendSizes(b []byte, n map[sizeKey]uint64) []byte {
	keys := make([]sizeKey, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b sizeKey) int { return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Size, b.Size)) })
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = binary.AppendUvarint(b, uint64(k.Rank))
		b = binary.AppendUvarint(b, uint64(k.Size))
		b = binary.AppendUvarint(b, n[k])
	}
	return b
}

// readSizes adds what appendSizes wrote to n.
func readSizes(b []byte, n map[sizeKey]uint64) error {
	r := reader{b: b}
	c := r.count(3)
	for range c {
		rank, size, k := r.uvarint(), r.uvarint(), r.uvarint()
		if r.err != nil || rank > 1<<32-1 || size > 1<<32-1 {
			return errCorrupt
		}
		n[sizeKey{uint32(rank), uint32(size)}] += k
	}
	return r.done()
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
func newPlan(sizes []int, counts []uint64, bs int) []sizeBlock {
	var p []sizeBlock
	var held uint64 // records in the last block while it takes more sizes
	open := false
	for i, s := range sizes {
		c := counts[i]
		switch {
		case c > uint64(bs):
			of := uint32((c + uint64(bs) - 1) / uint64(bs))
			for sub := range of {
				p = append(p, sizeBlock{lo: s, hi: s, sub: sub, of: of})
			}
			open = false
		case open && held+c <= uint64(bs):
			p[len(p)-1].hi = s
			held += c
		default:
			p = append(p, sizeBlock{lo: s, hi: s, of: 1})
			held, open = c, true
		}
	}
	return p
}

// groupPlans cuts the group of every hot token into blocks (newPlan) from
// the counts of its indexed records by set size.
func groupPlans(counts map[sizeKey]uint64, bs int) map[uint32][]sizeBlock {
	keys := make([]sizeKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b sizeKey) int { return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Size, b.Size)) })
	plans := map[uint32][]sizeBlock{}
	for i := 0; i < len(keys); {
		j := i
		var sizes []int
		var cs []uint64
		for ; j < len(keys) && keys[j].Rank == keys[i].Rank; j++ {
			sizes = append(sizes, int(keys[j].Size))
			cs = append(cs, counts[keys[j]])
		}
		plans[keys[i].Rank] = newPlan(sizes, cs, bs)
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

// send calls emit for the groups a record of the given id and size goes
// to for its token of rank r at position pos, with index set where it is
// indexed (indexes). The group of a token held by at most BlockSize
// records (r below hotFrom) gets the record once. A hot token's group is
// cut by its plan: its indexed records, in order of
// set size, into blocks of about BlockSize (newPlan). An indexed record
// goes to its own block, and every record that probes (in a self-join,
// every record, the indexed ones too; in an R-S join, the S records) to
// each block holding a size it can be reported with (probeSizes), so that
// blocks whose sizes cannot meet are never paired. A record meets an
// indexed partner in exactly one block, that partner's, and a hot group
// nobody is indexed in (no plan) is not sent at all. So a record has at most
// one copy per block of the sizes it meets, not one per block of the
// group.
func (j joinFn) send(id uint64, pos, size int, r, hotFrom uint32, plans map[uint32][]sizeBlock, emit func(g groupKey, index bool)) {
	indexed := j.indexes(id, pos, size)
	if r < hotFrom {
		emit(groupKey{Rank: r}, indexed)
		return
	}
	p := plans[r]
	if len(p) == 0 {
		return
	}
	put := func(b int, index bool) {
		emit(groupKey{Rank: r, Blocks: uint32(len(p)), Block: uint32(b)}, index)
	}
	own := -1
	if indexed {
		own = int(indexBlock(p, size, id))
		if j.SFrom != 0 { // R-S: an R record is indexed and never probes
			put(own, true)
			return
		}
	}
	lo, hi := j.probeSizes(size)
	b, _ := slices.BinarySearchFunc(p, lo, func(sb sizeBlock, lo int) int { return cmp.Compare(sb.hi, lo) })
	for ; b < len(p) && p[b].lo <= hi; b++ {
		put(b, b == own)
	}
}

// partChunk is records bound for one partition, packed: each record as the
// zigzag delta of its id from the record before, its private count, its
// ranks (appendRanks), and the groups of the partition it goes to, each as
// its token's index among the record's ranks (the group's rank is the
// rank there), whether the group is split, with its blocks and block, and
// whether the record is indexed there.
type partChunk struct {
	b    []byte
	prev uint64
}

// maxChunk is the size at which partitionFn emits a partition's chunk
// before the bundle ends.
const maxChunk = 4 << 20

type chunkGroup struct {
	at    int // index among the record's ranks
	g     groupKey
	index bool
}

func (c *partChunk) add(id uint64, private uint32, ranks []uint32, groups []chunkGroup) {
	c.b = binary.AppendUvarint(c.b, zigzag(int64(id-c.prev)))
	c.prev = id
	c.b = binary.AppendUvarint(c.b, uint64(private))
	c.b = appendRanks(c.b, ranks)
	c.b = binary.AppendUvarint(c.b, uint64(len(groups)))
	for _, g := range groups {
		x := uint64(g.at) << 2
		if g.g.Blocks > 0 {
			x |= 2
		}
		if g.index {
			x |= 1
		}
		c.b = binary.AppendUvarint(c.b, x)
		if g.g.Blocks > 0 {
			c.b = binary.AppendUvarint(c.b, uint64(g.g.Blocks))
			c.b = binary.AppendUvarint(c.b, uint64(g.g.Block))
		}
	}
}

// partitionFn sends every record to the groups of its prefix tokens
// (send), packed by partition: a record goes once to each partition
// holding one of its groups, with the list of its groups there. A
// partition's chunk is emitted when the bundle ends or it reaches
// maxChunk bytes.
type partitionFn struct {
	J      joinFn
	plans  map[uint32][]sizeBlock // the side input, read once per instance
	chunks map[uint32]*partChunk
}

func (f *partitionFn) ProcessElement(ctx context.Context, b RankBatch, sizes func(*[]byte) bool, emit func(uint32, []byte)) error {
	if f.plans == nil {
		n := map[sizeKey]uint64{}
		var p []byte
		for sizes(&p) {
			if err := readSizes(p, n); err != nil {
				return err
			}
		}
		f.plans = groupPlans(n, f.J.BlockSize)
		f.chunks = map[uint32]*partChunk{}
	}
	routed := f.J.partition(&b, f.plans, func(part uint32, add func(*partChunk)) {
		c := f.chunks[part]
		if c == nil {
			c = &partChunk{}
			f.chunks[part] = c
		}
		add(c)
		if len(c.b) >= maxChunk {
			f.emit(ctx, part, emit)
		}
	})
	mRouted.Inc(ctx, routed)
	return nil
}

func (f *partitionFn) emit(ctx context.Context, part uint32, emit func(uint32, []byte)) {
	c := f.chunks[part]
	mShuffleGroup.Inc(ctx, int64(len(c.b)+uvarintLen(uint64(part))))
	emit(part, c.b)
	delete(f.chunks, part)
}

func (f *partitionFn) FinishBundle(ctx context.Context, _ func(*[]byte) bool, emit func(uint32, []byte)) {
	parts := make([]uint32, 0, len(f.chunks))
	for p := range f.chunks {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		f.emit(ctx, p, emit)
	}
}

// partition sends the records of b to their groups (send) and each record
// with its groups to the chunk of every partition holding one of them
// (to calls add with the chunk). It returns the number of groups the
// records were sent to.
func (j joinFn) partition(b *RankBatch, plans map[uint32][]sizeBlock, to func(part uint32, add func(*partChunk))) int64 {
	var groups []chunkGroup
	var parts []uint32
	var routed int64
	for i := range b.Len() {
		groups, parts = groups[:0], parts[:0]
		size := b.Size(i)
		id := b.IDs[i]
		priv := int(b.Private[i])
		j.routes(b, i, func(pos int, r uint32) {
			j.send(id, pos, size, r, b.HotFrom, plans, func(g groupKey, index bool) {
				groups = append(groups, chunkGroup{at: pos - priv, g: g, index: index})
				parts = append(parts, partOf(g, b.Parts))
			})
		})
		routed += int64(len(groups))
		if len(groups) == 0 {
			continue
		}
		// Each partition the record goes to, once, with its groups there.
		order := make([]int, len(groups))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(parts[x], parts[y]) })
		sorted := make([]chunkGroup, len(groups))
		for k, o := range order {
			sorted[k] = groups[o]
		}
		for lo := 0; lo < len(order); {
			hi := lo + 1
			for hi < len(order) && parts[order[hi]] == parts[order[lo]] {
				hi++
			}
			gs := sorted[lo:hi]
			to(parts[order[lo]], func(c *partChunk) { c.add(id, b.Private[i], b.At(i), gs) })
			lo = hi
		}
	}
	return routed
}

// partRecords are the records of one partition: record i has id ids[i],
// private[i] tokens of its own and the ranks ranks[ends[i-1]:ends[i]].
type partRecords struct {
	ids     []uint64
	private []uint32
	ends    []uint32
	ranks   []uint32
}

func (p *partRecords) at(i uint32) []uint32 {
	s := uint32(0)
	if i > 0 {
		s = p.ends[i-1]
	}
	return p.ranks[s:p.ends[i]]
}

func (p *partRecords) size(i uint32) int { return int(p.private[i]) + len(p.at(i)) }

// member is a record in a group: its index among the partition's records,
// the index of the group's token among its ranks, and whether it is
// indexed there.
type member struct {
	g     groupKey
	rec   uint32
	at    uint32
	index bool
}

// read adds a chunk's records and their group memberships.
func (p *partRecords) read(b []byte, members []member) ([]member, error) {
	r := reader{b: b}
	var prev uint64
	for len(r.b) > 0 && r.err == nil {
		prev += uint64(unzigzag(r.uvarint()))
		rec := uint32(len(p.ids))
		p.ids = append(p.ids, prev)
		p.private = append(p.private, uint32(r.uvarint()))
		p.ranks = r.ranks(p.ranks)
		p.ends = append(p.ends, uint32(len(p.ranks)))
		ranks := p.at(rec)
		n := r.count(1)
		for range n {
			x := r.uvarint()
			m := member{rec: rec, at: uint32(x >> 2), index: x&1 == 1}
			if x&2 != 0 {
				m.g.Blocks, m.g.Block = uint32(r.uvarint()), uint32(r.uvarint())
				if m.g.Block >= m.g.Blocks {
					r.err = errCorrupt
				}
			}
			if r.err != nil || x>>2 >= uint64(len(ranks)) {
				return members, errCorrupt
			}
			m.g.Rank = ranks[m.at]
			members = append(members, m)
		}
	}
	return members, r.done()
}

// partJoinFn joins the groups of one partition: it reads the partition's
// chunks, gathers every group's members, and joins each group
// (joinGroup).
type partJoinFn struct {
	J joinFn
}

func (f *partJoinFn) ProcessElement(ctx context.Context, _ uint32, chunks func(*[]byte) bool, emit func(Pair)) error {
	var p partRecords
	var members []member
	var b []byte
	for chunks(&b) {
		var err error
		if members, err = p.read(b, members); err != nil {
			return err
		}
	}
	slices.SortFunc(members, func(x, y member) int {
		return cmp.Or(x.g.compare(y.g), cmp.Compare(p.ids[x.rec], p.ids[y.rec]))
	})
	var st groupStats
	for lo := 0; lo < len(members); {
		hi := lo + 1
		for hi < len(members) && members[hi].g == members[lo].g {
			hi++
		}
		if err := f.J.joinGroup(ctx, &p, members[lo:hi], emit, &st); err != nil {
			return err
		}
		lo = hi
	}
	st.add(ctx)
	return nil
}

// groupStats are a partition's join statistics, added to the metrics
// once.
type groupStats struct {
	join                            join.Stats
	groups, split, elsewhere, found int64
	largest                         int
}

func (s *groupStats) add(ctx context.Context) {
	addJoinStats(ctx, s.join)
	mGroups.Inc(ctx, s.groups)
	mSplitGroups.Inc(ctx, s.split)
	mElsewhere.Inc(ctx, s.elsewhere)
	mResults.Inc(ctx, s.found)
	if s.groups > 0 {
		mLargestGroup.Update(ctx, int64(s.largest))
	}
}

// pairwiseMax is the most candidate pairs (indexed records times the
// group's records) a group is joined by checking every pair; a larger group
// is joined by package join.
const pairwiseMax = 1024

// joinGroup joins one group (or block) and keeps the pairs whose first
// record, in the order of set size then id (R-S: the R record), is indexed
// there and whose first shared token, in the global order, is the group's
// token: every other group holding both records has a later token, so each
// pair is reported by exactly one group. As in AllPairs, only pairs with an
// indexed record are looked for: the indexed records (R-S: the R records)
// joined among themselves (self-join) and with those that only probe (R-S:
// the S records), never the probing records with one another, so a block
// of B indexed records costs B·(B + probes) candidate pairs at most,
// however many records probe it. A small group checks each such pair
// (join.OverlapAtLeast on the ranks); a larger one is joined by package
// join (order.New and join.SelfJoin; join.RSJoin across), its ranks as
// keys.
func (j joinFn) joinGroup(ctx context.Context, p *partRecords, ms []member, emit func(Pair), st *groupStats) error {
	var left, right []member // indexed (R) records, and the others
	self := j.SFrom == 0
	for _, m := range ms {
		if self && m.index || !self && !j.isS(p.ids[m.rec]) {
			left = append(left, m)
		} else {
			right = append(right, m)
		}
	}
	st.groups++
	if ms[0].g.Blocks > 1 && ms[0].g.Block == 0 {
		st.split++
	}
	st.largest = max(st.largest, len(ms))
	if len(left) == 0 || len(left)+len(right) < 2 || !self && len(right) == 0 {
		return nil
	}
	b := j.bounds()
	// report keeps the pair of x and y (their overlap o) if it is reported
	// here.
	report := func(x, y member, o int) {
		nx, ny := p.size(x.rec), p.size(y.rec)
		if self && cmp.Or(cmp.Compare(ny, nx), cmp.Compare(p.ids[y.rec], p.ids[x.rec])) < 0 {
			x, y, nx, ny = y, x, ny, nx
		}
		if !x.index {
			return // reported where the first record is indexed
		}
		if sharesAny(p.at(x.rec)[:x.at], p.at(y.rec)[:y.at]) {
			st.elsewhere++
			return
		}
		a, c, na, nc := p.ids[x.rec], p.ids[y.rec], nx, ny
		if self && c < a {
			a, c, na, nc = c, a, nc, na
		}
		emit(Pair{A: a, B: c, Overlap: uint32(o), SA: uint32(na), SB: uint32(nc)})
		st.found++
	}
	pairs := len(left) * (len(left) + len(right))
	if pairs <= pairwiseMax {
		check := func(x, y member) {
			alpha := b.MinOverlap(p.size(x.rec), p.size(y.rec))
			xs, ys := p.at(x.rec), p.at(y.rec)
			if alpha < 1 || alpha > min(len(xs), len(ys)) {
				st.join.SizePruned++
				return
			}
			st.join.Candidates++
			st.join.Verified++
			if o := join.OverlapAtLeast(xs, ys, alpha); o >= alpha {
				report(x, y, o)
			}
		}
		for i, x := range left {
			if self {
				for _, y := range left[i+1:] {
					check(x, y)
				}
			}
			for _, y := range right {
				check(x, y)
			}
		}
		return nil
	}
	opt := join.Options{Measure: j.bounds().Measure(), Threshold: b.Threshold(), Workers: 1}
	// A private token is a key above every rank, one of its own.
	next := uint64(1) << 32
	input := func(ms []member) *order.Input {
		in := &order.Input{Workers: 1}
		var keys []uint64
		for _, m := range ms {
			keys = keys[:0]
			for range p.private[m.rec] {
				keys = append(keys, next)
				next++
			}
			for _, r := range p.at(m.rec) {
				keys = append(keys, uint64(r))
			}
			in.Add(keys)
		}
		return in
	}
	if self && len(left) >= 2 {
		c, err := order.New(input(left))
		if err != nil {
			return err
		}
		s, err := join.SelfJoin(ctx, c, opt, func(q join.Pair) bool {
			report(left[q.A], left[q.B], q.Overlap)
			return true
		})
		if err != nil {
			return fmt.Errorf("group join: %w", err)
		}
		addJoinStats(ctx, s)
	}
	if len(right) > 0 {
		cs, err := order.Build(input(left), input(right))
		if err != nil {
			return err
		}
		s, err := join.RSJoin(ctx, cs[0], cs[1], opt, func(q join.Pair) bool {
			report(left[q.A], right[q.B], q.Overlap)
			return true
		})
		if err != nil {
			return fmt.Errorf("group join: %w", err)
		}
		addJoinStats(ctx, s)
	}
	return nil
}

// sharesAny reports whether two sorted lists have an element in common.
func sharesAny[T cmp.Ordered](a, b []T) bool {
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
