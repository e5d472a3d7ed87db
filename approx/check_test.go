package approx

import (
	"errors"
	"math"
	"strings"
	"testing"
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
		{CheckK(0), ErrShape, "approx: K 0: want a signature length in 1..1024"},
		{CheckK(MaxK + 1), ErrShape, "approx: K 1025: want a signature length in 1..1024"},
		{CheckK(-3), ErrShape, "approx: K -3: want a signature length in 1..1024"},
		{CheckBits(0), ErrShape, "approx: Bits 0: want 8, 16, 32 or 64"},
		{CheckBits(7), ErrShape, "approx: Bits 7: want 8, 16, 32 or 64"},
		{CheckRecall(0), ErrRecall, "approx: Recall 0: want a number in (0, 1) such as 0.95"},
		{CheckRecall(1), ErrRecall, "approx: Recall 1: want a number in (0, 1) such as 0.95"},
		{CheckRecall(math.NaN()), ErrRecall, "approx: Recall NaN: want a number in (0, 1) such as 0.95"},
		{CheckRecall(1e21), ErrRecall, "approx: Recall 1e+21: want a number in (0, 1) such as 0.95"},
		{CheckMinSize(-1), ErrMinSize, "approx: MinSize -1: want >= 0"},
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
	for _, err := range []error{CheckK(1), CheckK(MaxK), CheckBits(8), CheckBits(64), CheckRecall(0.5),
		CheckRecall(math.Nextafter(1, 0)), CheckMinSize(0), seed("0"), seed("18446744073709551615"), verify("estimate")} {
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
