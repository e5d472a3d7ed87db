package prefix_test

import (
	"encoding/json"
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

// TestTextRoundTrip checks that measures and thresholds marshal as their
// names and decimals ("jaccard", "0.8", "3", "unset") and read back as the
// same values, and that text neither names is refused with the sentinel.
func TestTextRoundTrip(t *testing.T) {
	type doc struct {
		M prefix.Measure   `json:"m"`
		T prefix.Threshold `json:"t"`
	}
	for _, tc := range []struct {
		d    doc
		want string
	}{
		{doc{prefix.Jaccard, prefix.Threshold{Num: 4, Den: 5}}, `{"m":"jaccard","t":"0.8"}`},
		{doc{prefix.Cosine, prefix.Threshold{Num: 2, Den: 3}}, `{"m":"cosine","t":"2/3"}`},
		{doc{prefix.Dice, prefix.Threshold{Num: 1, Den: 1}}, `{"m":"dice","t":"1"}`},
		{doc{prefix.Overlap, prefix.Threshold{Num: 3, Den: 1}}, `{"m":"overlap","t":"3"}`},
		{doc{}, `{"m":"jaccard","t":"unset"}`},
	} {
		b, err := json.Marshal(tc.d)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v marshals as %s, %v; want %s", tc.d, b, err, tc.want)
			continue
		}
		var back doc
		if err := json.Unmarshal(b, &back); err != nil || back != tc.d {
			t.Errorf("%s reads back as %+v, %v; want %+v", b, back, err, tc.d)
		}
	}
	var m prefix.Measure
	if err := m.UnmarshalText([]byte("hamming")); !errors.Is(err, prefix.ErrMeasure) {
		t.Errorf("Measure.UnmarshalText(hamming) = %v; want ErrMeasure", err)
	}
	var th prefix.Threshold
	for _, s := range []string{"", "0", "1.5", "-1", "0x1p-1", "abc"} {
		if err := th.UnmarshalText([]byte(s)); !errors.Is(err, prefix.ErrThreshold) {
			t.Errorf("Threshold.UnmarshalText(%q) = %v (%v); want ErrThreshold", s, err, th)
		}
	}
}

// TestValidate: the one rule for a threshold given as a value: the zero
// Threshold is ErrNoThreshold under every measure; a valid one comes back in
// lowest terms, as ParseThreshold reads its text; anything else out of range
// is ErrThreshold, and an unknown measure ErrMeasure.
func TestValidate(t *testing.T) {
	type T = prefix.Threshold
	for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap} {
		if _, err := prefix.Validate(m, T{}); !errors.Is(err, prefix.ErrNoThreshold) {
			t.Errorf("%s: zero threshold: %v, want ErrNoThreshold", m, err)
		}
		if _, err := prefix.Validate(m, T{Num: 5, Den: 0}); !errors.Is(err, prefix.ErrNoThreshold) {
			t.Errorf("%s: 5/0: %v, want ErrNoThreshold", m, err)
		}
	}
	for _, c := range []struct {
		m    prefix.Measure
		t    T
		want T // the zero T: ErrThreshold
	}{
		{prefix.Jaccard, T{4, 5}, T{4, 5}},
		{prefix.Jaccard, T{8, 10}, T{4, 5}},
		{prefix.Dice, T{3, 3}, T{1, 1}},
		{prefix.Cosine, T{1, 3}, T{1, 3}},
		{prefix.Jaccard, T{2_000_000_000, 4_000_000_000}, T{1, 2}},
		{prefix.Jaccard, T{0, 5}, T{}},
		{prefix.Jaccard, T{6, 5}, T{}},
		{prefix.Jaccard, T{1, 1_000_000_007}, T{}},
		{prefix.Overlap, T{3, 1}, T{3, 1}},
		{prefix.Overlap, T{6, 2}, T{3, 1}},
		{prefix.Overlap, T{3, 2}, T{}},
		{prefix.Overlap, T{0, 1}, T{}},
		{prefix.Overlap, T{1 << 32, 1}, T{}},
	} {
		got, err := prefix.Validate(c.m, c.t)
		switch {
		case c.want == T{} && !errors.Is(err, prefix.ErrThreshold):
			t.Errorf("Validate(%s, %d/%d) = %v, %v; want ErrThreshold", c.m, c.t.Num, c.t.Den, got, err)
		case c.want != T{} && (err != nil || got != c.want):
			t.Errorf("Validate(%s, %d/%d) = %d/%d, %v; want %d/%d", c.m, c.t.Num, c.t.Den, got.Num, got.Den, err, c.want.Num, c.want.Den)
		}
		if c.want != (T{}) {
			if parsed, err := prefix.ParseThreshold(c.m, c.t.String()); err != nil || parsed != got {
				t.Errorf("%s %s: ParseThreshold gives %v, %v; Validate %v", c.m, c.t, parsed, err, got)
			}
		}
	}
	if _, err := prefix.Validate(prefix.Overlap+1, T{1, 2}); !errors.Is(err, prefix.ErrMeasure) {
		t.Errorf("unknown measure: %v, want ErrMeasure", err)
	}
}
