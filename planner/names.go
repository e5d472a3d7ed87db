package planner

import (
	"fmt"
	"strconv"
)

// The planner's typed names: the phases a run times, the terms of a cost,
// the figures behind a plan and their units. Each is a small integer whose
// String (and MarshalText, so that JSON shows it as text) is its stable
// name; the words of reports are cmd/simjoin/internal/report's.

// PhaseName is a phase of a path's whole run: what a run times and a
// cost's terms are spent in.
type PhaseName uint8

const (
	// PhaseRead: reading the records and tokenizing them (both paths); the
	// token order's vocabulary too where it is filled as records arrive
	// (FrontEnd.Ordered).
	PhaseRead PhaseName = iota + 1
	// PhaseOrder: the exact path's token order and collections: the
	// vocabulary (unless filled while reading), the rare-first
	// dictionary, the sets rewritten and sorted by size.
	PhaseOrder
	// PhaseIndex: the exact path's grouping of sets and its index.
	PhaseIndex
	// PhaseJoin: the exact path's probes, filters, verification and the
	// results written (one phase: a probe verifies its candidates as it
	// finds them).
	PhaseJoin
	// PhaseSignatures: LSH's identical sets grouped, token hashes and
	// MinHash signatures.
	PhaseSignatures
	// PhaseBands: LSH's band keys, sorted into tables.
	PhaseBands
	// PhaseVerify: LSH's candidates, their verification and the results
	// written.
	PhaseVerify
)

var phaseNames = [...]string{PhaseRead: "read", PhaseOrder: "order", PhaseIndex: "index", PhaseJoin: "join",
	PhaseSignatures: "signatures", PhaseBands: "bands", PhaseVerify: "verify"}

// String returns "read", "order", "index", "join", "signatures", "bands" or
// "verify".
func (p PhaseName) String() string { return enumText(phaseNames[:], p, "phase") }

// MarshalText returns the phase's name, so that JSON shows "index".
func (p PhaseName) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a phase's name.
func (p *PhaseName) UnmarshalText(b []byte) error { return unmarshalEnum(phaseNames[:], p, b, "phase") }

// TermName is a term of a path's predicted cost (Term): the unit of work it
// counts, each a count the engine reports for its phase (the simjoin
// package's Stats, join.Stats, approx.Stats).
type TermName uint8

const (
	// Both paths: reading.
	TermBytes      TermName = iota + 1 // bytes read and tokenized
	TermTokensRead                     // distinct tokens of the records read, kept as keys or values
	TermFiles                          // files listed and read
	TermSetTokens                      // tokens of ready sets, numbered through the source's map
	// Exact path: the token order.
	TermTokensEntered  // tokens entered into the vocabulary's table
	TermValuesEntered  // tokens entered as small values (the order's array)
	TermDistinctKeys   // distinct tokens: the vocabulary's keys, the dictionary's entries
	TermTokensOrdered  // tokens rewritten as ids and sorted within their sets
	TermRecordsOrdered // records sorted by size and grouped
	// Exact path: the index phase.
	TermDistinctSets // distinct sets grouped
	TermBitmapTokens // tokens of the distinct sets: their bitmaps
	TermIndexEntries // entries of the prefix index
	TermIndexKeys    // entries of the ℓ-prefix path's key index
	// Exact path: the join phase. The ℓ-prefix path counts keys and key
	// postings where the prefix filter counts tokens and prefix postings.
	TermProbeGroups    // distinct sets probed
	TermProbeTokens    // probe-prefix tokens looked up
	TermKeysLookedUp   // keys looked up (ℓ-prefix)
	TermPrefixPostings // postings in the size window
	TermKeyPostings    // entries of the keys' runs (ℓ-prefix)
	TermExamined       // postings whose candidate was examined
	TermPastMask       // postings past the mask bound (ℓ-prefix)
	// Both paths.
	TermCandidates     // distinct candidates
	TermVerifiedTokens // tokens of the sets verified
	TermResults        // result pairs emitted and written
	// LSH path.
	TermTokensHashed    // tokens hashed: every record's, to group identical sets, and every distinct set's, into its signature (key sets)
	TermWordsHashed     // dictionary entries hashed (a collection's join)
	TermTokensSigned    // tokens of the distinct sets signed from the dictionary's hashes (a collection's join)
	TermHashFunctions   // token hash functions evaluated (classic scheme)
	TermSignatureValues // signature values
	TermDensifyProbes   // densification probes (one-permutation scheme: sets smaller than K)
	TermBandKeys        // band keys
	TermBandSort        // band keys times log2 of the sets banded: sorting the band tables
	TermBandCollisions  // band collisions, repeats included
)

var termNames = [...]string{
	TermBytes: "bytes read", TermTokensRead: "tokens read", TermFiles: "files read", TermSetTokens: "set tokens numbered",
	TermTokensEntered: "tokens entered", TermValuesEntered: "values entered", TermDistinctKeys: "distinct tokens",
	TermTokensOrdered: "tokens ordered", TermRecordsOrdered: "records ordered",
	TermDistinctSets: "distinct sets", TermBitmapTokens: "set tokens (bitmaps)", TermIndexEntries: "index entries", TermIndexKeys: "index entries (keys)",
	TermProbeGroups: "sets probed",
	TermProbeTokens: "probe-prefix tokens", TermKeysLookedUp: "keys looked up", TermPrefixPostings: "prefix postings",
	TermKeyPostings: "key postings", TermExamined: "postings examined", TermPastMask: "postings past the mask",
	TermCandidates: "candidates", TermVerifiedTokens: "verified tokens", TermResults: "results",
	TermTokensHashed: "tokens hashed", TermWordsHashed: "dictionary entries hashed",
	TermTokensSigned: "tokens signed", TermHashFunctions: "token hash functions", TermSignatureValues: "signature values",
	TermDensifyProbes: "densification probes",
	TermBandKeys:      "band keys", TermBandSort: "band keys sorted (x log2 sets)", TermBandCollisions: "band collisions",
}

// String returns the term's name, such as "prefix postings".
func (t TermName) String() string { return enumText(termNames[:], t, "term") }

// MarshalText returns the term's name.
func (t TermName) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a term's name.
func (t *TermName) UnmarshalText(b []byte) error { return unmarshalEnum(termNames[:], t, b, "term") }

// FigureName is a figure that decided a plan (Figure).
type FigureName uint8

const (
	FigureExactCPU          FigureName = iota + 1 // exact's predicted CPU seconds
	FigureLSHCPU                                  // LSH's predicted CPU seconds
	FigureExactOverLSH                            // exact's predicted CPU time over LSH's
	FigureKeyTokens                               // tokens per index key (ℓ-prefix)
	FigureKeyPostings                             // key postings (ℓ-prefix)
	FigureMeanKeyPostings                         // key postings per key looked up (ℓ-prefix)
	FigurePrefixPostings                          // prefix postings
	FigureMeanTokenPostings                       // prefix postings per probe-prefix token
	FigureProbeShare                              // probe-prefix tokens per 100 set tokens
	FigureExactCandidates                         // exact's predicted candidates
	FigureLSHCandidates                           // LSH's predicted candidates
	FigureLSHRecall                               // LSH's expected recall
	FigureResults                                 // expected results
)

var figureNames = [...]string{
	FigureExactCPU: "exact predicted CPU", FigureLSHCPU: "lsh predicted CPU", FigureExactOverLSH: "exact / lsh",
	FigureKeyTokens: "tokens per index key", FigureKeyPostings: "key postings", FigureMeanKeyPostings: "mean postings per key",
	FigurePrefixPostings: "prefix postings", FigureMeanTokenPostings: "mean postings per probe token",
	FigureProbeShare: "probe prefix share of tokens", FigureExactCandidates: "exact candidates",
	FigureLSHCandidates: "lsh candidates", FigureLSHRecall: "lsh recall", FigureResults: "expected results",
}

// String returns the figure's name, such as "exact predicted CPU".
func (f FigureName) String() string { return enumText(figureNames[:], f, "figure") }

// MarshalText returns the figure's name.
func (f FigureName) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Unit returns the unit of the figure's values: Seconds, Times, Percent, or
// NoUnit for counts and ratios.
func (f FigureName) Unit() Unit {
	switch f {
	case FigureExactCPU, FigureLSHCPU:
		return Seconds
	case FigureExactOverLSH:
		return Times
	case FigureProbeShare:
		return Percent
	}
	return NoUnit
}

// Unit is the unit of a figure's value.
type Unit uint8

const (
	NoUnit  Unit = iota // a count or a ratio
	Seconds             // "s"
	Times               // "x": a factor
	Percent             // "%"
)

var unitNames = [...]string{NoUnit: "", Seconds: "s", Times: "x", Percent: "%"}

// String returns "s", "x", "%" or "" for NoUnit.
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return "unit(" + strconv.Itoa(int(u)) + ")"
}

// MarshalText returns the unit's symbol.
func (u Unit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// StepKind is what a step of a check ran (Step).
type StepKind uint8

const (
	StepExact  StepKind = iota + 1 // the exact join
	StepSample                     // the sample of pairs below the floor
	StepLSH                        // one banding's LSH runs
)

var stepNames = [...]string{StepExact: "exact", StepSample: "sample", StepLSH: "lsh"}

// String returns "exact", "sample" or "lsh".
func (k StepKind) String() string { return enumText(stepNames[:], k, "step") }

// MarshalText returns the step's name.
func (k StepKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// unmarshalEnum sets *v to the value whose name is b.
func unmarshalEnum[T ~uint8](names []string, v *T, b []byte, kind string) error {
	for i, n := range names {
		if n != "" && n == string(b) {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("planner: unknown %s %q", kind, b)
}

// enumText returns names[v], or kind(v) for a value without a name.
func enumText[T ~uint8](names []string, v T, kind string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(int(v)) + ")"
}
