package report

import (
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
