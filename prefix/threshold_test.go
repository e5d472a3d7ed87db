package prefix_test

import (
	"errors"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// TestParseThresholdDecimalOnly checks that a threshold is read as the
// documented decimal ("0.8") or fraction ("4/5") and nothing else: Go base
// prefixes once made "010/20" octal 8/20 = 0.4, and hexadecimal, binary and
// underscore forms were accepted.
func TestParseThresholdDecimalOnly(t *testing.T) {
	if th, err := prefix.ParseThreshold(prefix.Jaccard, "010/20"); err == nil && th != (prefix.Threshold{Num: 1, Den: 2}) {
		t.Errorf(`ParseThreshold("010/20") = %d/%d; want 1/2 or an error`, th.Num, th.Den)
	}
	for _, s := range []string{"0x1p-1", "0b1/0b10", "0o1/2", "0x1/0x2", "1_0/20"} {
		if th, err := prefix.ParseThreshold(prefix.Jaccard, s); !errors.Is(err, prefix.ErrThreshold) {
			t.Errorf("ParseThreshold(%q) = %d/%d, %v; want ErrThreshold", s, th.Num, th.Den, err)
		}
	}
}

// TestThresholdZeroString checks that the zero Threshold (the "no
// threshold" value that join.Options rejects) prints without panicking; it
// once divided by zero.
func TestThresholdZeroString(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Threshold{}.String() panics: %v", r)
		}
	}()
	_ = prefix.Threshold{}.String()
}
