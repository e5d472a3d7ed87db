package passwords

import (
	"context"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// The ℓ-prefix self-join.
//
// join.SelfJoin indexes each set under its rarest tokens (the prefix filter,
// ℓ = 1). On password bigrams that is not selective: a list uses a few
// thousand distinct bigrams (digit-only passwords a hundred), even a set's
// rarest one is common, and at high thresholds the index prefix of a short
// set is a single token, so posting lists grow with the list and candidates
// with its square (1M generated passwords at q = 2, t = 0.8: 328M
// candidates for 0.5M results).
//
// This join uses the ℓ-prefix of AdaptJoin (Wang, Li and Feng, "Can we beat
// the prefix filtering? An adaptive framework for similarity join and
// search", SIGMOD 2012) with ℓ = 2 or 3. In the global token order, if
// |x ∩ y| >= α >= ℓ, the first ℓ tokens that x and y share are followed in
// both sets by the other α-ℓ shared ones, so they lie within the first
// |x| - α + ℓ tokens of x and within the first |y| - α + ℓ of y. So every
// set is indexed under the ℓ-subsets of its ℓ-prefix, probes look up the
// ℓ-subsets of theirs, and a candidate must share ℓ tokens, not one. A key
// is its first token and, for ℓ = 3, a 32-bit hash of the other two: a hash
// collision only adds candidates, never loses one. Each candidate is then
// verified exactly by join.Check.
//
// As in join.SelfJoin, sets are processed in size order and a probe meets
// only the groups of identical sets before it, so α is at least
// MinOverlap(|x|, lo) for the probe x (lo its smallest admissible partner)
// and at least MinOverlap(|y|, |y|) for the indexed y (its partners are no
// smaller); the prefixes use those bounds. Sets whose least overlap with
// their smallest partner is below ℓ ("tiny": one or two grams at t = 0.8)
// cannot use the ℓ-prefix; MinOverlap(n, lo(n)) does not decrease with n,
// so they are the smallest sizes and meet only each other, and
// join.SelfJoin joins them among themselves. A larger set meeting a tiny
// one shares >= ℓ tokens with it, which the tiny set's index keys cover.
//
// Departures from the paper: ℓ is chosen once per join, not per set
// (chooseEll), the index is built in full before probing (so probes run in
// parallel and the output does not depend on the number of workers), and
// there is no positional or count filter (a 64-bit mask of each set's
// tokens, kept beside the index entries, bounds the overlap before the
// merge instead). In its statistics every posting scanned is a candidate:
// the mask bound prunes postings, a set met again through another key is
// skipped, and Verified counts the distinct sets merged; the size filter's
// skips are not counted.

// maxKeys is the most index keys per probe, on average, for which the
// ℓ-prefix join is used; above it (long sets at low thresholds) the keys
// would outnumber the postings they save, and Join uses join.SelfJoin.
const maxKeys = 28

// joinPath chooses the join ("pair": ℓ = 2, "triple": ℓ = 3, "prefix":
// join.SelfJoin); "" lets Join decide. Can change for testing.
var joinPath = ""

// chooseEll returns the ℓ for the ℓ-prefix join of c at bounds b, or 0 for
// join.SelfJoin: the largest ℓ in {3, 2} whose probes look up at most
// maxKeys keys on average, 3 only from tripleGroups distinct sets on. On
// generated lists at q = 2, t = 0.8, ℓ = 3 costs more than ℓ = 2 below a
// million passwords (more lookups, each a cache miss, for runs that are
// already short; 29 against 24 ms of CPU at 59k), the same at 1M (1.77 s
// each), and 30% less at 10M (44 against 62 s: the runs of common bigram
// pairs, digit passwords' above all, grow with the list).
func chooseEll(c *order.Collection, b prefix.Bounds, groups int) int {
	switch joinPath {
	case "pair":
		return 2
	case "triple":
		return 3
	case "prefix":
		return 0
	}
	for _, ell := range []int{3, 2} {
		if ell == 3 && groups < tripleGroups {
			continue
		}
		var keys, sets int64
		for i := 0; i < c.Len(); i++ {
			if p, ok := probeLen(b, c.Size(i), ell); ok {
				keys += binom(p, ell)
				sets++
			}
		}
		if sets > 0 && keys <= maxKeys*sets {
			return ell
		}
	}
	return 0
}

// tripleGroups is the number of distinct sets from which chooseEll takes
// ℓ = 3. Can change for testing.
var tripleGroups = 3_000_000

func binom(n, k int) int64 {
	switch {
	case n < k:
		return 0
	case k == 2:
		return int64(n) * int64(n-1) / 2
	default:
		return int64(n) * int64(n-1) * int64(n-2) / 6
	}
}

// probeLen returns the length of the ℓ-prefix a set of size n probes with,
// and false for a tiny size (least overlap below ℓ with its smallest
// partner).
func probeLen(b prefix.Bounds, n, ell int) (int, bool) {
	lo, _ := b.SizeRange(n)
	a := b.MinOverlap(n, max(lo, 1))
	if a < ell {
		return 0, false
	}
	return min(n, n-a+ell), true
}

// indexLen returns the length of the ℓ-prefix a set of size n is indexed
// with.
func indexLen(b prefix.Bounds, n, ell int) int {
	return min(n, n-b.MinOverlap(n, n)+ell)
}

// appendKeys appends the keys of the ℓ-subsets of t[:p]: the first token
// in the high 32 bits, then the second (ℓ = 2) or a hash of the second and
// third (ℓ = 3).
func appendKeys(dst []uint64, t []uint32, p, ell int) []uint64 {
	for i := 0; i+ell <= p; i++ {
		hi := uint64(t[i]) << 32
		for j := i + 1; j+ell-1 <= p; j++ {
			if ell == 2 {
				dst = append(dst, hi|uint64(t[j]))
				continue
			}
			for k := j + 1; k < p; k++ {
				dst = append(dst, hi|uint64(mix32(t[j], t[k])))
			}
		}
	}
	return dst
}

func mix32(a, b uint32) uint32 {
	return uint32(mix.Mix64(uint64(a)<<32|uint64(b)) >> 32)
}

// keyIndex maps a key to the groups whose index prefix has it, in group
// order: the key's run of groups, with each group's token mask beside it
// (so that the mask bound is checked while scanning, without a random
// access per posting). A hash table finds a key's run.
type keyIndex struct {
	ell    int
	groups []uint32
	masks  []uint64
	table  []keySlot // open addressing, len a power of two
}

// keySlot is one key's run; end == 0 marks a free slot.
type keySlot struct {
	key        uint64
	start, end uint32
}

func (ix *keyIndex) slot(key uint64) uint64 {
	return (key * 0x9e3779b97f4a7c15) >> 32 & uint64(len(ix.table)-1)
}

// lookup returns the run of key: its groups and their masks (empty if
// none).
func (ix *keyIndex) lookup(key uint64) ([]uint32, []uint64) {
	for k := ix.slot(key); ; k = (k + 1) & uint64(len(ix.table)-1) {
		sl := &ix.table[k]
		if sl.end == 0 {
			return nil, nil
		}
		if sl.key == key {
			return ix.groups[sl.start:sl.end], ix.masks[sl.start:sl.end]
		}
	}
}

// newKeyIndex indexes every group under the keys of its first plen(n)
// tokens (n: its size). The entries go into buckets by first token (a
// counting sort), then each bucket is sorted by (rest of key, group) and its
// runs enter the table.
func newKeyIndex(g *groups, vocab, ell int, plen func(n int) int, workers int) (*keyIndex, error) {
	start := make([]int, vocab+2)
	var keys []uint64
	for gi := 0; gi < g.len(); gi++ {
		y := g.set(gi)
		keys = appendKeys(keys[:0], y, plen(len(y)), ell)
		for _, k := range keys {
			start[k>>32+2]++
		}
	}
	for w := 2; w < len(start); w++ {
		start[w] += start[w-1]
	}
	if start[len(start)-1] >= 1<<32-1 {
		return nil, order.ErrTooLarge
	}
	entries := make([]uint64, start[len(start)-1])
	for gi := 0; gi < g.len(); gi++ {
		y := g.set(gi)
		keys = appendKeys(keys[:0], y, plen(len(y)), ell)
		for _, k := range keys {
			a := k >> 32
			entries[start[a+1]] = k<<32 | uint64(gi)
			start[a+1]++
		}
	}
	start = start[:vocab+1]
	var mu sync.Mutex // protects distinct
	distinct := 0
	parallelRange(vocab, workers, func(lo, hi int) {
		n := 0
		for w := lo; w < hi; w++ {
			bucket := entries[start[w]:start[w+1]]
			slices.Sort(bucket)
			for k := range bucket {
				if k == 0 || bucket[k]>>32 != bucket[k-1]>>32 {
					n++
				}
			}
		}
		mu.Lock()
		distinct += n
		mu.Unlock()
	})
	ix := &keyIndex{
		ell:    ell,
		groups: make([]uint32, len(entries)),
		masks:  make([]uint64, len(entries)),
		table:  make([]keySlot, 1<<bits.Len(uint(2*distinct))),
	}
	parallelRange(len(entries), workers, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			gi := uint32(entries[k])
			ix.groups[k], ix.masks[k] = gi, g.mask[gi]
		}
	})
	for a := range vocab {
		bucket := entries[start[a]:start[a+1]]
		for k := 0; k < len(bucket); {
			e := k + 1
			for e < len(bucket) && bucket[e]>>32 == bucket[k]>>32 {
				e++
			}
			key := uint64(a)<<32 | bucket[k]>>32
			s := ix.slot(key)
			for ix.table[s].end != 0 {
				s = (s + 1) & uint64(len(ix.table)-1)
			}
			ix.table[s] = keySlot{key: key, start: uint32(start[a] + k), end: uint32(start[a] + e)}
			k = e
		}
	}
	return ix, nil
}

// groups is a collection seen as runs of identical sets (adjacent in an
// order.Collection), each with a 64-bit mask of its tokens.
type groups struct {
	c     *order.Collection
	first []uint32 // group g holds positions first[g]..first[g+1]-1
	mask  []uint64 // bit h(w) set for each token w of group g's set
	sizes []uint32 // size of group g's set
}

func newGroups(c *order.Collection) *groups {
	g := &groups{c: c, first: make([]uint32, 0, c.Len()+1)}
	for i := 0; i < c.Len(); i++ {
		if i == 0 || !slices.Equal(c.Set(i), c.Set(i-1)) {
			g.first = append(g.first, uint32(i))
		}
	}
	g.first = append(g.first, uint32(c.Len()))
	g.mask = make([]uint64, g.len())
	g.sizes = make([]uint32, g.len())
	for i := range g.mask {
		g.sizes[i] = uint32(c.Size(int(g.first[i])))
		for _, w := range g.set(i) {
			g.mask[i] |= 1 << (uint64(w) * 0x9e3779b97f4a7c15 >> 58)
		}
	}
	return g
}

func (g *groups) len() int           { return len(g.first) - 1 }
func (g *groups) set(i int) []uint32 { return g.c.Set(int(g.first[i])) }
func (g *groups) size(i int) int     { return int(g.sizes[i]) }

// firstOfSize returns the first group of size >= n.
func (g *groups) firstOfSize(n int) int {
	lo, hi := 0, g.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if g.size(m) < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// probeChunk is the number of probe groups a worker takes at a time; fixed,
// so that the output order does not depend on the number of workers.
const probeChunk = 512

// ellSelfJoin is Join's ℓ-prefix path, for ℓ = 2 or 3: see the comment at
// the top of this file. g holds c's groups. Pairs come out grouped by probe
// set in collection order, tiny sets first.
func ellSelfJoin(ctx context.Context, c *order.Collection, g *groups, ell int, opt *Options, yield func(join.Pair) bool) (join.Stats, error) {
	b := opt.bounds()
	st := join.Stats{Records: c.Records(), Skipped: c.Skipped(), Workers: opt.Workers,
		MeasureName: opt.Measure.String(), ThresholdText: opt.Threshold.String()}
	t0 := time.Now()
	st.Groups = g.len()
	// Tiny sets: the smallest sizes, joined among themselves by join.SelfJoin.
	tiny := 0
	for tiny < g.len() {
		if _, ok := probeLen(b, g.size(tiny), ell); ok {
			break
		}
		tiny++
	}
	if tiny > 0 {
		stopped := false
		tst, err := tinyJoin(ctx, c, int(g.first[tiny]), opt, func(p join.Pair) bool {
			stopped = !yield(p)
			return !stopped
		})
		st.Postings += tst.Postings
		st.SizePruned += tst.SizePruned
		st.Candidates += tst.Candidates
		st.Verified += tst.Verified
		st.Results += tst.Results
		st.IndexEntries += tst.IndexEntries
		if err != nil || stopped {
			return st, err
		}
	}
	ix, err := newKeyIndex(g, c.Dict().Len(), ell, func(n int) int { return indexLen(b, n, ell) }, opt.Workers)
	if err != nil {
		return st, err
	}
	st.IndexEntries += len(ix.groups)
	st.IndexTime = time.Since(t0)
	t0 = time.Now()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type chunk struct {
		lo, hi int
		pairs  []join.Pair
		st     join.Stats
		done   chan struct{}
	}
	total := g.len() - tiny
	nchunks := (total + probeChunk - 1) / probeChunk
	inOrder := make(chan *chunk, 2*opt.Workers)
	work := make(chan *chunk)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(inOrder)
		defer close(work)
		for k := range nchunks {
			ch := &chunk{lo: tiny + k*probeChunk, hi: tiny + min((k+1)*probeChunk, total), done: make(chan struct{})}
			select {
			case inOrder <- ch:
			case <-ctx.Done():
				return
			}
			select {
			case work <- ch:
			case <-ctx.Done():
				close(ch.done)
				return
			}
		}
	})
	for range opt.Workers {
		wg.Go(func() {
			p := &prober{g: g, ix: ix, b: b, seen: make([]uint32, g.len())}
			for ch := range work {
				if ctx.Err() == nil {
					p.st = &ch.st
					for gx := ch.lo; gx < ch.hi; gx++ {
						ch.pairs = p.probe(gx, ch.pairs)
					}
				}
				close(ch.done)
			}
		})
	}
	defer wg.Wait()
	defer cancel()
	stopped := false
	for ch := range inOrder {
		<-ch.done
		if stopped || ctx.Err() != nil {
			continue
		}
		st.Postings += ch.st.Postings
		st.Candidates += ch.st.Candidates
		st.BitmapPruned += ch.st.BitmapPruned
		st.Verified += ch.st.Verified
		for _, pr := range ch.pairs {
			st.Results++
			if !yield(pr) {
				stopped = true
				cancel()
				break
			}
		}
		if opt.Progress != nil && !stopped {
			opt.Progress(ch.hi, g.len())
		}
	}
	wg.Wait()
	st.JoinTime = time.Since(t0)
	if stopped {
		return st, nil
	}
	return st, context.Cause(ctx)
}

// tinyJoin joins the first n sets of c (the tiny ones) among themselves
// with join.SelfJoin and hands their pairs to yield with c's record ids.
func tinyJoin(ctx context.Context, c *order.Collection, n int, opt *Options, yield func(join.Pair) bool) (join.Stats, error) {
	in := new(order.Input)
	keys := make([]uint64, 0, 16)
	for i := range n {
		keys = keys[:0]
		for _, w := range c.Set(i) {
			keys = append(keys, uint64(w))
		}
		in.AddSorted(keys)
	}
	sub, err := order.New(in)
	if err != nil {
		return join.Stats{}, err
	}
	return join.SelfJoin(ctx, sub, join.Options{Measure: opt.Measure, Threshold: opt.Threshold, Workers: opt.Workers},
		func(p join.Pair) bool {
			a, b := c.ID(p.A), c.ID(p.B)
			if a > b {
				a, b = b, a
			}
			p.A, p.B = a, b
			return yield(p)
		})
}

// prober is one worker's scratch space.
type prober struct {
	g    *groups
	ix   *keyIndex
	b    prefix.Bounds
	seen []uint32 // 1 + the last probe group that met each group
	keys []uint64
	st   *join.Stats
}

// probe finds the partners of group gx among the groups before it.
func (p *prober) probe(gx int, out []join.Pair) []join.Pair {
	b := p.b
	x := p.g.set(gx)
	n := len(x)
	out = p.same(gx, n, out)
	px, ok := probeLen(b, n, p.ix.ell)
	if !ok {
		return out
	}
	lo, _ := b.SizeRange(n)
	first := uint32(p.g.firstOfSize(lo))
	mark := uint32(gx) + 1
	mx := p.g.mask[gx]
	// The masks bound the overlap: each bit of x's mask that y's lacks
	// stands for at least one token of x not in y. The least overlap with
	// any admissible partner (the smallest) serves for the scan; join.Check
	// then decides with the partner's own.
	alpha := b.MinOverlap(n, max(lo, 1))
	var postings, pruned, verified int64
	p.keys = appendKeys(p.keys[:0], x, px, p.ix.ell)
	for _, key := range p.keys {
		groups, masks := p.ix.lookup(key)
		if len(groups) == 0 {
			continue
		}
		// Skip the groups too small (the size filter); stop at gx.
		k := 0
		if groups[0] < first {
			k, _ = slices.BinarySearch(groups, first)
		}
		for ; k < len(groups); k++ {
			gy := groups[k]
			if gy >= uint32(gx) {
				break
			}
			postings++
			if n-bits.OnesCount64(mx&^masks[k]) < alpha {
				pruned++
				continue
			}
			if p.seen[gy] == mark {
				continue
			}
			p.seen[gy] = mark
			verified++
			y := p.g.set(int(gy))
			if o, ok := join.Check(b, x, y); ok {
				out = p.emit(gx, int(gy), o, n, len(y), out)
			}
		}
	}
	p.st.Postings += postings
	p.st.Candidates += postings
	p.st.BitmapPruned += pruned
	p.st.Verified += verified
	return out
}

// same emits the pairs among the identical copies of group gx.
func (p *prober) same(gx, n int, out []join.Pair) []join.Pair {
	lo, hi := int(p.g.first[gx]), int(p.g.first[gx+1])
	if hi-lo < 2 || !p.b.Passes(n, n, n) {
		return out
	}
	sim := p.b.Similarity(n, n, n)
	c := p.g.c
	for a := lo; a < hi; a++ {
		for b := a + 1; b < hi; b++ {
			out = append(out, ordered(c.ID(a), c.ID(b), n, sim))
		}
	}
	return out
}

// emit appends the pairs between the members of groups gx and gy.
func (p *prober) emit(gx, gy, o, nx, ny int, out []join.Pair) []join.Pair {
	sim := p.b.Similarity(o, nx, ny)
	c := p.g.c
	for a := int(p.g.first[gx]); a < int(p.g.first[gx+1]); a++ {
		for b := int(p.g.first[gy]); b < int(p.g.first[gy+1]); b++ {
			out = append(out, ordered(c.ID(a), c.ID(b), o, sim))
		}
	}
	return out
}

func ordered(a, b, o int, sim float64) join.Pair {
	if a > b {
		a, b = b, a
	}
	return join.Pair{A: a, B: b, Overlap: o, Sim: sim}
}

// parallelRange splits [0, n) into blocks and runs f on them on workers
// goroutines.
func parallelRange(n, workers int, f func(lo, hi int)) {
	const block = 1024
	if workers <= 1 || n <= block {
		f(0, n)
		return
	}
	var mu sync.Mutex // protects next
	next := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				lo := next
				next += block
				mu.Unlock()
				if lo >= n {
					return
				}
				f(lo, min(lo+block, n))
			}
		})
	}
	wg.Wait()
}
