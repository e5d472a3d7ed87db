package passwords

import (
	"context"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// The pair-prefix self-join.
//
// join.SelfJoin indexes each set under its rarest tokens (the prefix filter,
// ℓ = 1). On password bigrams that is not selective: a list uses a few
// thousand distinct bigrams, even a set's rarest one is common, and at high
// thresholds the index prefix of a short set is a single token, so posting
// lists grow with the list and candidates with its square (1M generated
// passwords at q = 2, t = 0.8: 328M candidates for 0.5M results).
//
// This join uses the ℓ-prefix of AdaptJoin (Wang, Li and Feng, "Can we beat
// the prefix filtering? An adaptive framework for similarity join and
// search", SIGMOD 2012) with ℓ = 2. In the global token order, if
// |x ∩ y| >= α >= 2, let s1 < s2 be the two first tokens x and y share:
// after s2 both sets still hold the other α-2 shared tokens, so s1 and s2
// lie within the first |x| - α + 2 tokens of x and within the first
// |y| - α + 2 of y. So every set is indexed under the token pairs of its
// ℓ-prefix, probes look up the pairs of theirs, and a candidate must share
// two tokens, not one: on the same list, 19 times fewer postings. Each
// candidate is then verified exactly by join.Check.
//
// As in join.SelfJoin, sets are processed in size order and a probe meets
// only the groups of identical sets before it, so α is at least
// MinOverlap(|x|, lo) for the probe x (lo its smallest admissible partner)
// and at least MinOverlap(|y|, |y|) for the indexed y (its partners are no
// smaller); the prefixes use those bounds. Sets whose least overlap with
// their smallest partner is below 2 ("tiny": one or two grams at t = 0.8)
// cannot use ℓ = 2; MinOverlap(n, lo(n)) does not decrease with n, so they
// are the smallest sizes and meet only each other, and join.SelfJoin joins
// them among themselves. A larger set meeting a tiny one shares >= 2 tokens
// with it, which the tiny set's index keys cover.
//
// Departures from the paper: ℓ is fixed at 2 (no per-set choice of ℓ), the
// index is built in full before probing (so probes run in parallel and the
// output does not depend on the number of workers), and there is no
// positional or count filter (a 64-bit mask of each set's tokens bounds the
// overlap before the merge instead), and the size filter's skips are not
// counted.

// maxPairKeys is the most token pairs per probe, on average, for which the
// pair-prefix join is used; above it (long sets at low thresholds) the
// pairs would outnumber the postings they save, and Join uses join.SelfJoin.
const maxPairKeys = 28

// joinPath chooses the join; "" lets Join decide. Can change for testing.
var joinPath = ""

// usePairJoin reports whether the pair-prefix join suits c at bounds b.
func usePairJoin(c *order.Collection, b prefix.Bounds) bool {
	switch joinPath {
	case "pair":
		return true
	case "prefix":
		return false
	}
	var keys, sets int64
	for i := 0; i < c.Len(); i++ {
		n := c.Size(i)
		if p, ok := probeL2(b, n); ok {
			keys += int64(p * (p - 1) / 2)
			sets++
		}
	}
	return sets > 0 && keys <= maxPairKeys*sets
}

// probeL2 returns the length of the ℓ = 2 probe prefix of a set of size n,
// and false for a tiny size (least overlap below 2 with its smallest
// partner).
func probeL2(b prefix.Bounds, n int) (int, bool) {
	lo, _ := b.SizeRange(n)
	a := b.MinOverlap(n, max(lo, 1))
	if a < 2 {
		return 0, false
	}
	return min(n, n-a+2), true
}

// indexL2 returns the length of the ℓ = 2 index prefix of a set of size n.
func indexL2(b prefix.Bounds, n int) int {
	a := b.MinOverlap(n, n)
	if a < 2 {
		return n
	}
	return min(n, n-a+2)
}

// pairIndex maps a token pair (a, b), a < b in the token order, to the
// groups whose index prefix holds both, in group order. The groups of all
// pairs are one array: bucket a (the pairs whose first token is a) is
// entries[start[a]:start[a+1]], each entry b<<32 | group, sorted; a hash
// table finds the run of one pair in it.
type pairIndex struct {
	entries []uint64
	table   []pairSlot // open addressing, len a power of two
}

// pairSlot is one pair's run of entries; end == 0 marks a free slot.
type pairSlot struct {
	key        uint64 // a<<32 | b
	start, end uint32
}

func pairKey(a, b uint32) uint64 { return uint64(a)<<32 | uint64(b) }

func (ix *pairIndex) slot(key uint64) uint64 {
	return (key * 0x9e3779b97f4a7c15) >> 32 & uint64(len(ix.table)-1)
}

// lookup returns the entries of pair key (nil if none).
func (ix *pairIndex) lookup(key uint64) []uint64 {
	for k := ix.slot(key); ; k = (k + 1) & uint64(len(ix.table)-1) {
		sl := &ix.table[k]
		if sl.end == 0 {
			return nil
		}
		if sl.key == key {
			return ix.entries[sl.start:sl.end]
		}
	}
}

func newPairIndex(g *groups, vocab int, b prefix.Bounds, workers int) (*pairIndex, error) {
	start := make([]int, vocab+2)
	for gi := 0; gi < g.len(); gi++ {
		y := g.set(gi)
		p := indexL2(b, len(y))
		for i := 0; i+1 < p; i++ {
			start[y[i]+2] += p - 1 - i
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
		p := indexL2(b, len(y))
		for i := 0; i+1 < p; i++ {
			k := start[y[i]+1]
			for j := i + 1; j < p; j++ {
				entries[k] = uint64(y[j])<<32 | uint64(gi)
				k++
			}
			start[y[i]+1] = k
		}
	}
	start = start[:vocab+1]
	// Entries went in by group; sort each bucket by (b, group), and count
	// the distinct pairs.
	var mu sync.Mutex // protects pairs
	pairs := 0
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
		pairs += n
		mu.Unlock()
	})
	ix := &pairIndex{entries: entries, table: make([]pairSlot, 1<<bits.Len(uint(2*pairs)))}
	for a := range vocab {
		bucket := entries[start[a]:start[a+1]]
		for k := 0; k < len(bucket); {
			e := k + 1
			for e < len(bucket) && bucket[e]>>32 == bucket[k]>>32 {
				e++
			}
			key := pairKey(uint32(a), uint32(bucket[k]>>32))
			s := ix.slot(key)
			for ix.table[s].end != 0 {
				s = (s + 1) & uint64(len(ix.table)-1)
			}
			ix.table[s] = pairSlot{key: key, start: uint32(start[a] + k), end: uint32(start[a] + e)}
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

// pairChunk is the number of probe groups a worker takes at a time; fixed,
// so that the output order does not depend on the number of workers.
const pairChunk = 512

// pairSelfJoin is Join's pair-prefix path: see the comment at the top of
// this file. Pairs come out grouped by probe set in collection order, tiny
// sets first.
func pairSelfJoin(ctx context.Context, c *order.Collection, opt *Options, yield func(join.Pair) bool) (join.Stats, error) {
	b := opt.bounds()
	st := join.Stats{Records: c.Records(), Skipped: c.Skipped(), Workers: opt.Workers,
		MeasureName: opt.Measure.String(), ThresholdText: opt.Threshold.String()}
	t0 := time.Now()
	g := newGroups(c)
	st.Groups = g.len()
	// Tiny sets: the smallest sizes, joined among themselves by join.SelfJoin.
	tiny := 0
	for tiny < g.len() {
		if _, ok := probeL2(b, g.size(tiny)); ok {
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
	ix, err := newPairIndex(g, c.Dict().Len(), b, opt.Workers)
	if err != nil {
		return st, err
	}
	st.IndexEntries += len(ix.entries)
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
	nchunks := (total + pairChunk - 1) / pairChunk
	inOrder := make(chan *chunk, 2*opt.Workers)
	work := make(chan *chunk)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(inOrder)
		defer close(work)
		for k := range nchunks {
			ch := &chunk{lo: tiny + k*pairChunk, hi: tiny + min((k+1)*pairChunk, total), done: make(chan struct{})}
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
			p := &pairProber{g: g, ix: ix, b: b, seen: make([]uint32, g.len())}
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

// pairProber is one worker's scratch space.
type pairProber struct {
	g    *groups
	ix   *pairIndex
	b    prefix.Bounds
	seen []uint32 // 1 + the last probe group that met each group
	st   *join.Stats
}

// probe finds the partners of group gx among the groups before it.
func (p *pairProber) probe(gx int, out []join.Pair) []join.Pair {
	b := p.b
	x := p.g.set(gx)
	n := len(x)
	out = p.same(gx, n, out)
	px, ok := probeL2(b, n)
	if !ok {
		return out
	}
	lo, _ := b.SizeRange(n)
	first := uint32(p.g.firstOfSize(lo))
	mark := uint32(gx) + 1
	mx := p.g.mask[gx]
	for i := 0; i+1 < px; i++ {
		for j := i + 1; j < px; j++ {
			run := p.ix.lookup(pairKey(x[i], x[j]))
			if len(run) == 0 {
				continue
			}
			// Skip the groups too small (the size filter); stop at gx.
			k := 0
			if uint32(run[0]) < first {
				k, _ = slices.BinarySearch(run, run[0]&^(1<<32-1)|uint64(first))
			}
			for _, e := range run[k:] {
				if uint32(e) >= uint32(gx) {
					break
				}
				p.st.Postings++
				gy := int(uint32(e))
				if p.seen[gy] == mark {
					continue
				}
				p.seen[gy] = mark
				p.st.Candidates++
				ny := p.g.size(gy)
				// The masks bound the overlap: each bit of x's mask that y's
				// lacks stands for at least one token of x not in y.
				if n-bits.OnesCount64(mx&^p.g.mask[gy]) < b.MinOverlap(n, ny) {
					p.st.BitmapPruned++
					continue
				}
				p.st.Verified++
				y := p.g.set(gy)
				if o, ok := join.Check(b, x, y); ok {
					out = p.emit(gx, gy, o, n, len(y), out)
				}
			}
		}
	}
	return out
}

// same emits the pairs among the identical copies of group gx.
func (p *pairProber) same(gx, n int, out []join.Pair) []join.Pair {
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
func (p *pairProber) emit(gx, gy, o, nx, ny int, out []join.Pair) []join.Pair {
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
