package planner

import (
	"math"
	"slices"

	"github.com/simjoin/simjoin/approx"
)

// Term is one component of a path's predicted cost: Count units of work at
// Nanos nanoseconds of CPU each, CPU seconds in all, spent in a phase of the
// path's whole run (PhaseRead on both paths; PhaseOrder, PhaseIndex and
// PhaseJoin for exact; PhaseSignatures, PhaseBands and PhaseVerify for
// LSH). Every Count is one the engine reports for that phase (see
// TermName), so that a run's counts price the same terms (Plan.Counted).
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

// Cost is the predicted cost of one path's whole run, term by term: CPU
// seconds, and the wall time they take with Parallel cores: serial terms
// take their CPU time, the others their CPU time over Parallel.
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

// PhaseCPU returns the predicted CPU seconds of the terms spent in phase.
func (c Cost) PhaseCPU(phase PhaseName) float64 {
	s := 0.0
	for _, t := range c.Terms {
		if t.Phase == phase {
			s += t.CPU
		}
	}
	return s
}

// Phases returns the phases of c's terms, in the order of a run.
func (c Cost) Phases() []PhaseName {
	var ps []PhaseName
	for _, t := range c.Terms {
		if !slices.Contains(ps, t.Phase) {
			ps = append(ps, t.Phase)
		}
	}
	slices.Sort(ps)
	return ps
}

// Term returns the term of c named name in phase, and false when c has
// none.
func (c Cost) Term(name TermName, phase PhaseName) (Term, bool) {
	for _, t := range c.Terms {
		if t.Name == name && t.Phase == phase {
			return t, true
		}
	}
	return Term{}, false
}

// exactCounts is the exact path's work after the front end, as its cost
// counts it: predicted (the plan's estimates) or as a run reported it
// (join.Stats, Plan.Counted).
type exactCounts struct {
	work       ExactWork // groups, index entries, probe tokens, postings
	setTokens  float64   // tokens of the distinct sets
	examined   float64
	candidates float64
	verified   float64 // candidates merged
	meanSize   float64 // tokens per set: a verified candidate merges about this many
	results    float64
}

// exactCost prices the exact path's whole run: reading fe, ordering its
// distinct tokens, indexing, probing, verifying and writing w's results
// (the joins alone when fe says nothing: FrontEnd.given).
//
// The ℓ-prefix path (w.work.Ell > 1) is priced with the same unit costs,
// which were fitted on the prefix filter: a key looked up as a probe-prefix
// token (a hash-table probe against a posting-list lookup), a key-index
// entry as an index entry, an entry of a key's run as a posting, one past
// the mask bound as a posting examined.
func (cal *Calibration) exactCost(fe FrontEnd, w exactCounts) Cost {
	var c Cost
	if fe.given() {
		cal.readCost(&c, fe)
		cal.orderCost(&c, fe)
	}
	names := [...]TermName{TermIndexEntries, TermProbeTokens, TermPrefixPostings, TermExamined}
	if w.work.Ell > 1 {
		names = [...]TermName{TermIndexKeys, TermKeysLookedUp, TermKeyPostings, TermPastMask}
	}
	k := len(c.Terms)
	c.add(TermDistinctSets, PhaseIndex, float64(w.work.Groups), cal.Exact.Group)
	c.add(names[0], PhaseIndex, float64(w.work.IndexEntries), cal.Exact.IndexEntry)
	c.Terms[k].Serial, c.Terms[k+1].Serial = true, true
	c.add(TermBitmapTokens, PhaseIndex, w.setTokens, cal.Exact.SetToken)
	c.add(TermProbeGroups, PhaseJoin, float64(w.work.Groups), cal.Exact.ProbeGroup)
	c.add(names[1], PhaseJoin, float64(w.work.ProbeTokens), cal.Exact.ProbeToken)
	c.add(names[2], PhaseJoin, float64(w.work.Postings), cal.Exact.Posting)
	c.add(names[3], PhaseJoin, w.examined, cal.Exact.Examined)
	c.add(TermCandidates, PhaseJoin, w.candidates, cal.Exact.Candidate)
	c.add(TermVerifiedTokens, PhaseJoin, w.verified*w.meanSize, cal.Exact.VerifiedToken)
	c.add(TermResults, PhaseJoin, w.results, cal.Exact.Result)
	return c
}

// readCost adds the reading of fe: its bytes at the tokenizer's cost (the
// values' road's where its tokens came as small values), its tokens kept,
// its files opened, a ready set's tokens numbered.
func (cal *Calibration) readCost(c *Cost, fe FrontEnd) {
	r := &cal.Read
	if fe.Tokenizer == TokenizeNone {
		c.add(TermSetTokens, PhaseRead, float64(fe.Tokens), r.SetToken)
	} else {
		share := 0.0
		if fe.Tokens > 0 {
			share = float64(fe.Values) / float64(fe.Tokens)
		}
		keys, vals := r.byteCost(fe.Tokenizer)
		c.add(TermBytes, PhaseRead, float64(fe.Bytes), (1-share)*keys+share*vals)
		c.add(TermTokensRead, PhaseRead, float64(fe.Tokens), r.Token)
	}
	if fe.Files > 0 {
		c.add(TermFiles, PhaseRead, float64(fe.Files), r.File)
	}
}

// orderCost adds the exact path's token order over fe's tokens and
// distinct tokens: the vocabulary and the build. Keys are entered into the
// vocabulary's table as they are read when the order is built with the
// records (in PhaseRead then); small values only wait in blocks until the
// build counts and numbers them (order.Input.AddValues), so theirs is the
// order's phase either way.
func (cal *Calibration) orderCost(c *Cost, fe FrontEnd) {
	o := &cal.Order
	vocab := PhaseOrder
	if fe.Ordered {
		vocab = PhaseRead
	}
	keys := float64(fe.Tokens - fe.Values)
	if keys > 0 || fe.Values == 0 {
		c.add(TermTokensEntered, vocab, keys, o.TokenEntered)
	}
	if fe.Values > 0 {
		c.add(TermValuesEntered, PhaseOrder, float64(fe.Values), o.ValueEntered)
	}
	c.add(TermDistinctKeys, PhaseOrder, float64(fe.Distinct), o.Distinct)
	c.add(TermTokensOrdered, PhaseOrder, float64(fe.Tokens), o.TokenOrdered)
	c.add(TermRecordsOrdered, PhaseOrder, float64(fe.Records), o.Record)
}

// lshCounts is what the LSH path does after the front end, as its cost
// counts it: predicted, or as a run reported it (approx.Stats).
type lshCounts struct {
	scheme approx.Scheme
	k      int
	bands  int
	// keys: the run is over key sets (approx.JoinKeys), which groups
	// identical sets by hashing every record's tokens (recordTokens) and
	// hashes each unit's tokens; otherwise over collections, whose
	// dictionary entries are hashed once and the units' tokens signed from
	// them.
	keys          bool
	recordTokens  float64 // tokens of every record (grouped, over key sets)
	units         float64 // distinct sets signed
	tokens        float64 // their tokens
	words         float64 // dictionary entries hashed (collections)
	probes        float64 // densification probes (one-permutation scheme)
	collisions    float64
	candidates    float64
	verifiedToken float64 // tokens per candidate verified: the units' mean size
	results       float64
}

// lshCost prices the LSH path's whole run: reading fe, signing, banding,
// verifying and writing (the join alone when fe says nothing). When fe was
// ordered as it was read (the order is built before planning:
// FrontEnd.Ordered), the LSH run starts from the order too, and its price
// includes the order's.
func (cal *Calibration) lshCost(fe FrontEnd, w lshCounts) Cost {
	var c Cost
	if fe.given() {
		cal.readCost(&c, fe)
		if fe.Ordered {
			cal.orderCost(&c, fe)
		}
	}
	l := &cal.LSH
	if w.keys {
		// Every record's tokens hashed to group identical sets, and every
		// distinct set's into its signature: nearly the same count twice,
		// one cost.
		c.add(TermTokensHashed, PhaseSignatures, w.recordTokens+w.tokens, l.TokenHashed)
	} else {
		c.add(TermWordsHashed, PhaseSignatures, w.words, l.WordHashed)
		c.add(TermTokensSigned, PhaseSignatures, w.tokens, l.TokenSigned)
	}
	if w.scheme == approx.Classic {
		c.add(TermHashFunctions, PhaseSignatures, w.tokens*float64(w.k), l.HashFunction)
	}
	c.add(TermSignatureValues, PhaseSignatures, w.units*float64(w.k), l.SignatureValue)
	if w.scheme != approx.Classic {
		c.add(TermDensifyProbes, PhaseSignatures, w.probes, l.Probe)
	}
	keys := w.units * float64(w.bands)
	c.add(TermBandKeys, PhaseBands, keys, l.BandKey)
	c.add(TermBandSort, PhaseBands, keys*math.Log2(max(w.units, 2)), l.BandSort)
	c.add(TermBandCollisions, PhaseVerify, w.collisions, l.Collision)
	c.add(TermCandidates, PhaseVerify, w.candidates, l.Candidate)
	c.add(TermVerifiedTokens, PhaseVerify, w.candidates*w.verifiedToken, l.VerifiedToken)
	c.add(TermResults, PhaseVerify, w.results, l.Result)
	return c
}
