//go:build invariants

package approx

import (
	"fmt"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/invtest"
)

// TestPutCheckPanics checks that Put refuses a signature whose length is not
// K, which it would otherwise cut short or overrun silently (this file
// builds only with -tags invariants).
func TestPutCheckPanics(t *testing.T) {
	s, err := NewSignatures(2, 4, 16)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(0, []uint64{1, 2, 3, 4})
	for _, sig := range [][]uint64{{1, 2, 3}, {1, 2, 3, 4, 5}} {
		invtest.Panics(t, fmt.Sprintf("%d values", len(sig)), "approx: ", func() { s.Put(1, sig) })
	}
}

// TestStatsIdentityCheckPanics checks that the check of the relations stated
// on Stats passes a Stats that keeps them and catches each broken one; a
// join stopped by its caller is not held to its results.
func TestStatsIdentityCheckPanics(t *testing.T) {
	good := func() Stats {
		return Stats{Records: 10, Skipped: 1, Dropped: 1, Units: 7, K: 16, Bits: 32, Shape: Shape{B: 4, R: 4},
			SignatureBytes: 7 * 16 * 4, IndexBytes: 16 * 4 * 6, Buckets: 3, LargestBucket: 5, MaxBucket: 4,
			CappedBuckets: 1, CappedPairs: 10, Collisions: 9, Candidates: 6, Passed: 4, SameSetPairs: 3, Results: 8}
	}
	st := good()
	st.checkIdentity(true)
	st.Results = 2 // a stopped join reports fewer
	st.checkIdentity(false)
	for name, breakIt := range map[string]func(s *Stats){
		"passed over candidates":      func(s *Stats) { s.Passed = 7 },
		"candidates over collisions":  func(s *Stats) { s.Candidates = 10 },
		"results short of the passed": func(s *Stats) { s.Results = 6 },
		"skipped and dropped":         func(s *Stats) { s.Skipped = 10 },
		"units over records":          func(s *Stats) { s.Units, s.SignatureBytes = 11, 11*16*4 },
		"signature bytes":             func(s *Stats) { s.SignatureBytes++ },
		"band table bytes":            func(s *Stats) { s.IndexBytes = 16 * 4 * 8 },
		"largest bucket without any":  func(s *Stats) { s.Buckets = 0 },
		"largest bucket of one":       func(s *Stats) { s.LargestBucket, s.CappedBuckets, s.CappedPairs = 1, 0, 0 },
		"capped pairs without bucket": func(s *Stats) { s.CappedBuckets = 0 },
		"capped under the cap":        func(s *Stats) { s.MaxBucket = 5 },
		"capped without a cap":        func(s *Stats) { s.MaxBucket = -1 },
	} {
		st := good()
		breakIt(&st)
		invtest.Panics(t, name, "approx: ", func() { st.checkIdentity(true) })
	}
}
