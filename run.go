package simjoin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

// SimilarityBins is the number of bins of Stats.Similarity.
const SimilarityBins = 20

// Stats is what a join did: counters with one meaning on every path, and
// durations. It holds no text; the simjoin command formats it.
type Stats struct {
	// Method is the path that ran: Exact or LSH.
	Method Method
	// Plan is the planner's plan when Options.Method was Auto; nil when the
	// method was given (nothing was planned).
	Plan *Plan

	// The input: records of both sides, those with an empty set (which
	// never join), tokens in the sets, distinct tokens (-1 for an input
	// loaded for LSH, whose tokens are not ordered: Input.Vocabulary counts
	// them).
	Records, Skipped, Tokens, Vocabulary int
	// Bytes is the bytes read and tokenized: the lines of Lines sources
	// with their ends, the strings of Strings, the (decompressed) contents
	// of Files; 0 for Sets.
	Bytes int64
	// Files counts what Files sources listed and read; nil without them.
	Files *records.FileStats

	// Exact holds the counters of the exact join when it ran, LSH those of
	// the LSH join; the other is nil.
	Exact *join.Stats
	LSH   *approx.Stats
	// CrossCheck is LSH measured against the exact join on the same input
	// when Options.CheckRecall asked for it and LSH ran; nil otherwise.
	CrossCheck *planner.CrossCheck

	// Results counts the pairs found, record pairs: with Dedup, each pair
	// of groups of identical records counts the record pairs it stands for.
	// It is the number of pairs the callback was given, unless the
	// callback stopped the join or Dedup grouped copies.
	Results int64
	// Similarity counts Results by similarity: bin k holds [k/20, (k+1)/20),
	// and the last bin also 1. All zero for prefix.Overlap, whose
	// similarities are counts.
	Similarity [SimilarityBins]int64

	// Read, Order and Join time the phases: reading and tokenizing (with
	// the records put in the form the join or the planner reads: for LSH
	// the key sets joined into one arena), the token order and
	// collections, and planning and joining.
	Read, Order, Join Timing
}

// Timing is the wall-clock time of a phase and the CPU time (user and
// system, all threads) the process spent during it; CPU is 0 where the
// system cannot say.
type Timing struct {
	Wall, CPU time.Duration
}

// Stage is a long phase whose advance Options.Progress is told.
type Stage uint8

const (
	// StageRead: reading the lines of a Lines source; Done counts bytes
	// (each line's end as one), Total is -1; Name is the source's name.
	StageRead Stage = iota + 1
	// StageFiles: reading the files of Files sources; Done of Total files.
	StageFiles
	// StageJoin: the exact join; Done of Total probe groups.
	StageJoin
	// StageLSH: the LSH join; Done of Total work chunks.
	StageLSH
	// StageAnalyze: Explain's measured run of the plan; Method is the
	// method run; no counts.
	StageAnalyze
	// StageCrossCheck: Explain's cross-check; no counts.
	StageCrossCheck
)

// Progress is one report of a stage's advance: it is called with Done 0 and
// Total -1 when the stage starts, with counts as it advances (at most a few
// times a second's worth of work, never per record), and once with End set
// when it is over.
type Progress struct {
	Stage Stage
	// Name is the source's name (a path, or "<stdin>") for StageRead, and
	// empty for the other stages.
	Name string
	// Method is the method run for StageAnalyze, and Auto (zero) for the
	// other stages.
	Method      Method
	Done, Total int64 // Total is -1 when unknown
	End         bool
}

// Join runs the join on in with the method of its options: the planner
// chooses for Auto (Stats.Plan says how), else the method given. Every pair
// goes to yield, from the calling goroutine; returning false stops the join
// early, without error. Pairs come in an order that is the same on every run
// and for any number of workers: grouped by probe set in size order (exact),
// band by band (LSH); in a self-join A < B. The returned Stats hold the
// input's counts too.
//
// Cost: planning reads the collections and joins a small sample (planner.New);
// the join as package join or approx describes. Memory: the index of the
// path, no pairs held. All goroutines have ended when it returns; ctx
// cancels the join, which then returns ctx.Err().
func (in *Input) Join(ctx context.Context, yield func(Pair) bool) (Stats, error) {
	return in.run(ctx, yield, nil)
}

// Run loads r (and s, for an R-S join) and joins them: Load, then
// Input.Join.
func Run(ctx context.Context, r, s records.Source, opts Options, yield func(Pair) bool) (Stats, error) {
	in, err := Load(ctx, r, s, opts)
	if err != nil {
		return Stats{}, err
	}
	return in.Join(ctx, yield)
}

// plannerOptions are the planner's options for in, with method m.
func (in *Input) plannerOptions(m Method) planner.Options {
	opt := in.opts.LSH
	opt.Progress, opt.Copies = nil, nil
	return planner.Options{Measure: in.opts.Measure, Threshold: in.t, Method: m, LSH: opt, Workers: in.opts.Workers,
		Prefer: in.opts.LSHMargin, FrontEnd: in.frontEnd()}
}

// frontEnd returns what reading the input did, for the planner: the counts
// of Stats (the distinct tokens once the order is built).
func (in *Input) frontEnd() planner.FrontEnd {
	st := in.loaded
	fe := planner.FrontEnd{Tokenizer: planner.TokenizerOf(in.opts.Tokens.Kind), Bytes: st.Bytes, Records: st.Records,
		Tokens: int64(st.Tokens), Values: min(in.counts.Values, int64(st.Tokens)), Ordered: in.lazy == nil}
	if in.counts.Sets {
		fe.Tokenizer = planner.TokenizeNone
	}
	if st.Files != nil {
		fe.Files = st.Files.Selected
	}
	if st.Vocabulary >= 0 {
		fe.Distinct = int64(st.Vocabulary)
	} else if in.lazy != nil && in.lazy.built.Load() {
		fe.Distinct = int64(in.lazy.r.Dict().Len())
	}
	return fe
}

// Plan plans the join on in: with Method Auto the planner's choice, else
// the method given, with both paths priced whole either way (reading,
// exact's order, the join). It is deterministic. An input loaded with its
// order (Method Exact, CheckRecall) is planned on it (planner.New). One
// loaded without (Auto, LSH) is planned on its records first
// (planner.NewKeys): LSH is taken there when it clearly pays even against
// the least exact can cost; otherwise the order is built (as the exact
// path would build it, and timed as Stats.Order) and the plan completed on
// it (Plan.WithOrder). An input loaded without its order keeps its first
// plan and returns it to later calls: building the order releases the
// records it was planned on. Cost: one pass over the keys, or the
// collections' statistics and prefix sums, and small seeded samples; see
// the planner's documentation.
func (in *Input) Plan(ctx context.Context) (*Plan, error) {
	opt := in.plannerOptions(in.opts.Method)
	if in.lazy == nil {
		r, sc := in.collections()
		return planner.New(ctx, r, sc, opt)
	}
	// The records are read under the lock: building the order releases
	// them, so the first plan is kept and later calls return it.
	lz := in.lazy
	lz.planMu.Lock()
	defer lz.planMu.Unlock()
	if lz.plan != nil {
		return lz.plan, nil
	}
	lz.mu.Lock() // the records are read while no order is being built
	var p *Plan
	var err error
	if lz.built.Load() { // the order was built first (Collections): plan on it
		lz.mu.Unlock()
		r, sc := in.collections()
		p, err = planner.New(ctx, r, sc, opt)
	} else {
		sides := in.keySides()
		p, err = planner.NewKeys(ctx, sides[0], sides[1], opt)
		lz.mu.Unlock()
		if err == nil {
			// The estimate sizes the vocabulary's table, should the order be built.
			lz.sizeHint(p.FrontEnd.Distinct)
			if p.NeedsOrder() {
				r, sc := in.collections()
				p, err = p.WithOrder(ctx, r, sc)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	lz.plan = p
	return p, nil
}

// WithPlan returns in to be joined as p says (p from in.Plan): Join
// and Dedup on the result run p.Method, with p's LSH options when that is
// LSH, and report p as Stats.Plan, instead of planning again. The
// collections are shared.
func (in *Input) WithPlan(p *Plan) *Input {
	c := *in
	c.planned = p
	return &c
}

// Resolve returns in ready to join with the method that will run: for
// Method Auto (and no plan given by WithPlan) it plans (Plan) and returns
// in.WithPlan of that plan with the planner's choice; otherwise in itself
// with the method given (or the plan's). Joining the result does not plan
// again. Cost: Plan's, for Auto; nothing otherwise.
func (in *Input) Resolve(ctx context.Context) (*Input, Method, error) {
	switch {
	case in.planned != nil:
		return in, in.planned.Method, nil
	case in.opts.Method != Auto:
		return in, in.opts.Method, nil
	}
	p, err := in.Plan(ctx)
	if err != nil {
		return nil, Auto, err
	}
	return in.WithPlan(p), p.Method, nil
}

// run is Join, and Dedup's join: copies, if not nil, takes the groups of
// identical records of a self-join (join.Options.Copies), and then yield gets
// one pair per pair of groups, counted in Stats as the record pairs it stands
// for.
func (in *Input) run(ctx context.Context, yield func(Pair) bool, copies func(ids []int) bool) (st Stats, err error) {
	st = in.Stats()
	tm := startTiming()
	ordered := in.lazy == nil || in.lazy.built.Load()
	defer func() {
		st.Join = tm.done()
		// An order built for this join is its own phase, not the join's.
		if !ordered && in.lazy.built.Load() {
			in.orderStats(&st)
			st.Join.Wall -= st.Order.Wall
			st.Join.CPU -= st.Order.CPU
		}
	}()
	method, lsh, p := in.opts.Method, in.opts.LSH, in.planned
	if p == nil && method == Auto {
		if p, err = in.Plan(ctx); err != nil {
			return st, err
		}
	}
	if ordered {
		in.orderStats(&st)
	}
	if p != nil {
		st.Plan, method = p, p.Method
		if opt, ok := p.LSHOptions(); ok && method == LSH {
			lsh = opt
		}
	}
	st.Method = method
	count := in.counter(&st, copies)
	emit := func(p Pair) bool {
		count.pair(p)
		return yield(p)
	}
	var group func(ids []int) bool
	if copies != nil && !in.rs() {
		group = func(ids []int) bool {
			count.copies(ids)
			return copies(ids)
		}
	}
	switch method {
	case Exact:
		r, s := in.collections()
		report := progressOf(in.opts.Progress, Progress{Stage: StageJoin})
		opt := join.Options{Measure: in.opts.Measure, Threshold: in.t, Workers: in.opts.Workers, Copies: group,
			Progress: func(done, total int) { report(int64(done), int64(total), false) }}
		if p != nil {
			opt.Ell = p.JoinOptions(s != nil).Ell
		}
		var js join.Stats
		js, err = join.Join(ctx, r, s, opt, emit)
		report(-1, -1, true)
		st.Exact = &js
	case LSH:
		if in.opts.Measure == prefix.Overlap {
			return st, fmt.Errorf("simjoin: %w: LSH estimates Jaccard similarity, not %s", ErrNoJaccardBound, in.opts.Measure)
		}
		report := progressOf(in.opts.Progress, Progress{Stage: StageLSH})
		lsh.Measure, lsh.Threshold, lsh.Workers, lsh.Copies = in.opts.Measure, in.t, in.opts.Workers, group
		lsh.Progress = func(done, total int) { report(int64(done), int64(total), false) }
		var as approx.Stats
		if in.opts.CheckRecall {
			lsh.Copies = nil
			r, s := in.collections()
			var cc *planner.CrossCheck
			if cc, err = planner.MeasureLSH(ctx, r, s, planner.CheckOptions{LSH: lsh, Found: emit}); cc != nil {
				as, st.CrossCheck = *cc.Bandings[0].Runs[0].LSH.LSH, cc
			}
			if errors.Is(err, planner.ErrStopped) {
				err = nil // yield stopped the join: no error, and no measurement
			}
		} else if rk, sk, ok := in.keySets(); ok && (in.lazy == nil || !in.lazy.built.Load()) {
			// No order: LSH signs the keys (made from the records as read).
			as, err = approx.JoinKeys(ctx, rk, sk, lsh, emit)
		} else {
			// The order is built (as read, or for the planner): signing
			// through its dictionary costs less than making key sets.
			r, s := in.collections()
			as, err = approx.Join(ctx, r, s, lsh, emit)
		}
		report(-1, -1, true)
		if err == nil || as.K > 0 {
			st.LSH = &as
		}
	}
	return st, err
}

// orderStats puts into st the order built for a join of an input loaded
// without it: its time (Stats.Order) and the distinct tokens.
func (in *Input) orderStats(st *Stats) {
	if in.lazy != nil && in.lazy.built.Load() {
		st.Order = in.lazy.order
		st.Vocabulary = in.lazy.r.Dict().Len()
	}
}

// counter counts a join's results into Stats, with the sizes of the groups
// of identical records when they are reported as groups.
type counter struct {
	st       *Stats
	bins     bool          // similarities fall in [0, 1]
	sizes    map[int]int64 // group size by first record, when grouped
	grouping bool
}

func (in *Input) counter(st *Stats, copies func([]int) bool) *counter {
	c := &counter{st: st, bins: in.opts.Measure != prefix.Overlap}
	if copies != nil && !in.rs() {
		c.sizes, c.grouping = map[int]int64{}, true
	}
	return c
}

func (c *counter) add(sim float64, n int64) {
	c.st.Results += n
	if c.bins {
		c.st.Similarity[SimilarityBin(sim)] += n
	}
}

// SimilarityBin returns the bin of Stats.Similarity that counts a pair of
// similarity sim: floor(sim·SimilarityBins), clamped to the bins.
func SimilarityBin(sim float64) int {
	return min(max(int(sim*SimilarityBins), 0), SimilarityBins-1)
}

// pair counts one pair: the record pairs it stands for when grouped.
func (c *counter) pair(p Pair) {
	n := int64(1)
	if c.grouping {
		n = c.weight(p.A) * c.weight(p.B)
	}
	c.add(p.Sim, n)
}

// copies counts a group of identical records (ids ascending): its pairs,
// of similarity 1, and its size for the pairs between groups.
func (c *counter) copies(ids []int) {
	k := int64(len(ids))
	c.add(1, k*(k-1)/2)
	c.sizes[ids[0]] = k
}

func (c *counter) weight(a int) int64 {
	if k, ok := c.sizes[a]; ok {
		return k
	}
	return 1
}
