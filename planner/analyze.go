package planner

import "math"

// OffBy is the factor beyond which an Analysis flags a phase or a term:
// predicted over measured above it, or below its inverse.
const OffBy = 2.0

// offShare is the least share of a path's CPU time a phase or term must
// hold (predicted or measured) to be flagged: below it, it cannot move the
// choice.
const offShare = 0.02

// Analysis sets one run of a path beside the plan's prediction: the whole
// run's CPU time, phase by phase the predicted CPU time against the
// measured, and term by term the predicted count against the run's own
// (each a count the engine reports). Measured is summed over the phases
// the path is priced in. Ratios are predicted over measured (0 where
// nothing was measured); Off flags a ratio beyond OffBy either way, for
// the whole run, and for a phase or term that holds at least 2% of the
// run's CPU time.
type Analysis struct {
	Method    Method  `json:"method"`
	Predicted float64 `json:"predicted_cpu_s"`
	Measured  float64 `json:"measured_cpu_s"`
	Ratio     float64 `json:"ratio"`
	Off       bool    `json:"off,omitempty"`
	// Counted is the CPU time the model gives the run's own counts: beside
	// Predicted and Measured it tells a count predicted wrong (Predicted
	// off, Counted right) from a unit cost gone stale (both off).
	Counted float64         `json:"counted_cpu_s"`
	Phases  []PhaseAnalysis `json:"phases"`
	Terms   []TermAnalysis  `json:"terms"`
	Run     Measured        `json:"run"`
}

// PhaseAnalysis is one phase of an Analysis, in CPU seconds.
type PhaseAnalysis struct {
	Name      PhaseName `json:"name"`
	Predicted float64   `json:"predicted_cpu_s"`
	Counted   float64   `json:"counted_cpu_s"`
	Measured  float64   `json:"measured_cpu_s"`
	Wall      float64   `json:"measured_wall_s"`
	Ratio     float64   `json:"ratio"`
	Off       bool      `json:"off,omitempty"`
}

// TermAnalysis is one term of an Analysis: the predicted count and the
// run's.
type TermAnalysis struct {
	Name      TermName  `json:"name"`
	Phase     PhaseName `json:"phase"`
	Predicted float64   `json:"predicted"`
	Measured  float64   `json:"measured"`
	Ratio     float64   `json:"ratio"`
	Off       bool      `json:"off,omitempty"`
}

// Analyze sets run m of path m.Method (its front end's phases added, as
// Measured.AddFrontEnd does) beside the plan's prediction for that path.
// fe is what the run's front end did (FrontEnd with the distinct tokens
// counted when the order was built); the run's counts are priced with the
// calibration the plan used.
func (p *Plan) Analyze(m Measured, fe FrontEnd) *Analysis {
	pred := p.Exact.Cost
	if m.Method == LSH {
		pred = p.LSH.Cost
	}
	counted := p.Counted(m, fe)
	a := &Analysis{Method: m.Method, Predicted: pred.CPU, Counted: counted.CPU, Run: m}
	// The phases the path is priced in: an order built for the plan
	// before an LSH run, say, is not that run's.
	for _, ph := range pred.Phases() {
		a.Measured += m.PhaseCPU(ph)
	}
	a.Ratio = ratio(a.Predicted, a.Measured)
	a.Off = off(a.Ratio)
	whole := max(a.Predicted, a.Measured)
	for _, ph := range pred.Phases() {
		pa := PhaseAnalysis{Name: ph, Predicted: pred.PhaseCPU(ph), Counted: counted.PhaseCPU(ph),
			Measured: m.PhaseCPU(ph), Wall: m.Phase(ph)}
		pa.Ratio = ratio(pa.Predicted, pa.Measured)
		pa.Off = off(pa.Ratio) && max(pa.Predicted, pa.Measured) >= offShare*whole
		a.Phases = append(a.Phases, pa)
	}
	for _, t := range pred.Terms {
		ct, _ := counted.Term(t.Name, t.Phase)
		ta := TermAnalysis{Name: t.Name, Phase: t.Phase, Predicted: t.Count, Measured: ct.Count}
		ta.Ratio = ratio(ta.Predicted, ta.Measured)
		ta.Off = off(ta.Ratio) && max(t.CPU, ct.CPU) >= offShare*whole
		a.Terms = append(a.Terms, ta)
	}
	return a
}

// ratio returns x/y, or 0 when y is 0 (nothing measured), which off does
// not flag.
func ratio(x, y float64) float64 {
	if y == 0 {
		return 0
	}
	return x / y
}

func off(r float64) bool { return r != 0 && (r > OffBy || r < 1/OffBy) && !math.IsNaN(r) }

// Counted prices run m's own counts (and fe's, its front end) as the plan
// prices its predictions: the terms of m.Method's cost with the counts the
// engine reported. It is what the model says the run should have cost. A
// run without an engine's statistics (neither m.Exact nor m.LSH) prices
// the front end alone: the reading and the order.
func (p *Plan) Counted(m Measured, fe FrontEnd) Cost {
	cal := p.opt.Calibration
	if cal == nil {
		cal = &defaultCalibration
	}
	var c Cost
	switch {
	case m.Exact != nil:
		st := m.Exact
		meanSize := 0.0
		if st.Groups > 0 && p.units > 0 {
			meanSize = float64(p.unitTokens) / float64(p.units)
		}
		c = cal.exactCost(fe, exactCounts{setTokens: float64(p.unitTokens),
			work: ExactWork{Ell: max(st.Ell, 1), Groups: st.Groups, ProbeTokens: st.ProbeTokens,
				IndexEntries: int64(st.IndexEntries), Postings: windowPostings(*st)},
			examined: float64(st.Postings - st.MaskPruned), candidates: float64(st.Candidates),
			verified: float64(st.Verified), meanSize: meanSize, results: float64(st.Results)})
	case m.LSH != nil:
		st := m.LSH
		w := lshCounts{scheme: st.Scheme, k: st.K, bands: st.Shape.B, keys: st.Words == 0, // key sets hash no dictionary
			recordTokens: float64(fe.Tokens), units: float64(st.Units), tokens: float64(st.Tokens), words: float64(st.Words), probes: float64(st.Probes),
			collisions: float64(st.Collisions), candidates: float64(st.Candidates), results: float64(st.Results)}
		if st.Units > 0 {
			w.verifiedToken = float64(st.Tokens) / float64(st.Units)
		}
		c = cal.lshCost(fe, w)
	case fe.given():
		cal.readCost(&c, fe)
		cal.orderCost(&c, fe)
	}
	c.wall(p.parallel())
	return c
}
