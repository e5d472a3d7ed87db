package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// CheckOptions configures Check. LSH is required; the zero value of every
// other field checks the whole input, LSH's banding once, at 95% confidence.
type CheckOptions struct {
	// LSH is the LSH path checked (resolved by approx.Options.Resolve when
	// it is not yet): its measure, threshold and workers serve the exact
	// join too. Copies is ignored.
	LSH approx.Options
	// Shapes are the bandings measured, each with LSH's other parameters;
	// empty means LSH.Shape alone.
	Shapes []approx.Shape
	// Seeds is the number of runs of each banding, with the MinHash seeds
	// LSH.Seed, LSH.Seed+1, …; 0 means 1.
	Seeds int
	// Records is the number of records per side to sample; 0, or at least
	// the records of a side, means the whole side.
	Records int
	// Seed seeds the sample of records and the sample of pairs (not the LSH
	// hashes: those are LSH's, so that the sample's signatures are the ones
	// the whole run computes).
	Seed uint64
	// Confidence is the level of the intervals, in (0, 1); 0 means 0.95.
	Confidence float64
	// Bins is the number of equal similarity bins over [0, 1]; 0 means 20.
	Bins int
	// Floor, when above 0, also finds the true pairs of Jaccard similarity
	// at or above Floor (rounded down to a bin's lower edge, and at most the
	// threshold), and has every run report each candidate with its exact
	// similarity (the LSH join at a threshold just above 0, exactly
	// verified), so that the bins below the threshold are measured too.
	// Self-joins with the Jaccard measure only.
	Floor float64
	// PairSample is the number of pairs of distinct sets drawn uniformly
	// (with replacement, seeded by Seed) to measure the pairs below Floor:
	// the draws below it are kept, and their bins are estimates. When there
	// are no more pairs of distinct sets than PairSample, every one is taken
	// instead. 0 draws none. It needs a Floor.
	PairSample int
	// Exact, if not nil, receives the exact join's pairs at or above the
	// threshold, in the join's order, from the calling goroutine.
	Exact func(join.Pair) bool
	// Found, if not nil, receives the pairs the first banding's first run
	// reports, in its order, from the calling goroutine: the LSH join's
	// output, or every candidate with a Floor.
	Found func(join.Pair) bool
}

// CrossCheck is LSH measured against the exact join on the same records:
// what Check returns.
type CrossCheck struct {
	Records    []int   `json:"records"` // records per side checked
	Whole      bool    `json:"whole"`   // the whole input, not a sample
	Confidence float64 `json:"confidence"`
	// Floor is the Jaccard similarity down to which the true pairs were
	// found (0 without CheckOptions.Floor: the threshold alone).
	Floor float64 `json:"floor,omitempty"`
	// Exact is the exact join's run, at the floor when there is one.
	Exact Measured `json:"exact"`
	// Pairs is the number of true pairs at or above the threshold,
	// AboveFloor those at or above the floor (Pairs without a floor).
	Pairs      int64 `json:"pairs"`
	AboveFloor int64 `json:"above_floor"`
	// Below is the number of pairs of distinct sets below the floor (the
	// population the pair sample stands for); Sampled is the number of
	// pairs drawn that lie below it, and AllBelow is true when they are all
	// of them (the bins below the floor are then exact).
	Below    float64 `json:"below,omitempty"`
	Sampled  int     `json:"sampled,omitempty"`
	AllBelow bool    `json:"all_below,omitempty"`
	// Bandings holds one measurement per banding, in CheckOptions.Shapes'
	// order.
	Bandings []Banding `json:"bandings"`
	// Steps is the wall and CPU time of each step: StepExact, StepSample
	// (with a floor), then StepLSH for each banding's runs.
	Steps []Step `json:"steps"`
}

// Step is one timed step of a check: what it ran, its wall seconds and
// the process's CPU seconds (user and system; 0 where the system cannot
// say).
type Step struct {
	Kind    StepKind
	Shape   approx.Shape // the banding of a StepLSH step; zero for the others
	Seconds float64
	CPU     float64
}

// String names the step: "exact", "sample", or "lsh BxR" with its banding.
func (s Step) String() string {
	if s.Kind == StepLSH {
		return s.Kind.String() + " " + s.Shape.String()
	}
	return s.Kind.String()
}

// MarshalJSON writes s as {"name": s.String(), "wall_s", "cpu_s"}.
func (s Step) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name    string  `json:"name"`
		Seconds float64 `json:"wall_s"`
		CPU     float64 `json:"cpu_s"`
	}{s.String(), s.Seconds, s.CPU})
}

// Banding is one banding measured over its runs.
type Banding struct {
	Shape approx.Shape `json:"shape"`
	// AtThreshold is P at the threshold's Jaccard bound: every true pair is
	// found with at least this probability. Predicted is the mean of P over
	// the true pairs' Jaccard similarities: the recall the S-curve expects
	// here, and PredictedSD the standard deviation of one run's recall
	// about it were the pairs found independently (√(Σ P(1-P)) over the
	// true pairs, divided by their number): a run's recall within a few
	// PredictedSD of Predicted agrees with the S-curve. PredictedCandidates
	// is the candidates the S-curve expects among the pairs of distinct
	// sets measured (with a pair sample, the pairs below the floor
	// included).
	AtThreshold         float64 `json:"recall_at_threshold"`
	Predicted           float64 `json:"predicted_recall"`
	PredictedSD         float64 `json:"predicted_recall_sd"`
	PredictedCandidates float64 `json:"predicted_candidates"`
	Runs                []Run   `json:"runs"` // one per seed
	// Candidates, Found (the true pairs found) and Seconds are means over
	// the runs, Recall the mean of the runs' recalls (1 when there are no
	// true pairs), RecallMin and RecallMax its range.
	Candidates float64 `json:"candidates"`
	Found      float64 `json:"found"`
	Recall     float64 `json:"recall"`
	RecallMin  float64 `json:"recall_min"`
	RecallMax  float64 `json:"recall_max"`
	// Seconds is the mean over the runs of the LSH join's own time
	// (signatures, bands and verification, as approx.Stats times them).
	Seconds float64 `json:"lsh_s"`
	// Bins partition [0, 1] into CheckOptions.Bins equal bins, empty ones
	// included.
	Bins []Bin `json:"bins"`
}

// Run is one LSH run of a banding against the exact answer.
type Run struct {
	Seed uint64   `json:"seed"`
	LSH  Measured `json:"lsh"`
	// Recall is the share of the true pairs that the run reported;
	// Precision the share of its pairs at or above the threshold that are
	// true (below 1 only with estimated similarities); CandidatePrecision
	// the share of its candidates that were true pairs: how much of its
	// verification paid.
	Recall             Interval `json:"recall"`
	Precision          Interval `json:"precision"`
	CandidatePrecision Interval `json:"candidate_precision"`
}

// Bin is the pairs whose Jaccard similarity lies in [From, To) (the last
// bin includes 1): the true pairs there, or the pairs drawn there below the
// floor.
type Bin struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// Pairs is the pairs measured in the bin, Found how many of them the
	// runs reported, summed over the runs, and Recall is Found of Pairs
	// times the runs.
	Pairs  int64    `json:"pairs"`
	Found  int64    `json:"found"`
	Recall Interval `json:"recall"`
	// Predicted is the mean of P over the bin's pairs (0 when empty).
	Predicted float64 `json:"predicted"`
	// Sampled marks a bin below the floor that holds draws of the pair
	// sample; Estimate is the pairs the bin stands for: Pairs, scaled to
	// CrossCheck.Below when sampled.
	Sampled  bool    `json:"sampled"`
	Estimate float64 `json:"estimate"`
}

// ErrNoLSH is returned by Check when the measure has no LSH path
// (Overlap).
var ErrNoLSH = errors.New("planner: no LSH path to check")

// ErrStopped is returned by Check when CheckOptions.Exact or Found
// returned false.
var ErrStopped = errors.New("planner: check stopped by its caller")

// CrossCheck runs Check with the plan's LSH parameters: see Check. It
// returns ErrNoLSH when the plan has no LSH path.
func (p *Plan) CrossCheck(ctx context.Context, c, s *order.Collection, opt CheckOptions) (*CrossCheck, error) {
	lsh, ok := p.LSHOptions()
	if !ok {
		return nil, ErrNoLSH
	}
	opt.LSH = lsh
	return MeasureLSH(ctx, c, s, opt)
}

// Check measures LSH against the exact join on the same records: it runs
// the exact join once, on a seeded sample of opt.Records records per side
// of c (and s, for an R-S join) or on the whole input, then each banding of
// opt.Shapes opt.Seeds times, and measures every run against the exact
// answer: recall and precision with Clopper–Pearson intervals, and recall
// per similarity bin beside the S-curve's prediction. With opt.Floor it
// also measures the pairs below the threshold: the true pairs down to the
// floor exactly, and those below it from opt.PairSample pairs of distinct
// sets.
//
// The sample of records is a sub-collection over the input's dictionary,
// so its signatures are those a run over the whole input computes: the
// recall measured on the sample estimates the recall of that run. The
// intervals treat the true pairs as independent trials; pairs of a sample
// of records share records, so on inputs where a few records carry many
// pairs (large clusters of near-duplicates) the intervals are narrower than
// they should be. Every sum over pairs runs in the exact join's order, so
// the figures are the same on every run and for any workers.
//
// Cost: the exact join and every LSH run on the sample; 24 bytes per true
// pair, 8 per pair a run reports, about 25 per pair drawn; each run's pairs
// are sorted and every pair measured is looked up among them. ctx cancels
// the joins and the sample. The collections are only read; the callbacks
// are called from the calling goroutine.
func MeasureLSH(ctx context.Context, c, s *order.Collection, opt CheckOptions) (*CrossCheck, error) {
	ck, err := newChecker(c, s, &opt)
	if err != nil {
		return nil, err
	}
	cc := ck.cc
	step := startStep(Step{Kind: StepExact})
	if err := ck.exact(ctx); err != nil {
		return nil, err
	}
	cc.Steps = append(cc.Steps, step.done())
	if ck.floor != nil {
		step = startStep(Step{Kind: StepSample})
		if err := ck.sampleBelow(ctx); err != nil {
			return nil, err
		}
		cc.Steps = append(cc.Steps, step.done())
	}
	for k, shape := range ck.shapes {
		step = startStep(Step{Kind: StepLSH, Shape: shape})
		b, err := ck.banding(ctx, shape, k == 0)
		if err != nil {
			return nil, err
		}
		cc.Bandings = append(cc.Bandings, b)
		cc.Steps = append(cc.Steps, step.done())
	}
	return cc, nil
}

// checker holds a check's state: the options resolved, the true pairs and
// the pairs drawn below the floor.
type checker struct {
	opt    *CheckOptions
	cc     *CrossCheck
	shapes []approx.Shape
	seeds  int
	jt     float64 // the threshold's Jaccard bound, where P(t) is read

	r, s         *order.Collection // the sides checked (s nil for a self-join)
	sizeA, sizeB []int             // set size by record id
	atT          prefix.Bounds     // decides the threshold
	floor        *prefix.Bounds    // decides the floor (nil without one)

	// truth holds the true pairs in the exact join's order (the same for
	// any workers), the order every sum over them follows. Invariant: every
	// pair of the exact join at the floor (at the threshold without one) is
	// here once.
	truth []truePair
	// below holds the pairs of distinct sets drawn below the floor, in the
	// order drawn (a pair may repeat).
	below []drawnPair
}

// truePair is a pair of the exact join.
type truePair struct {
	key uint64  // a<<32 | b, the records' ids
	sim float64 // Jaccard similarity
	atT bool    // at or above the threshold (decided exactly)
	rep bool    // the first records of their sets (self-join): stands for its pair of distinct sets
}

// drawnPair is a pair of distinct sets drawn below the floor.
type drawnPair struct {
	key uint64 // the pair of the sets' first records, lower id first
	sim float64
}

func pairKey(a, b int) uint64 { return uint64(a)<<32 | uint64(uint32(b)) }

// OptionError reports the field of CheckOptions that CheckOptions.Validate
// refuses, so that a caller (a command line) can word it by its own name for
// the field.
type OptionError struct {
	// Option is the field: "LSH" (approx.Options.Resolve's error),
	// "Confidence", "Bins", "Floor", "Seeds", "PairSample", "Records" or
	// "Shapes".
	Option string
	Value  string // the value refused, for Shapes: the banding
	Err    error  // why, wrapping the cause (such as approx's error)
}

func (e *OptionError) Error() string { return "planner: " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// Check reports whether Check can run with o, before any input is read: it
// returns ErrNoLSH for the Overlap measure, then refuses, in this order and
// with an *OptionError, LSH options that approx.Options.Resolve refuses, a
// Confidence outside (0, 1) or Bins outside 1..1000 (0 is the default of
// both), a Floor for a measure other than Jaccard, negative Seeds,
// PairSample or Records, a Floor outside (0, 1] (0 is none), a PairSample
// without a Floor, and a banding of Shapes that does not fit LSH's K. Check
// also refuses a Floor for an R-S join, which its options do not say.
// Cost: that of Resolve.
func (o CheckOptions) Validate() error {
	_, err := o.check()
	return err
}

// check is Check, returning o.LSH resolved.
func (o *CheckOptions) check() (approx.Options, error) {
	if o.LSH.Measure == prefix.Overlap {
		return o.LSH, ErrNoLSH
	}
	lsh, err := o.LSH.Resolve()
	fail := func(option, format string, a ...any) (approx.Options, error) {
		return lsh, &OptionError{Option: option, Err: fmt.Errorf(format, a...)}
	}
	switch {
	case err != nil:
		return fail("LSH", "%w", err)
	case !(o.Confidence >= 0 && o.Confidence < 1):
		return fail("Confidence", "confidence %v: want a level in (0, 1)", o.Confidence)
	case o.Bins < 0 || o.Bins > 1000:
		return fail("Bins", "%d bins: want 1 to 1000", o.Bins)
	case o.Floor != 0 && lsh.Measure != prefix.Jaccard:
		return fail("Floor", "a floor needs a Jaccard self-join")
	case o.Seeds < 0:
		return fail("Seeds", "%d seeds: want >= 0", o.Seeds)
	case o.PairSample < 0:
		return fail("PairSample", "a pair sample of %d: want >= 0", o.PairSample)
	case o.Records < 0:
		return fail("Records", "%d records: want >= 0", o.Records)
	case o.Floor != 0 && !(o.Floor > 0 && o.Floor <= 1):
		return fail("Floor", "floor %v: want a Jaccard similarity in (0, 1]", o.Floor)
	case o.Floor == 0 && o.PairSample > 0:
		return fail("PairSample", "a pair sample needs a floor")
	}
	for _, sh := range o.Shapes {
		if err := sh.Validate(lsh.K); err != nil {
			return lsh, &OptionError{Option: "Shapes", Value: sh.String(), Err: fmt.Errorf("banding %s: %w", sh, err)}
		}
	}
	return lsh, nil
}

func newChecker(c, s *order.Collection, opt *CheckOptions) (*checker, error) {
	lsh, err := opt.check()
	if err != nil {
		return nil, err
	}
	if opt.Floor != 0 && s != nil {
		return nil, fmt.Errorf("planner: a floor needs a Jaccard self-join")
	}
	opt.LSH = lsh
	jt, _ := approx.JaccardThreshold(lsh.Measure, lsh.Threshold)
	opt.Confidence = cmp.Or(opt.Confidence, 0.95)
	opt.Bins = cmp.Or(opt.Bins, 20)
	ck := &checker{opt: opt, seeds: max(opt.Seeds, 1), jt: jt, shapes: opt.Shapes}
	if len(ck.shapes) == 0 {
		ck.shapes = []approx.Shape{lsh.Shape}
	}
	cc := &CrossCheck{Confidence: opt.Confidence, Whole: true}
	ck.cc = cc
	if opt.Floor != 0 {
		n := float64(opt.Bins)
		cc.Floor = math.Floor(min(opt.Floor, jt)*n+1e-9) / n
		if cc.Floor == 0 {
			cc.Floor = 1 / n
		}
		th, err := prefix.ThresholdOf(prefix.Jaccard, cc.Floor)
		if err != nil {
			return nil, err
		}
		b := prefix.NewBounds(prefix.Jaccard, th)
		ck.floor = &b
	}
	sides := []*order.Collection{c}
	if s != nil {
		sides = append(sides, s)
	}
	for _, x := range sides {
		if opt.Records > 0 && opt.Records < x.Len() {
			cc.Whole = false
		}
	}
	if !cc.Whole {
		for k, smp := range newSamples(sides, opt.Records, opt.Seed) {
			sides[k] = smp.C
		}
	}
	for _, x := range sides {
		cc.Records = append(cc.Records, x.Len())
	}
	ck.r = sides[0]
	ck.sizeA = sizesByID(ck.r)
	ck.sizeB = ck.sizeA
	if len(sides) > 1 {
		ck.s = sides[1]
		ck.sizeB = sizesByID(ck.s)
	}
	ck.atT = prefix.NewBounds(lsh.Measure, lsh.Threshold)
	return ck, nil
}

// exact runs the exact join (at the floor, if any) and keeps its pairs.
func (ck *checker) exact(ctx context.Context) error {
	lsh := ck.opt.LSH
	jopt := join.Options{Measure: lsh.Measure, Threshold: lsh.Threshold, Workers: lsh.Workers}
	if ck.floor != nil {
		jopt.Threshold = ck.floor.Threshold()
	}
	// A pair stands for its pair of distinct sets when both records are
	// the first (lowest id) of their group.
	var first []bool
	if ck.s == nil {
		first = make([]bool, len(ck.sizeA))
		for g := range ck.r.Groups() {
			lo, _ := ck.r.Group(g)
			first[ck.r.ID(lo)] = true
		}
	}
	stopped := false
	m, err := runPath(ctx, Exact, ck.r, ck.s, jopt, approx.Options{}, func(p join.Pair) bool {
		tp := truePair{key: pairKey(p.A, p.B), sim: jaccard(p.Overlap, ck.sizeA[p.A], ck.sizeB[p.B]), rep: first == nil || first[p.A] && first[p.B]}
		tp.atT = ck.floor == nil || ck.atT.Passes(p.Overlap, ck.sizeA[p.A], ck.sizeB[p.B])
		ck.truth = append(ck.truth, tp)
		if tp.atT && ck.opt.Exact != nil && !ck.opt.Exact(p) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	if stopped {
		return ErrStopped
	}
	ck.cc.Exact = m
	for _, tp := range ck.truth {
		if tp.atT {
			ck.cc.Pairs++
		}
	}
	ck.cc.AboveFloor = int64(len(ck.truth))
	return nil
}

// banding runs one banding ck.seeds times and measures it; the first run
// of the first banding goes to CheckOptions.Found.
func (ck *checker) banding(ctx context.Context, shape approx.Shape, first bool) (Banding, error) {
	opt := ck.opt
	nb := opt.Bins
	b := Banding{Shape: shape, AtThreshold: shape.P(ck.jt), Bins: make([]Bin, nb)}
	sampled := ck.floor != nil && !ck.cc.AllBelow
	for k := range b.Bins {
		bn := &b.Bins[k]
		bn.From, bn.To = float64(k)/float64(nb), float64(k+1)/float64(nb)
		bn.Sampled = sampled && bn.To <= ck.cc.Floor+1e-9
	}
	// The S-curve's predictions.
	pred := make([]float64, nb)
	var sumP, varP, sampleP float64
	for _, tp := range ck.truth {
		k := ck.bin(tp.sim)
		b.Bins[k].Pairs++
		pred[k] += shape.P(tp.sim)
		if tp.atT {
			p := shape.P(tp.sim)
			sumP += p
			varP += p * (1 - p)
		}
		if tp.rep {
			b.PredictedCandidates += shape.P(tp.sim)
		}
	}
	if ck.cc.Pairs > 0 {
		b.Predicted = sumP / float64(ck.cc.Pairs)
		b.PredictedSD = math.Sqrt(varP) / float64(ck.cc.Pairs)
	}
	for _, d := range ck.below {
		k := ck.bin(d.sim)
		b.Bins[k].Pairs++
		pred[k] += shape.P(d.sim)
		sampleP += shape.P(d.sim)
	}
	scale := 0.0
	if len(ck.below) > 0 {
		b.PredictedCandidates += ck.cc.Below * sampleP / float64(len(ck.below))
		scale = ck.cc.Below / float64(len(ck.below))
	}

	// The runs.
	lopt := opt.LSH
	lopt.Shape, lopt.Copies = shape, nil
	if ck.floor != nil {
		// The least threshold there is (prefix.Validate): every candidate
		// sharing a token passes, for sets of fewer than 10^9 tokens.
		lopt.Threshold = prefix.Threshold{Num: 1, Den: 1_000_000_000}
		lopt.Verify = approx.VerifyExact
	}
	runs := float64(ck.seeds)
	b.RecallMin, b.RecallMax = 1, 0
	var keys []uint64
	for seed := range ck.seeds {
		lopt.Seed = opt.LSH.Seed + uint64(seed)
		yield := opt.Found
		if !first || seed > 0 {
			yield = nil
		}
		keys = keys[:0]
		var reported int64 // pairs reported at or above the threshold
		stopped := false
		m, err := runPath(ctx, LSH, ck.r, ck.s, join.Options{}, lopt, func(p join.Pair) bool {
			keys = append(keys, pairKey(p.A, p.B))
			if ck.floor == nil || ck.atT.Passes(p.Overlap, ck.sizeA[p.A], ck.sizeB[p.B]) {
				reported++
			}
			if yield != nil && !yield(p) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil {
			return b, err
		}
		if stopped {
			return b, ErrStopped
		}
		slices.Sort(keys)
		has := func(key uint64) bool { _, ok := slices.BinarySearch(keys, key); return ok }
		var found int64 // true pairs at the threshold found
		for _, tp := range ck.truth {
			if has(tp.key) {
				b.Bins[ck.bin(tp.sim)].Found++
				if tp.atT {
					found++
				}
			}
		}
		for _, d := range ck.below {
			if has(d.key) {
				b.Bins[ck.bin(d.sim)].Found++
			}
		}
		cand := max(m.Candidates, found)
		b.Runs = append(b.Runs, Run{
			Seed:               lopt.Seed,
			LSH:                m,
			Recall:             ClopperPearson(found, ck.cc.Pairs, opt.Confidence),
			Precision:          ClopperPearson(found, reported, opt.Confidence),
			CandidatePrecision: ClopperPearson(found, cand, opt.Confidence),
		})
		b.Candidates += float64(m.Candidates) / runs
		st := m.LSH
		b.Seconds += (st.SignTime + st.BandTime + st.JoinTime).Seconds() / runs
		b.Found += float64(found) / runs
		recall := 1.0
		if ck.cc.Pairs > 0 {
			recall = float64(found) / float64(ck.cc.Pairs)
		}
		b.Recall += recall / runs
		b.RecallMin, b.RecallMax = min(b.RecallMin, recall), max(b.RecallMax, recall)
	}
	for k := range b.Bins {
		bn := &b.Bins[k]
		bn.Recall = ClopperPearson(bn.Found, bn.Pairs*int64(ck.seeds), opt.Confidence)
		bn.Estimate = float64(bn.Pairs)
		if bn.Pairs > 0 {
			bn.Predicted = pred[k] / bn.Estimate
		}
		if bn.Sampled {
			bn.Estimate *= scale
		}
	}
	if invariants.Enabled {
		ck.checkBanding(&b)
	}
	return b, nil
}

// checkBanding panics unless the bins partition the pairs measured and no
// bin found more than it holds, and unless ck.truth holds each pair once.
func (ck *checker) checkBanding(b *Banding) {
	var pairs int64
	for _, bn := range b.Bins {
		pairs += bn.Pairs
		if bn.Found > bn.Pairs*int64(len(b.Runs)) {
			panic(fmt.Sprintf("planner: bin [%v, %v) found %d of %d pairs in %d runs", bn.From, bn.To, bn.Found, bn.Pairs, len(b.Runs)))
		}
	}
	if pairs != int64(len(ck.truth)+len(ck.below)) {
		panic(fmt.Sprintf("planner: bins hold %d pairs, measured %d", pairs, len(ck.truth)+len(ck.below)))
	}
	keys := make([]uint64, len(ck.truth))
	for i, tp := range ck.truth {
		keys[i] = tp.key
	}
	slices.Sort(keys)
	if len(slices.Compact(keys)) != len(ck.truth) {
		panic("planner: a true pair held twice")
	}
}

// bin returns the bin of similarity j.
func (ck *checker) bin(j float64) int {
	nb := ck.opt.Bins
	return min(int(j*float64(nb)+1e-9), nb-1) // 0.6·20 is 11.999…
}

// stepTimer times a step.
type stepTimer struct {
	step  Step
	start time.Time
	cpu   time.Duration
	cpuOK bool
}

func startStep(s Step) stepTimer {
	c, ok := rusage.CPU()
	return stepTimer{s, time.Now(), c, ok}
}

func (t stepTimer) done() Step {
	s := t.step
	s.Seconds = time.Since(t.start).Seconds()
	if c, ok := rusage.CPU(); ok && t.cpuOK {
		s.CPU = (c - t.cpu).Seconds()
	}
	return s
}

// CheckSummary is one banding's first run of a check as one flat value:
// the form simjoin explain prints.
type CheckSummary struct {
	Records            []int    `json:"records"`
	Whole              bool     `json:"whole"`
	Confidence         float64  `json:"confidence"`
	Exact              Measured `json:"exact"`
	LSH                Measured `json:"lsh"`
	Recall             Interval `json:"recall"`
	Precision          Interval `json:"precision"`
	CandidatePrecision Interval `json:"candidate_precision"`
	Predicted          float64  `json:"predicted_recall"`
	AtThreshold        float64  `json:"recall_at_threshold"`
	// Bins are the bins that hold pairs, in order.
	Bins []RecallBin `json:"bins"`
}

// RecallBin is the recall of the true pairs whose Jaccard similarity lies in
// [From, To), beside what the S-curve predicts for them (the mean of P over
// their similarities).
type RecallBin struct {
	From      float64  `json:"from"`
	To        float64  `json:"to"`
	Recall    Interval `json:"recall"`
	Predicted float64  `json:"predicted"`
}

// Summary returns the first banding's first run as a CheckSummary. Cost:
// O(bins).
func (cc *CrossCheck) Summary() *CheckSummary {
	b := cc.Bandings[0]
	r := b.Runs[0]
	s := &CheckSummary{Records: cc.Records, Whole: cc.Whole, Confidence: cc.Confidence, Exact: cc.Exact, LSH: r.LSH,
		Recall: r.Recall, Precision: r.Precision, CandidatePrecision: r.CandidatePrecision, Predicted: b.Predicted, AtThreshold: b.AtThreshold}
	for _, bn := range b.Bins {
		if bn.Pairs > 0 {
			s.Bins = append(s.Bins, RecallBin{bn.From, bn.To, bn.Recall, bn.Predicted})
		}
	}
	return s
}
