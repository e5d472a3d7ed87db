package simjoin

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/planner"
)

// ExplainOptions says what Explain does beyond planning.
type ExplainOptions struct {
	// Analyze runs the plan's method whole and sets what each phase
	// measured beside the prediction; with CrossCheck, the other method
	// too.
	Analyze bool
	// CrossCheck, when not 0, runs both methods on a seeded sample of that
	// many records per side (-1: the whole input) and measures LSH against
	// the exact answer (planner.Plan.CrossCheck).
	CrossCheck int
	// CrossSeed seeds the cross-check's sample.
	CrossSeed uint64
}

// Explanation is the plan of a join and what Explain measured: a plain value
// that holds no text. Its JSON is simjoin explain --json's but for the plan's
// reason, which is its code and figures here (planner.Reason) and the
// command's words there.
type Explanation struct {
	Plan *Plan `json:"plan"`
	// Analyze holds the runs Analyze asked for, the plan's method first,
	// each beside its prediction.
	Analyze    []*planner.Analysis   `json:"analyze,omitempty"`
	CrossCheck *planner.CheckSummary `json:"cross_check,omitempty"`
}

// Explain plans the join on in (Plan: both paths priced, the method given or
// the planner's choice) and, as eo asks, runs the plan's method (and the
// other) and cross-checks LSH against the exact join. A cross-check where
// the plan has no LSH path fails with an error wrapping ErrNoLSH, returned
// with the Explanation holding the plan.
//
// Cost: that of Plan; with Analyze that of each join run (the order built
// for exact if it was not, its pairs counted, not kept); with CrossCheck
// both joins on the sample. ctx cancels each.
func (in *Input) Explain(ctx context.Context, eo ExplainOptions) (*Explanation, error) {
	p, err := in.Plan(ctx)
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Plan: p}
	if eo.Analyze {
		methods := []Method{p.Method}
		if eo.CrossCheck != 0 && p.LSH.Available {
			methods = append(methods, Exact+LSH-p.Method)
		}
		for _, m := range methods {
			report := progressOf(in.opts.Progress, Progress{Stage: StageAnalyze, Method: m})
			a, err := in.analyze(ctx, p, m)
			report(-1, -1, true)
			if err != nil {
				return ex, err
			}
			ex.Analyze = append(ex.Analyze, a)
		}
	}
	if eo.CrossCheck != 0 {
		if !p.LSH.Available {
			return ex, fmt.Errorf("%w: %s", ErrNoLSH, p.LSH.Why)
		}
		report := progressOf(in.opts.Progress, Progress{Stage: StageCrossCheck})
		r, s := in.collections()
		cc, err := p.CrossCheck(ctx, r, s, planner.CheckOptions{Records: max(eo.CrossCheck, 0), Seed: eo.CrossSeed})
		report(-1, -1, true)
		if err != nil {
			return ex, err
		}
		ex.CrossCheck = cc.Summary()
	}
	return ex, nil
}

// analyze runs path m of plan p on in whole, its pairs counted, and sets
// what it measured beside p's prediction (planner.Plan.Analyze).
func (in *Input) analyze(ctx context.Context, p *Plan, m Method) (*planner.Analysis, error) {
	forced := *p
	forced.Method = m
	run := in.WithPlan(&forced)
	run.opts.Progress = nil // StageAnalyze has no counts of its own
	st, err := run.run(ctx, func(Pair) bool { return true }, nil)
	if err != nil {
		return nil, err
	}
	return p.Analyze(MeasuredRun(st), in.frontEnd()), nil
}

// MeasuredRun is what the join st reports did, in the planner's phases: the
// reading and the order (when one was built for it: Stats.Order) and the
// path's own (planner.MeasuredExact, planner.MeasuredLSH), each with its
// wall and CPU time. Planning is none of them.
func MeasuredRun(st Stats) planner.Measured {
	var m planner.Measured
	switch {
	case st.Exact != nil:
		m = planner.MeasuredExact(*st.Exact)
	case st.LSH != nil:
		m = planner.MeasuredLSH(*st.LSH)
	}
	m.AddFrontEnd(planner.Phase{Name: planner.PhaseRead, Seconds: st.Read.Wall.Seconds(), CPU: st.Read.CPU.Seconds()},
		planner.Phase{Name: planner.PhaseOrder, Seconds: st.Order.Wall.Seconds(), CPU: st.Order.CPU.Seconds()})
	return m
}
