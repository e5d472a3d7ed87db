package approx

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/prefix"
)

// Verify says how candidates are decided.
type Verify uint8

const (
	// VerifyExact decides each candidate on the original sets, exactly (join.Verify
	// with prefix.Bounds): reported similarities are exact. The default.
	VerifyExact Verify = iota
	// VerifyEstimate decides each candidate on its signatures' estimate of the
	// Jaccard similarity: no set is read after signing, and reported
	// similarities are estimates (Pair.Overlap is -1).
	VerifyEstimate
)

var verifyNames = [...]string{VerifyExact: "exact", VerifyEstimate: "estimate"}

// String returns "exact" or "estimate".
func (v Verify) String() string {
	if int(v) < len(verifyNames) {
		return verifyNames[v]
	}
	return fmt.Sprintf("verify(%d)", int(v))
}

// ParseVerify reads "exact" or "estimate"; anything else is an
// *OptionError wrapping ErrVerify.
func ParseVerify(s string) (Verify, error) {
	for i, n := range verifyNames {
		if s == n {
			return Verify(i), nil
		}
	}
	return 0, &OptionError{"Verify", strconv.Quote(s), "exact or estimate", ErrVerify}
}

// Defaults filled in by Options.Resolve.
const (
	DefaultK         = 128
	DefaultBits      = 32
	DefaultMaxBucket = 2000
)

// ErrNoJaccardBound is returned (wrapped) for the Overlap measure, which no
// Jaccard threshold bounds: use the exact join.
var ErrNoJaccardBound = errors.New("approx: LSH needs a measure with a Jaccard lower bound (jaccard, dice or cosine)")

// Options configures the LSH joins and the query index. The zero value of
// every field but Threshold works: Jaccard, one-permutation hashing, K = 128,
// 32-bit values, the cheapest banding that finds every pair at or above the
// threshold with probability 0.95, exact verification, seed 0, all cores.
type Options struct {
	Measure   prefix.Measure
	Threshold prefix.Threshold // from prefix.ParseThreshold or prefix.ThresholdOf; required

	Scheme Scheme // OnePerm (default) or Classic
	K      int    // signature length, 1..MaxK; 0 means DefaultK
	Bits   int    // bits kept of each value: 8, 16, 32 or 64; 0 means DefaultBits
	// Shape is the banding; the zero Shape means ChooseRecall(JaccardThreshold,
	// K, Recall).
	Shape Shape
	// Recall is the target of ChooseRecall, in (0, 1); 0 means DefaultRecall.
	// Ignored when Shape is given.
	Recall float64
	Seed   uint64 // seeds every hash (see Hasher); results depend on it alone
	Verify Verify

	// MaxBucket caps the units (distinct sets) of one band bucket: a larger
	// bucket yields no candidates in that band, and is counted in
	// Stats.CappedBuckets and Stats.CappedPairs. 0 means DefaultMaxBucket;
	// negative means no cap.
	MaxBucket int
	// MinSize drops records whose sets have fewer tokens before banding:
	// near-empty sets collide by chance. They never join; Stats.Dropped
	// counts them. 0 keeps every non-empty set.
	MinSize int

	// Workers is the number of goroutines; 0 means GOMAXPROCS, and more than
	// 4·GOMAXPROCS means 4·GOMAXPROCS. The output is the same for every value.
	Workers int
	// Progress, if not nil, is called from the calling goroutine with the
	// number of work chunks done and the total.
	Progress func(done, total int)
	// Copies, if not nil, makes SelfJoin report groups instead of record
	// pairs, as join.Options.Copies does for the exact join: each group of
	// two or more records with identical sets goes to Copies once (ids
	// ascending, the slice reused after the call), before any pair, and
	// yield gets one pair per pair of distinct sets, between the lowest ids
	// of their groups. Stats.Results still counts the record pairs stood
	// for. RSJoin ignores it.
	Copies func(ids []int) bool

	chosen bool // set by Resolve when it chose Shape
}

// JaccardThreshold returns the Jaccard similarity that every pair reaching t
// under m is sure to reach, which the banding is chosen for: t for Jaccard,
// t/(2-t) for Dice (the two are equivalent), t² for Cosine (reached when one
// set contains the other; otherwise Jaccard is higher). Overlap has none.
func JaccardThreshold(m prefix.Measure, t prefix.Threshold) (float64, error) {
	t, err := prefix.Validate(m, t)
	if err != nil {
		return 0, fmt.Errorf("approx: %w", err)
	}
	f := t.Float()
	switch m {
	case prefix.Jaccard:
		return f, nil
	case prefix.Dice:
		return f / (2 - f), nil
	case prefix.Cosine:
		return f * f, nil
	}
	return 0, fmt.Errorf("%w; %s has none", ErrNoJaccardBound, m)
}

// Resolve checks o and returns it with every default filled in and the shape
// chosen. It is what the joins and the index run with, so a caller (a command
// line, a planner) can report the choice and fail on bad options before any
// work starts. It checks the measure and threshold, fills in the defaults of
// K, Bits, Recall and MaxBucket, checks the rest with Validate, and chooses the
// shape when none is given. Errors wrap ErrNoJaccardBound or prefix.ErrNoThreshold,
// or are Validate's (*OptionError, or ErrShape for a shape that does not fit
// K), or ChooseRecall's (ErrRecall). Cost: that of ChooseRecall when no
// shape is given.
func (o Options) Resolve() (Options, error) {
	jt, err := JaccardThreshold(o.Measure, o.Threshold)
	if err != nil {
		return o, err
	}
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.Bits == 0 {
		o.Bits = DefaultBits
	}
	if o.Recall == 0 {
		o.Recall = DefaultRecall
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	if o.Shape == (Shape{}) {
		if o.Shape, err = ChooseRecall(jt, o.K, o.Recall); err != nil {
			return o, err
		}
		o.chosen = true
	}
	if o.MaxBucket == 0 {
		o.MaxBucket = DefaultMaxBucket
	}
	o.Workers = parallel.Workers(o.Workers)
	return o, nil
}

// Stats reports what an LSH join did. Units are the sets signed: the
// distinct non-empty sets of each side (identical sets are signed once), or
// every set of an Index (Index.SelfJoin groups none); pair counts below are
// of units unless they say records.
//
// Every candidate is verified once; every pair reported is a pair of
// identical records or a record pair of a candidate that passed. So a join
// that ran to its end (yield did not stop it) keeps
//
//	Passed <= Candidates <= Collisions
//	Results = SameSetPairs + Σ over passed candidates (u, w) of |u|·|w| >= SameSetPairs + Passed
//
// (|u|: the records of unit u), and whatever it did
//
//	Skipped + Dropped <= Records, Units <= Records, SignatureBytes = Units·K·Bits/8
//	IndexBytes = 16·Bands·(units banded) <= 16·Bands·Units
//	LargestBucket is 0 when Buckets is, else in [2, Units]
//	CappedBuckets > 0 exactly when CappedPairs > 0; CappedBuckets <= CappedPairs;
//	  and then 0 <= MaxBucket < LargestBucket
//
// (checked under -tags invariants).
type Stats struct {
	Records int // records given, both sides for an R-S join
	Skipped int // empty records, which never join
	Dropped int // records dropped by MinSize before banding
	Units   int // sets signed (see above); those of at least MinSize tokens are banded
	// Tokens is the tokens of the units signed (each hashed once, K times
	// by Classic); Words the dictionary entries hashed once each for them
	// (a join of collections signs their ids through the words; 0 for key
	// sets and an Index, which hash the keys themselves).
	Tokens int64
	Words  int
	// Probes is the probes the densification of one-permutation
	// signatures made: the empty bins of sets smaller than K filled (0 for
	// the classic scheme).
	Probes int64

	Scheme           Scheme
	K, Bits          int
	Shape            Shape
	Seed             uint64
	TargetRecall     float64 // the recall the shape was chosen for (0 when given)
	JaccardThreshold float64 // what the banding is for (see JaccardThreshold)
	// PredictedRecall is P(JaccardThreshold): every pair at or above the
	// threshold is found with at least this probability, so the expected
	// recall is at least this. PredictedMeanRecall is the mean of P over
	// [JaccardThreshold, 1]: the expected recall when similarities above the
	// threshold are uniform.
	PredictedRecall     float64
	PredictedMeanRecall float64
	SignatureBytes      int64 // K·Bits/8 per unit
	IndexBytes          int64 // band tables: 16 bytes per unit and band

	Buckets       int64 // band buckets holding two units or more
	LargestBucket int   // units in the largest bucket, capped or not
	MaxBucket     int   // the cap in force (-1: none)
	// CappedBuckets counts the buckets over the cap, which yielded no
	// candidates (in an R-S join, each probe that met one), and CappedPairs
	// the unit pairs they held, not considered in that band.
	CappedBuckets int64
	CappedPairs   int64
	Collisions    int64 // unit pairs met in an uncapped bucket, repeats across bands included
	Candidates    int64 // distinct unit pairs, each verified once (in the first band they share)
	Passed        int64 // candidates that reached the threshold: exactly, or by estimate with VerifyEstimate
	// SameSetPairs is the record pairs of identical sets (a unit's records),
	// reported without banding: 0 in an R-S join and in Index.SelfJoin,
	// whose identical sets meet in the bands like any.
	SameSetPairs int64
	Results      int64 // record pairs reported (or stood for, with Options.Copies), SameSetPairs included
	Estimated    bool  // similarities are signature estimates (VerifyEstimate)

	SignTime time.Duration // signing every unit
	BandTime time.Duration // band keys and sorting them
	JoinTime time.Duration // candidates, verification and emitting
	// SignCPU, BandCPU and JoinCPU are the process's CPU time (user and
	// system, all threads) during the three phases; 0 where the system
	// cannot say.
	SignCPU, BandCPU, JoinCPU time.Duration

	Workers int
}

// add adds the banding counters of a chunk of the join, o.
func (s *Stats) add(o *Stats) {
	s.Collisions += o.Collisions
	s.Candidates += o.Candidates
	s.Passed += o.Passed
	s.CappedPairs += o.CappedPairs
	s.CappedBuckets += o.CappedBuckets
}

// checkIdentity panics unless s keeps the relations stated on Stats; ended
// says the join ran to its end, so that its results are all counted.
// Called under -tags invariants at the end of every join.
func (s *Stats) checkIdentity(ended bool) {
	bad := func(format string, args ...any) {
		panic(fmt.Sprintf("approx: Stats identity broken: "+format, args...))
	}
	if ended && !(s.Passed <= s.Candidates && s.Candidates <= s.Collisions && s.SameSetPairs+s.Passed <= s.Results) {
		bad("Passed %d, Candidates %d, Collisions %d; SameSetPairs %d + Passed %d > Results %d",
			s.Passed, s.Candidates, s.Collisions, s.SameSetPairs, s.Passed, s.Results)
	}
	if s.Skipped+s.Dropped > s.Records || s.Units > s.Records {
		bad("Skipped %d, Dropped %d, Units %d of %d records", s.Skipped, s.Dropped, s.Units, s.Records)
	}
	if want := int64(s.Units) * int64(s.K*s.Bits/8); s.SignatureBytes != want {
		bad("SignatureBytes %d for %d units of K %d at %d bits", s.SignatureBytes, s.Units, s.K, s.Bits)
	}
	if per := 16 * int64(s.Shape.B); per == 0 || s.IndexBytes%per != 0 || s.IndexBytes > per*int64(s.Units) {
		bad("IndexBytes %d for %d bands of %d units", s.IndexBytes, s.Shape.B, s.Units)
	}
	if (s.Buckets == 0) != (s.LargestBucket == 0) || s.Buckets > 0 && (s.LargestBucket < 2 || s.LargestBucket > s.Units) {
		bad("%d buckets, the largest of %d of %d units", s.Buckets, s.LargestBucket, s.Units)
	}
	if (s.CappedBuckets > 0) != (s.CappedPairs > 0) || s.CappedBuckets > s.CappedPairs ||
		s.CappedBuckets > 0 && !(s.MaxBucket >= 0 && s.MaxBucket < s.LargestBucket) {
		bad("%d capped buckets, %d capped pairs, cap %d, largest bucket %d", s.CappedBuckets, s.CappedPairs, s.MaxBucket, s.LargestBucket)
	}
}

// fill copies the resolved options into the report.
func (s *Stats) fill(o *Options) {
	jt, _ := JaccardThreshold(o.Measure, o.Threshold)
	s.Scheme = o.Scheme
	s.K, s.Bits, s.Shape, s.Seed = o.K, o.Bits, o.Shape, o.Seed
	s.JaccardThreshold = jt
	if o.chosen {
		s.TargetRecall = o.Recall
	}
	s.PredictedRecall = o.Shape.P(jt)
	s.PredictedMeanRecall = o.Shape.MeanRecall(jt)
	s.MaxBucket = max(o.MaxBucket, -1)
	s.Estimated = o.Verify == VerifyEstimate
	s.Workers = o.Workers
}
