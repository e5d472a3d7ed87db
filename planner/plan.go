package planner

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// Method is a join path.
type Method uint8

const (
	// Auto lets the planner choose (in Options); a Plan never holds it.
	Auto Method = iota
	// Exact is the prefix-filter join of package join: every pair, no loss.
	Exact
	// LSH is the MinHash-LSH join of package approx: candidates from
	// signature bands, verified exactly; a pair may be missed.
	LSH
)

var methodNames = [...]string{Auto: "auto", Exact: "exact", LSH: "lsh"}

// String returns "auto", "exact" or "lsh".
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "method(" + strconv.Itoa(int(m)) + ")"
}

// MarshalText returns the method's name, so that JSON shows "exact".
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ParseMethod reads "auto", "exact" or "lsh".
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if strings.EqualFold(s, n) {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("planner: unknown method %q: want auto, exact or lsh", s)
}

// Defaults filled in by Options.
const (
	// DefaultPrefer: exact is chosen while its predicted CPU time is at most
	// 1.25 times LSH's, since it loses nothing.
	DefaultPrefer = 1.25
	// DefaultSampleSize is the number of records (per side) sampled to
	// estimate the exact path's candidates and the number of results.
	DefaultSampleSize = 2000
	// DefaultPairSample is the number of random pairs whose similarity is
	// measured to estimate LSH's chance candidates.
	DefaultPairSample = 20000
	// DefaultBudget: the samples may take a quarter of the CPU time of the
	// cheaper path's least cost (exact's upper bound, LSH's signing and
	// banding), and at least 10 ms.
	DefaultBudget = 0.25
)

// Options configures planning. The zero value of every field but Threshold
// works: Jaccard, the planner's choice, approx's defaults for LSH, the
// calibrated constants, all cores.
type Options struct {
	Measure   prefix.Measure
	Threshold prefix.Threshold // from prefix.ParseThreshold or prefix.ThresholdOf; required
	// Method forces a path when Exact or LSH; the plan still prices both.
	Method Method
	// LSH holds the LSH parameters (scheme, K, bits, shape or target recall,
	// seed, bucket cap); Measure, Threshold and Workers are taken from these
	// Options. A zero Shape is chosen by approx for the target recall.
	LSH approx.Options
	// Prefer is the factor within which exact is preferred to LSH: exact is
	// chosen while its predicted CPU time is at most Prefer times LSH's. 0 means
	// DefaultPrefer; it must be >= 1.
	Prefer float64
	// SampleSize is the number of records per side joined exactly to
	// estimate candidates and results; 0 means DefaultSampleSize, negative
	// means no sample (upper bounds are used).
	SampleSize int
	// PairSample is the number of random pairs measured; 0 means
	// DefaultPairSample, negative means none.
	PairSample int
	// Budget bounds the samples' CPU time, as a share of the cheaper path's
	// least cost (exact's upper bound, LSH's signing and banding), with a
	// floor of 10 ms; SampleSize and PairSample bound them further. 0 means
	// DefaultBudget. Larger budgets buy steadier estimates.
	Budget float64
	// Seed seeds the samples; the plan is the same for the same input,
	// options and seed.
	Seed uint64
	// Workers is the number of goroutines of the runs; 0 means GOMAXPROCS, and
	// more than 4·GOMAXPROCS means 4·GOMAXPROCS.
	Workers int
	// Calibration holds the unit costs; nil means DefaultCalibration().
	Calibration *Calibration
}

// Figure is a number that decided a plan, with its unit ("s", "x", "%" or a
// noun) for people.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// ExactEstimate is the exact path's predicted work and cost.
type ExactEstimate struct {
	Work ExactWork `json:"work"`
	// Examined, Candidates and Verified are predicted from Work.Postings
	// and the ratios measured on the sample (upper bounds when there is
	// none): the postings whose candidate the join examines, the distinct
	// candidates, and the candidates merged. Verified <= Candidates <=
	// Examined <= Work.Postings, as in the join's Stats.
	Examined   float64 `json:"examined"`
	Candidates float64 `json:"candidates"`
	Verified   float64 `json:"verified"`
	Cost       Cost    `json:"cost"`
}

// LSHEstimate is the LSH path's parameters and predicted work and cost.
type LSHEstimate struct {
	Available bool   `json:"available"`
	Why       string `json:"why,omitempty"` // why not, when not available
	Scheme    string `json:"scheme,omitempty"`
	K         int    `json:"k,omitempty"`
	Bits      int    `json:"bits,omitempty"`
	Bands     int    `json:"bands,omitempty"`
	Rows      int    `json:"rows,omitempty"`
	Seed      uint64 `json:"seed"`
	// JaccardThreshold is the Jaccard similarity the banding is chosen for
	// (approx.JaccardThreshold).
	JaccardThreshold float64 `json:"jaccard_threshold,omitempty"`
	// AtThreshold is P(JaccardThreshold): every pair at or above the
	// threshold is found with at least this probability.
	AtThreshold float64 `json:"recall_at_threshold,omitempty"`
	// Recall is the expected recall: the mean of the S-curve over the
	// similarities of the result pairs of the exact sample (over [t, 1]
	// uniformly when that holds none).
	Recall float64 `json:"recall,omitempty"`
	// CurveCollisions and CurveCandidates are the band collisions (repeats
	// included) and distinct candidate pairs the S-curve predicts over the
	// estimated similarity distribution of all pairs.
	CurveCollisions float64 `json:"curve_collisions,omitempty"`
	CurveCandidates float64 `json:"curve_candidates,omitempty"`
	// Collisions and Candidates are what the cost uses: those of the LSH
	// join of the sample scaled to the input when there is a sample (they
	// include what the S-curve does not model: signature values that are
	// not independent, as densified one-permutation hashing gives small
	// sets, and capped buckets), the S-curve's otherwise.
	Collisions float64 `json:"collisions,omitempty"`
	Candidates float64 `json:"candidates,omitempty"`
	// DensifyProbes is the expected number of probes densification makes
	// (one-permutation hashing: sets with fewer tokens than K leave bins
	// empty).
	DensifyProbes float64 `json:"densify_probes,omitempty"`
	Cost          Cost    `json:"cost"`

	opt approx.Options // resolved
}

// SampleEstimate records the samples behind a plan's estimates.
type SampleEstimate struct {
	// ExactRecords is the records per side of the sample joined exactly
	// (empty: none, and the exact path's candidates are bounded by its
	// postings). Its pairs are ExactFraction of the input's.
	ExactRecords  []int   `json:"exact_records,omitempty"`
	ExactFraction float64 `json:"exact_fraction,omitempty"`
	// Ell is the tokens per index key of the sample's exact join: the
	// path the whole join takes (join.ChooseEll).
	Ell        int   `json:"key_tokens,omitempty"`
	Postings   int64 `json:"postings"`   // postings in the size window of the sample's exact join
	Examined   int64 `json:"examined"`   // postings whose candidate it examined
	Candidates int64 `json:"candidates"` // its candidates
	Verified   int64 `json:"verified"`   // its verified candidates
	Results    int64 `json:"results"`    // its results
	// LSHRecords is the records per side of the sample joined with LSH,
	// whose pairs are LSHFraction of the input's.
	LSHRecords    []int   `json:"lsh_records,omitempty"`
	LSHFraction   float64 `json:"lsh_fraction,omitempty"`
	LSHCollisions int64   `json:"lsh_collisions"`
	LSHCandidates int64   `json:"lsh_candidates"`
	LSHResults    int64   `json:"lsh_results"`
	// Pairs is the number of random pairs whose similarity was measured.
	Pairs int `json:"pairs"`
	// Predicted is the expected number of results of the input.
	Predicted float64 `json:"predicted_results"`
	// Similar is the predicted number of pairs of the input by Jaccard
	// similarity, in Bins equal bins over [0, 1].
	Similar []float64 `json:"similar_by_jaccard,omitempty"`
}

// Bins is the number of similarity bins of SampleEstimate.Similar.
const Bins = 100

// Plan is the planner's choice for one join and the figures behind it. It is
// a plain value: safe to copy, print and marshal.
type Plan struct {
	Method    Method  `json:"method"`           // Exact or LSH, never Auto; LSH only when LSH.Available or Forced
	Forced    bool    `json:"forced,omitempty"` // the method was given, not chosen
	Measure   string  `json:"measure"`
	Threshold string  `json:"threshold"`
	Prefer    float64 `json:"prefer"`
	// Recall is the predicted recall of the chosen path: 1 for exact,
	// LSH.Recall for LSH.
	Recall  float64        `json:"recall"`
	Reason  string         `json:"reason"`
	Figures []Figure       `json:"figures"`
	Exact   ExactEstimate  `json:"exact"`
	LSH     LSHEstimate    `json:"lsh"`
	Stats   []Stats        `json:"stats"` // one per side
	Sample  SampleEstimate `json:"sample"`
	// Seconds is the time planning took (statistics, prefix sums, samples).
	Seconds float64 `json:"plan_s"`

	m        prefix.Measure
	t        prefix.Threshold
	workers  int
	ell      int // a self-join's index keys (join.ChooseEll); 0 for an R-S join
	meanSize float64
	lsh      lshWork // the LSH path's work but its collisions, candidates and results
}

// Bounds returns the measure and threshold the plan was made for.
func (p *Plan) Bounds() prefix.Bounds { return prefix.NewBounds(p.m, p.t) }

// LSHOptions returns the resolved options the LSH path runs with (shape
// chosen, defaults filled in), or false when LSH is not available.
func (p *Plan) LSHOptions() (approx.Options, bool) { return p.LSH.opt, p.LSH.Available }

// New plans a self-join of c. s, when not nil, makes it an R-S join of c
// against s (both from one order.Build call).
//
// Planning reads the collections (Collect, SelfWork or RSWork), joins a seeded
// sample of SampleSize records exactly and measures PairSample random pairs;
// ctx cancels the sample join. It is deterministic: the same input, options
// and seed give the same plan. Cost: linear in the prefixes and the tokens,
// plus the sample join, whose pairs are about (SampleSize/n)² of the input's
// (none when upper bounds already decide). Safe for concurrent use; the
// collections are only read.
func New(ctx context.Context, c, s *order.Collection, opt Options) (*Plan, error) {
	if opt.Threshold.Den == 0 {
		return nil, fmt.Errorf("planner: %w", prefix.ErrNoThreshold)
	}
	if opt.Measure > prefix.Overlap {
		return nil, fmt.Errorf("planner: %w: %d", prefix.ErrMeasure, opt.Measure)
	}
	if opt.Prefer == 0 {
		opt.Prefer = DefaultPrefer
	}
	if !(opt.Prefer >= 1) || math.IsInf(opt.Prefer, 0) {
		return nil, fmt.Errorf("planner: Prefer %v: want a factor >= 1", opt.Prefer)
	}
	if opt.Method > LSH {
		return nil, fmt.Errorf("planner: unknown method %d", opt.Method)
	}
	if opt.SampleSize == 0 {
		opt.SampleSize = DefaultSampleSize
	}
	if opt.PairSample == 0 {
		opt.PairSample = DefaultPairSample
	}
	if opt.Budget == 0 {
		opt.Budget = DefaultBudget
	}
	if !(opt.Budget > 0) || math.IsInf(opt.Budget, 0) {
		return nil, fmt.Errorf("planner: Budget %v: want a share > 0", opt.Budget)
	}
	opt.Workers = parallel.Workers(opt.Workers)
	cal := opt.Calibration
	if cal == nil {
		cal = &defaultCalibration
	}
	pl := &planning{opt: opt, cal: cal, c: c, s: s, b: prefix.NewBounds(opt.Measure, opt.Threshold)}
	return pl.plan(ctx)
}

// decide picks the method and writes the reason and the figures. It compares
// CPU time, which does not depend on the number of cores, so that the choice
// (and with it the answer) does not either.
func (pl *planning) decide() {
	p := pl.p
	opt := pl.opt
	e, l := p.Exact.Cost.CPU, p.LSH.Cost.CPU
	switch {
	case opt.Method != Auto:
		p.Method, p.Forced = opt.Method, true
		p.Reason = fmt.Sprintf("%s was asked for", opt.Method)
	case !p.LSH.Available:
		p.Method = Exact
		p.Reason = "exact: LSH is not available here (" + p.LSH.Why + ")"
	case pl.pairs == 0:
		p.Method = Exact
		p.Reason = "exact: there are no pairs to join"
	case e <= opt.Prefer*l:
		p.Method = Exact
		p.Reason = fmt.Sprintf("exact: predicted at %s of CPU against %s for LSH (%.2fx); exact is preferred within %gx, since it loses no pair",
			secs(e), secs(l), e/l, opt.Prefer)
	default:
		p.Method = LSH
		p.Reason = fmt.Sprintf("lsh: predicted at %s of CPU against %s for exact (%.1fx less), expected recall %.3f (at least %.3f for every pair at the threshold)",
			secs(l), secs(e), e/l, p.LSH.Recall, p.LSH.AtThreshold)
	}
	p.Recall = 1
	if p.Method == LSH {
		p.Recall = p.LSH.Recall
	}
	w := p.Exact.Work
	f := []Figure{
		{"exact predicted CPU", e, "s"},
	}
	if p.LSH.Available {
		f = append(f, Figure{"lsh predicted CPU", l, "s"})
		if l > 0 {
			f = append(f, Figure{"exact / lsh", e / l, "x"})
		}
	}
	var tokens int64
	for _, st := range p.Stats {
		tokens += st.Tokens
	}
	if w.Ell > 1 {
		f = append(f, Figure{"tokens per index key", float64(w.Ell), ""},
			Figure{"key postings", float64(w.Postings), ""})
		if w.ProbeTokens > 0 {
			f = append(f, Figure{"mean postings per key", float64(w.Postings) / float64(w.ProbeTokens), ""})
		}
	} else {
		f = append(f, Figure{"prefix postings", float64(w.Postings), ""})
		if w.ProbeTokens > 0 {
			f = append(f, Figure{"mean postings per probe token", float64(w.Postings) / float64(w.ProbeTokens), ""})
		}
	}
	if tokens > 0 && w.Ell <= 1 {
		f = append(f, Figure{"probe prefix share of tokens", 100 * float64(w.ProbeTokens) / float64(tokens), "%"})
	}
	f = append(f, Figure{"exact candidates", p.Exact.Candidates, ""})
	if p.LSH.Available {
		f = append(f,
			Figure{"lsh candidates", p.LSH.Candidates, ""},
			Figure{"lsh recall", p.LSH.Recall, ""},
		)
	}
	f = append(f, Figure{"expected results", p.Sample.Predicted, ""})
	p.Figures = f
}

// secs formats seconds for a reason: "0.42 s", "12 ms", "3.1 µs".
func secs(s float64) string {
	switch {
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	case s >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + " ms"
	default:
		return strconv.FormatFloat(s*1e6, 'g', 3, 64) + " µs"
	}
}
