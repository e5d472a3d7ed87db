package planner

import (
	"fmt"
	"math"
	"slices"
)

// Observation is one measured run of a path for the calibration: its terms'
// counts (Plan.Counted of the run, whatever the calibration that priced
// it), the front end they were read with, and the CPU seconds each phase
// measured (the least of a few runs).
type Observation struct {
	Name     string                `json:"name"`
	Cost     Cost                  `json:"cost"`
	FrontEnd FrontEnd              `json:"front_end"`
	CPU      map[PhaseName]float64 `json:"cpu_s"`
}

// FitReport says how well a phase's fit matches the observations: the
// least and greatest ratio of fitted to measured CPU time over them, and
// each observation's.
type FitReport struct {
	Phase    PhaseName
	Runs     int
	Low, Hi  float64
	Residual float64 // the norm of the relative errors
	Rows     []FitRow
}

// FitRow is one observation's measured and fitted CPU seconds in a phase.
type FitRow struct {
	Name             string
	Measured, Fitted float64
}

// Fit returns base with the unit costs fitted to obs, phase by phase: for
// each phase, its terms' costs by non-negative least squares on the
// relative error of each observation's CPU time in it (every subset of the
// costs is tried, so the least is exact). A cost that no observation
// counts keeps base's value; the planning costs are base's. Observations
// whose phase measured nothing are left out of that phase.
func Fit(obs []Observation, base Calibration) (Calibration, []FitReport) {
	cal := base
	var reports []FitReport
	for ph := PhaseRead; ph <= PhaseVerify; ph++ {
		// The rows: each observation's weight on each cost of the phase.
		var units []*float64
		var rows []map[*float64]float64
		var measured []float64
		var names []string
		for _, o := range obs {
			sec := o.CPU[ph]
			if sec <= 0 {
				continue
			}
			row := map[*float64]float64{}
			for _, t := range o.Cost.Terms {
				if t.Phase != ph {
					continue
				}
				for _, u := range cal.termUnits(t, o.FrontEnd) {
					if !slices.Contains(units, u.cost) {
						units = append(units, u.cost)
					}
					row[u.cost] += t.Count * u.weight
				}
			}
			if len(row) == 0 {
				continue
			}
			rows = append(rows, row)
			measured = append(measured, sec)
			names = append(names, o.Name)
		}
		if len(rows) == 0 {
			continue
		}
		// Costs no row counts stay as they are.
		units = slices.DeleteFunc(units, func(u *float64) bool {
			for _, r := range rows {
				if r[u] > 0 {
					return false
				}
			}
			return true
		})
		x, resid := nnlsRelative(rows, units, measured)
		for j, u := range units {
			*u = x[j]
		}
		rep := FitReport{Phase: ph, Runs: len(rows), Low: math.Inf(1), Hi: 0, Residual: resid}
		for i, r := range rows {
			fitted := 0.0
			for j, u := range units {
				fitted += r[u] * x[j] * 1e-9
			}
			q := fitted / measured[i]
			rep.Low, rep.Hi = min(rep.Low, q), max(rep.Hi, q)
			rep.Rows = append(rep.Rows, FitRow{Name: names[i], Measured: measured[i], Fitted: fitted})
		}
		reports = append(reports, rep)
	}
	return cal, reports
}

// unitWeight is one calibration cost a term is priced at, and its weight:
// a term's Nanos is the sum of weight·cost over them.
type unitWeight struct {
	cost   *float64
	weight float64
}

// termUnits returns the costs of cal that term t (of a cost priced with
// front end fe) is priced at, as exactCost, lshCost, readCost and orderCost
// price it.
func (cal *Calibration) termUnits(t Term, fe FrontEnd) []unitWeight {
	one := func(c *float64) []unitWeight { return []unitWeight{{c, 1}} }
	r, o, e, l := &cal.Read, &cal.Order, &cal.Exact, &cal.LSH
	switch t.Name {
	case TermBytes:
		share := 0.0
		if fe.Tokens > 0 {
			share = float64(fe.Values) / float64(fe.Tokens)
		}
		var keys, vals *float64
		switch fe.Tokenizer {
		case TokenizeSet:
			keys, vals = &r.SetByte, &r.SetValueByte
		case TokenizeWords:
			keys, vals = &r.WordsByte, &r.WordsByte
		case TokenizeQGram:
			keys, vals = &r.QGramByte, &r.QGramValueByte
		case TokenizeShingle:
			keys, vals = &r.ShingleByte, &r.ShingleByte
		case TokenizeGo:
			keys, vals = &r.GoByte, &r.GoByte
		default:
			return nil
		}
		if keys == vals {
			return one(keys)
		}
		var us []unitWeight
		if share < 1 {
			us = append(us, unitWeight{keys, 1 - share})
		}
		if share > 0 {
			us = append(us, unitWeight{vals, share})
		}
		return us
	case TermTokensRead:
		return one(&r.Token)
	case TermFiles:
		return one(&r.File)
	case TermTokensEntered:
		return one(&o.TokenEntered)
	case TermValuesEntered:
		return one(&o.ValueEntered)
	case TermDistinctKeys:
		return one(&o.Distinct)
	case TermTokensOrdered:
		return one(&o.TokenOrdered)
	case TermRecordsOrdered:
		return one(&o.Record)
	case TermDistinctSets:
		return one(&e.Group)
	case TermSetTokens:
		return one(&r.SetToken)
	case TermBitmapTokens:
		return one(&e.SetToken)
	case TermProbeGroups:
		return one(&e.ProbeGroup)
	case TermIndexEntries, TermIndexKeys:
		return one(&e.IndexEntry)
	case TermProbeTokens, TermKeysLookedUp:
		return one(&e.ProbeToken)
	case TermPrefixPostings, TermKeyPostings:
		return one(&e.Posting)
	case TermExamined, TermPastMask:
		return one(&e.Examined)
	case TermTokensHashed:
		return one(&l.TokenHashed)
	case TermWordsHashed:
		return one(&l.WordHashed)
	case TermTokensSigned:
		return one(&l.TokenSigned)
	case TermHashFunctions:
		return one(&l.HashFunction)
	case TermSignatureValues:
		return one(&l.SignatureValue)
	case TermDensifyProbes:
		return one(&l.Probe)
	case TermBandKeys:
		return one(&l.BandKey)
	case TermBandSort:
		return one(&l.BandSort)
	case TermBandCollisions:
		return one(&l.Collision)
	case TermCandidates, TermVerifiedTokens, TermResults:
		lshSide := t.Phase == PhaseVerify
		switch {
		case t.Name == TermCandidates && lshSide:
			return one(&l.Candidate)
		case t.Name == TermCandidates:
			return one(&e.Candidate)
		case t.Name == TermVerifiedTokens && lshSide:
			return one(&l.VerifiedToken)
		case t.Name == TermVerifiedTokens:
			return one(&e.VerifiedToken)
		case lshSide:
			return one(&l.Result)
		}
		return one(&e.Result)
	}
	panic(fmt.Sprintf("planner: no cost for term %s", t.Name))
}

// nnlsRelative solves min Σ_i ((Σ_j x_j·rows[i][units[j]]·1e-9 - m_i) / m_i)²
// over x >= 0 (in nanoseconds) by trying every subset of the columns as the
// free ones (at most a dozen here) and keeping the best non-negative
// least-squares solution; it returns x and the residual's norm.
func nnlsRelative(rows []map[*float64]float64, units []*float64, m []float64) ([]float64, float64) {
	k := len(units)
	a := make([][]float64, len(rows))
	for i, r := range rows {
		a[i] = make([]float64, k)
		for j, u := range units {
			a[i][j] = r[u] * 1e-9 / m[i]
		}
	}
	best, bestErr := make([]float64, k), math.Inf(1)
	for mask := 1; mask < 1<<k; mask++ {
		var cols []int
		for j := range k {
			if mask&(1<<j) != 0 {
				cols = append(cols, j)
			}
		}
		x, ok := leastSquares(a, cols)
		if !ok {
			continue
		}
		e := 0.0
		for i := range a {
			s := -1.0
			for c, j := range cols {
				s += a[i][j] * x[c]
			}
			e += s * s
		}
		if e = math.Sqrt(e); e < bestErr {
			bestErr = e
			clear(best)
			for c, j := range cols {
				best[j] = x[c]
			}
		}
	}
	return best, bestErr
}

// leastSquares solves min ‖A[:, cols]·x - 1‖ by the normal equations
// (Gaussian elimination with partial pivoting) and reports whether the
// solution exists and is non-negative.
func leastSquares(a [][]float64, cols []int) ([]float64, bool) {
	n := len(cols)
	// m = [AᵀA | Aᵀ1]
	m := make([][]float64, n)
	for p, j := range cols {
		m[p] = make([]float64, n+1)
		for q, l := range cols {
			for i := range a {
				m[p][q] += a[i][j] * a[i][l]
			}
		}
		for i := range a {
			m[p][n] += a[i][j]
		}
	}
	for c := range n {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		if math.Abs(m[piv][c]) < 1e-12 {
			return nil, false
		}
		m[c], m[piv] = m[piv], m[c]
		for r := range n {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for q := c; q <= n; q++ {
				m[r][q] -= f * m[c][q]
			}
		}
	}
	x := make([]float64, n)
	for c := range n {
		x[c] = m[c][n] / m[c][c]
		if !(x[c] >= 0) {
			return nil, false
		}
	}
	return x, true
}
