package planner

import "github.com/simjoin/simjoin/approx"

// Term is one component of a path's predicted cost: Count units of work at
// Nanos nanoseconds of CPU each, CPU seconds in all, spent in a phase of the
// path (the phases a run reports: PhaseIndex and PhaseJoin for exact,
// PhaseSignatures, PhaseBands and PhaseVerify for LSH).
type Term struct {
	Name  TermName  `json:"name"`            // the unit of work counted
	Phase PhaseName `json:"phase"`           // the phase it is spent in
	Count float64   `json:"count"`           // >= 0
	Nanos float64   `json:"cpu_ns_per_unit"` // >= 0
	CPU   float64   `json:"cpu_s"`           // Count·Nanos·1e-9
	// Serial marks work done on one core (building the exact join's index);
	// the rest is spread over all of them.
	Serial bool `json:"serial,omitempty"`
}

// Cost is the predicted cost of one path, term by term: CPU seconds, and the
// wall time they take with Parallel cores: serial terms take their CPU time,
// the others their CPU time over Parallel.
type Cost struct {
	Seconds  float64 `json:"wall_s"`   // Σ over Terms of their CPU, divided by Parallel unless Serial
	CPU      float64 `json:"cpu_s"`    // Σ over Terms of their CPU, in Terms' order
	Parallel int     `json:"parallel"` // >= 1
	Terms    []Term  `json:"terms"`
}

func (c *Cost) add(name TermName, phase PhaseName, count, nanos float64) {
	s := count * nanos * 1e-9
	c.Terms = append(c.Terms, Term{Name: name, Phase: phase, Count: count, Nanos: nanos, CPU: s})
	c.CPU += s
}

// wall sets the wall time from the CPU time with par cores.
func (c *Cost) wall(par int) {
	c.Parallel = max(par, 1)
	c.Seconds = 0
	for _, t := range c.Terms {
		c.Seconds += c.termWall(t)
	}
}

func (c *Cost) termWall(t Term) float64 {
	if t.Serial {
		return t.CPU
	}
	return t.CPU / float64(max(c.Parallel, 1))
}

// Phase returns the predicted wall seconds of the terms spent in phase.
func (c Cost) Phase(phase PhaseName) float64 {
	s := 0.0
	for _, t := range c.Terms {
		if t.Phase == phase {
			s += c.termWall(t)
		}
	}
	return s
}

// Calibration holds the unit costs of the cost model in nanoseconds of CPU
// time (user and system, summed over cores: on a shared machine CPU time is
// much steadier than wall time, and the joins keep every core busy). Default
// holds the constants fitted on this project's machines; calibration.go says
// how they were made and how to make them again.
type Calibration struct {
	// Exact path (package join).
	ExactGroup      float64 // per distinct set: grouping, per-probe setup
	ExactIndex      float64 // per index entry: building the prefix index
	ExactProbeToken float64 // per probe-prefix token: finding its posting list and the size window
	ExactPosting    float64 // per posting in the size window: reading it, the cheap early checks
	ExactExamine    float64 // per posting examined: the candidate's counter and the positional filter
	ExactCandidate  float64 // per distinct candidate: the bounds checked before merging
	ExactVerify     float64 // per token of a verified candidate's set (verified × mean set size)
	ExactResult     float64 // per result pair: emitting it to the caller

	// LSH path (package approx).
	LSHToken     float64 // per set token and per dictionary entry: hashing and binning it
	LSHHash      float64 // per set token and signature value (classic scheme only): one hash function
	LSHValue     float64 // per signature value: initialising, packing
	LSHProbe     float64 // per densification probe (one-permutation scheme)
	LSHBand      float64 // per (set, band): the band's key, sorting it into its table
	LSHCollision float64 // per band collision (a pair meeting in a bucket, repeats included)
	LSHCandidate float64 // per distinct candidate pair: setting up its exact check
	LSHVerify    float64 // per token of a candidate's set (candidates × mean set size): the exact check
	LSHResult    float64 // per result pair: emitting it to the caller

	// Planning itself.
	PlanSampleToken float64 // per token of a sample: copying it into a sub-collection
	PlanPairToken   float64 // per token of a random pair whose similarity is measured
}

// exactCost prices the exact path's work: w from SelfWork or RSWork, the
// postings examined, candidates and verifications predicted for it, the mean
// set size and the expected results.
//
// The ℓ-prefix path (w.Ell > 1) is priced with the same unit costs, which
// were fitted on the prefix filter: a key looked up as a probe-prefix token
// (a hash-table probe against a posting-list lookup), a key-index entry as
// an index entry, an entry of a key's run as a posting, one past the mask
// bound as a posting examined. Measured against runs on password lists
// (BENCHMARKS.md, "Planner"), not fitted.
func (cal *Calibration) exactCost(w ExactWork, examined, candidates, verified, meanSize, results float64) Cost {
	var c Cost
	names := [...]TermName{TermIndexEntries, TermProbeTokens, TermPrefixPostings, TermExamined}
	if w.Ell > 1 {
		names = [...]TermName{TermIndexKeys, TermKeysLookedUp, TermKeyPostings, TermPastMask}
	}
	c.add(TermDistinctSets, PhaseIndex, float64(w.Groups), cal.ExactGroup)
	c.add(names[0], PhaseIndex, float64(w.IndexEntries), cal.ExactIndex)
	c.Terms[0].Serial, c.Terms[1].Serial = true, true
	c.add(names[1], PhaseJoin, float64(w.ProbeTokens), cal.ExactProbeToken)
	c.add(names[2], PhaseJoin, float64(w.Postings), cal.ExactPosting)
	c.add(names[3], PhaseJoin, examined, cal.ExactExamine)
	c.add(TermCandidates, PhaseJoin, candidates, cal.ExactCandidate)
	c.add(TermVerifiedTokens, PhaseJoin, verified*meanSize, cal.ExactVerify)
	c.add(TermResults, PhaseJoin, results, cal.ExactResult)
	return c
}

// lshWork is what the LSH path will do, as the cost model counts it.
type lshWork struct {
	scheme                           approx.Scheme
	sets                             int
	tokens                           int64
	vocab                            int
	k, bands                         int
	densify                          float64
	collisions, candidates, meanSize float64
	results                          float64
}

// lshCost prices the LSH path.
func (cal *Calibration) lshCost(w lshWork) Cost {
	var c Cost
	c.add(TermTokensHashed, PhaseSignatures, float64(w.tokens)+float64(w.vocab), cal.LSHToken)
	hashes, probes := 0.0, w.densify
	if w.scheme == approx.Classic {
		hashes, probes = float64(w.tokens)*float64(w.k), 0
	}
	c.add(TermHashFunctions, PhaseSignatures, hashes, cal.LSHHash)
	c.add(TermSignatureValues, PhaseSignatures, float64(w.sets)*float64(w.k), cal.LSHValue)
	c.add(TermDensifyProbes, PhaseSignatures, probes, cal.LSHProbe)
	c.add(TermBandKeys, PhaseBands, float64(w.sets)*float64(w.bands), cal.LSHBand)
	c.add(TermBandCollisions, PhaseVerify, w.collisions, cal.LSHCollision)
	c.add(TermCandidates, PhaseVerify, w.candidates, cal.LSHCandidate)
	c.add(TermVerifiedTokens, PhaseVerify, w.candidates*w.meanSize, cal.LSHVerify)
	c.add(TermResults, PhaseVerify, w.results, cal.LSHResult)
	return c
}

// exactUnits returns the constants of the exact path in the order
// exactCost adds its terms; lshUnits those of LSH in lshCost's order. The
// calibration fit writes through them.
func (cal *Calibration) exactUnits() []*float64 {
	return []*float64{&cal.ExactGroup, &cal.ExactIndex, &cal.ExactProbeToken, &cal.ExactPosting,
		&cal.ExactExamine, &cal.ExactCandidate, &cal.ExactVerify, &cal.ExactResult}
}

func (cal *Calibration) lshUnits() []*float64 {
	return []*float64{&cal.LSHToken, &cal.LSHHash, &cal.LSHValue, &cal.LSHProbe, &cal.LSHBand,
		&cal.LSHCollision, &cal.LSHCandidate, &cal.LSHVerify, &cal.LSHResult}
}
