package index

import (
	"slices"

	"github.com/simjoin/simjoin/prefix"
)

// The pair index (ℓ = 2 of AdaptJoin's ℓ-prefix: Wang, Li and Feng, "Can we
// beat the prefix filtering?", SIGMOD 2012, as package passwords uses it for
// its joins).
//
// A single-token prefix is not selective on short sets over a small
// vocabulary (password bigrams): even a set's rarest token is common, so
// posting lists grow with the index. A record x whose least overlap with any
// partner at MinThreshold, α = MinOverlap(|x|, lo(|x|)), is at least 2 is
// instead indexed under every pair of tokens of its first L = |x| - α + 2
// (if |x ∩ y| >= α, the first two tokens x shares with y are followed in x by
// α - 2 more shared ones, so they lie within those L). A query q at threshold
// t >= MinThreshold looks up the pairs of its first |q| - α_q + 2 tokens (α_q
// its own least overlap at t, which the partner's α bounds from above); a
// record of the pair index that reaches t shares at least 2 tokens with q,
// the first two of which lie in both prefixes. A record must then share two
// tokens with the query, not one, to become a candidate.
//
// Looking the query's pairs up in order (first token ascending, then second)
// meets a record first at the first two tokens it shares with the query, at
// positions i < j of q and at position p of the record for the second: an
// earlier shared token would make an earlier pair. So 2 + min(|q|-j-1,
// |x|-p-1) bounds the overlap (PPJoin's positional filter, one token later),
// and a record that survives is verified by merging the suffixes past j and p.
//
// Records for which α < 2 (the shortest sets), or whose pairs would number
// more than maxPairKeys (long sets at low thresholds, where pairs outnumber
// the postings they save), keep the single-token prefix; the mode depends on
// the set's size alone. Every query probes both: its probe prefix against the
// single-token postings, its pairs against the pair index.

// maxPairKeys is the most pairs a record is indexed under; 0 disables the
// pair index. Can change for testing.
var maxPairKeys = 36

// maxQueryPairs is the most pairs a query looks up one by one; a query with
// more walks the runs of its pair-prefix tokens instead (and scans the
// mutable part's records of pair-index sizes).
const maxQueryPairs = 256

// largestPairSize returns the largest set size indexed under pairs (0:
// none). The pair prefix grows with the size, so the pair sizes end there.
func largestPairSize(minB prefix.Bounds) int {
	last := 0
	for x := 1; x <= 1<<12; x++ {
		if pairPrefix(minB, x) > 0 {
			last = x
		}
	}
	return last
}

// pairPrefix returns the length L of the pair prefix of a set of size x
// stored at MinThreshold bounds minB, or 0 when the set keeps the
// single-token prefix.
func pairPrefix(minB prefix.Bounds, x int) int {
	p := minB.ProbePrefix(x)
	if alpha := x - p + 1; alpha < 2 || p < 1 {
		return 0
	}
	l := p + 1
	if l*(l-1)/2 > maxPairKeys {
		return 0
	}
	return l
}

// singlePrefix returns the single-token prefix length of a set of size x
// (0 when it is in the pair index).
func singlePrefix(minB prefix.Bounds, x int) int {
	if pairPrefix(minB, x) > 0 {
		return 0
	}
	return min(minB.ProbePrefix(x), x)
}

// pentry is one entry of a segment's pair index: under first token a (the
// CSR row), second token B, at position Pos of the set of record Row, which
// has Size tokens.
type pentry struct {
	B, Row, Size, Pos uint32
}

// buildPairs returns the pair index of n records in CSR form over vocab
// first tokens, each row sorted by second token then record.
func buildPairs(n, vocab int, set func(r int) []uint32, minB prefix.Bounds) (ppoff []uint32, pent []pentry) {
	ppoff = make([]uint32, vocab+2)
	for r := 0; r < n; r++ {
		x := set(r)
		l := pairPrefix(minB, len(x))
		for i := 0; i+1 < l; i++ {
			ppoff[x[i]+2] += uint32(l - i - 1)
		}
	}
	for w := 2; w < len(ppoff); w++ {
		ppoff[w] += ppoff[w-1]
	}
	pent = make([]pentry, ppoff[len(ppoff)-1])
	for r := 0; r < n; r++ {
		x := set(r)
		l := pairPrefix(minB, len(x))
		for i := 0; i+1 < l; i++ {
			for j := i + 1; j < l; j++ {
				pent[ppoff[x[i]+1]] = pentry{B: x[j], Row: uint32(r), Size: uint32(len(x)), Pos: uint32(j)}
				ppoff[x[i]+1]++
			}
		}
	}
	ppoff = ppoff[:vocab+1]
	for w := 0; w < vocab; w++ {
		run := pent[ppoff[w]:ppoff[w+1]]
		slices.SortFunc(run, func(a, b pentry) int {
			if a.B != b.B {
				return int(int64(a.B) - int64(b.B))
			}
			return int(int64(a.Row) - int64(b.Row))
		})
	}
	return ppoff, pent
}

// pairs returns a segment's entries for the pair (a, b), a before b.
func (s *segment) pairs(a, b uint32) []pentry {
	if int(a)+1 >= len(s.ppoff) {
		return nil
	}
	run := s.pent[s.ppoff[a]:s.ppoff[a+1]]
	lo, _ := slices.BinarySearchFunc(run, b, func(e pentry, b uint32) int {
		if e.B < b {
			return -1
		}
		if e.B > b {
			return 1
		}
		return 0
	})
	hi := lo
	for hi < len(run) && run[hi].B == b {
		hi++
	}
	return run[lo:hi]
}

// pairKey is the mutable part's posting key of the pair (a, b).
func pairKey(a, b uint32) pkey { return pkey{key: uint64(a)<<32 | uint64(b), band: 1} }
