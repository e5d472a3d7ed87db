package passwords

import (
	"context"

	"github.com/simjoin/simjoin/internal/parallel"
)

// checkBlock is the number of candidates a worker of LookupAll takes at a
// time: a check costs microseconds, so a block amortises the hand-over.
const checkBlock = 64

// LookupAll looks every candidate up (Lookup) on the index's workers
// (Options.Workers) and returns their matches in candidate order: res[k]
// answers cands[k]. The result does not depend on the number of workers.
// ctx stops the checks between blocks of candidates, and its error is
// returned with a partial result.
//
// Cost: one Lookup per candidate, in blocks of 64 candidates; memory the
// matches. Safe for concurrent use, as Lookup is.
func (ix *Index) LookupAll(ctx context.Context, cands [][]byte) ([][]Match, error) {
	res := make([][]Match, len(cands))
	err := parallel.For(ctx, len(cands), checkBlock, ix.opt.Workers, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			res[k] = ix.Lookup(nil, cands[k])
		}
	})
	return res, err
}

// CheckStats counts the candidates of a check run and holds the policy's
// decision: a candidate is too close when it matches at least one known
// password; an empty candidate is counted apart and is never too close (it
// has no q-gram to match); the run is rejected when any candidate is too
// close. It counts and never keeps a candidate.
//
// Invariant: Empty + TooClose <= Candidates; Matches >= TooClose.
type CheckStats struct {
	Candidates int   // candidates checked, empty ones included
	Empty      int   // empty candidates
	TooClose   int   // candidates with at least one match
	Matches    int64 // matches summed over the candidates
}

// Add counts one candidate and its number of matches, and reports whether
// the candidate is too close.
func (s *CheckStats) Add(candidate []byte, matches int) bool {
	s.Candidates++
	if len(candidate) == 0 {
		s.Empty++
		return false
	}
	s.Matches += int64(matches)
	if matches > 0 {
		s.TooClose++
		return true
	}
	return false
}

// Rejected reports the run's verdict: true when some candidate is too close
// to a known password.
func (s *CheckStats) Rejected() bool { return s.TooClose > 0 }
