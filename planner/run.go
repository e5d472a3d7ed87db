package planner

import (
	"context"
	"fmt"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// Phase is one timed phase of a run: its wall seconds.
type Phase struct {
	Name    PhaseName `json:"name"`
	Seconds float64   `json:"wall_s"`
}

// Measured is what one run of a path did, in the terms the plan predicted:
// the phases of the path (PhaseIndex and PhaseJoin for exact;
// PhaseSignatures, PhaseBands and PhaseVerify for LSH), its candidates and
// results.
type Measured struct {
	Method  Method  `json:"method"`
	Phases  []Phase `json:"phases"`
	Seconds float64 `json:"wall_s"` // wall time of the whole join call
	// CPU is the process's CPU time (user and system) during the call; 0
	// where the system cannot say.
	CPU float64 `json:"cpu_s"`
	// Postings is the prefix postings scanned (exact only).
	Postings int64 `json:"postings,omitempty"`
	// Collisions is the band collisions, repeats included (LSH only).
	Collisions int64 `json:"collisions,omitempty"`
	// Candidates: distinct candidate pairs of sets.
	Candidates int64 `json:"candidates"`
	// Verified: candidates merged (exact: those that survived the filters;
	// LSH: every candidate).
	Verified int64 `json:"verified"`
	Results  int64 `json:"results"`

	Exact *join.Stats   `json:"-"`
	LSH   *approx.Stats `json:"-"`
}

// Phase returns the measured seconds of the named phase (0 if none).
func (m Measured) Phase(name PhaseName) float64 {
	for _, ph := range m.Phases {
		if ph.Name == name {
			return ph.Seconds
		}
	}
	return 0
}

// Run runs the plan's method: see RunMethod.
func (p *Plan) Run(ctx context.Context, c, s *order.Collection, yield func(join.Pair) bool) (Measured, error) {
	return p.RunMethod(ctx, p.Method, c, s, yield)
}

// RunMethod runs path m (Exact or LSH) with the plan's measure, threshold,
// LSH parameters and workers over c (against s for an R-S join, as planned),
// hands every pair to yield (nil: count them only) and returns what the run
// did. yield is called from the calling goroutine; returning false stops the
// run. It fails for LSH when the plan has no LSH path.
func (p *Plan) RunMethod(ctx context.Context, m Method, c, s *order.Collection, yield func(join.Pair) bool) (Measured, error) {
	var lopt approx.Options
	if m == LSH {
		var ok bool
		if lopt, ok = p.LSHOptions(); !ok {
			return Measured{Method: m}, fmt.Errorf("planner: no LSH path: %v", p.LSH.Why)
		}
	}
	// The index keys planned for a self-join (join.ChooseEll), not chosen
	// again.
	jopt := join.Options{Measure: p.Measure, Threshold: p.Threshold, Workers: p.workers}
	if s == nil {
		jopt.Ell = p.ell
	}
	return runPath(ctx, m, c, s, jopt, lopt, yield)
}

// runPath runs the exact join with jopt (m = Exact) or the LSH join with
// lopt (m = LSH) over c (against s when not nil) and measures it, as
// RunMethod documents.
func runPath(ctx context.Context, m Method, c, s *order.Collection, jopt join.Options, lopt approx.Options, yield func(join.Pair) bool) (out Measured, err error) {
	if yield == nil {
		yield = func(join.Pair) bool { return true }
	}
	out.Method = m
	c0, cpuOK := rusage.CPU()
	t0 := time.Now()
	defer func() {
		if c1, ok := rusage.CPU(); ok && cpuOK {
			out.CPU = (c1 - c0).Seconds()
		}
	}()
	switch m {
	case Exact:
		st, err := join.Join(ctx, c, s, jopt, yield)
		out.Seconds = time.Since(t0).Seconds()
		if err != nil {
			return out, err
		}
		out.Exact = &st
		out.Phases = []Phase{{PhaseIndex, st.IndexTime.Seconds()}, {PhaseJoin, st.JoinTime.Seconds()}}
		out.Postings, out.Candidates, out.Verified, out.Results = st.Postings, st.Candidates, st.Verified, st.Results
	case LSH:
		st, err := approx.Join(ctx, c, s, lopt, yield)
		out.Seconds = time.Since(t0).Seconds()
		if err != nil {
			return out, err
		}
		out.LSH = &st
		out.Phases = []Phase{{PhaseSignatures, st.SignTime.Seconds()}, {PhaseBands, st.BandTime.Seconds()}, {PhaseVerify, st.JoinTime.Seconds()}}
		out.Collisions, out.Candidates, out.Verified, out.Results = st.Collisions, st.Candidates, st.Candidates, st.Results
	default:
		return out, fmt.Errorf("planner: cannot run method %s", m)
	}
	return out, nil
}
