package prefix_test

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// The fuzz targets here run their seed corpus in every `go test`; explore
// with, for example:
//
//	go test -run '^$' -fuzz '^FuzzParseThreshold$' -fuzztime 60s ./prefix

// thresholdTexts seed the parser: the documented forms and their near misses.
var thresholdTexts = []string{
	"0.8", "4/5", "1", "1.0", ".8", "0.80", "2/3", "0.000000001", "0.999999999", "0.1234567890", "1/1000000000",
	"0", "-0.5", "1.5", "3/2", "1/0", "0/5", "abc", "", " ", "1e-1", "NaN", "Inf", "0.1234567891", "0.8.", "4//5",
	"4/5/6", " 0.8 ", "+0.8", "17", "4294967295", "4294967296", "99999999999999999999999", "1/3",
}

// decimalGrammar is the documented threshold syntax: a decimal or a
// fraction of decimal integers, surrounded by optional space.
var decimalGrammar = regexp.MustCompile(`^\+?(\d+(\.\d*)?|\.\d+)$|^\d+/\d+$`)

// strictValue reads text in the documented syntax, digits always decimal.
func strictValue(text string) (*big.Rat, bool) {
	text = strings.TrimSpace(text)
	if !decimalGrammar.MatchString(text) {
		return nil, false
	}
	text = strings.TrimPrefix(text, "+")
	if num, den, ok := strings.Cut(text, "/"); ok {
		n, _ := new(big.Int).SetString(num, 10)
		d, _ := new(big.Int).SetString(den, 10)
		if d.Sign() == 0 {
			return nil, false
		}
		return new(big.Rat).SetFrac(n, d), true
	}
	intPart, frac, _ := strings.Cut(text, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return new(big.Rat), true
	}
	n, _ := new(big.Int).SetString(digits, 10)
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	return new(big.Rat).SetFrac(n, d), true
}

// FuzzParseThreshold checks that ParseThreshold never panics, rejects with
// ErrThreshold, and accepts only the documented syntax, with the decimal
// value of the text, in range, in lowest terms, printing as text that parses
// back to it.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range thresholdTexts {
		for m := range uint8(4) {
			f.Add(m, s)
		}
	}
	f.Fuzz(func(t *testing.T, mb uint8, text string) {
		m := prefix.Measure(mb % 4)
		th, err := prefix.ParseThreshold(m, text)
		if err != nil {
			if !errors.Is(err, prefix.ErrThreshold) {
				t.Fatalf("ParseThreshold(%s, %q): error %v is not ErrThreshold", m, text, err)
			}
			return
		}
		want, ok := strictValue(text)
		if !ok {
			t.Fatalf("ParseThreshold(%s, %q) = %d/%d: text outside the documented syntax accepted", m, text, th.Num, th.Den)
		}
		got := new(big.Rat).SetFrac(new(big.Int).SetUint64(th.Num), new(big.Int).SetUint64(th.Den))
		if got.Cmp(want) != 0 {
			t.Fatalf("ParseThreshold(%s, %q) = %d/%d, but the text is %s", m, text, th.Num, th.Den, want.RatString())
		}
		if th.Num == 0 || th.Den == 0 || new(big.Int).GCD(nil, nil, new(big.Int).SetUint64(th.Num), new(big.Int).SetUint64(th.Den)).Cmp(big.NewInt(1)) != 0 {
			t.Fatalf("ParseThreshold(%s, %q) = %d/%d: not in lowest terms", m, text, th.Num, th.Den)
		}
		if m == prefix.Overlap {
			if th.Den != 1 || th.Num > math.MaxUint32 {
				t.Fatalf("ParseThreshold(overlap, %q) = %d/%d: not an integer in range", text, th.Num, th.Den)
			}
		} else if th.Num > th.Den || th.Den > 1_000_000_000 {
			t.Fatalf("ParseThreshold(%s, %q) = %d/%d: outside (0, 1] or too precise", m, text, th.Num, th.Den)
		}
		back, err := prefix.ParseThreshold(m, th.String())
		if err != nil || back != th {
			t.Fatalf("%d/%d prints as %q, which parses as %v, %v", th.Num, th.Den, th.String(), back, err)
		}
	})
}

// FuzzThresholdOf checks that ThresholdOf never panics, rejects with
// ErrThreshold, and that an accepted float is within half a unit of the
// ninth decimal of the threshold, which is in range.
func FuzzThresholdOf(f *testing.F) {
	for _, v := range []float64{0.8, 0.1 + 0.2, 2.0 / 3, 1, 1e-9, 1e-10, 5e-10, 0.9999999999, 1.0000000001, 0, -1, 3, 2.5, math.MaxUint32, math.Inf(1), math.NaN()} {
		for m := range uint8(4) {
			f.Add(m, v)
		}
	}
	f.Fuzz(func(t *testing.T, mb uint8, v float64) {
		m := prefix.Measure(mb % 4)
		th, err := prefix.ThresholdOf(m, v)
		if err != nil {
			if !errors.Is(err, prefix.ErrThreshold) {
				t.Fatalf("ThresholdOf(%s, %v): error %v is not ErrThreshold", m, v, err)
			}
			return
		}
		if m == prefix.Overlap {
			if th.Den != 1 || float64(th.Num) != v {
				t.Fatalf("ThresholdOf(overlap, %v) = %d/%d", v, th.Num, th.Den)
			}
			return
		}
		if th.Num == 0 || th.Num > th.Den || th.Den > 1_000_000_000 {
			t.Fatalf("ThresholdOf(%s, %v) = %d/%d: outside (0, 1] or too precise", m, v, th.Num, th.Den)
		}
		if d := math.Abs(th.Float() - v); d > 5e-10+1e-15 {
			t.Fatalf("ThresholdOf(%s, %v) = %d/%d, off by %g", m, v, th.Num, th.Den, d)
		}
	})
}
