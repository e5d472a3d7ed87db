package approx

import (
	"cmp"
	"errors"
	"math"
	"strconv"
)

// ErrSeed is wrapped by the error of ParseSeed.
var ErrSeed = errors.New("approx: bad seed")

// ErrVerify is wrapped by the error of ParseVerify.
var ErrVerify = errors.New("approx: unknown verification")

// OptionError is a value that a Validate or Parse function of this package
// refuses for one field of Options. It names the field as Options does
// (K, not a command line's --perm), so that a command line can put its own
// flag in front of Value and Want, and it wraps ErrShape, ErrRecall, ErrSeed,
// ErrScheme, ErrVerify or ErrMinSize for errors.Is.
type OptionError struct {
	Option string // the field of Options: "K", "Bits", "Recall", "Seed", "Scheme", "Verify" or "MinSize"
	Value  string // the value refused: a number, or text quoted
	Want   string // what the field takes, such as "8, 16, 32 or 64"
	Err    error
}

func (e *OptionError) Error() string {
	return "approx: " + e.Option + " " + e.Value + ": want " + e.Want
}

func (e *OptionError) Unwrap() error { return e.Err }

// ErrMinSize is wrapped by the error of ValidateMinSize.
var ErrMinSize = errors.New("approx: negative minimum size")

// ValidateK reports whether k is a signature length: 1..MaxK. (Options.K
// also takes 0, for DefaultK; a length given is never 0.)
func ValidateK(k int) error {
	if k < 1 || k > MaxK {
		return &OptionError{"K", strconv.Itoa(k), "a signature length in 1.." + strconv.Itoa(MaxK), ErrShape}
	}
	return nil
}

// ValidateBits reports whether bits is a width of the stored minima: 8, 16, 32
// or 64 (ValidBits). (Options.Bits also takes 0, for DefaultBits.)
func ValidateBits(bits int) error {
	if !ValidBits(bits) {
		return &OptionError{"Bits", strconv.Itoa(bits), "8, 16, 32 or 64", ErrShape}
	}
	return nil
}

// ValidateRecall reports whether r is a target recall: in (0, 1).
// (Options.Recall also takes 0, for DefaultRecall.)
func ValidateRecall(r float64) error {
	if !(r > 0 && r < 1) || math.IsNaN(r) {
		return &OptionError{"Recall", strconv.FormatFloat(r, 'g', -1, 64), "a number in (0, 1) such as 0.95", ErrRecall}
	}
	return nil
}

// ValidateMinSize reports whether n is a minimum set size: n >= 0.
func ValidateMinSize(n int) error {
	if n < 0 {
		return &OptionError{"MinSize", strconv.Itoa(n), ">= 0", ErrMinSize}
	}
	return nil
}

// ParseSeed reads a seed of the MinHash functions: a decimal integer in
// [0, 2^64).
func ParseSeed(s string) (uint64, error) {
	seed, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, &OptionError{"Seed", strconv.Quote(s), "an integer in [0, 2^64)", ErrSeed}
	}
	return seed, nil
}

// Check reports whether the fields of o but the measure and threshold are
// valid as given, the way a command line gives every one: K (ValidateK), Bits
// (ValidateBits), Recall (ValidateRecall), a known Scheme and Verify, MinSize
// (ValidateMinSize), and the Shape, when one is given, fitting K (Shape.Validate).
// So a caller refuses bad options before it has read the input the
// threshold may depend on; Resolve fills in the defaults and then calls
// Check, so zero K, Bits and Recall, which Resolve reads as the defaults,
// are refused here. The first field refused gives an *OptionError, in the
// order above; a shape that does not fit K gives Shape.Validate's error
// (ErrShape). Cost: O(1).
func (o Options) Validate() error {
	if err := cmp.Or(ValidateK(o.K), ValidateBits(o.Bits), ValidateRecall(o.Recall), checkScheme(o.Scheme), checkVerify(o.Verify), ValidateMinSize(o.MinSize)); err != nil {
		return err
	}
	if o.Shape != (Shape{}) {
		return o.Shape.Validate(o.K)
	}
	return nil
}

func checkScheme(s Scheme) error {
	if s > Classic {
		return &OptionError{"Scheme", strconv.Itoa(int(s)), "oneperm or classic", ErrScheme}
	}
	return nil
}

func checkVerify(v Verify) error {
	if v > VerifyEstimate {
		return &OptionError{"Verify", strconv.Itoa(int(v)), "exact or estimate", ErrVerify}
	}
	return nil
}
