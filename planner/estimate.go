package planner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// planning is the state of one call of New.
type planning struct {
	opt  Options
	cal  *Calibration
	c, s *order.Collection
	b    prefix.Bounds
	p    *Plan

	sides    []*order.Collection
	sets     []int // non-empty sets per side
	allSets  int
	tokens   int64 // set tokens over both sides
	vocab    int   // dictionary entries (hashed once each by LSH)
	pairs    float64
	meanSize float64
	drawn    map[int][]*Sample // samples by records per side
	budget   float64           // CPU seconds planning may spend on samples
	ell      join.EllChoice    // the self-join's index keys; zero for an R-S join
	lshRes   []float64         // results by Jaccard bin estimated from the LSH sample
}

func (pl *planning) plan(ctx context.Context) (*Plan, error) {
	t0 := time.Now()
	opt := pl.opt
	p := &Plan{
		Measure:   opt.Measure,
		Threshold: opt.Threshold,
		Prefer:    opt.Prefer,
		workers:   opt.Workers,
	}
	pl.p = p
	pl.sides = []*order.Collection{pl.c}
	if pl.s != nil {
		pl.sides = append(pl.sides, pl.s)
	}
	for _, c := range pl.sides {
		st := Collect(c)
		p.Stats = append(p.Stats, st)
		pl.sets = append(pl.sets, st.Sets)
		pl.allSets += st.Sets
		pl.tokens += st.Tokens
	}
	pl.vocab = pl.c.Dict().Len()
	if pl.allSets > 0 {
		pl.meanSize = float64(pl.tokens) / float64(pl.allSets)
	}
	if pl.s == nil {
		n := float64(pl.sets[0])
		pl.pairs = n * (n - 1) / 2
		p.Exact.Work = SelfWork(pl.c, pl.b)
		// The join's own choice of index keys, from its own code.
		ch, err := join.ChooseEll(pl.c, join.Options{Measure: opt.Measure, Threshold: opt.Threshold, Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		pl.ell, p.ell = ch, ch.Ell
	} else {
		pl.pairs = float64(pl.sets[0]) * float64(pl.sets[1])
		p.Exact.Work = RSWork(pl.c, pl.s, pl.b)
	}
	pl.resolveLSH()

	// The most exact can cost (every posting a candidate, verified in full)
	// and the least LSH can (signing and banding alone) size the samples:
	// planning spends at most a share of the cheaper of the two.
	post := float64(p.Exact.Work.Postings)
	exactHi := pl.exactCost(post, post, post, 0)
	lshLo := pl.lshCost(0, 0, 0)
	least := exactHi.CPU
	if p.LSH.Available {
		least = min(least, lshLo.CPU)
	}
	pl.budget = max(pl.opt.Budget*least, planFloor)
	resHist := make([]float64, Bins)
	if m := pl.sampleSize(exactHi.CPU, true, true); m > 0 {
		if err := pl.sampleExact(ctx, m, resHist); err != nil {
			return nil, err
		}
	}
	if m := pl.sampleSize(lshLo.CPU, false, pl.s != nil); m > 0 && p.LSH.Available {
		if err := pl.sampleLSH(ctx, m); err != nil {
			return nil, err
		}
	}
	// The results and their similarities: from the sample with more pairs.
	// The LSH sample sees a true pair of similarity s with probability P(s),
	// so each pair it finds stands for 1/P(s) (Horvitz–Thompson).
	s := &p.Sample
	if len(s.LSHRecords) > 0 && s.LSHFraction > s.ExactFraction && p.LSH.Available {
		resHist = pl.lshRes
	}
	for _, n := range resHist {
		s.Predicted += n
	}

	// Exact: the postings are exact; candidates and verifications follow the
	// sample's ratios to its postings (every posting without a sample). On
	// the ℓ-prefix path the postings are the sample's, scaled by its share
	// of the pairs; without a sample that meets enough of them, the prefix
	// filter's work is priced instead, an upper bound (the join takes the
	// ℓ-prefix only where it expects it to cost less).
	examRatio, candRatio, verRatio := 1.0, 1.0, 1.0
	if s.Postings >= minPostings {
		examRatio = float64(s.Examined) / float64(s.Postings)
		candRatio = float64(s.Candidates) / float64(s.Postings)
		verRatio = float64(s.Verified) / float64(s.Postings)
		if s.Ell > 1 {
			p.Exact.Work = pl.keyWork(float64(s.Postings) / s.ExactFraction)
			post = float64(p.Exact.Work.Postings)
		}
	}
	p.Exact.Examined = post * examRatio
	p.Exact.Candidates = post * candRatio
	p.Exact.Verified = post * verRatio
	p.Exact.Cost = pl.exactCost(p.Exact.Examined, p.Exact.Candidates, p.Exact.Verified, s.Predicted)
	if p.LSH.Available {
		pl.estimateLSH(resHist)
	}
	pl.decide()
	p.Seconds = time.Since(t0).Seconds()
	if invariants.Enabled {
		p.check()
	}
	return p, nil
}

// check panics unless the invariants stated on Plan's, ExactEstimate's and
// Cost's fields hold (called under -tags invariants on every plan).
func (p *Plan) check() {
	if p.Method != Exact && !(p.Method == LSH && (p.LSH.Available || p.Forced)) {
		panic(fmt.Sprintf("planner: plan method %s (LSH available: %v)", p.Method, p.LSH.Available))
	}
	if want := map[Method]float64{Exact: 1, LSH: p.LSH.Recall}[p.Method]; p.Recall != want {
		panic(fmt.Sprintf("planner: %s plan with recall %v, want %v", p.Method, p.Recall, want))
	}
	e := &p.Exact
	if !(e.Verified <= e.Candidates && e.Candidates <= e.Examined && e.Examined <= float64(e.Work.Postings)) {
		panic(fmt.Sprintf("planner: exact estimate out of order: %v verified, %v candidates, %v examined, %d postings",
			e.Verified, e.Candidates, e.Examined, e.Work.Postings))
	}
	costs := []Cost{e.Cost}
	if p.LSH.Available {
		costs = append(costs, p.LSH.Cost)
	}
	for _, c := range costs {
		cpu, wall := 0.0, 0.0
		for _, t := range c.Terms {
			if t.Count < 0 || t.Nanos < 0 || t.CPU != t.Count*t.Nanos*1e-9 {
				panic(fmt.Sprintf("planner: term %s: %v units at %v ns is not %v s", t.Name, t.Count, t.Nanos, t.CPU))
			}
			cpu += t.CPU
			wall += c.termWall(t)
		}
		if c.Parallel < 1 || cpu != c.CPU || wall != c.Seconds {
			panic(fmt.Sprintf("planner: cost of %v s CPU, %v s wall on %d cores; its terms sum to %v s CPU, %v s wall", c.CPU, c.Seconds, c.Parallel, cpu, wall))
		}
	}
}

// Sampling limits.
const (
	// planFloor is the least CPU time planning may always spend on samples
	// (see Options.Budget). An eighth of the budget goes to building each
	// sample, a quarter to each sample join, a quarter to the random pairs.
	planFloor = 0.01
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
// (exact) or with LSH, whose path costs about cost CPU seconds on the whole
// input: at most SampleSize, a quarter of each side, few enough to copy
// (when copied is set) in an eighth of the budget, and few enough that the
// sample join takes a quarter (the exact join's pairs, and so its cost,
// shrink with the square of the sample; LSH's linearly). 0 means none.
func (pl *planning) sampleSize(cost float64, exact, copied bool) int {
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
	if copied {
		tokens = min(tokens, quarter/2/(pl.cal.PlanSampleToken*1e-9))
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
	if ro.Scheme == approx.OnePerm {
		for _, c := range pl.sides {
			p.LSH.DensifyProbes += densifyProbes(c, ro.K)
		}
	}
}

// densifyProbes returns the expected number of probes optimal densification
// makes over the sets of c with k bins: a set of S tokens leaves about
// k·e^(-S/k) bins empty, and each probes 1/(1-e^(-S/k)) bins on average to
// find a full one. Sets come in size order, so each size is priced once.
func densifyProbes(c *order.Collection, k int) float64 {
	sum := 0.0
	for i := 0; i < c.Len(); {
		n := c.Size(i)
		j := i + 1
		for j < c.Len() && c.Size(j) == n {
			j++
		}
		e := math.Exp(-float64(n) / float64(k))
		if e < 1 {
			sum += float64(j-i) * float64(k) * e / (1 - e)
		}
		i = j
	}
	return sum
}

func (pl *planning) exactCost(examined, candidates, verified, results float64) Cost {
	pl.p.meanSize = pl.meanSize
	return pl.p.priceExact(pl.cal, examined, candidates, verified, results)
}

func (pl *planning) lshCost(collisions, candidates, results float64) Cost {
	l := &pl.p.LSH
	pl.p.lsh = lshWork{
		scheme:   l.opt.Scheme,
		sets:     pl.allSets,
		tokens:   pl.tokens,
		vocab:    pl.vocab,
		k:        l.K,
		bands:    l.Bands,
		densify:  l.DensifyProbes,
		meanSize: pl.meanSize,
	}
	return pl.p.priceLSH(pl.cal, collisions, candidates, results)
}

// priceExact prices the exact path of p with the given counts.
func (p *Plan) priceExact(cal *Calibration, examined, candidates, verified, results float64) Cost {
	c := cal.exactCost(p.Exact.Work, examined, candidates, verified, p.meanSize, results)
	c.wall(p.parallel())
	return c
}

// priceLSH prices the LSH path of p with the given counts.
func (p *Plan) priceLSH(cal *Calibration, collisions, candidates, results float64) Cost {
	w := p.lsh
	w.collisions, w.candidates, w.results = collisions, candidates, results
	c := cal.lshCost(w)
	c.wall(p.parallel())
	return c
}

// parallel returns the cores the plan's runs keep busy.
func (p *Plan) parallel() int { return min(p.workers, runtime.GOMAXPROCS(0), runtime.NumCPU()) }

// samples draws m records per side with the plan's seed (once for each m).
func (pl *planning) samples(m int) ([]*Sample, float64, error) {
	ss, ok := pl.drawn[m]
	if !ok {
		ss = newSamples(pl.sides, m, pl.opt.Seed)
		if pl.drawn == nil {
			pl.drawn = map[int][]*Sample{}
		}
		pl.drawn[m] = ss
	}
	var spairs float64
	if len(ss) == 1 {
		n := float64(ss[0].C.Len())
		spairs = n * (n - 1) / 2
	} else {
		spairs = float64(ss[0].C.Len()) * float64(ss[1].C.Len())
	}
	return ss, spairs / pl.pairs, nil
}

// sampleExact joins a seeded sample of m records per side exactly: its
// figures give the exact path's ratios of candidates and verifications to
// postings, and its results, scaled by the share of pairs, the expected
// results and their similarities (added to resHist).
func (pl *planning) sampleExact(ctx context.Context, m int, resHist []float64) error {
	p := pl.p
	ss, frac, err := pl.samples(m)
	if err != nil {
		return err
	}
	// The path the whole join takes (join.ChooseEll), forced on the sample,
	// whose own choice could differ: the sample's ratios must be that
	// path's.
	ell := max(pl.ell.Ell, 1)
	jopt := join.Options{Measure: pl.opt.Measure, Threshold: pl.opt.Threshold, Workers: pl.opt.Workers, Ell: ell}
	sizeA := sizesByID(ss[0].C)
	sizeB := sizeA
	var st join.Stats
	add := func(pr join.Pair) bool {
		resHist[bin(jaccard(pr.Overlap, sizeA[pr.A], sizeB[pr.B]))] += 1 / frac
		return true
	}
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
	for _, x := range ss {
		s.ExactRecords = append(s.ExactRecords, x.C.Len())
	}
	s.ExactFraction = frac
	s.Ell = ell
	// On the ℓ-prefix path a posting past the mask bound is examined (its
	// group checked against those already met).
	s.Postings, s.Examined = windowPostings(st), st.Postings-st.MaskPruned
	s.Candidates, s.Verified, s.Results = st.Candidates, st.Verified, st.Results
	return nil
}

// sampleLSH joins a seeded sample of m records per side with the plan's LSH
// parameters: its collisions and candidates, scaled by the share of pairs,
// are the LSH path's. A self-join's sample goes into an approx.Index (sets
// of the records' original keys, so their signatures are those of the whole
// run) without a Collection, whose approx join would hash the whole
// dictionary; an R-S join's is a pair of sub-collections.
func (pl *planning) sampleLSH(ctx context.Context, m int) error {
	p := pl.p
	opt := p.LSH.opt
	opt.Verify = approx.VerifyExact // the sample's results must be true ones
	s := &p.Sample
	shape := opt.Shape
	pl.lshRes = make([]float64, Bins)
	var found []float64 // Jaccard similarity of each pair found
	var st approx.Stats
	if pl.s == nil {
		c := pl.c
		pos := samplePositions(c.Len(), m, pl.opt.Seed)
		bld, err := approx.NewBuilder(opt)
		if err != nil {
			return err
		}
		dict := c.Dict()
		var keys []uint64
		tokens := 0
		for _, q := range pos {
			tokens += c.Size(q)
		}
		bld.Grow(len(pos), tokens)
		for _, q := range pos {
			keys = keys[:0]
			for _, w := range c.Set(q) {
				keys = append(keys, dict.Key(w))
			}
			bld.Add(keys)
		}
		ix, err := bld.Build(ctx)
		if err != nil {
			return err
		}
		if st, err = ix.SelfJoin(ctx, func(pr join.Pair) bool {
			found = append(found, jaccard(pr.Overlap, ix.Size(pr.A), ix.Size(pr.B)))
			return true
		}); err != nil {
			return err
		}
		n := float64(len(pos))
		s.LSHRecords = []int{len(pos)}
		s.LSHFraction = n * (n - 1) / 2 / pl.pairs
	} else {
		ss, frac, err := pl.samples(m)
		if err != nil {
			return err
		}
		sizeA, sizeB := sizesByID(ss[0].C), sizesByID(ss[1].C)
		if st, err = approx.RSJoin(ctx, ss[0].C, ss[1].C, opt, func(pr join.Pair) bool {
			found = append(found, jaccard(pr.Overlap, sizeA[pr.A], sizeB[pr.B]))
			return true
		}); err != nil {
			return err
		}
		for _, x := range ss {
			s.LSHRecords = append(s.LSHRecords, x.C.Len())
		}
		s.LSHFraction = frac
	}
	s.LSHCollisions, s.LSHCandidates, s.LSHResults = st.Collisions, st.Candidates, st.Results
	for _, j := range found {
		if pj := shape.P(j); pj > 0 {
			pl.lshRes[bin(j)] += 1 / (pj * s.LSHFraction)
		}
	}
	return nil
}

// estimateLSH prices the LSH path: the S-curve over the similarity
// distribution estimated from random pairs (below the threshold) and the
// exact sample's results (at or above it), and the LSH sample's measured
// collisions and candidates.
func (pl *planning) estimateLSH(resHist []float64) {
	p := pl.p
	s := &p.Sample
	hist := make([]float64, Bins)
	pl.pairSample(hist)
	for i := range hist {
		hist[i] += resHist[i]
	}
	s.Similar = hist
	l := &p.LSH
	shape := l.opt.Shape
	l.CurveCandidates = approx.ExpectedCandidates(shape, hist)
	l.CurveCollisions = expectedCollisions(shape, hist)
	l.Collisions, l.Candidates = l.CurveCollisions, l.CurveCandidates
	if len(s.LSHRecords) > 0 && s.LSHCandidates >= minCandidates {
		l.Collisions = float64(s.LSHCollisions) / s.LSHFraction
		l.Candidates = float64(s.LSHCandidates) / s.LSHFraction
	}
	var found, all float64
	for i, n := range resHist {
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
	l.Cost = pl.lshCost(l.Collisions, l.Candidates, s.Predicted)
}

// pairSample measures the Jaccard similarity of random pairs of sets (the
// pairs that do not reach the threshold; those that do are counted by the
// exact sample) and adds their share of all pairs to hist.
func (pl *planning) pairSample(hist []float64) {
	k := pl.opt.PairSample
	if k <= 0 || pl.pairs == 0 {
		return
	}
	// A quarter of the budget, each pair merging about twice the mean size.
	if pl.meanSize > 0 {
		k = min(k, max(200, int(pl.budget/4/(2*pl.meanSize*pl.cal.PlanPairToken*1e-9))))
	}
	r := rand.New(rand.NewPCG(pl.opt.Seed, 0x9a125))
	a, b := pl.sides[0], pl.sides[len(pl.sides)-1]
	w := pl.pairs / float64(k)
	for i := 0; i < k; i++ {
		x, y := r.IntN(a.Len()), r.IntN(b.Len())
		for pl.s == nil && y == x {
			y = r.IntN(b.Len())
		}
		sx, sy := a.Set(x), b.Set(y)
		o := join.Overlap(sx, sy)
		if pl.b.Passes(o, len(sx), len(sy)) {
			continue
		}
		hist[bin(jaccard(o, len(sx), len(sy)))] += w
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
