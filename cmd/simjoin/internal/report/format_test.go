package report

import (
	"errors"
	"testing"

	"github.com/simjoin/simjoin/planner"
)

// TestWording: floats rounded, singular nouns for one, thousands separators,
// and the top similarity bin closed at 1.
func TestWording(t *testing.T) {
	for _, row := range PlanRows(&planner.Plan{Method: planner.LSH, Recall: 0.9860781964059369}) {
		if row[0] == "predicted recall" && row[1] != "0.986" {
			t.Errorf("plan's predicted recall %q, want 0.986", row[1])
		}
	}
	for _, c := range []struct{ got, want string }{
		{Plural(1, "core", "cores"), "1 core"},
		{Plural(1234, "core", "cores"), "1,234 cores"},
		{BinLabel(0.95, 1), "[0.95, 1.00]"},
		{BinLabel(0.5, 0.55), "[0.50, 0.55)"},
		{Ratio(1), "1"},
		{Ratio(0.98765), "0.988"},
		{Count(1234567.4), "1,234,567"},
		{Pct(1, 3), " (33.3%)"},
		{Pct(1, 0), ""},
		{Seconds(0), "0 s"},
		{Seconds(0.0123), "12.3 ms"},
		{Seconds(123.4), "123 s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestPlain: the module's package names in front of an error go, others
// stay; a flag's value is taken from the first quoted string.
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"simjoin: order: collection too large":    "collection too large",
		"approx: bad LSH shape \"0x1\": want BxR": "bad LSH shape \"0x1\": want BxR",
		"gzip: unexpected EOF":                    "gzip: unexpected EOF",
		"open x: no such file":                    "open x: no such file",
		"index: not an index directory":           "index: not an index directory",
	} {
		if got := Plain(errors.New(in)); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"shingle: bad tokenizer \"qgram:0\": length must be an integer from 1 to 64": "--tokens qgram:0: length must be an integer from 1 to 64",
		"shingle: bad tokenizer \"a\\\"b\": want set":                                "--tokens a\"b: want set",
		"shingle: no quotes here":                                                    "--tokens: no quotes here",
	} {
		if got := FlagValueError("--tokens", errors.New(in)).Error(); got != want {
			t.Errorf("FlagValueError(%q) = %q, want %q", in, got, want)
		}
	}
}
