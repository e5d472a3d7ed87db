package prefix

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Measure is a set similarity measure.
type Measure uint8

const (
	// Jaccard is |x∩y| / |x∪y|.
	Jaccard Measure = iota
	// Cosine is |x∩y| / sqrt(|x|·|y|).
	Cosine
	// Dice is 2|x∩y| / (|x|+|y|).
	Dice
	// Overlap is |x∩y|, with an integer threshold.
	Overlap
)

var measureNames = [...]string{Jaccard: "jaccard", Cosine: "cosine", Dice: "dice", Overlap: "overlap"}

// String returns the command-line name of m.
func (m Measure) String() string {
	if int(m) < len(measureNames) {
		return measureNames[m]
	}
	return "measure(" + strconv.Itoa(int(m)) + ")"
}

// MarshalText returns the command-line name of m, so that JSON shows
// "jaccard".
func (m Measure) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a name as ParseMeasure does.
func (m *Measure) UnmarshalText(b []byte) error {
	v, err := ParseMeasure(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// AppendSim appends a similarity under m as simjoin writes it in its output:
// an integer for Overlap, otherwise a decimal with at most six places and no
// trailing zeros ("0.8", "1", "0.714286"). Cost: O(1); no allocation when b
// has room.
func (m Measure) AppendSim(b []byte, sim float64) []byte {
	if m == Overlap {
		return strconv.AppendInt(b, int64(sim), 10)
	}
	start := len(b)
	b = strconv.AppendFloat(b, sim, 'f', 6, 64)
	for len(b) > start+1 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}

// ErrMeasure is returned (wrapped) for an unknown measure name.
var ErrMeasure = errors.New("unknown measure")

// ErrNoThreshold is returned (wrapped) by every join, index, planner and
// password function of the module when no threshold is given: the zero
// Threshold, which is never a default (see Validate). It is the one sentinel
// for that case: test it with errors.Is.
var ErrNoThreshold = errors.New("no threshold given")

// ErrThreshold is returned (wrapped) for a threshold outside its range: (0, 1]
// with at most MaxDecimals decimal places for Jaccard, Cosine and Dice, an
// integer >= 1 for Overlap.
var ErrThreshold = errors.New("bad threshold")

// ParseMeasure reads "jaccard", "cosine", "dice" or "overlap".
func ParseMeasure(s string) (Measure, error) {
	for i, n := range measureNames {
		if strings.EqualFold(s, n) {
			return Measure(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q: want jaccard, cosine, dice or overlap", ErrMeasure, s)
}

// MaxDecimals is the precision of a fractional threshold: thresholds are exact
// fractions whose denominator is at most 10^MaxDecimals.
const MaxDecimals = 9

const maxDen = 1_000_000_000

// Threshold is an exact threshold Num/Den in lowest terms. Every decision
// "similarity >= t" is made in integer arithmetic against it, so a pair whose
// similarity is exactly t is kept and one a hair below is not.
type Threshold struct {
	Num, Den uint64
}

// Float returns t as the nearest float64.
func (t Threshold) Float() float64 { return float64(t.Num) / float64(t.Den) }

// String returns t as a decimal, or as Num/Den where that is not exact.
func (t Threshold) String() string {
	if t.Den == 0 {
		return "unset"
	}
	if t.Den == 1 {
		return strconv.FormatUint(t.Num, 10)
	}
	r := new(big.Rat).SetFrac(new(big.Int).SetUint64(t.Num), new(big.Int).SetUint64(t.Den))
	if r.IsInt() {
		return r.RatString()
	}
	if s, exact := r.FloatPrec(); exact {
		return r.FloatString(s)
	}
	return r.RatString()
}

// MarshalText returns t as String writes it, so that JSON shows "0.8" (and
// "unset" for the zero Threshold).
func (t Threshold) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads what MarshalText writes: "unset" as the zero
// Threshold, an integer >= 1 (an Overlap threshold), or a decimal or fraction
// in (0, 1] as ParseThreshold reads it for Jaccard. It does not know the
// measure: ParseThreshold(m, t.String()) checks t against one.
func (t *Threshold) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "unset" {
		*t = Threshold{}
		return nil
	}
	v, err := ParseThreshold(Overlap, s)
	if err != nil {
		v, err = ParseThreshold(Jaccard, s)
	}
	if err != nil {
		return fmt.Errorf("%w %q: want an integer >= 1, or a number in (0, 1] such as 0.8 or 4/5", ErrThreshold, s)
	}
	*t = v
	return nil
}

// ParseThreshold reads a threshold for m: a decimal such as "0.8" or a
// fraction such as "4/5" in (0, 1] for Jaccard, Cosine and Dice, and an
// integer >= 1 for Overlap.
func ParseThreshold(m Measure, s string) (Threshold, error) {
	bad := func(why string) (Threshold, error) {
		return Threshold{}, fmt.Errorf("%w %q for %s: %s", ErrThreshold, s, m, why)
	}
	if m == Overlap {
		k, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
		if err != nil || k < 1 {
			return bad("want an integer >= 1")
		}
		return Threshold{k, 1}, nil
	}
	num, den, ok := parseFraction(strings.TrimSpace(s))
	if !ok {
		return bad("want a number in (0, 1] such as 0.8 or 4/5")
	}
	r := new(big.Rat).SetFrac(new(big.Int).SetUint64(num), new(big.Int).SetUint64(den))
	if r.Sign() <= 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
		return bad("want a number in (0, 1]")
	}
	if !r.Denom().IsUint64() || r.Denom().Uint64() > maxDen {
		return bad(fmt.Sprintf("more precise than %d decimal places", MaxDecimals))
	}
	return Threshold{r.Num().Uint64(), r.Denom().Uint64()}, nil
}

// parseFraction reads "D", "D.D", ".D" or "D/D" with plain decimal digits
// only (no sign, exponent, base prefix or underscore). Trailing zeros of a
// decimal do not count as precision. The result need not be in lowest terms.
func parseFraction(s string) (num, den uint64, ok bool) {
	digits := func(t string) bool {
		if t == "" {
			return false
		}
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return true
	}
	if a, b, found := strings.Cut(s, "/"); found {
		if !digits(a) || !digits(b) {
			return 0, 0, false
		}
		n, err1 := strconv.ParseUint(a, 10, 64)
		d, err2 := strconv.ParseUint(b, 10, 64)
		if err1 != nil || err2 != nil || d == 0 {
			return 0, 0, false
		}
		return n, d, true
	}
	intPart, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	if intPart == "" && frac == "" && !strings.Contains(s, "0") {
		return 0, 0, false
	}
	if intPart != "" && !digits(intPart) || frac != "" && !digits(frac) {
		return 0, 0, false
	}
	if strings.Count(s, ".") > 1 || len(frac) > 18 {
		return 0, 0, false
	}
	n := uint64(0)
	if intPart != "" {
		v, err := strconv.ParseUint(intPart, 10, 64)
		if err != nil || v > 1 {
			return 0, 0, v <= 1 && err == nil
		}
		n = v
	}
	den = 1
	for range len(frac) {
		den *= 10
	}
	f := uint64(0)
	if frac != "" {
		f, _ = strconv.ParseUint(frac, 10, 64)
	}
	return n*den + f, den, true
}

// Validate returns t in lowest terms if it is a threshold for m: a fraction
// in (0, 1] whose denominator in lowest terms is at most 10^MaxDecimals for
// Jaccard, Cosine and Dice, an integer from 1 to 2^32-1 for Overlap.
//
// The zero Threshold (Den 0) is no threshold, under every measure: it is
// ErrNoThreshold, never a default. This is the one rule for the zero value
// of every threshold of the module (the joins, LSH, the planner, the index,
// the passwords and the face all validate theirs here); a command that has a
// default threshold sets it itself. Any other value outside the range wraps
// ErrThreshold, and an unknown measure ErrMeasure. Cost: O(1).
func Validate(m Measure, t Threshold) (Threshold, error) {
	switch {
	case m > Overlap:
		return Threshold{}, fmt.Errorf("%w: %v", ErrMeasure, m)
	case t.Den == 0:
		return Threshold{}, ErrNoThreshold
	case m == Overlap:
		if t.Num%t.Den != 0 || t.Num/t.Den < 1 || t.Num/t.Den > math.MaxUint32 {
			return Threshold{}, fmt.Errorf("%w %s for %s: want an integer >= 1", ErrThreshold, t, m)
		}
		return Threshold{t.Num / t.Den, 1}, nil
	}
	g := gcd(t.Num, t.Den)
	r := Threshold{t.Num / g, t.Den / g}
	if r.Num == 0 || r.Num > r.Den {
		return Threshold{}, fmt.Errorf("%w %s for %s: want a number in (0, 1]", ErrThreshold, t, m)
	}
	if r.Den > maxDen {
		return Threshold{}, fmt.Errorf("%w %s for %s: more precise than %d decimal places", ErrThreshold, t, m, MaxDecimals)
	}
	return r, nil
}

// gcd returns the greatest common divisor of a and b (b > 0).
func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ThresholdOf converts a float threshold for m: the shortest decimal that
// reads back as t, rounded to MaxDecimals places. So ThresholdOf(Jaccard, 0.8)
// is exactly 4/5.
func ThresholdOf(m Measure, t float64) (Threshold, error) {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return Threshold{}, fmt.Errorf("%w %v for %s", ErrThreshold, t, m)
	}
	if m == Overlap {
		if t != math.Trunc(t) || t < 1 || t > math.MaxUint32 {
			return Threshold{}, fmt.Errorf("%w %v for %s: want an integer >= 1", ErrThreshold, t, m)
		}
		return Threshold{uint64(t), 1}, nil
	}
	s := strconv.FormatFloat(t, 'f', -1, 64)
	if dot := strings.IndexByte(s, '.'); dot >= 0 && len(s)-dot-1 > MaxDecimals {
		s = strconv.FormatFloat(t, 'f', MaxDecimals, 64)
	}
	return ParseThreshold(m, s)
}

// Bounds holds a measure and threshold and answers the filter questions of the
// prefix-filtering joins in integer arithmetic. It is a small value, safe for
// concurrent use; every method is O(1).
type Bounds struct {
	m    Measure
	p, q uint64 // threshold p/q
}

// NewBounds returns the bounds for m at t. t must come from ParseThreshold or
// ThresholdOf for the same measure.
func NewBounds(m Measure, t Threshold) Bounds { return Bounds{m: m, p: t.Num, q: t.Den} }

// Measure returns the measure.
func (b Bounds) Measure() Measure { return b.m }

// Threshold returns the threshold.
func (b Bounds) Threshold() Threshold { return Threshold{b.p, b.q} }

// ceilDiv returns ceil(a/d) for d > 0.
func ceilDiv(a, d uint64) uint64 { return (a + d - 1) / d }

// mulDivCeil returns ceil(a·b/d) exactly, for results that fit in 64 bits.
func mulDivCeil(a, b, d uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= d {
		return math.MaxUint64
	}
	quo, rem := bits.Div64(hi, lo, d)
	if rem != 0 {
		quo++
	}
	return quo
}

// mulDivFloor returns floor(a·b/d), saturating at MaxUint64.
func mulDivFloor(a, b, d uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= d {
		return math.MaxUint64
	}
	quo, _ := bits.Div64(hi, lo, d)
	return quo
}

func clampInt(v uint64) int {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(v)
}

// MinOverlap returns the least overlap o for which sets of sizes x and y reach
// the threshold. A value above min(x, y) means they never can.
func (b Bounds) MinOverlap(x, y int) int {
	ux, uy := uint64(x), uint64(y)
	switch b.m {
	case Jaccard:
		// o/(x+y-o) >= p/q  <=>  (p+q)·o >= p·(x+y)
		return int(ceilDiv(b.p*(ux+uy), b.p+b.q))
	case Cosine:
		// o/sqrt(x·y) >= p/q  <=>  q²·o² >= p²·x·y
		o := uint64(math.Ceil(float64(b.p) / float64(b.q) * math.Sqrt(float64(ux)*float64(uy))))
		for o > 0 && b.cosineHolds(o-1, ux, uy) {
			o--
		}
		for !b.cosineHolds(o, ux, uy) {
			o++
		}
		return int(o)
	case Dice:
		// 2o/(x+y) >= p/q  <=>  2q·o >= p·(x+y)
		return int(ceilDiv(b.p*(ux+uy), 2*b.q))
	default:
		return int(b.p)
	}
}

// cosineHolds reports q²·o² >= p²·x·y in 128-bit arithmetic.
func (b Bounds) cosineHolds(o, x, y uint64) bool {
	lh, ll := mul128(b.q*b.q, o*o)
	rh, rl := mul128(b.p*b.p, x*y)
	return lh > rh || (lh == rh && ll >= rl)
}

func mul128(a, c uint64) (hi, lo uint64) { return bits.Mul64(a, c) }

// Passes reports whether overlap o between sets of sizes x and y reaches the
// threshold, exactly.
func (b Bounds) Passes(o, x, y int) bool { return o >= b.MinOverlap(x, y) }

// SizeRange returns the sizes y that a set of size x can reach the threshold
// with: lo <= y <= hi (the size filter).
func (b Bounds) SizeRange(x int) (lo, hi int) {
	ux := uint64(x)
	switch b.m {
	case Jaccard:
		return clampInt(ceilDiv(b.p*ux, b.q)), clampInt(b.q * ux / b.p)
	case Cosine:
		return clampInt(mulDivCeil(b.p*b.p, ux, b.q*b.q)), clampInt(mulDivFloor(b.q*b.q, ux, b.p*b.p))
	case Dice:
		return clampInt(ceilDiv(b.p*ux, 2*b.q-b.p)), clampInt((2*b.q - b.p) * ux / b.p)
	default:
		if uint64(x) < b.p { // too small to share t tokens with anything
			return int(b.p), int(b.p) - 1
		}
		return int(b.p), math.MaxInt32
	}
}

// ProbePrefix returns the length of the probing prefix of a set of size x:
// x - lo + 1 where lo is the least overlap with any partner of admissible size.
// Any partner that reaches the threshold shares a token with this prefix.
func (b Bounds) ProbePrefix(x int) int {
	// MinOverlap grows with the partner's size, so the least one over all
	// admissible partners is at the smallest admissible size.
	lo, _ := b.SizeRange(x)
	return prefixLen(x, b.MinOverlap(x, max(lo, 1)))
}

// IndexPrefix returns the length of the indexing prefix of a set of size x
// when it will only be probed by sets at least as large (the self-join
// processes sets by size): x - MinOverlap(x, x) + 1. It is never longer than
// ProbePrefix (Bayardo, Ma and Srikant 2007, §4).
func (b Bounds) IndexPrefix(x int) int { return prefixLen(x, b.MinOverlap(x, x)) }

func prefixLen(x, minOverlap int) int {
	if minOverlap > x {
		return 0
	}
	if minOverlap < 1 {
		minOverlap = 1
	}
	return x - minOverlap + 1
}

// Similarity returns the similarity of sets of sizes x and y with overlap o,
// for output. Decisions use Passes, never this float.
func (b Bounds) Similarity(o, x, y int) float64 {
	switch b.m {
	case Jaccard:
		return float64(o) / float64(x+y-o)
	case Cosine:
		return float64(o) / math.Sqrt(float64(x)*float64(y))
	case Dice:
		return 2 * float64(o) / float64(x+y)
	default:
		return float64(o)
	}
}
