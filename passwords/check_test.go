package passwords

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCheckAll: CheckAll's answers are the oracle's, in candidate order, for
// any number of workers (more candidates than one block), and CheckStats
// counts them as the policy says: empty candidates apart, a candidate with
// a match too close, the run rejected when one is.
func TestCheckAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 77))
	known := testList(500, 103)
	cands := candidates(known, 300, r)
	opt := Options{Threshold: DefaultThreshold()}
	if err := opt.fill(); err != nil {
		t.Fatal(err)
	}
	want := checkOracle(known, cands, opt)
	for _, workers := range []int{1, 3, 8} {
		opt.Workers = workers
		ix, err := NewIndex(known, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ix.LookupAll(context.Background(), cands)
		if err != nil {
			t.Fatal(err)
		}
		var st CheckStats
		var close, empty, matches int
		for k := range cands {
			if !slices.Equal(got[k], want[k]) {
				t.Fatalf("%d workers: candidate %d: got %+v, want %+v", workers, k, got[k], want[k])
			}
			tooClose := len(cands[k]) > 0 && len(want[k]) > 0
			if st.Add(cands[k], len(got[k])) != tooClose {
				t.Fatalf("candidate %d: Add says too close = %v, want %v", k, !tooClose, tooClose)
			}
			if tooClose {
				close++
			}
			if len(cands[k]) == 0 {
				empty++
			}
			matches += len(want[k])
		}
		if close == 0 || empty == 0 {
			t.Fatalf("%d too close and %d empty candidates: the test says nothing", close, empty)
		}
		if want := (CheckStats{Candidates: len(cands), Empty: empty, TooClose: close, Matches: int64(matches)}); st != want || !st.Rejected() {
			t.Errorf("%d workers: stats %+v, want %+v, rejected", workers, st, want)
		}
	}
	var st CheckStats
	st.Add(nil, 0)
	st.Add([]byte("unrelated"), 0)
	if st.Rejected() || st != (CheckStats{Candidates: 2, Empty: 1}) {
		t.Errorf("no match: %+v, rejected %v; want 2 candidates, 1 empty, not rejected", st, st.Rejected())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix, _ := NewIndex(known, Options{Threshold: DefaultThreshold()})
	if _, err := ix.LookupAll(ctx, cands); err != context.Canceled {
		t.Errorf("cancelled: got %v", err)
	}
}
