package join

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// Pair is one result. In a self-join A < B are the original 0-based indices
// of the two records; in an R-S join A indexes R and B indexes S. Overlap is
// the exact size of the intersection and Sim the similarity computed from it
// (for the Overlap measure, Sim equals Overlap); this package's joins always
// give both. A pair of the LSH joins whose similarity is a MinHash estimate
// (package approx, VerifyEstimate) has Overlap -1 and the estimate as Sim.
type Pair struct {
	A, B    int
	Overlap int
	Sim     float64
}

// ComparePairs orders pairs by (A, B): the total order of sorted output
// (the joins stream pairs in a documented order of their own; sort with
// slices.SortFunc(pairs, ComparePairs) for this one).
func ComparePairs(a, b Pair) int {
	if c := cmp.Compare(a.A, b.A); c != 0 {
		return c
	}
	return cmp.Compare(a.B, b.B)
}

// Options configures a join. The zero value of every field but Threshold
// works: Jaccard, all cores.
type Options struct {
	Measure   prefix.Measure
	Threshold prefix.Threshold // required: the zero Threshold is prefix.ErrNoThreshold (prefix.Validate)
	// Workers is the number of goroutines probing; 0 means GOMAXPROCS, and
	// more than 4·GOMAXPROCS means 4·GOMAXPROCS. The output is the same for
	// every value.
	Workers int
	// Progress, if not nil, is called from the calling goroutine with the
	// number of probe groups done and the total, at most once per chunk.
	Progress func(done, total int)
	// Ell is the number of tokens a self-join's index keys hold: 1 is the
	// prefix filter (AllPairs with PPJoin's filters), 2 or 3 the ℓ-prefix of
	// AdaptJoin (pairs or hashed triples of tokens; see lprefix.go). 0 lets
	// SelfJoin choose by cost. The pairs are the same for every value. RSJoin
	// takes 0 or 1 only.
	Ell int
	// Copies, if not nil, makes SelfJoin report groups instead of record
	// pairs, for clustering: each group of two or more records with
	// identical sets (that reach the threshold with each other) is handed to
	// Copies once, its ids ascending (the slice is reused after the call),
	// and yield gets one pair per pair of distinct sets, between the lowest
	// ids of their groups. So n identical copies cost one call, not
	// n(n-1)/2 pairs. Copies returning false stops the join as yield does.
	// Stats.Results still counts the record pairs stood for. RSJoin ignores
	// it.
	Copies func(ids []int) bool
}

func (o *Options) check() error {
	t, err := prefix.Validate(o.Measure, o.Threshold)
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	o.Threshold = t
	if o.Ell < 0 || o.Ell > 3 {
		return fmt.Errorf("%w: %d (want 0 to choose, 1, 2 or 3)", ErrEll, o.Ell)
	}
	o.Workers = parallel.Workers(o.Workers)
	return nil
}

// ErrEll is returned for an Options.Ell outside 0..3, or above 1 for RSJoin.
var ErrEll = errors.New("join: bad number of tokens per index key")

// Stats counts what a join did. Candidates are distinct (probe group, indexed
// group) pairs that shared a prefix token (an index key, on the ℓ-prefix
// path) and passed the posting filters; each is then pruned by the
// positional filter, pruned by the verification bound, or verified by a
// merge:
//
//	Candidates = Positional + BoundPruned + BitmapPruned + Verified <= Postings
//
// Groups are distinct sets: n identical sets cost one probe.
type Stats struct {
	Records      int           // records given, both sides for an R-S join
	Skipped      int           // empty records, which never join
	Groups       int           // distinct non-empty sets probed or indexed
	IndexEntries int           // postings in the prefix index
	ProbeTokens  int64         // probe-prefix tokens looked up in the index (those held by two sets or more); keys looked up on the ℓ-prefix path
	Postings     int64         // postings whose candidate was examined while probing
	LateSkipped  int64         // postings too late in the probe to start a candidate, their group being none yet
	SizePruned   int64         // postings skipped by the size filter
	Candidates   int64         // distinct group pairs sharing a prefix token
	Positional   int64         // candidates pruned by the positional filter
	BoundPruned  int64         // candidates pruned by the count bound before merging
	BitmapPruned int64         // candidates pruned by the bitmap bound before merging
	MaskPruned   int64         // postings skipped by the token-mask bound (ℓ-prefix path)
	Verified     int64         // candidates whose suffixes were merged
	Results      int64         // record pairs reported (or stood for, with Options.Copies), identical copies included
	IndexTime    time.Duration // grouping and building the index
	JoinTime     time.Duration // probing, filtering, verifying and emitting
	// IndexCPU and JoinCPU are the process's CPU time (user and system, all
	// threads) during the two phases; 0 where the system cannot say.
	IndexCPU, JoinCPU time.Duration
	Workers           int
	Ell               int // tokens per index key: 1 the prefix filter, 2 or 3 the ℓ-prefix
}

// checkIdentity panics unless s satisfies the identity every path keeps:
// Candidates = Positional + BoundPruned + BitmapPruned + Verified, and
// Verified <= Candidates <= Postings (checked under -tags invariants).
func (s *Stats) checkIdentity() {
	if sum := s.Positional + s.BoundPruned + s.BitmapPruned + s.Verified; sum != s.Candidates ||
		s.Verified > s.Candidates || s.Candidates > s.Postings {
		panic(fmt.Sprintf("join: Stats identity broken (ℓ = %d): Positional %d + BoundPruned %d + BitmapPruned %d + Verified %d = %d, Candidates %d, Postings %d",
			s.Ell, s.Positional, s.BoundPruned, s.BitmapPruned, s.Verified, sum, s.Candidates, s.Postings))
	}
}

func (s *Stats) add(o *Stats) {
	s.ProbeTokens += o.ProbeTokens
	s.Postings += o.Postings
	s.LateSkipped += o.LateSkipped
	s.SizePruned += o.SizePruned
	s.Candidates += o.Candidates
	s.Positional += o.Positional
	s.BoundPruned += o.BoundPruned
	s.BitmapPruned += o.BitmapPruned
	s.MaskPruned += o.MaskPruned
	s.Verified += o.Verified
}

// side is one collection seen as its groups of identical sets
// (order.Collection.Group).
type side struct {
	c    *order.Collection
	size []uint32 // size of group g's set, non-decreasing in g; one per group of c
	// group g's set is arena[at[g] : at[g]+size[g]] (the collection's
	// Arena), so that a set costs one lookup and can be hinted into cache.
	arena []uint32
	at    []int
	// bySize[n] is the first group whose size is >= n, for n up to the
	// largest size (len(bySize) = largest size + 1; 1 when there is no
	// group).
	bySize []uint32
}

func groupsOf(c *order.Collection) *side {
	s := &side{c: c, size: make([]uint32, c.Groups()), arena: c.Arena(), at: make([]int, c.Groups())}
	for g := range s.size {
		lo, _ := c.Group(g)
		s.size[g], s.at[g] = uint32(c.Size(lo)), c.Offset(lo)
	}
	largest := 0
	if len(s.size) > 0 {
		largest = int(s.size[len(s.size)-1])
	}
	s.bySize = make([]uint32, largest+1)
	g := 0
	for n := range s.bySize {
		for g < len(s.size) && int(s.size[g]) < n {
			g++
		}
		s.bySize[n] = uint32(g)
	}
	if invariants.Enabled {
		s.check()
	}
	return s
}

// check panics unless the invariants stated on side's fields hold (called
// under -tags invariants). Cost: O(groups + largest size).
func (s *side) check() {
	if len(s.size) != s.c.Groups() {
		panic(fmt.Sprintf("join: %d group sizes for %d groups", len(s.size), s.c.Groups()))
	}
	for g := range s.size {
		lo, _ := s.c.Group(g)
		if int(s.size[g]) != s.c.Size(lo) || s.at[g] != s.c.Offset(lo) || g > 0 && s.size[g] < s.size[g-1] {
			panic(fmt.Sprintf("join: group %d: size %d, its set holds %d (sizes must not decrease)", g, s.size[g], s.c.Size(lo)))
		}
	}
	for n := range s.bySize {
		g := int(s.bySize[n])
		if g > len(s.size) || g < len(s.size) && int(s.size[g]) < n || g > 0 && int(s.size[g-1]) >= n {
			panic(fmt.Sprintf("join: bySize[%d] = %d is not the first group of size >= %d", n, g, n))
		}
	}
}

func (s *side) groups() int { return len(s.size) }
func (s *side) set(g int) []uint32 {
	at := s.at[g]
	end := at + int(s.size[g])
	return s.arena[at:end:end]
}

// hint asks for the sets of the groups gs to be brought into cache
// (internal/prefetch), their offsets first; a caller about to verify
// several candidates hints them all, then reads them.
func (s *side) hint(gs []uint32) {
	prefetch.Indexes(s.at, gs, 0)
	for _, g := range gs {
		prefetch.At(s.arena[:len(s.arena):len(s.arena)], s.at[g])
	}
}
func (s *side) members(g int) (lo, hi int) { return s.c.Group(g) }

// firstOfSize returns the first group whose size is >= n, in O(1) from a
// table by size.
func (s *side) firstOfSize(n int) int {
	if n <= 0 {
		return 0
	}
	if n >= len(s.bySize) {
		return len(s.size)
	}
	return int(s.bySize[n])
}

// SelfJoin reports every pair of records of c whose similarity reaches the
// threshold, each once with A < B. It calls yield from the calling goroutine;
// yield returning false stops the join early (without error).
//
// Pairs come out grouped by probe set in collection order (size ascending),
// the same for any number of workers; sort them for a total order.
//
// The algorithm is AllPairs (Bayardo, Ma and Srikant 2007) with PPJoin's
// positional filter and suffix verification (Xiao, Wang, Lin and Yu 2008):
// see the package documentation. Probing runs on opt.Workers goroutines, all
// of which have ended when SelfJoin returns. ctx cancels the join.
func SelfJoin(ctx context.Context, c *order.Collection, opt Options, yield func(Pair) bool) (Stats, error) {
	if err := opt.check(); err != nil {
		return Stats{}, err
	}
	b := prefix.NewBounds(opt.Measure, opt.Threshold)
	t0 := rusage.Start()
	s := groupsOf(c)
	vocab := c.Dict().Len()
	unique := c.Dict().FirstShared()
	ell := opt.Ell
	var lengths *prefix.Lengths // the prefix index's list lengths, if the choice counted them
	if ell == 0 {
		var ch EllChoice
		ch, lengths = ellChoice(s, b, unique, opt.Workers)
		ell = ch.Ell
	}
	// The prefix filter probes every group through the prefix index; the
	// ℓ-prefix path only its tiny groups (the smallest sizes, which meet
	// only each other), so only they are indexed there.
	indexed := tinyGroups(s, b, ell)
	// With one worker on the prefix path, probes go in group order, so
	// each group's postings can be placed right after it is probed, while
	// its lists are in cache, instead of in a pass of their own (fill).
	fill := opt.Workers == 1 && ell == 1
	// The tokens held by one set only (ids below unique) get no list: no
	// probe looks them up.
	if lengths == nil || indexed != s.groups() {
		lengths = prefix.CountPrefixesFrom(indexed, vocab, unique, s.set, b.IndexPrefix, opt.Workers)
	}
	var ix *prefix.Index
	if fill {
		ix = lengths.Layout()
	} else {
		ix = lengths.Index()
	}
	j := &joiner{b: b, probe: s, build: s, ix: ix, self: true, ell: ell, indexed: indexed, copies: opt.Copies, fill: fill}
	st := Stats{
		Records:      c.Records(),
		Skipped:      c.Skipped(),
		Groups:       s.groups(),
		IndexEntries: ix.Counted(),
		Ell:          ell,
	}
	if ell > 1 && j.indexed < s.groups() {
		var err error
		j.keyIx, j.masks, err = newKeyIndex(s, vocab, ell, func(n int) int { return indexLen(b, n, ell) }, opt.Workers, true)
		if err != nil {
			return st, err
		}
		st.IndexEntries += len(j.keyIx.groups)
		j.keyProbes = keyProbesOf(s, b, ell)
	}
	j.prepare(opt.Workers)
	st.IndexTime, st.IndexCPU = t0.Lap()
	err := j.run(ctx, &opt, &st, yield)
	return st, err
}

// Join is SelfJoin of r when s is nil, and RSJoin of r and s otherwise: the
// one place that chooses between them.
func Join(ctx context.Context, r, s *order.Collection, opt Options, yield func(Pair) bool) (Stats, error) {
	if s == nil {
		return SelfJoin(ctx, r, opt, yield)
	}
	return RSJoin(ctx, r, s, opt, yield)
}

// RSJoin reports every pair (r, s) of a record of r and a record of s whose
// similarity reaches the threshold. r and s must come from one order.Build
// call, so that they share a dictionary. Pairs come out grouped by the
// R record's set in collection order, the same for any number of workers.
// Otherwise as SelfJoin.
func RSJoin(ctx context.Context, r, s *order.Collection, opt Options, yield func(Pair) bool) (Stats, error) {
	if err := opt.check(); err != nil {
		return Stats{}, err
	}
	if opt.Ell > 1 {
		return Stats{}, fmt.Errorf("%w: ℓ = %d is for self-joins", ErrEll, opt.Ell)
	}
	if r.Dict() != s.Dict() {
		return Stats{}, errors.New("join: R and S must share a dictionary (build them with one order.Build call)")
	}
	b := prefix.NewBounds(opt.Measure, opt.Threshold)
	t0 := rusage.Start()
	rs, ss := groupsOf(r), groupsOf(s)
	// As in SelfJoin, the tokens held by one set only get no list.
	ix := prefix.CountPrefixesFrom(ss.groups(), s.Dict().Len(), s.Dict().FirstShared(), ss.set, b.ProbePrefix, opt.Workers).Index()
	st := Stats{
		Records:      r.Records() + s.Records(),
		Skipped:      r.Skipped() + s.Skipped(),
		Groups:       rs.groups() + ss.groups(),
		IndexEntries: ix.Counted(),
		Ell:          1,
	}
	j := &joiner{b: b, probe: rs, build: ss, ix: ix, indexed: ss.groups()}
	j.prepare(opt.Workers)
	st.IndexTime, st.IndexCPU = t0.Lap()
	err := j.run(ctx, &opt, &st, yield)
	return st, err
}
