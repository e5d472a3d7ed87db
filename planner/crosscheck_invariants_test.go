//go:build invariants

package planner

import (
	"strings"
	"testing"
)

// TestCheckBandingPanics: the invariant check fires on bins that do not
// partition the pairs measured, on a bin that found more than it holds, and
// on a true pair held twice.
func TestCheckBandingPanics(t *testing.T) {
	truth := []truePair{{key: 1, sim: 0.5}, {key: 2, sim: 0.7}}
	for _, tc := range []struct {
		name  string
		truth []truePair
		bins  []Bin
		want  string
	}{
		{"lost pair", truth, []Bin{{Pairs: 1}}, "bins hold 1 pairs"},
		{"found too many", truth, []Bin{{Pairs: 2, Found: 3}}, "found 3 of 2"},
		{"pair twice", []truePair{{key: 1}, {key: 1}}, []Bin{{Pairs: 2}}, "held twice"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("%s: panic %v, want %q", tc.name, r, tc.want)
				}
			}()
			ck := &checker{truth: tc.truth}
			ck.checkBanding(&Banding{Bins: tc.bins, Runs: make([]Run, 1)})
		}()
	}
}
