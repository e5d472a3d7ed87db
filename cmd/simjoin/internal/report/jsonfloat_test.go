package report

import (
	"encoding/json"
	"testing"
)

// TestRoundFloats: seconds to the nanosecond, other fractions to 15
// significant digits, integers, strings and layout untouched, and the
// result strict JSON that rounds again to itself.
func TestRoundFloats(t *testing.T) {
	in := `{
  "cpu_s": 0.00022528881000000002,
  "name_s": "0.30000000000000004",
  "recall": 0.30000000000000004,
  "bins": [0.1, 0.30000000000000004, -2.5e-07, 1e+21],
  "phases": [{"name": "join", "wall_s": 1.0000000004, "cpu_s": 2e-10}],
  "times_s": [0.12345678949, 3],
  "count": 12345678901234567890,
  "esc\"_s": 0.1000000000001,
  "e": 1E-9
}`
	want := `{
  "cpu_s": 0.000225289,
  "name_s": "0.30000000000000004",
  "recall": 0.3,
  "bins": [0.1, 0.3, -2.5e-7, 1e+21],
  "phases": [{"name": "join", "wall_s": 1, "cpu_s": 0}],
  "times_s": [0.123456789, 3],
  "count": 12345678901234567890,
  "esc\"_s": 0.1,
  "e": 1e-9
}`
	got := string(roundFloats([]byte(in)))
	if got != want {
		t.Errorf("roundFloats:\n%s\nwant\n%s", got, want)
	}
	if !json.Valid([]byte(got)) || string(roundFloats([]byte(got))) != got {
		t.Errorf("not valid, or not a fixed point:\n%s", got)
	}
}
