// Package simjoin finds every pair of records whose token sets have
// similarity at least a threshold t: the all-pairs similarity join. It is
// the library's face, the one the simjoin command itself is built on.
//
// Two paths answer it. The exact path is AllPairs (Bayardo, Ma and Srikant,
// "Scaling up all pairs similarity search", WWW 2007) with the positional
// filter and suffix verification of PPJoin (Xiao, Wang, Lin and Yu,
// "Efficient similarity joins for near duplicate detection", WWW 2008), or
// AdaptJoin's ℓ-prefix where it costs less (package join). The LSH path is
// MinHash with banding (Broder 1997; Indyk and Motwani 1998; package approx):
// candidates from signature bands, verified exactly, so that a pair may be
// missed (with a probability the S-curve bounds) but none is false. The
// planner (package planner) prices both on the input at hand and chooses:
// Method Auto, the default. Every "similarity >= t" decision is made in
// integer arithmetic against t as an exact fraction, so a pair whose
// similarity is exactly t is always found by the exact path and no pair below
// it is reported by either.
//
// # Lifecycle
//
// A join reads its records from sources (package records: strings, ready
// sets, lines of a reader, or files selected under directories), tokenizes
// them (package shingle), builds the rare-first token order and the
// size-sorted collections (package order): Load returns that Input. With
// Method LSH (and no CheckRecall) Load builds no order: MinHash signs the
// token keys themselves and candidates are verified on sorted keys
// (approx.KeySets, 8 bytes a token), and the order is built only if
// Collections, Plan or Explain asks for it. With Method Auto (the default)
// Load keeps the records as read and builds no order either: the planner
// prices both paths' whole runs on the records first, and the order is built
// only when LSH does not clearly pay without it (the exact path needs it).
// Input.Join then plans (for Method Auto) and runs the chosen path,
// streaming the pairs to a callback and returning Stats that carry the plan
// and the counters of the path that ran. Input.Dedup clusters the pairs of a
// self-join; Input.Explain returns the plan, and optionally a measured run
// and a cross-check of LSH against the exact answer. Run is Load and Join in
// one call; SelfJoin is the shortest form for strings in memory, its pairs
// collected and sorted.
//
// An Input is immutable once loaded and safe for concurrent use; every call
// has ended its goroutines when it returns. The records and sets passed in
// are only read.
//
// # Layers
//
// The module's packages stand on layers, each importing only from its own
// layer or those below, and the folders show them (docs/architecture.md
// draws them; TestLayers checks every import against its table):
//
//	7  cmd/simjoin, and the command's own packages in cmd/simjoin/internal
//	6  simjoin (this package, the face)   index, index/httpapi
//	5  records (reading, tokenizing)       sink (writing pairs and clusters)
//	4  planner   cluster   passwords
//	3  join      approx
//	2  order
//	1  shingle   prefix
//	0  internal/... (shared mechanisms); the test kit apart in internal/testkit
//
// # What it does not do
//
// It keeps no index for later queries (see package index and join.Index) and
// holds the whole collection in memory: about 4 bytes per distinct token of
// every set, plus the path's own structures (join.EstimateMemory). It does
// not format: Stats are counters and durations, and the plan is a value;
// the simjoin command writes them as its reports.
package simjoin

import (
	"errors"
	"fmt"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// Pair is one result: A and B are 0-based indices of records (A < B in a
// self-join; A indexes the first source and B the second in an R-S join),
// Overlap the exact size of the intersection of their sets (-1 when the
// similarity is an LSH estimate, approx.VerifyEstimate), and Sim the
// similarity (for Overlap, Sim equals Overlap).
type Pair = join.Pair

// Method is a join path: Auto (the planner's choice), Exact or LSH.
type Method = planner.Method

// The methods.
const (
	// Auto lets the planner choose between Exact and LSH by the predicted
	// CPU time of each path's whole run (Input.Plan); it is the zero value.
	Auto = planner.Auto
	// Exact finds every pair: the prefix-filter joins of package join.
	Exact = planner.Exact
	// LSH is MinHash-LSH (package approx): faster on long sets at low
	// thresholds, and a pair may be missed.
	LSH = planner.LSH
)

// Plan is the planner's choice and the figures behind it.
type Plan = planner.Plan

// Measure is a set similarity measure (prefix.Measure): Jaccard, Cosine,
// Dice or Overlap.
type Measure = prefix.Measure

// The measures.
const (
	Jaccard = prefix.Jaccard // |x∩y| / |x∪y|; the zero value
	Cosine  = prefix.Cosine  // |x∩y| / sqrt(|x|·|y|)
	Dice    = prefix.Dice    // 2|x∩y| / (|x|+|y|)
	Overlap = prefix.Overlap // |x∩y|, with an integer threshold
)

// Threshold is a threshold as an exact fraction Num/Den (prefix.Threshold):
// every "similarity >= t" decision is made against it in integer
// arithmetic. Write it as a fraction (Threshold{Num: 4, Den: 5}), or read
// it from text (prefix.ParseThreshold: "0.8", "4/5") or from a float
// (prefix.ThresholdOf: the shortest decimal that reads back as the float).
// The zero Threshold is no threshold (prefix.Validate).
type Threshold = prefix.Threshold

// Options configures a join. The zero value of every field but Threshold
// works: whitespace-separated tokens, Jaccard, the planner's choice of
// method, approx's LSH defaults, one worker per core, no memory check.
type Options struct {
	// Tokens says how a record string or line becomes a set (shingle.Spec{}
	// takes whitespace-separated tokens as they are). Sets sources ignore
	// it.
	Tokens shingle.Spec
	// Measure is the similarity measure; the zero value is Jaccard.
	Measure Measure
	// Threshold is t: in (0, 1] for Jaccard, Cosine and Dice, an integer >= 1
	// for Overlap. It is required, as for every join of the module: the
	// zero Threshold fails with ErrNoThreshold, a value out of range with
	// ErrThreshold (prefix.Validate).
	Threshold Threshold
	// Method chooses the path; Auto (the zero value) lets the planner
	// choose. Explain prices both paths whatever it says.
	Method Method
	// LSHMargin is the factor by which LSH's whole run must be predicted
	// cheaper than exact's for Auto to take it (planner.Options.Prefer):
	// exact loses no pair. 0 means planner.DefaultPrefer (1.25); it must be
	// >= 1.
	LSHMargin float64
	// LSH holds the LSH parameters (scheme, K, bits, banding or target
	// recall, seed, verification, bucket cap, minimum size). Its Measure,
	// Threshold, Workers, Progress and Copies are taken from these Options.
	LSH approx.Options
	// CheckRecall, when the LSH path runs, also runs the exact join and
	// measures LSH against it (planner.MeasureLSH): Stats.CrossCheck. The pairs are
	// LSH's as without it; Dedup then gets copies as pairs.
	CheckRecall bool
	// Files applies to the Files sources of a join.
	Files records.FileOptions
	// Workers is the number of goroutines of every phase: reading Lines and
	// Files, ordering the collections (order.Input.Workers) and the join;
	// 0 or less means GOMAXPROCS, and more than 4·GOMAXPROCS means
	// 4·GOMAXPROCS. The result does not depend on it.
	Workers int
	// Progress, if not nil, is told how the long phases advance (see
	// Progress). It is called from the goroutine that called Load, Join,
	// Dedup or Explain.
	Progress func(Progress)
	// MemoryCheck, if not nil, is called once the records are read and
	// before they are ordered, with the memory the join is estimated to need
	// (join.EstimateMemory) and the records and tokens read; an error it
	// returns stops Load and is returned as it is.
	MemoryCheck func(need int64, records, tokens int) error
}

// Errors returned (wrapped) by the calls. All but ErrSources are the
// sentinels of the packages that detect them, so errors.Is works with either
// name.
var (
	// ErrNoThreshold: Options.Threshold is the zero Threshold.
	ErrNoThreshold = prefix.ErrNoThreshold
	// ErrThreshold: the threshold is outside its range for the measure.
	ErrThreshold = prefix.ErrThreshold
	// ErrMeasure: Options.Measure is not one of the prefix measures.
	ErrMeasure = prefix.ErrMeasure
	// ErrTokens: Options.Tokens is not a valid specification (an unknown
	// kind or normalisation, or a length outside 1..shingle.MaxN).
	ErrTokens = shingle.ErrSpec
	// ErrUTF8: a record is not valid UTF-8 and Options.Tokens needs text.
	// It comes wrapped in a *records.RecordError or a *records.LineError.
	ErrUTF8 = shingle.ErrUTF8
	// ErrMethod: Options.Method is not Auto, Exact or LSH.
	ErrMethod = planner.ErrMethod
	// ErrNoJaccardBound: Options.Method is LSH for a measure LSH cannot
	// estimate (Overlap, which no Jaccard threshold bounds).
	ErrNoJaccardBound = approx.ErrNoJaccardBound
	// ErrSources: Load was given no first source, or Dedup an R-S join.
	ErrSources = errors.New("simjoin: wrong sources")
	// ErrNoLSH: Explain was asked to cross-check LSH where the plan has
	// no LSH path (Plan.LSH.Why says why).
	ErrNoLSH = planner.ErrNoLSH
)

// threshold checks the measure and threshold of o (prefix.Validate) and
// returns t in lowest terms.
func (o *Options) threshold() (Threshold, error) {
	t, err := prefix.Validate(o.Measure, o.Threshold)
	if err != nil {
		return Threshold{}, fmt.Errorf("simjoin: %w", err)
	}
	return t, nil
}

// checkTokens reports whether spec is one that shingle can apply: a known
// kind, a length from 1 to shingle.MaxN where the kind takes one, and a known
// normalisation.
func checkTokens(spec shingle.Spec) error {
	ok := spec.Kind <= shingle.Go && spec.Norm&^(shingle.KeepCase|shingle.KeepPunct) == 0
	switch spec.Kind {
	case shingle.QGram, shingle.Shingle, shingle.Go:
		ok = ok && spec.N >= 1 && spec.N <= shingle.MaxN
	}
	if !ok {
		return fmt.Errorf("simjoin: %w: %s", ErrTokens, spec)
	}
	return nil
}
