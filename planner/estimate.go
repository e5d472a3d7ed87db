package planner

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// planning is the state of one call of New, NewKeys or Plan.WithOrder.
type planning struct {
	opt Options
	cal *Calibration
	b   prefix.Bounds
	p   *Plan

	// The input: the collections (New, WithOrder; s nil for a self-join),
	// or the key sets before the order (NewKeys).
	c, s  *order.Collection
	sides []*order.Collection
	keys  []Keys

	sets     []int // non-empty sets per side
	allSets  int
	tokens   int64 // set tokens over both sides
	pairs    float64
	meanSize float64
	drawn    map[int][]*Sample // samples by records per side
	budget   float64           // CPU seconds planning may spend on samples
	ell      join.EllChoice    // the self-join's index keys; zero for an R-S join
	resHist  []float64         // the results by Jaccard bin, from the sample with more pairs
	// Before the order (NewKeys): the set sizes of each side, and the
	// share of token occurrences held by one set (estimated from the hash
	// sample of the keys).
	keySizes  [][]int32
	onceShare float64
}

// start returns planning's state for p, and a function that adds the time
// and CPU time planning took to p when it is done.
func start(opt Options, p *Plan) (*planning, func()) {
	clock := rusage.Start()
	cal := opt.Calibration
	if cal == nil {
		cal = &defaultCalibration
	}
	pl := &planning{opt: opt, cal: cal, b: prefix.NewBounds(opt.Measure, opt.Threshold), p: p}
	return pl, func() {
		wall, cpu := clock.Lap()
		p.Seconds += wall.Seconds()
		p.CPU += cpu.Seconds()
	}
}

// planOrdered plans on the collections, the order built as the input was
// read (New): every count of the exact path is the order's, and LSH runs
// over the collections.
func (pl *planning) planOrdered(ctx context.Context) (*Plan, error) {
	p := pl.p
	if err := pl.collect(); err != nil {
		return nil, err
	}
	pl.resolveLSH()
	p.units, p.unitTokens = 0, 0
	for _, c := range pl.sides {
		p.units += c.Groups()
		for g := range c.Groups() {
			p.unitTokens += int64(c.Size(groupSet(c, g)))
		}
	}
	pl.setBudget()
	if err := pl.sampleExact(ctx); err != nil {
		return nil, err
	}
	if m := pl.sampleSize(pl.lshLeast().CPU, false, pl.s != nil); m > 0 && p.LSH.Available {
		if err := pl.sampleLSHOrdered(ctx, m); err != nil {
			return nil, err
		}
	}
	p.pairHist = make([]float64, Bins)
	pl.pairSample(p.pairHist, pl.pairCount(), func(r *rand.Rand) (o, x, y int) {
		a, b := pl.sides[0], pl.sides[len(pl.sides)-1]
		i, j := r.IntN(a.Len()), r.IntN(b.Len())
		for pl.s == nil && j == i {
			j = r.IntN(b.Len())
		}
		sx, sy := a.Set(i), b.Set(j)
		return join.Overlap(sx, sy), len(sx), len(sy)
	})
	pl.finish()
	return p, nil
}

// collect computes the collections' statistics, the exact path's work
// (SelfWork or RSWork) and the self-join's index keys (join.ChooseEll).
func (pl *planning) collect() error {
	p := pl.p
	pl.sides = []*order.Collection{pl.c}
	if pl.s != nil {
		pl.sides = append(pl.sides, pl.s)
	}
	p.Stats = p.Stats[:0]
	for _, c := range pl.sides {
		st := Collect(c)
		p.Stats = append(p.Stats, st)
		pl.sets = append(pl.sets, st.Sets)
		pl.allSets += st.Sets
		pl.tokens += st.Tokens
	}
	p.FrontEnd.Distinct = int64(pl.c.Dict().Len())
	pl.sizes()
	if pl.s == nil {
		p.Exact.Work = SelfWork(pl.c, pl.b)
		// The join's own choice of index keys, from its own code.
		ch, err := join.ChooseEll(pl.c, join.Options{Measure: pl.opt.Measure, Threshold: pl.opt.Threshold, Workers: pl.opt.Workers})
		if err != nil {
			return err
		}
		pl.ell, p.ell = ch, ch.Ell
	} else {
		p.Exact.Work = RSWork(pl.c, pl.s, pl.b)
	}
	return nil
}

// sizes sets the pairs and the mean set size from the sets per side.
func (pl *planning) sizes() {
	if pl.allSets > 0 {
		pl.meanSize = float64(pl.tokens) / float64(pl.allSets)
	}
	if len(pl.sets) == 1 {
		n := float64(pl.sets[0])
		pl.pairs = n * (n - 1) / 2
	} else {
		pl.pairs = float64(pl.sets[0]) * float64(pl.sets[1])
	}
}

// setBudget sets the CPU time the samples may take: a share of the least
// whole run of either path (its reading, and exact's order or LSH's
// signing and banding), at least planFloor.
func (pl *planning) setBudget() {
	least := pl.exactLeast().CPU
	if pl.p.LSH.Available {
		least = min(least, pl.lshLeast().CPU)
	}
	pl.budget = max(pl.opt.Budget*least, planFloor)
}

// exactLeast is the least the exact path's whole run can cost: reading,
// the order, grouping the sets; no probe.
func (pl *planning) exactLeast() Cost {
	p := pl.p
	return pl.exactCost(exactCounts{work: ExactWork{Ell: 1, Groups: p.units}, setTokens: float64(p.unitTokens), meanSize: pl.meanSize})
}

// lshLeast is the least the LSH path's whole run can cost: reading,
// signing and banding; no candidate.
func (pl *planning) lshLeast() Cost { return pl.lshCost(0, 0, 0) }

// sampleExact joins a seeded sample of the collections exactly (see
// joinSample), sized by the budget, when the exact path's upper bound is
// worth the sample.
func (pl *planning) sampleExact(ctx context.Context) error {
	post := float64(pl.p.Exact.Work.Postings)
	hi := pl.exactCost(exactCounts{work: pl.p.Exact.Work, setTokens: float64(pl.p.unitTokens), examined: post, candidates: post, verified: post, meanSize: pl.meanSize})
	m := pl.sampleSize(hi.CPU-pl.exactLeast().CPU, true, true)
	if m == 0 {
		return nil
	}
	ss, frac := pl.samples(m)
	return pl.joinSample(ctx, ss, frac)
}

// finish sets the results from the sample with more pairs, prices both
// paths and decides.
func (pl *planning) finish() {
	p := pl.p
	s := &p.Sample
	// The results and their similarities: from the sample with more pairs.
	// The LSH sample sees a true pair of similarity s with probability P(s),
	// so each pair it finds stands for 1/P(s) (Horvitz–Thompson).
	pl.resHist = p.exactRes
	if len(s.LSHRecords) > 0 && s.LSHFraction > s.ExactFraction && p.LSH.Available {
		pl.resHist = p.lshRes
	}
	if pl.resHist == nil {
		pl.resHist = make([]float64, Bins)
	}
	s.Predicted = 0
	for _, n := range pl.resHist {
		s.Predicted += n
	}
	pl.estimateExact()
	if p.LSH.Available {
		pl.estimateLSH()
	}
	pl.decide()
	if invariants.Enabled {
		p.check()
	}
}

// estimateExact prices the exact path. On the order, the postings are
// exact, and candidates and verifications follow the sample's ratios to its
// postings (every posting without a sample). On the ℓ-prefix path the
// postings are the sample's, scaled by its share of the pairs; without a
// sample that meets enough of them, the prefix filter's work is priced
// instead, an upper bound (the join takes the ℓ-prefix only where it
// expects it to cost less). Before the order (NewKeys) the work is the
// sample's own, scaled (keyExactWork).
func (pl *planning) estimateExact() {
	p := pl.p
	s := &p.Sample
	e := &p.Exact
	if !p.Ordered {
		pl.keyExactWork()
	} else {
		post := float64(e.Work.Postings)
		examRatio, candRatio, verRatio := 1.0, 1.0, 1.0
		if s.Postings >= minPostings {
			examRatio = float64(s.Examined) / float64(s.Postings)
			candRatio = float64(s.Candidates) / float64(s.Postings)
			verRatio = float64(s.Verified) / float64(s.Postings)
			if s.Ell > 1 {
				e.Work = pl.keyWork(float64(s.Postings) / s.ExactFraction)
				post = float64(e.Work.Postings)
			}
		}
		e.Examined = post * examRatio
		e.Candidates = post * candRatio
		e.Verified = post * verRatio
	}
	e.Cost = pl.exactCost(exactCounts{work: e.Work, setTokens: float64(p.unitTokens), examined: e.Examined, candidates: e.Candidates,
		verified: e.Verified, meanSize: pl.meanSize, results: s.Predicted})
	e.Least = pl.exactLeast().CPU
}

// Sampling limits.
const (
	// planFloor is the least CPU time planning may always spend on samples
	// (see Options.Budget). An eighth of the budget goes to building each
	// sample, a quarter to each sample join, a quarter to the random pairs.
	planFloor = 0.025
	// minSample is the smallest sample worth joining; maxSampleTokens caps
	// a sample's tokens whatever the budget.
	minSample       = 50
	maxSampleTokens = 1 << 20
	// minPostings and minCandidates are the least postings (exact) and
	// candidates (LSH) a sample must meet for its ratios to be used rather
	// than the bounds (exact) or the S-curve (LSH).
	minPostings   = 100
	minCandidates = 20
)

// sampleSize returns the records per side of a sample to join exactly
// (exact) or with LSH, whose join costs about cost CPU seconds on the
// whole input: at most SampleSize, a quarter of each side, few enough to
// copy (when copied is set) in an eighth of the budget, and few enough that
// the sample join takes a quarter (the exact join's pairs, and so its cost,
// shrink with the square of the sample; LSH's linearly). 0 means none.
func (pl *planning) sampleSize(cost float64, exact, copied bool) int {
	return pl.sampleSizeAt(cost, exact, copied, pl.cal.Plan.SampleToken)
}

// sampleSizeAt is sampleSize with perToken the CPU nanoseconds a sampled
// token takes to copy.
func (pl *planning) sampleSizeAt(cost float64, exact, copied bool, perToken float64) int {
	m := pl.opt.SampleSize
	if m <= 0 || pl.meanSize == 0 {
		return 0
	}
	n := float64(pl.sets[0])
	for _, k := range pl.sets {
		m = min(m, k/4)
	}
	if len(pl.sets) > 1 {
		n = math.Sqrt(float64(pl.sets[0]) * float64(pl.sets[1]))
	}
	quarter := pl.budget / 4
	tokens := float64(maxSampleTokens)
	if copied && perToken > 0 {
		tokens = min(tokens, quarter/2/(perToken*1e-9))
	}
	m = min(m, int(tokens/pl.meanSize))
	if cost > 0 {
		share := quarter / cost
		if exact {
			share = math.Sqrt(share)
		}
		m = min(m, int(min(n*share, float64(m))))
	}
	if m < minSample {
		return 0
	}
	return m
}

// resolveLSH fills p.LSH from the options, or marks LSH unavailable.
func (pl *planning) resolveLSH() {
	p := pl.p
	o := pl.opt.LSH
	o.Measure, o.Threshold, o.Workers = pl.opt.Measure, pl.opt.Threshold, pl.opt.Workers
	o.Progress = nil
	ro, err := o.Resolve()
	if err != nil {
		p.LSH.Why = err
		return
	}
	jt, _ := approx.JaccardThreshold(ro.Measure, ro.Threshold)
	if ro.Scheme == approx.OnePerm {
		p.probes = pl.densifyProbes(ro.K)
	}
	p.LSH = LSHEstimate{
		Available:        true,
		Scheme:           ro.Scheme,
		K:                ro.K,
		Bits:             ro.Bits,
		Bands:            ro.Shape.B,
		Rows:             ro.Shape.R,
		Seed:             ro.Seed,
		JaccardThreshold: jt,
		AtThreshold:      ro.Shape.P(jt),
		opt:              ro,
	}
}

// densifyProbes returns the expected number of probes optimal
// densification makes over the distinct sets with k bins: a set of S tokens
// leaves about k·e^(-S/k) bins empty, and each probes 1/(1-e^(-S/k)) bins
// on average to find a full one. From the collections' groups, or before
// the order from every set's size scaled to the distinct sets.
func (pl *planning) densifyProbes(k int) float64 {
	at := func(n int) float64 {
		e := math.Exp(-float64(n) / float64(k))
		if e >= 1 {
			return 0
		}
		return float64(k) * e / (1 - e)
	}
	sum := 0.0
	if pl.keySizes != nil {
		sets := 0
		for _, sizes := range pl.keySizes {
			for _, n := range sizes {
				sum += at(int(n))
			}
			sets += len(sizes)
		}
		if sets > 0 {
			sum *= float64(pl.p.units) / float64(sets)
		}
		return sum
	}
	for _, c := range pl.sides {
		for g := range c.Groups() {
			sum += at(c.Size(groupSet(c, g)))
		}
	}
	return sum
}

func (pl *planning) exactCost(w exactCounts) Cost {
	c := pl.cal.exactCost(pl.p.FrontEnd, w)
	c.wall(pl.p.parallel())
	return c
}

func (pl *planning) lshCost(collisions, candidates, results float64) Cost {
	return pl.p.priceLSH(pl.cal, lshCounts{collisions: collisions, candidates: candidates, results: results})
}

// priceLSH prices the LSH path of p with w's collisions, candidates and
// results, the rest of its work from the plan.
func (p *Plan) priceLSH(cal *Calibration, w lshCounts) Cost {
	l := &p.LSH
	w.scheme, w.k, w.bands = l.Scheme, l.K, l.Bands
	// On the order (New, WithOrder) LSH runs over the collections, which
	// sign through the dictionary; before it, over the key sets.
	w.keys = !p.Ordered
	w.recordTokens = float64(p.FrontEnd.Tokens)
	w.units, w.tokens, w.probes = float64(p.units), float64(p.unitTokens), p.probes
	if !w.keys {
		w.words = float64(p.FrontEnd.Distinct)
	}
	if p.units > 0 {
		w.verifiedToken = float64(p.unitTokens) / float64(p.units)
	}
	c := cal.lshCost(p.FrontEnd, w)
	c.wall(p.parallel())
	return c
}

// parallel returns the cores the plan's runs keep busy.
func (p *Plan) parallel() int { return min(p.workers, runtime.GOMAXPROCS(0), runtime.NumCPU()) }

// samples draws m records per side of the collections with the plan's
// seed (once for each m), and returns them with their share of the pairs.
func (pl *planning) samples(m int) ([]*Sample, float64) {
	ss, ok := pl.drawn[m]
	if !ok {
		ss = newSamples(pl.sides, m, pl.opt.Seed)
		if pl.drawn == nil {
			pl.drawn = map[int][]*Sample{}
		}
		pl.drawn[m] = ss
	}
	return ss, pl.share(ss[0].C.Len(), ss[len(ss)-1].C.Len())
}

// share returns the share of the input's pairs a sample of a records (and
// b on the other side of an R-S join) holds.
func (pl *planning) share(a, b int) float64 {
	var spairs float64
	if len(pl.sets) == 1 {
		spairs = float64(a) * float64(a-1) / 2
	} else {
		spairs = float64(a) * float64(b)
	}
	return spairs / pl.pairs
}

// joinSample joins the collections ss exactly: its figures give the exact
// path's ratios of candidates and verifications to postings, and its
// results, scaled by frac (its share of the pairs), the expected results and
// their similarities (p.exactRes).
func (pl *planning) joinSample(ctx context.Context, ss []*Sample, frac float64) error {
	p := pl.p
	// The path the whole join takes (join.ChooseEll), forced on the sample,
	// whose own choice could differ: the sample's ratios must be that
	// path's.
	ell := max(pl.ell.Ell, 1)
	jopt := join.Options{Measure: pl.opt.Measure, Threshold: pl.opt.Threshold, Workers: pl.opt.Workers, Ell: ell}
	sizeA := sizesByID(ss[0].C)
	sizeB := sizeA
	hist := make([]float64, Bins)
	add := func(pr join.Pair) bool {
		hist[bin(jaccard(pr.Overlap, sizeA[pr.A], sizeB[pr.B]))] += 1 / frac
		return true
	}
	var st join.Stats
	var err error
	if len(ss) == 1 {
		st, err = join.SelfJoin(ctx, ss[0].C, jopt, add)
	} else {
		sizeB = sizesByID(ss[1].C)
		st, err = join.RSJoin(ctx, ss[0].C, ss[1].C, jopt, add)
	}
	if err != nil {
		return err
	}
	s := &p.Sample
	s.ExactRecords = s.ExactRecords[:0]
	for _, x := range ss {
		s.ExactRecords = append(s.ExactRecords, x.C.Len())
	}
	s.ExactFraction = frac
	records := 0
	for _, x := range ss {
		records += x.C.Len()
	}
	s.ExactUnitFraction = pl.unitShare(frac, records, st.Groups)
	s.Ell = ell
	// On the ℓ-prefix path a posting past the mask bound is examined (its
	// group checked against those already met).
	s.Postings, s.Examined = windowPostings(st), st.Postings-st.MaskPruned
	s.Candidates, s.Verified, s.Results = st.Candidates, st.Verified, st.Results
	s.IndexEntries, s.ProbeTokens = int64(st.IndexEntries), st.ProbeTokens
	p.exactRes = hist
	return nil
}

// sampleLSHOrdered joins with LSH a seeded sample of m records per side of
// the collections, as key sets (see sampleLSHKeys): the sampled records
// keep their original keys, and so the signatures of the whole run.
func (pl *planning) sampleLSHOrdered(ctx context.Context, m int) error {
	pos := make([][]int, len(pl.sides))
	for k, c := range pl.sides {
		pos[k] = samplePositions(c.Len(), m, pl.opt.Seed+uint64(k)*0x9e3779b97f4a7c15)
	}
	return pl.sampleLSHKeys(ctx, pos, func(side int, dst []uint64, q int) []uint64 {
		c := pl.sides[side]
		dict := c.Dict()
		for _, w := range c.Set(q) {
			dst = append(dst, dict.Key(w))
		}
		return dst
	})
}

// sampleLSHKeys joins with LSH the records at positions pos[k] of side k,
// whose keys (in any order) keysOf appends, as key sets (approx.JoinKeys;
// a self-join for one side, an R-S join for two) with the plan's LSH
// parameters: its collisions and candidates, scaled by the sample's share
// of the pairs, are the LSH path's.
func (pl *planning) sampleLSHKeys(ctx context.Context, pos [][]int, keysOf func(side int, dst []uint64, q int) []uint64) error {
	p := pl.p
	opt := p.LSH.opt
	opt.Verify = approx.VerifyExact // the sample's results must be true ones
	// A bucket of b distinct sets of the input holds about b·m/n of the
	// sample's: the cap scaled alike caps in the sample the buckets the
	// run caps (whose pairs yield no candidates), about.
	if opt.MaxBucket > 0 {
		side := len(pos) - 1 // the side the buckets are built of
		share := float64(len(pos[side])) / float64(max(pl.sets[side], 1))
		opt.MaxBucket = max(2, int(math.Round(float64(opt.MaxBucket)*share)))
	}
	sets := make([]*approx.KeySets, 2)
	var keys []uint64
	for k, ps := range pos {
		ks := &approx.KeySets{Offs: []int{0}}
		for _, q := range ps {
			keys = keysOf(k, keys[:0], q)
			ks.Add(keys)
		}
		sets[k] = ks
	}
	var found []float64 // Jaccard similarity of each pair found
	r, s := sets[0], sets[1]
	if s == nil {
		s = r
	}
	st, err := approx.JoinKeys(ctx, sets[0], sets[1], opt, func(pr join.Pair) bool {
		found = append(found, jaccard(pr.Overlap, len(r.Set(pr.A)), len(s.Set(pr.B))))
		return true
	})
	if err != nil {
		return err
	}
	sp := &p.Sample
	sp.LSHRecords = sp.LSHRecords[:0]
	for _, ps := range pos {
		sp.LSHRecords = append(sp.LSHRecords, len(ps))
	}
	b := 0
	if len(pos) > 1 {
		b = len(pos[1])
	}
	pl.lshSampled(st, pl.share(len(pos[0]), b), found)
	return nil
}

// lshSampled records an LSH sample join's figures and the results by
// similarity it stands for (p.lshRes).
func (pl *planning) lshSampled(st approx.Stats, frac float64, found []float64) {
	p := pl.p
	s := &p.Sample
	s.LSHFraction = frac
	records := 0
	for _, n := range s.LSHRecords {
		records += n
	}
	s.LSHUnitFraction = pl.unitShare(frac, records, st.Units)
	s.LSHCollisions, s.LSHCandidates, s.LSHResults = st.Collisions, st.Candidates, st.Results
	p.lshRes = make([]float64, Bins)
	shape := p.LSH.opt.Shape
	for _, j := range found {
		if pj := shape.P(j); pj > 0 {
			p.lshRes[bin(j)] += 1 / (pj * frac)
		}
	}
}

// unitShare returns the share of the input's pairs of distinct sets a
// sample holds whose pairs of records are frac of the input's, sampling
// records of which units are distinct: bands and candidates pair distinct
// sets, and n records holding u distinct ones have about (u/n)² of their
// pairs of records as pairs of distinct sets (a list with popular
// passwords repeated has far fewer than its records).
func (pl *planning) unitShare(frac float64, records, units int) float64 {
	if records == 0 || units == 0 || pl.p.units == 0 || pl.allSets == 0 {
		return frac
	}
	sample := float64(units) / float64(records)
	input := float64(pl.p.units) / float64(pl.allSets)
	return min(1, frac*sample*sample/(input*input))
}

// estimateLSH prices the LSH path: the S-curve over the similarity
// distribution estimated from random pairs (below the threshold) and the
// results (at or above it), and the LSH sample's measured collisions and
// candidates.
func (pl *planning) estimateLSH() {
	p := pl.p
	s := &p.Sample
	hist := make([]float64, Bins)
	for i := range hist {
		if p.pairHist != nil {
			hist[i] = p.pairHist[i]
		}
		hist[i] += pl.resHist[i]
	}
	s.Similar = hist
	l := &p.LSH
	shape := l.opt.Shape
	l.CurveCandidates = approx.ExpectedCandidates(shape, hist)
	l.CurveCollisions = expectedCollisions(shape, hist)
	l.Collisions, l.Candidates = l.CurveCollisions, l.CurveCandidates
	if len(s.LSHRecords) > 0 && s.LSHCandidates >= minCandidates {
		l.Collisions = float64(s.LSHCollisions) / s.LSHUnitFraction
		l.Candidates = float64(s.LSHCandidates) / s.LSHUnitFraction
	}
	var found, all float64
	for i, n := range pl.resHist {
		if n > 0 {
			found += n * shape.MeanP(float64(i)/Bins, float64(i+1)/Bins)
			all += n
		}
	}
	if all > 0 {
		l.Recall = found / all
	} else {
		l.Recall = shape.MeanRecall(l.JaccardThreshold)
	}
	l.Cost = pl.lshCost(l.Collisions, l.Candidates, s.Predicted*l.Recall)
}

// pairCount returns the random pairs to measure: PairSample, fewer when a
// quarter of the budget cannot measure them (each merging about twice the
// mean size).
func (pl *planning) pairCount() int {
	k := pl.opt.PairSample
	if k <= 0 || pl.pairs == 0 {
		return 0
	}
	if pl.meanSize > 0 {
		k = min(k, max(200, int(pl.budget/4/(2*pl.meanSize*pl.cal.Plan.PairToken*1e-9))))
	}
	return k
}

// pairSample measures k random pairs, draw giving a pair's overlap and
// sizes, and adds the share of all pairs that each pair below the threshold
// stands for to hist (those at or above it are counted by the samples'
// joins). A pair that shares no token is left out: it never meets in a band
// (their MinHash values differ), where the S-curve at its bin's midpoint
// would count it as a chance candidate, and on documents of rare shingles
// nearly every pair is one.
func (pl *planning) pairSample(hist []float64, k int, draw func(r *rand.Rand) (o, x, y int)) {
	if k <= 0 {
		return
	}
	r := rand.New(rand.NewPCG(pl.opt.Seed, 0x9a125))
	w := pl.pairs / float64(k)
	for range k {
		o, x, y := draw(r)
		if o == 0 || pl.b.Passes(o, x, y) {
			continue
		}
		hist[bin(jaccard(o, x, y))] += w
	}
	pl.p.Sample.Pairs = k
}

// sizesByID returns the set size of every record of c by original index
// (0 for empty records and indices c does not hold: a sample's indices are
// its parent's).
func sizesByID(c *order.Collection) []int {
	n := c.Records()
	for i := 0; i < c.Len(); i++ {
		n = max(n, c.ID(i)+1)
	}
	size := make([]int, n)
	for i := 0; i < c.Len(); i++ {
		size[c.ID(i)] = c.Size(i)
	}
	return size
}

// jaccard returns the Jaccard similarity of sets of sizes x and y sharing o.
func jaccard(o, x, y int) float64 {
	if x+y-o <= 0 {
		return 0
	}
	return float64(o) / float64(x+y-o)
}

// bin returns the similarity bin of j in [0, 1].
func bin(j float64) int { return min(max(int(j*Bins+1e-9), 0), Bins-1) } // 0.29·100 is 28.999…

// expectedCollisions returns the expected band collisions (a pair meeting in
// two bands counts twice): B·s^R summed over the pairs of hist, at each bin's
// midpoint.
func expectedCollisions(s approx.Shape, hist []float64) float64 {
	sum := 0.0
	for i, n := range hist {
		if n > 0 {
			mid := (float64(i) + 0.5) / float64(len(hist))
			sum += n * float64(s.B) * math.Pow(mid, float64(s.R))
		}
	}
	return sum
}

// keyWork returns the ℓ-prefix path's work on a self-join expected to scan
// postings postings: the keys and key-index entries from join.ChooseEll,
// and the tiny groups' prefix-filter work, counted as SelfWork counts it.
func (pl *planning) keyWork(postings float64) ExactWork {
	tiny := selfWork(pl.c, pl.b, pl.ell.Tiny)
	return ExactWork{
		Ell:          pl.ell.Ell,
		Groups:       pl.c.Groups(),
		ProbeTokens:  pl.ell.Keys + tiny.ProbeTokens,
		IndexEntries: pl.ell.IndexKeys + tiny.IndexEntries,
		Postings:     int64(math.Round(postings)),
		SameSetPairs: pl.p.Exact.Work.SameSetPairs,
	}
}

// windowPostings returns the postings a join met within the size window,
// examined or skipped unseen: what SelfWork and RSWork count.
func windowPostings(st join.Stats) int64 { return st.Postings + st.LateSkipped }
