package approx

import (
	"context"
	"errors"
	"math"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// token is the element type of the sets a join verifies: a collection's
// dense token ids or raw 64-bit token keys.
type token interface{ ~uint32 | ~uint64 }

// units is one side of a join seen as distinct sets: unit u stands for the
// records at positions members(u), all with the set set(u); id maps a
// position to the record's original index. A collection's units are its
// groups (order.Collection.Group); key sets group their identical sets
// themselves (keyUnits).
type units[T token] struct {
	n       int
	set     func(u int) []T
	members func(u int) (lo, hi int)
	id      func(pos int) int
	// signWith returns the signer of unit u's set (hashing each token key
	// through h, or reading words a shared dictionary precomputed), which
	// also returns the probes densification made.
	signWith func(h *Hasher) func(dst []uint64, u int) ([]uint64, int)
	keep     []bool // by unit: false when dropped by MinSize
}

// collectionUnits sees the groups of c as units; words, shared by the sides
// of one join, holds the token words of c's dictionary once computed.
func collectionUnits(c *order.Collection, minSize int, words *[]uint64) *units[uint32] {
	s := &units[uint32]{
		n:       c.Groups(),
		set:     func(u int) []uint32 { lo, _ := c.Group(u); return c.Set(lo) },
		members: c.Group,
		id:      c.ID,
		keep:    make([]bool, c.Groups()),
	}
	s.signWith = func(h *Hasher) func([]uint64, int) ([]uint64, int) {
		return func(dst []uint64, u int) ([]uint64, int) { return h.signWords(dst, *words, s.set(u)) }
	}
	for u := range s.keep {
		lo, _ := c.Group(u)
		s.keep[u] = c.Size(lo) >= minSize
	}
	return s
}

// dictWords computes the token word of every token of dict, on all workers.
func dictWords(ctx context.Context, h *Hasher, dict *order.Dictionary, workers int) ([]uint64, error) {
	words := make([]uint64, dict.Len())
	err := parallel.For(ctx, len(words), 8192, workers, func(_, lo, hi int) {
		for id := lo; id < hi; id++ {
			words[id] = h.TokenHash(dict.Key(uint32(id)))
		}
	})
	return words, err
}

// tokens returns the tokens of the units signed (those MinSize keeps).
func (s *units[T]) tokens() int64 {
	var n int64
	for u, k := range s.keep {
		if k {
			n += int64(len(s.set(u)))
		}
	}
	return n
}

// dropped returns the number of records in units dropped by MinSize.
func (s *units[T]) dropped() int {
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
// and returns them with the probes densification made.
func sign[T token](ctx context.Context, h *Hasher, bits, workers int, sides ...*units[T]) ([]*Signatures, int64, error) {
	out := make([]*Signatures, len(sides))
	var probes int64
	for i, s := range sides {
		sigs, err := NewSignatures(s.n, h.K(), bits)
		if err != nil {
			return nil, 0, err
		}
		signUnit := s.signWith(h)
		buf := make([][]uint64, max(workers, 1))
		made := make([]int64, max(workers, 1))
		err = parallel.For(ctx, s.n, 64, workers, func(w, lo, hi int) {
			for u := lo; u < hi; u++ {
				if s.keep[u] {
					var n int
					buf[w], n = signUnit(buf[w], u)
					made[w] += int64(n)
					sigs.Put(u, buf[w])
				}
			}
		})
		if err != nil {
			return nil, 0, err
		}
		for _, n := range made {
			probes += n
		}
		out[i] = sigs
	}
	return out, probes, nil
}

// verifier decides candidates and turns them into pairs. One per worker.
type verifier[T token] struct {
	opt    *Options
	b      prefix.Bounds
	tf     float64 // threshold as a float, for estimates
	probe  *units[T]
	build  *units[T]
	ps, bs *Signatures
	self   bool
	groups bool  // Options.Copies: one pair per pair of units, weighted in Stats.Results
	stood  int64 // with groups: record pairs the pairs of the current chunk stand for
}

// verify decides the candidate unit pair (u of probe, w of build) and, when
// it passes, counts it in cs.Passed and appends its record pairs.
func (v *verifier[T]) verify(u, w int, out []join.Pair, cs *Stats) []join.Pair {
	x, y := v.probe.set(u), v.build.set(w)
	if v.opt.Verify == VerifyEstimate {
		sim, ok := estimateMeasure(v.b, v.tf, v.ps.Estimate(u, v.bs, w), len(x), len(y))
		if ok {
			cs.Passed++
			out = v.emit(u, w, -1, sim, out)
		}
		return out
	}
	if o, ok := join.Verify(v.b, x, y); ok {
		cs.Passed++
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
func (v *verifier[T]) emit(u, w, o int, sim float64, out []join.Pair) []join.Pair {
	alo, ahi := v.probe.members(u)
	blo, bhi := v.build.members(w)
	ida, idb := v.probe.id, v.build.id
	if v.groups {
		v.stood += int64(ahi-alo) * int64(bhi-blo)
		ia, ib := ida(alo), idb(blo)
		return append(out, join.Pair{A: min(ia, ib), B: max(ia, ib), Overlap: o, Sim: sim})
	}
	for a := alo; a < ahi; a++ {
		for b := blo; b < bhi; b++ {
			ia, ib := ida(a), idb(b)
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
	t0 := rusage.Start()
	var words []uint64
	us := collectionUnits(c, opt.MinSize, &words)
	h, err := NewHasher(opt.Scheme, opt.K, opt.Seed)
	if err != nil {
		return st, err
	}
	if words, err = dictWords(ctx, h, c.Dict(), opt.Workers); err != nil {
		return st, err
	}
	st.Words = len(words)
	return selfJoin(ctx, us, h, &opt, st, t0, yield)
}

// selfJoin is SelfJoin on the units of one side, st filled with the records
// and options and t0 the start of signing.
func selfJoin[T token](ctx context.Context, us *units[T], h *Hasher, opt *Options, st Stats, t0 rusage.Clock, yield func(join.Pair) bool) (Stats, error) {
	st.Units, st.Dropped = us.n, us.dropped()
	sigs, probes, err := sign(ctx, h, opt.Bits, opt.Workers, us)
	if err != nil {
		return st, err
	}
	st.Probes = probes
	st.SignatureBytes = int64(len(sigs[0].data))
	st.Tokens = us.tokens()
	st.SignTime, st.SignCPU = t0.Lap()
	t0 = rusage.Start()
	tab, err := buildTables(ctx, sigs[0], opt.Shape, func(u int) bool { return us.keep[u] }, opt.MaxBucket, opt.Workers)
	if err != nil {
		return st, err
	}
	st.IndexBytes = tab.bytes()
	st.Buckets, st.LargestBucket = tab.buckets, tab.largest
	st.CappedBuckets, st.CappedPairs = tab.cappedBuckets, tab.cappedPairs
	tasks, chunks := tab.selfTasks(pairBudget)
	st.BandTime, st.BandCPU = t0.Lap()
	t0 = rusage.Start()

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
		for u := 0; u < us.n && !stopped; u++ {
			lo, hi := us.members(u)
			if !us.keep[u] || hi-lo < 2 {
				continue
			}
			n := len(us.set(u))
			k := int64(hi - lo)
			st.SameSetPairs += k * (k - 1) / 2
			if opt.Copies != nil {
				st.Results += k * (k - 1) / 2
				ids := make([]int, 0, hi-lo)
				for a := lo; a < hi; a++ {
					ids = append(ids, us.id(a))
				}
				stopped = !opt.Copies(ids)
				continue
			}
			for a := lo; a < hi && !stopped; a++ {
				for bb := a + 1; bb < hi; bb++ {
					ia, ib := us.id(a), us.id(bb)
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
	v := verifier[T]{opt: opt, b: b, tf: opt.Threshold.Float(), probe: us, build: us, ps: sigs[0], bs: sigs[0], self: true, groups: opt.Copies != nil}
	err = runChunks(ctx, chunks, opt.Workers, func() *verifier[T] { vv := v; return &vv },
		func(v *verifier[T], lo, hi int, out []join.Pair, cs *Stats) []join.Pair {
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
						out = v.verify(int(u), int(w), out, cs)
					}
				}
			}
			cs.Results, v.stood = v.stood, 0
			return out
		},
		func(ch *parallel.Chunk[join.Pair, Stats]) bool {
			st.add(&ch.Stats)
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
	st.JoinTime, st.JoinCPU = t0.Lap()
	if invariants.Enabled && err == nil {
		st.checkIdentity(!stopped)
	}
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
	t0 := rusage.Start()
	var words []uint64
	ru, su := collectionUnits(r, opt.MinSize, &words), collectionUnits(s, opt.MinSize, &words)
	h, err := NewHasher(opt.Scheme, opt.K, opt.Seed)
	if err != nil {
		return st, err
	}
	if words, err = dictWords(ctx, h, r.Dict(), opt.Workers); err != nil {
		return st, err
	}
	st.Words = len(words)
	return rsJoin(ctx, ru, su, h, &opt, st, t0, yield)
}

// rsJoin is RSJoin on the units of both sides, st filled with the records
// and options and t0 the start of signing.
func rsJoin[T token](ctx context.Context, ru, su *units[T], h *Hasher, opt *Options, st Stats, t0 rusage.Clock, yield func(join.Pair) bool) (Stats, error) {
	st.Units, st.Dropped = ru.n+su.n, ru.dropped()+su.dropped()
	sigs, probes, err := sign(ctx, h, opt.Bits, opt.Workers, ru, su)
	if err != nil {
		return st, err
	}
	st.Probes = probes
	st.SignatureBytes = int64(len(sigs[0].data) + len(sigs[1].data))
	st.Tokens = ru.tokens() + su.tokens()
	st.SignTime, st.SignCPU = t0.Lap()
	t0 = rusage.Start()
	tab, err := buildTables(ctx, sigs[1], opt.Shape, func(u int) bool { return su.keep[u] }, opt.MaxBucket, opt.Workers)
	if err != nil {
		return st, err
	}
	st.IndexBytes = tab.bytes()
	st.Buckets, st.LargestBucket = tab.buckets, tab.largest
	st.BandTime, st.BandCPU = t0.Lap()
	t0 = rusage.Start()

	v := verifier[T]{opt: opt, b: prefix.NewBounds(opt.Measure, opt.Threshold), tf: opt.Threshold.Float(),
		probe: ru, build: su, ps: sigs[0], bs: sigs[1]}
	stopped := false
	err = runChunks(ctx, parallel.Even(ru.n, unitsPerChunk), opt.Workers, func() *verifier[T] { vv := v; return &vv },
		func(v *verifier[T], lo, hi int, out []join.Pair, cs *Stats) []join.Pair {
			for u := lo; u < hi; u++ {
				if !ru.keep[u] {
					continue
				}
				tab.probe(sigs[0].Row(u), cs, func(w uint32) {
					out = v.verify(u, int(w), out, cs)
				})
			}
			return out
		},
		func(ch *parallel.Chunk[join.Pair, Stats]) bool {
			st.add(&ch.Stats)
			for _, p := range ch.Out {
				st.Results++
				if !yield(p) {
					stopped = true
					return false
				}
			}
			return true
		}, opt.Progress)
	st.JoinTime, st.JoinCPU = t0.Lap()
	if invariants.Enabled && err == nil {
		st.checkIdentity(!stopped)
	}
	return st, err
}
