package simjoin

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/planner"
)

// ExplainOptions says what Explain does beyond planning.
type ExplainOptions struct {
	// Analyze runs the plan's method and measures it beside the prediction.
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
	Plan       *Plan                 `json:"plan"`
	Analyze    *Analysis             `json:"analyze,omitempty"`
	CrossCheck *planner.CheckSummary `json:"cross_check,omitempty"`
}

// Analysis is a run of the plan beside its prediction for the method that
// ran: the predicted phases, time, candidates and results, and the measured
// ones.
type Analysis struct {
	Method    Method           `json:"method"`
	Predicted Predicted        `json:"predicted"`
	Measured  planner.Measured `json:"measured"`
}

// Predicted is the plan's prediction for one method, phase by phase as the
// run measured them.
type Predicted struct {
	Phases     []planner.Phase `json:"phases"`
	Seconds    float64         `json:"wall_s"`
	CPU        float64         `json:"cpu_s"`
	Collisions float64         `json:"collisions,omitempty"`
	Candidates float64         `json:"candidates"`
	Results    float64         `json:"results"`
}

// Explain plans the join on in (Plan: both paths priced, the method given or
// the planner's choice) and, as eo asks, runs the plan's method and
// cross-checks LSH against the exact join. A cross-check where the plan has
// no LSH path fails with an error wrapping ErrNoLSH, returned with the
// Explanation holding the plan.
//
// Cost: that of Plan; with Analyze that of the join (its pairs counted, not
// kept); with CrossCheck both joins on the sample. ctx cancels each.
func (in *Input) Explain(ctx context.Context, eo ExplainOptions) (*Explanation, error) {
	p, err := in.Plan(ctx)
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Plan: p}
	if eo.Analyze {
		report := progressOf(in.opts.Progress, Progress{Stage: StageAnalyze, Method: p.Method})
		r, s := in.collections()
		m, err := p.Run(ctx, r, s, nil)
		report(-1, -1, true)
		if err != nil {
			return ex, err
		}
		ex.Analyze = analyze(p, m)
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

// analyze sets a run beside the plan's prediction for its method.
func analyze(p *Plan, m planner.Measured) *Analysis {
	a := &Analysis{Method: m.Method, Measured: m}
	pr := &a.Predicted
	var cost planner.Cost
	if m.Method == Exact {
		cost = p.Exact.Cost
		pr.Candidates = p.Exact.Candidates
	} else {
		cost = p.LSH.Cost
		pr.Candidates = p.LSH.Candidates
		pr.Collisions = p.LSH.Collisions
	}
	for _, ph := range m.Phases {
		pr.Phases = append(pr.Phases, planner.Phase{Name: ph.Name, Seconds: cost.Phase(ph.Name)})
	}
	pr.Seconds, pr.CPU = cost.Seconds, cost.CPU
	pr.Results = p.Sample.Predicted
	return a
}
