package approx

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// TestOptionChecks: every Check and Parse function takes the values of its
// field's range and refuses the others with an *OptionError naming the field
// and the value, wrapping the package's sentinel.
func TestOptionChecks(t *testing.T) {
	seed := func(s string) error { _, err := ParseSeed(s); return err }
	verify := func(s string) error { _, err := ParseVerify(s); return err }
	for _, tc := range []struct {
		err  error
		is   error
		want string
	}{
		{ValidateK(0), ErrShape, "approx: K 0: want a signature length in 1..1024"},
		{ValidateK(MaxK + 1), ErrShape, "approx: K 1025: want a signature length in 1..1024"},
		{ValidateK(-3), ErrShape, "approx: K -3: want a signature length in 1..1024"},
		{ValidateBits(0), ErrShape, "approx: Bits 0: want 8, 16, 32 or 64"},
		{ValidateBits(7), ErrShape, "approx: Bits 7: want 8, 16, 32 or 64"},
		{ValidateRecall(0), ErrRecall, "approx: Recall 0: want a number in (0, 1) such as 0.95"},
		{ValidateRecall(1), ErrRecall, "approx: Recall 1: want a number in (0, 1) such as 0.95"},
		{ValidateRecall(math.NaN()), ErrRecall, "approx: Recall NaN: want a number in (0, 1) such as 0.95"},
		{ValidateRecall(1e21), ErrRecall, "approx: Recall 1e+21: want a number in (0, 1) such as 0.95"},
		{ValidateMinSize(-1), ErrMinSize, "approx: MinSize -1: want >= 0"},
		{seed("-1"), ErrSeed, `approx: Seed "-1": want an integer in [0, 2^64)`},
		{seed("18446744073709551616"), ErrSeed, `approx: Seed "18446744073709551616": want an integer in [0, 2^64)`},
		{seed(""), ErrSeed, `approx: Seed "": want an integer in [0, 2^64)`},
		{verify("Exact"), ErrVerify, `approx: Verify "Exact": want exact or estimate`},
	} {
		var oe *OptionError
		if !errors.As(tc.err, &oe) || !errors.Is(tc.err, tc.is) || tc.err.Error() != tc.want {
			t.Errorf("%v, want %q wrapping %v", tc.err, tc.want, tc.is)
		}
	}
	for _, err := range []error{ValidateK(1), ValidateK(MaxK), ValidateBits(8), ValidateBits(64), ValidateRecall(0.5),
		ValidateRecall(math.Nextafter(1, 0)), ValidateMinSize(0), seed("0"), seed("18446744073709551615"), verify("estimate")} {
		if err != nil {
			t.Errorf("refused a good value: %v", err)
		}
	}
	if s, _ := ParseSeed("42"); s != 42 {
		t.Errorf("ParseSeed(42) = %d", s)
	}
	if v, _ := ParseVerify("estimate"); v != VerifyEstimate {
		t.Errorf("ParseVerify(estimate) = %v", v)
	}
}

// TestSchemeText: a scheme marshals as its command-line name and reads back
// (in any case), and an unknown name is refused with ErrScheme.
func TestSchemeText(t *testing.T) {
	for _, s := range []Scheme{OnePerm, Classic} {
		b, err := s.MarshalText()
		if err != nil || string(b) != s.String() {
			t.Errorf("%v marshals as %q, %v", s, b, err)
		}
		var back Scheme
		if err := back.UnmarshalText([]byte(strings.ToUpper(string(b)))); err != nil || back != s {
			t.Errorf("%q reads back as %v, %v", b, back, err)
		}
	}
	var s Scheme
	if err := s.UnmarshalText([]byte("perm")); !errors.Is(err, ErrScheme) {
		t.Errorf("UnmarshalText(perm) = %v; want ErrScheme", err)
	}
}

// TestOptionsCheck: Options.Validate takes every field as given (no defaults:
// zero K, Bits and Recall are refused), reports the first field refused in
// the order K, Bits, Recall, Scheme, Verify, MinSize as an *OptionError,
// then a shape that does not fit K with Shape.Validate's error; Resolve checks
// through it after filling in the defaults.
func TestOptionsCheck(t *testing.T) {
	good := Options{K: 64, Bits: 32, Recall: 0.95}
	if err := good.Validate(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	with := func(f func(o *Options)) Options { o := good; f(&o); return o }
	for _, tc := range []struct {
		name   string
		opt    Options
		option string // the OptionError's field; "" for a shape error
		is     error
	}{
		{"zero K", with(func(o *Options) { o.K = 0 }), "K", ErrShape},
		{"zero Bits", with(func(o *Options) { o.Bits = 0 }), "Bits", ErrShape},
		{"zero Recall", with(func(o *Options) { o.Recall = 0 }), "Recall", ErrRecall},
		{"K and Bits", with(func(o *Options) { o.K, o.Bits = MaxK+1, 12 }), "K", ErrShape},
		{"Bits and Recall", with(func(o *Options) { o.Bits, o.Recall = 12, 1 }), "Bits", ErrShape},
		{"scheme", with(func(o *Options) { o.Scheme = Classic + 1 }), "Scheme", ErrScheme},
		{"verify", with(func(o *Options) { o.Verify = VerifyEstimate + 1 }), "Verify", ErrVerify},
		{"min size and shape", with(func(o *Options) { o.MinSize, o.Shape = -1, Shape{B: 9, R: 13} }), "MinSize", ErrMinSize},
		{"shape", with(func(o *Options) { o.Shape = Shape{B: 9, R: 13} }), "", ErrShape},
		{"rows 0", with(func(o *Options) { o.Shape = Shape{B: 4} }), "", ErrShape},
	} {
		err := tc.opt.Validate()
		var oe *OptionError
		if isOE := errors.As(err, &oe); !errors.Is(err, tc.is) || isOE != (tc.option != "") || isOE && oe.Option != tc.option {
			t.Errorf("%s: %v, want field %q wrapping %v", tc.name, err, tc.option, tc.is)
		}
	}
	for _, o := range []Options{with(func(o *Options) { o.Shape = Shape{B: 8, R: 8} }), with(func(o *Options) { o.MinSize, o.Verify, o.Scheme = 3, VerifyEstimate, Classic })} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	// Resolve reads the zeros Check refuses as the defaults, and reports
	// Check's errors for the rest.
	th := prefix.Threshold{Num: 1, Den: 2}
	if r, err := (Options{Threshold: th}).Resolve(); err != nil || r.K != DefaultK || r.Bits != DefaultBits || r.Recall != DefaultRecall {
		t.Errorf("Resolve of the zero options: %+v, %v", r, err)
	}
	var oe *OptionError
	if _, err := (Options{Threshold: th, Bits: 12}).Resolve(); !errors.As(err, &oe) || oe.Option != "Bits" || err.Error() != "approx: Bits 12: want 8, 16, 32 or 64" {
		t.Errorf("Resolve with Bits 12: %v", err)
	}
}

// TestParseShapes: a comma-separated list of bandings, each as ParseShape
// reads it; the first that is not one fails the list.
func TestParseShapes(t *testing.T) {
	got, err := ParseShapes("12x4, 16x3,1X1")
	if err != nil || len(got) != 3 || got[0] != (Shape{12, 4}) || got[1] != (Shape{16, 3}) || got[2] != (Shape{1, 1}) {
		t.Errorf("ParseShapes: %v, %v", got, err)
	}
	for _, list := range []string{"", "12x4,", "12x4,nine", "0x3"} {
		if _, err := ParseShapes(list); !errors.Is(err, ErrShape) {
			t.Errorf("ParseShapes(%q): %v, want ErrShape", list, err)
		}
	}
	if _, err := ParseShapes("12x4,2y3"); err == nil || !strings.Contains(err.Error(), `"2y3"`) {
		t.Errorf("the error does not name the bad banding: %v", err)
	}
}
