package planner

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// Phase is one timed phase of a run: its wall and CPU seconds (CPU 0 where
// the system cannot say).
type Phase struct {
	Name    PhaseName `json:"name"`
	Seconds float64   `json:"wall_s"`
	CPU     float64   `json:"cpu_s"`
}

// Measured is what one run of a path did, in the terms the plan predicted:
// the phases of the path (PhaseIndex and PhaseJoin for exact;
// PhaseSignatures, PhaseBands and PhaseVerify for LSH; PhaseRead and
// PhaseOrder too when the caller adds the front end's), its candidates and
// results.
type Measured struct {
	Method  Method  `json:"method"`
	Phases  []Phase `json:"phases"`
	Seconds float64 `json:"wall_s"` // wall time of the phases
	// CPU is the process's CPU time (user and system) during the phases;
	// 0 where the system cannot say.
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

// Phase returns the measured wall seconds of the named phase (0 if none).
func (m Measured) Phase(name PhaseName) float64 {
	for _, ph := range m.Phases {
		if ph.Name == name {
			return ph.Seconds
		}
	}
	return 0
}

// PhaseCPU returns the measured CPU seconds of the named phase (0 if none).
func (m Measured) PhaseCPU(name PhaseName) float64 {
	for _, ph := range m.Phases {
		if ph.Name == name {
			return ph.CPU
		}
	}
	return 0
}

// AddFrontEnd puts the front end's phases before the run's (read, and
// order when the order was built for it; a zero wall time leaves a phase
// out) and adds them to its totals.
func (m *Measured) AddFrontEnd(read, order Phase) {
	var ph []Phase
	for _, f := range []Phase{read, order} {
		if f.Seconds > 0 || f.CPU > 0 {
			ph = append(ph, f)
			m.Seconds += f.Seconds
			m.CPU += f.CPU
		}
	}
	m.Phases = append(ph, m.Phases...)
}

// MeasuredExact is what an exact join did, from its Stats.
func MeasuredExact(st join.Stats) Measured {
	m := Measured{Method: Exact, Exact: &st,
		Phases:   []Phase{{PhaseIndex, st.IndexTime.Seconds(), st.IndexCPU.Seconds()}, {PhaseJoin, st.JoinTime.Seconds(), st.JoinCPU.Seconds()}},
		Postings: st.Postings, Candidates: st.Candidates, Verified: st.Verified, Results: st.Results}
	m.sum()
	return m
}

// MeasuredLSH is what an LSH join did, from its Stats.
func MeasuredLSH(st approx.Stats) Measured {
	m := Measured{Method: LSH, LSH: &st,
		Phases: []Phase{{PhaseSignatures, st.SignTime.Seconds(), st.SignCPU.Seconds()}, {PhaseBands, st.BandTime.Seconds(), st.BandCPU.Seconds()},
			{PhaseVerify, st.JoinTime.Seconds(), st.JoinCPU.Seconds()}},
		Collisions: st.Collisions, Candidates: st.Candidates, Verified: st.Candidates, Results: st.Results}
	m.sum()
	return m
}

func (m *Measured) sum() {
	m.Seconds, m.CPU = 0, 0
	for _, ph := range m.Phases {
		m.Seconds += ph.Seconds
		m.CPU += ph.CPU
	}
}

// Run runs the plan's method: see RunMethod.
func (p *Plan) Run(ctx context.Context, c, s *order.Collection, yield func(join.Pair) bool) (Measured, error) {
	return p.RunMethod(ctx, p.Method, c, s, yield)
}

// RunMethod runs path m (Exact or LSH) with the plan's measure, threshold,
// LSH parameters and workers over c (against s for an R-S join, as planned),
// hands every pair to yield (nil: count them only) and returns what the run
// did: its engine's phases (the front end's are the caller's). yield is
// called from the calling goroutine; returning false stops the run. It
// fails for LSH when the plan has no LSH path.
func (p *Plan) RunMethod(ctx context.Context, m Method, c, s *order.Collection, yield func(join.Pair) bool) (Measured, error) {
	var lopt approx.Options
	if m == LSH {
		var ok bool
		if lopt, ok = p.LSHOptions(); !ok {
			return Measured{Method: m}, fmt.Errorf("planner: no LSH path: %v", p.LSH.Why)
		}
	}
	return runPath(ctx, m, c, s, p.JoinOptions(s != nil), lopt, yield)
}

// JoinOptions returns the options the exact path runs with: the plan's
// measure, threshold and workers, and for a self-join (rs false) the index
// keys planned (join.ChooseEll), not chosen again.
func (p *Plan) JoinOptions(rs bool) join.Options {
	jopt := join.Options{Measure: p.Measure, Threshold: p.Threshold, Workers: p.workers}
	if !rs {
		jopt.Ell = p.ell
	}
	return jopt
}

// runPath runs the exact join with jopt (m = Exact) or the LSH join with
// lopt (m = LSH) over c (against s when not nil) and measures it, as
// RunMethod documents.
func runPath(ctx context.Context, m Method, c, s *order.Collection, jopt join.Options, lopt approx.Options, yield func(join.Pair) bool) (out Measured, err error) {
	if yield == nil {
		yield = func(join.Pair) bool { return true }
	}
	out.Method = m
	clock := rusage.Start()
	defer func() {
		wall, cpu := clock.Lap()
		out.Seconds, out.CPU = wall.Seconds(), cpu.Seconds()
	}()
	switch m {
	case Exact:
		st, err := join.Join(ctx, c, s, jopt, yield)
		if err != nil {
			return out, err
		}
		out = MeasuredExact(st)
	case LSH:
		st, err := approx.Join(ctx, c, s, lopt, yield)
		if err != nil {
			return out, err
		}
		out = MeasuredLSH(st)
	default:
		return out, fmt.Errorf("planner: cannot run method %s", m)
	}
	return out, nil
}
