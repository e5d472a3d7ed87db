package approx

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// units is one collection seen as distinct sets: unit u is the
// collection's group u (order.Collection.Group), all with the same set.
type units struct {
	c    *order.Collection
	keep []bool // by group of c (one unit a group): false when dropped by MinSize
}

func unitsOf(c *order.Collection, minSize int) *units {
	s := &units{c: c, keep: make([]bool, c.Groups())}
	for u := range s.keep {
		lo, _ := c.Group(u)
		s.keep[u] = c.Size(lo) >= minSize
	}
	return s
}

func (s *units) len() int { return s.c.Groups() }
func (s *units) set(u int) []uint32 {
	lo, _ := s.c.Group(u)
	return s.c.Set(lo)
}
func (s *units) members(u int) (lo, hi int) { return s.c.Group(u) }

// dropped returns the number of records in units dropped by MinSize.
func (s *units) dropped() int {
	n := 0
	for u, k := range s.keep {
		if !k {
			lo, hi := s.members(u)
			n += hi - lo
		}
	}
	return n
}

// sign computes the signatures of every unit of each side with one hasher,
// hashing every token of the shared dictionary once.
func sign(ctx context.Context, h *Hasher, bits, workers int, sides ...*units) ([]*Signatures, error) {
	dict := sides[0].c.Dict()
	words := make([]uint64, dict.Len())
	err := parallel.For(ctx, len(words), 8192, workers, func(_, lo, hi int) {
		for id := lo; id < hi; id++ {
			words[id] = h.TokenHash(dict.Key(uint32(id)))
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Signatures, len(sides))
	for i, s := range sides {
		sigs, err := NewSignatures(s.len(), h.K(), bits)
		if err != nil {
			return nil, err
		}
		buf := make([][]uint64, max(workers, 1))
		err = parallel.For(ctx, s.len(), 64, workers, func(w, lo, hi int) {
			for u := lo; u < hi; u++ {
				if s.keep[u] {
					buf[w] = h.SignWords(buf[w], words, s.set(u))
					sigs.Put(u, buf[w])
				}
			}
		})
		if err != nil {
			return nil, err
		}
		out[i] = sigs
	}
	return out, nil
}

// verifier decides candidates and turns them into pairs. One per worker.
type verifier struct {
	opt    *Options
	b      prefix.Bounds
	tf     float64 // threshold as a float, for estimates
	probe  *units
	build  *units
	ps, bs *Signatures
	self   bool
	groups bool  // Options.Copies: one pair per pair of units, weighted in Stats.Results
	stood  int64 // with groups: record pairs the pairs of the current chunk stand for
}

// check decides the unit pair (u of probe, v of build) and appends its
// record pairs.
func (v *verifier) check(u, w int, out []join.Pair) []join.Pair {
	x, y := v.probe.set(u), v.build.set(w)
	if v.opt.Verify == VerifyEstimate {
		sim, ok := estimateMeasure(v.b, v.tf, v.ps.Estimate(u, v.bs, w), len(x), len(y))
		if ok {
			out = v.emit(u, w, -1, sim, out)
		}
		return out
	}
	o, ok := join.Check(v.b, x, y)
	if ok {
		out = v.emit(u, w, o, v.b.Similarity(o, len(x), len(y)), out)
	}
	return out
}

// estimateMeasure turns an estimated Jaccard similarity of sets of sizes x
// and y into the measure of b through the overlap it implies,
// o = J(x+y)/(1+J), and decides it against tf. Sizes that cannot reach the
// threshold at any overlap fail (the size filter is exact).
func estimateMeasure(b prefix.Bounds, tf, j float64, x, y int) (float64, bool) {
	if b.MinOverlap(x, y) > min(x, y) {
		return 0, false
	}
	var sim float64
	switch b.Measure() {
	case prefix.Jaccard:
		sim = j
	case prefix.Dice:
		sim = 2 * j / (1 + j)
	default: // Cosine
		o := j * float64(x+y) / (1 + j)
		o = min(o, float64(min(x, y)))
		sim = o / math.Sqrt(float64(x)*float64(y))
	}
	return sim, sim >= tf
}

// emit appends the pairs between the members of units u and w (with
// Options.Copies one pair between their first members, counting in cs the
// record pairs it stands for).
func (v *verifier) emit(u, w, o int, sim float64, out []join.Pair) []join.Pair {
	alo, ahi := v.probe.members(u)
	blo, bhi := v.build.members(w)
	ca, cb := v.probe.c, v.build.c
	if v.groups {
		v.stood += int64(ahi-alo) * int64(bhi-blo)
		ia, ib := ca.ID(alo), cb.ID(blo)
		return append(out, join.Pair{A: min(ia, ib), B: max(ia, ib), Overlap: o, Sim: sim})
	}
	for a := alo; a < ahi; a++ {
		for b := blo; b < bhi; b++ {
			ia, ib := ca.ID(a), cb.ID(b)
			if v.self && ia > ib {
				ia, ib = ib, ia
			}
			out = append(out, join.Pair{A: ia, B: ib, Overlap: o, Sim: sim})
		}
	}
	return out
}

// unitsPerChunk is the number of probing units in one R-S work chunk.
const unitsPerChunk = 256

// pairBudget is the number of unit pairs in one self-join work chunk; fixed,
// so that the output order does not depend on the number of workers.
const pairBudget = 4096

// Join is SelfJoin of r when s is nil, and RSJoin of r and s otherwise: the
// one place that chooses between them.
func Join(ctx context.Context, r, s *order.Collection, opt Options, yield func(join.Pair) bool) (Stats, error) {
	if s == nil {
		return SelfJoin(ctx, r, opt, yield)
	}
	return RSJoin(ctx, r, s, opt, yield)
}

// SelfJoin reports the pairs of records of c whose similarity reaches the
// threshold among the candidates of MinHash-LSH: pairs whose signatures agree
// on a whole band. With VerifyExact (the default) every reported pair is a
// true pair with its exact similarity, and a true pair is missed with
// probability at most 1 - Stats.PredictedRecall; with VerifyEstimate pairs are
// decided on the signatures' estimate (Pair.Overlap is -1) and may include
// false ones. Identical sets always pair.
//
// Pairs come out as: identical copies first (in collection order), then band
// by band, bucket by bucket in key order; the same for any number of workers
// and on every run for the same options. Each pair comes out once, A < B.
// yield is called from the calling goroutine; returning false stops the join.
//
// Cost: signing O(S + K) per set (O(K·S) for Classic) for S tokens; banding
// O(B·n log n); candidates O(Σ bucket²) plus one verification each. Memory:
// K·Bits/8 bytes of signature and 16·B bytes of band tables per distinct set.
// The measure must be Jaccard, Dice or Cosine (see JaccardThreshold). All
// goroutines have ended on return; ctx cancels the join.
func SelfJoin(ctx context.Context, c *order.Collection, opt Options, yield func(join.Pair) bool) (Stats, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Records: c.Records(), Skipped: c.Skipped()}
	st.fill(&opt)
	t0 := time.Now()
	us := unitsOf(c, opt.MinSize)
	st.Units, st.Dropped = us.len(), us.dropped()
	h, err := NewHasher(opt.Scheme, opt.K, opt.Seed)
	if err != nil {
		return st, err
	}
	sigs, err := sign(ctx, h, opt.Bits, opt.Workers, us)
	if err != nil {
		return st, err
	}
	st.SignatureBytes = int64(len(sigs[0].data))
	st.SignTime = time.Since(t0)
	t0 = time.Now()
	tab, err := buildTables(ctx, sigs[0], opt.Shape, func(u int) bool { return us.keep[u] }, opt.MaxBucket, opt.Workers)
	if err != nil {
		return st, err
	}
	st.IndexBytes = tab.bytes()
	st.Buckets, st.LargestBucket = tab.buckets, tab.largest
	st.CappedBuckets, st.CappedPairs = tab.cappedBuckets, tab.cappedPairs
	tasks, chunks := tab.selfTasks(pairBudget)
	st.BandTime = time.Since(t0)
	t0 = time.Now()

	b := prefix.NewBounds(opt.Measure, opt.Threshold)
	stopped := false
	emitPair := func(p join.Pair) bool {
		if opt.Copies == nil {
			st.Results++
		}
		if !yield(p) {
			stopped = true
			return false
		}
		return true
	}
	// Identical copies.
	if b.Passes(1, 1, 1) {
		for u := 0; u < us.len() && !stopped; u++ {
			lo, hi := us.members(u)
			if !us.keep[u] || hi-lo < 2 {
				continue
			}
			n := len(us.set(u))
			if opt.Copies != nil {
				k := int64(hi - lo)
				st.Results += k * (k - 1) / 2
				ids := make([]int, 0, hi-lo)
				for a := lo; a < hi; a++ {
					ids = append(ids, c.ID(a))
				}
				stopped = !opt.Copies(ids)
				continue
			}
			for a := lo; a < hi && !stopped; a++ {
				for bb := a + 1; bb < hi; bb++ {
					ia, ib := c.ID(a), c.ID(bb)
					if !emitPair(join.Pair{A: min(ia, ib), B: max(ia, ib), Overlap: n, Sim: b.Similarity(n, n, n)}) {
						break
					}
				}
			}
		}
	}
	if stopped {
		return st, nil
	}
	v := verifier{opt: &opt, b: b, tf: opt.Threshold.Float(), probe: us, build: us, ps: sigs[0], bs: sigs[0], self: true, groups: opt.Copies != nil}
	err = runChunks(ctx, chunks, opt.Workers, func() *verifier { vv := v; return &vv },
		func(v *verifier, lo, hi int, out []join.Pair, cs *Stats) []join.Pair {
			for _, tk := range tasks[lo:hi] {
				tb := tab.band[tk.band]
				for p := tk.from; p < tk.to; p++ {
					u := tb[p].unit
					ru := sigs[0].Row(int(u))
					for q := p + 1; q < tk.hi; q++ {
						w := tb[q].unit
						cs.Collisions++
						if !tab.firstBand(ru, sigs[0].Row(int(w)), tk.band, u) {
							continue
						}
						cs.Candidates++
						out = v.check(int(u), int(w), out)
					}
				}
			}
			cs.Results, v.stood = v.stood, 0
			return out
		},
		func(ch *parallel.Chunk[join.Pair, Stats]) bool {
			st.Collisions += ch.Stats.Collisions
			st.Candidates += ch.Stats.Candidates
			if opt.Copies != nil {
				st.Results += ch.Stats.Results
			}
			for _, p := range ch.Out {
				if !emitPair(p) {
					return false
				}
			}
			return true
		}, opt.Progress)
	st.JoinTime = time.Since(t0)
	return st, err
}

// RSJoin reports the pairs (r, s) of a record of r and a record of s whose
// similarity reaches the threshold among the LSH candidates, as SelfJoin
// does. r and s must come from one order.Build call, so that they share a
// dictionary. The band tables index s; every distinct set of r probes them.
// Pairs come out grouped by r's distinct sets in collection order, the same
// for any number of workers. A bucket of s over MaxBucket units yields no
// candidates; each probe that meets one adds its units to Stats.CappedPairs.
func RSJoin(ctx context.Context, r, s *order.Collection, opt Options, yield func(join.Pair) bool) (Stats, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return Stats{}, err
	}
	if r.Dict() != s.Dict() {
		return Stats{}, errors.New("approx: R and S must share a dictionary (build them with one order.Build call)")
	}
	st := Stats{Records: r.Records() + s.Records(), Skipped: r.Skipped() + s.Skipped()}
	st.fill(&opt)
	t0 := time.Now()
	ru, su := unitsOf(r, opt.MinSize), unitsOf(s, opt.MinSize)
	st.Units, st.Dropped = ru.len()+su.len(), ru.dropped()+su.dropped()
	h, err := NewHasher(opt.Scheme, opt.K, opt.Seed)
	if err != nil {
		return st, err
	}
	sigs, err := sign(ctx, h, opt.Bits, opt.Workers, ru, su)
	if err != nil {
		return st, err
	}
	st.SignatureBytes = int64(len(sigs[0].data) + len(sigs[1].data))
	st.SignTime = time.Since(t0)
	t0 = time.Now()
	tab, err := buildTables(ctx, sigs[1], opt.Shape, func(u int) bool { return su.keep[u] }, opt.MaxBucket, opt.Workers)
	if err != nil {
		return st, err
	}
	st.IndexBytes = tab.bytes()
	st.Buckets, st.LargestBucket = tab.buckets, tab.largest
	st.BandTime = time.Since(t0)
	t0 = time.Now()

	v := verifier{opt: &opt, b: prefix.NewBounds(opt.Measure, opt.Threshold), tf: opt.Threshold.Float(),
		probe: ru, build: su, ps: sigs[0], bs: sigs[1]}
	err = runChunks(ctx, parallel.Even(ru.len(), unitsPerChunk), opt.Workers, func() *verifier { vv := v; return &vv },
		func(v *verifier, lo, hi int, out []join.Pair, cs *Stats) []join.Pair {
			for u := lo; u < hi; u++ {
				if !ru.keep[u] {
					continue
				}
				tab.probe(sigs[0].Row(u), cs, func(w uint32) {
					out = v.check(u, int(w), out)
				})
			}
			return out
		},
		func(ch *parallel.Chunk[join.Pair, Stats]) bool {
			st.add(&ch.Stats)
			for _, p := range ch.Out {
				st.Results++
				if !yield(p) {
					return false
				}
			}
			return true
		}, opt.Progress)
	st.JoinTime = time.Since(t0)
	return st, err
}
