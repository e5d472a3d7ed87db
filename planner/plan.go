package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
func (m Method) String() string { return enumText(methodNames[:], m, "method") }

// MarshalText returns the method's name, so that JSON shows "exact".
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ErrMethod is returned (wrapped) for an unknown method: a name ParseMethod
// does not know, a Method outside Auto..LSH, and likewise the index's
// methods (index.ParseMethod). It is the one sentinel for that condition.
var ErrMethod = errors.New("unknown method")

// ParseMethod reads "auto", "exact" or "lsh".
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if strings.EqualFold(s, n) {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("planner: %w %q: want auto, exact or lsh", ErrMethod, s)
}

// Defaults filled in by Options.
const (
	// DefaultPrefer: exact is chosen while the predicted CPU time of its
	// whole run is at most 1.25 times LSH's, since it loses nothing.
	DefaultPrefer = 1.25
	// DefaultSampleSize is the number of records (per side) sampled to
	// estimate the exact path's candidates and the number of results.
	DefaultSampleSize = 2000
	// DefaultPairSample is the number of random pairs whose similarity is
	// measured to estimate LSH's chance candidates.
	DefaultPairSample = 20000
	// DefaultBudget: the samples may take 3% of the CPU time of the least
	// whole run of either path (exact's reading, order and grouping; LSH's
	// reading, signing and banding), and at least 10 ms.
	DefaultBudget = 0.03
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
	// chosen while the predicted CPU time of its whole run is at most Prefer
	// times LSH's. 0 means DefaultPrefer; it must be >= 1.
	Prefer float64
	// FrontEnd is what reading the input did, which prices both paths'
	// reading and the exact path's order. The zero value prices neither:
	// the joins alone, after the collections are built.
	FrontEnd FrontEnd
	// SampleSize is the number of records per side joined exactly to
	// estimate candidates and results; 0 means DefaultSampleSize, negative
	// means no sample (upper bounds are used).
	SampleSize int
	// PairSample is the number of random pairs measured; 0 means
	// DefaultPairSample, negative means none.
	PairSample int
	// Budget bounds the samples' CPU time, as a share of the least whole
	// run of either path (exact's reading, order and grouping; LSH's
	// reading, signing and banding), with a floor of 10 ms; SampleSize and
	// PairSample bound them further. 0 means DefaultBudget. Larger budgets
	// buy steadier estimates.
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

// Figure is a number that decided a plan: which one (its Name, whose Unit
// the value is in) and its value.
type Figure struct {
	Name  FigureName
	Value float64
}

// MarshalJSON writes f as {"name", "value", "unit"}, the unit ("s", "x" or
// "%") left out for counts and ratios.
func (f Figure) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name  FigureName `json:"name"`
		Value float64    `json:"value"`
		Unit  Unit       `json:"unit,omitempty"`
	}{f.Name, f.Value, f.Name.Unit()})
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
	// Least is the least CPU time the whole run can take: reading, the
	// order and grouping the sets, before any probe.
	Least float64 `json:"least_cpu_s"`
}

// LSHEstimate is the LSH path's parameters and predicted work and cost. When
// LSH is not available, Why says why and the rest is zero.
type LSHEstimate struct {
	Available bool `json:"available"`
	// Why is the error that makes LSH unavailable (from
	// approx.Options.Resolve, such as a measure without a Jaccard bound); nil
	// when Available. JSON holds its text, under "why".
	Why error `json:"-"`
	// Scheme is the MinHash scheme (JSON: "oneperm" or "classic", left out
	// when not Available), K the signature length, Bits the bits kept of
	// each value, Bands x Rows the banding, Seed the hash seed: the resolved
	// approx.Options.
	Scheme approx.Scheme `json:"-"`
	K      int           `json:"k,omitempty"`
	Bits   int           `json:"bits,omitempty"`
	Bands  int           `json:"bands,omitempty"`
	Rows   int           `json:"rows,omitempty"`
	Seed   uint64        `json:"seed"`
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
	Cost       Cost    `json:"cost"`

	opt approx.Options // resolved
}

// MarshalJSON writes l with its fields' JSON names, Why as its text (left
// out when nil) and Scheme as its name (left out when LSH is not
// available).
func (l LSHEstimate) MarshalJSON() ([]byte, error) {
	type fields LSHEstimate // without this method
	var why string
	var scheme *approx.Scheme
	if l.Why != nil {
		why = l.Why.Error()
	}
	if l.Available {
		scheme = &l.Scheme
	}
	// Fields of the outer struct hide the embedded ones of the same JSON
	// name, and come first: the order of LSHEstimate's fields.
	return json.Marshal(struct {
		Available bool           `json:"available"`
		Why       string         `json:"why,omitempty"`
		Scheme    *approx.Scheme `json:"scheme,omitempty"`
		fields
	}{l.Available, why, scheme, fields(l)})
}

// SampleEstimate records the samples behind a plan's estimates.
type SampleEstimate struct {
	// ExactRecords is the records per side of the sample joined exactly
	// (empty: none, and the exact path's candidates are bounded by its
	// postings). Its pairs are ExactFraction of the input's.
	ExactRecords  []int   `json:"exact_records,omitempty"`
	ExactFraction float64 `json:"exact_fraction,omitempty"`
	// ExactUnitFraction and LSHUnitFraction are the samples' shares of the
	// input's pairs of distinct sets, which postings, band collisions and
	// candidates pair (fewer than the pairs of records where sets repeat).
	ExactUnitFraction float64 `json:"exact_unit_fraction,omitempty"`
	// Ell is the tokens per index key of the sample's exact join: the
	// path the whole join takes (join.ChooseEll).
	Ell        int   `json:"key_tokens,omitempty"`
	Postings   int64 `json:"postings"`   // postings in the size window of the sample's exact join
	Examined   int64 `json:"examined"`   // postings whose candidate it examined
	Candidates int64 `json:"candidates"` // its candidates
	Verified   int64 `json:"verified"`   // its verified candidates
	Results    int64 `json:"results"`    // its results
	// IndexEntries and ProbeTokens are its index's entries and the
	// probe-prefix tokens it looked up.
	IndexEntries int64 `json:"index_entries"`
	ProbeTokens  int64 `json:"probe_tokens"`
	// LSHRecords is the records per side of the sample joined with LSH,
	// whose pairs are LSHFraction of the input's.
	LSHRecords      []int   `json:"lsh_records,omitempty"`
	LSHFraction     float64 `json:"lsh_fraction,omitempty"`
	LSHUnitFraction float64 `json:"lsh_unit_fraction,omitempty"`
	LSHCollisions   int64   `json:"lsh_collisions"`
	LSHCandidates   int64   `json:"lsh_candidates"`
	LSHResults      int64   `json:"lsh_results"`
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
// a plain value: safe to copy, print and marshal. It holds no text: its
// names marshal as text, and the command words its reason
// (cmd/simjoin/internal/report).
type Plan struct {
	Method Method `json:"method"`           // Exact or LSH, never Auto; LSH only when LSH.Available or Forced
	Forced bool   `json:"forced,omitempty"` // the method was given, not chosen (Reason.Code is ReasonAsked)
	// Measure and Threshold are those the plan was made for (Options'):
	// JSON holds their names and decimals, "jaccard" and "0.8".
	Measure   prefix.Measure   `json:"measure"`
	Threshold prefix.Threshold `json:"threshold"`
	// Prefer is the factor within which exact is preferred (Options.Prefer,
	// DefaultPrefer when 0 was given).
	Prefer float64 `json:"prefer"`
	// Recall is the predicted recall of the chosen path: 1 for exact,
	// LSH.Recall for LSH.
	Recall float64 `json:"recall"`
	// Reason is why Method was chosen: a code and the figures it compared.
	Reason Reason `json:"reason"`
	// Figures are the numbers behind the choice, in a fixed order: the
	// predicted CPU time of each path, the exact path's postings, the
	// candidates of each path, LSH's recall and the expected results.
	Figures []Figure `json:"figures"`
	// FrontEnd is what reading the input did (Options.FrontEnd), with the
	// distinct tokens counted on the order or estimated before it.
	FrontEnd FrontEnd `json:"front_end"`
	// Ordered says the exact path was priced on the token order (New,
	// WithOrder); false for a plan made before it (NewKeys), whose exact
	// work is estimated from a sample joined over an order of its own.
	Ordered bool `json:"ordered"`
	// Exact and LSH are both paths priced whole, whichever was chosen;
	// Stats describes each side's collection (one for a self-join; before
	// the order its frequencies are estimated, Stats.Sampled), Sample the
	// samples behind the estimates.
	Exact  ExactEstimate  `json:"exact"`
	LSH    LSHEstimate    `json:"lsh"`
	Stats  []Stats        `json:"stats"`
	Sample SampleEstimate `json:"sample"`
	// Seconds and CPU are the wall and CPU time planning took (statistics,
	// prefix sums, samples; before the order and on it, for a plan
	// completed by WithOrder).
	Seconds float64 `json:"plan_s"`
	CPU     float64 `json:"plan_cpu_s"`

	opt     Options // resolved
	workers int
	ell     int // a self-join's index keys (join.ChooseEll); 0 for an R-S join
	// units and unitTokens are the distinct non-empty sets LSH signs and
	// their tokens (counted on the order; estimated from a hash of each
	// set before it).
	units      int
	unitTokens int64
	probes     float64   // the densification probes expected (one-permutation scheme)
	keyRate    float64   // the share of distinct keys NewKeys counted exactly (1 on the order)
	pairHist   []float64 // the pairs of random pairs below the threshold, by Jaccard bin
	exactRes   []float64 // the results by Jaccard bin from the exact sample
	lshRes     []float64 // the results by Jaccard bin from the LSH sample
}

// Bounds returns the measure and threshold the plan was made for.
func (p *Plan) Bounds() prefix.Bounds { return prefix.NewBounds(p.Measure, p.Threshold) }

// LSHOptions returns the resolved options the LSH path runs with (shape
// chosen, defaults filled in), or false when LSH is not available.
func (p *Plan) LSHOptions() (approx.Options, bool) { return p.LSH.opt, p.LSH.Available }

// New plans a self-join of c. s, when not nil, makes it an R-S join of c
// against s (both from one order.Build call). The order is built: both
// paths start from it (Options.FrontEnd is taken as Ordered), and LSH is
// priced over the collections.
//
// Planning reads the collections (Collect, SelfWork or RSWork), joins a seeded
// sample of SampleSize records exactly and measures PairSample random pairs;
// ctx cancels the sample join. It is deterministic: the same input, options
// and seed give the same plan. Cost: linear in the prefixes and the tokens,
// plus the sample join, whose pairs are about (SampleSize/n)² of the input's
// (none when upper bounds already decide). Safe for concurrent use; the
// collections are only read.
func New(ctx context.Context, c, s *order.Collection, opt Options) (*Plan, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	p := newPlan(opt)
	p.Ordered = true
	p.FrontEnd.Ordered = p.FrontEnd.given()
	pl, done := start(opt, p)
	defer done()
	pl.c, pl.s = c, s
	return pl.planOrdered(ctx)
}

// resolve checks o and fills in its defaults.
func (o Options) resolve() (Options, error) {
	t, err := prefix.Validate(o.Measure, o.Threshold)
	if err != nil {
		return o, fmt.Errorf("planner: %w", err)
	}
	o.Threshold = t
	if o.Prefer == 0 {
		o.Prefer = DefaultPrefer
	}
	if !(o.Prefer >= 1) || math.IsInf(o.Prefer, 0) {
		return o, fmt.Errorf("planner: Prefer %v: want a factor >= 1", o.Prefer)
	}
	if o.Method > LSH {
		return o, fmt.Errorf("planner: %w %d", ErrMethod, o.Method)
	}
	if o.SampleSize == 0 {
		o.SampleSize = DefaultSampleSize
	}
	if o.PairSample == 0 {
		o.PairSample = DefaultPairSample
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if !(o.Budget > 0) || math.IsInf(o.Budget, 0) {
		return o, fmt.Errorf("planner: Budget %v: want a share > 0", o.Budget)
	}
	o.Workers = parallel.Workers(o.Workers)
	return o, nil
}

// newPlan returns an empty plan for the resolved options.
func newPlan(opt Options) *Plan {
	return &Plan{Measure: opt.Measure, Threshold: opt.Threshold, Prefer: opt.Prefer, FrontEnd: opt.FrontEnd,
		opt: opt, workers: opt.Workers, keyRate: 1}
}

// NeedsOrder reports whether the plan, made before the order (NewKeys),
// chose exact: its run needs the collections, and WithOrder completes the
// plan on them (and may choose LSH after all).
func (p *Plan) NeedsOrder() bool { return !p.Ordered && p.Method == Exact }

// ReasonCode is why a plan chose its method.
type ReasonCode uint8

const (
	// ReasonAsked: Options.Method named the method (Plan.Forced).
	ReasonAsked ReasonCode = iota + 1
	// ReasonNoLSH: exact, because LSH is not available (LSHEstimate.Why).
	ReasonNoLSH
	// ReasonNoPairs: exact, because the input has no pairs to join.
	ReasonNoPairs
	// ReasonExactWithin: exact, because the predicted CPU time of its whole
	// run is at most Prefer times LSH's, and it loses no pair.
	ReasonExactWithin
	// ReasonLSHCheaper: LSH, because the predicted CPU time of exact's
	// whole run is more than Prefer times LSH's.
	ReasonLSHCheaper
	// ReasonBeforeOrder: LSH, decided before the token order was built,
	// because even the least exact's whole run can cost (reading, the
	// order, grouping: ExactEstimate.Least) is more than Prefer times
	// LSH's predicted CPU time; the order is not built.
	ReasonBeforeOrder
	// ReasonPending: exact for now, made before the order (NewKeys): LSH
	// does not clearly pay against exact's least, and WithOrder decides
	// on the order (Plan.NeedsOrder).
	ReasonPending
)

var reasonNames = [...]string{ReasonAsked: "asked", ReasonNoLSH: "no_lsh", ReasonNoPairs: "no_pairs",
	ReasonExactWithin: "exact_within", ReasonLSHCheaper: "lsh_cheaper", ReasonBeforeOrder: "lsh_before_order",
	ReasonPending: "pending_order"}

// String returns "asked", "no_lsh", "no_pairs", "exact_within",
// "lsh_cheaper", "lsh_before_order" or "pending_order".
func (c ReasonCode) String() string { return enumText(reasonNames[:], c, "reason") }

// MarshalText returns the code's name.
func (c ReasonCode) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Reason is why a plan chose its method: the code, and the figures the
// choice compared (copies of the plan's; zero where the code compares
// none).
type Reason struct {
	Code ReasonCode `json:"code"`
	// ExactCPU and LSHCPU are the predicted CPU seconds of the paths'
	// whole runs (Exact.Cost.CPU, LSH.Cost.CPU) and Prefer the factor
	// within which exact is preferred: set for every code but ReasonAsked,
	// ReasonNoLSH and ReasonNoPairs. ExactLeast is exact's least
	// (Exact.Least): set for ReasonBeforeOrder and ReasonPending, which
	// compare it.
	ExactCPU   float64 `json:"exact_cpu_s,omitempty"`
	LSHCPU     float64 `json:"lsh_cpu_s,omitempty"`
	Prefer     float64 `json:"prefer,omitempty"`
	ExactLeast float64 `json:"exact_least_cpu_s,omitempty"`
	// Recall and AtThreshold are LSH's expected recall and its recall at the
	// threshold (LSH.Recall, LSH.AtThreshold): set when the code is LSH's.
	Recall      float64 `json:"recall,omitempty"`
	AtThreshold float64 `json:"recall_at_threshold,omitempty"`
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
		p.Reason = Reason{Code: ReasonAsked}
	case !p.LSH.Available:
		p.Method = Exact
		p.Reason = Reason{Code: ReasonNoLSH}
	case pl.pairs == 0:
		p.Method = Exact
		p.Reason = Reason{Code: ReasonNoPairs}
	case !p.Ordered && p.Exact.Least > opt.Prefer*l:
		p.Method = LSH
		p.Reason = Reason{Code: ReasonBeforeOrder, ExactCPU: e, LSHCPU: l, Prefer: opt.Prefer, ExactLeast: p.Exact.Least,
			Recall: p.LSH.Recall, AtThreshold: p.LSH.AtThreshold}
	case !p.Ordered:
		p.Method = Exact
		p.Reason = Reason{Code: ReasonPending, ExactCPU: e, LSHCPU: l, Prefer: opt.Prefer, ExactLeast: p.Exact.Least}
	case e <= opt.Prefer*l:
		p.Method = Exact
		p.Reason = Reason{Code: ReasonExactWithin, ExactCPU: e, LSHCPU: l, Prefer: opt.Prefer}
	default:
		p.Method = LSH
		p.Reason = Reason{Code: ReasonLSHCheaper, ExactCPU: e, LSHCPU: l, Prefer: opt.Prefer,
			Recall: p.LSH.Recall, AtThreshold: p.LSH.AtThreshold}
	}
	p.Recall = 1
	if p.Method == LSH {
		p.Recall = p.LSH.Recall
	}
	w := p.Exact.Work
	f := []Figure{
		{FigureExactCPU, e},
	}
	if p.LSH.Available {
		f = append(f, Figure{FigureLSHCPU, l})
		if l > 0 {
			f = append(f, Figure{FigureExactOverLSH, e / l})
		}
	}
	var tokens int64
	for _, st := range p.Stats {
		tokens += st.Tokens
	}
	if w.Ell > 1 {
		f = append(f, Figure{FigureKeyTokens, float64(w.Ell)},
			Figure{FigureKeyPostings, float64(w.Postings)})
		if w.ProbeTokens > 0 {
			f = append(f, Figure{FigureMeanKeyPostings, float64(w.Postings) / float64(w.ProbeTokens)})
		}
	} else {
		f = append(f, Figure{FigurePrefixPostings, float64(w.Postings)})
		if w.ProbeTokens > 0 {
			f = append(f, Figure{FigureMeanTokenPostings, float64(w.Postings) / float64(w.ProbeTokens)})
		}
	}
	if tokens > 0 && w.Ell <= 1 {
		f = append(f, Figure{FigureProbeShare, 100 * float64(w.ProbeTokens) / float64(tokens)})
	}
	f = append(f, Figure{FigureExactCandidates, p.Exact.Candidates})
	if p.LSH.Available {
		f = append(f,
			Figure{FigureLSHCandidates, p.LSH.Candidates},
			Figure{FigureLSHRecall, p.LSH.Recall},
		)
	}
	f = append(f, Figure{FigureResults, p.Sample.Predicted})
	p.Figures = f
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
	if !(e.Verified <= e.Candidates && e.Candidates <= e.Examined && e.Examined <= float64(e.Work.Postings)+0.5) {
		panic(fmt.Sprintf("planner: exact estimate out of order: %v verified, %v candidates, %v examined, %d postings",
			e.Verified, e.Candidates, e.Examined, e.Work.Postings))
	}
	if e.Least > e.Cost.CPU*(1+1e-9) {
		panic(fmt.Sprintf("planner: exact's least %v s is more than its cost %v s", e.Least, e.Cost.CPU))
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
