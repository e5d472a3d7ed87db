package index

import (
	"math/bits"
	"slices"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// The pair index (ℓ = 2 of AdaptJoin's ℓ-prefix: Wang, Li and Feng, "Can we
// beat the prefix filtering?", SIGMOD 2012, as package join's ℓ-prefix path
// keys its runs, here laid out in a segment's file).
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
	Mask              uint64 // join.TokenMask of the record's set
}

// maskBound returns the bound of their token masks (join.TokenMask: bit w
// mod 64, as the format stores them) on the overlap of sets of sizes x and
// y with masks mx and my: a token of x whose bit is not in y's mask is not
// in y, and symmetrically.
func maskBound(x int, mx uint64, y int, my uint64) int {
	return min(x-bits.OnesCount64(mx&^my), y-bits.OnesCount64(my&^mx))
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
		mask := join.TokenMask(x)
		for i := 0; i+1 < l; i++ {
			for j := i + 1; j < l; j++ {
				pent[ppoff[x[i]+1]] = pentry{B: x[j], Row: uint32(r), Size: uint32(len(x)), Pos: uint32(j), Mask: mask}
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

// pairSlot is one slot of a segment's pair hash table: the entries of the
// pair Key (first token << 32 | second) are pent[Start:Start+Count]; an
// empty slot has Count 0.
type pairSlot struct {
	Key          uint64
	Start, Count uint32
}

// buildPairHash returns the hash table over the distinct pairs of pent (a
// CSR over first tokens, runs sorted by second token): a power of two of
// slots at most 3/4 full, a pair's first slot Mix64(key) masked, then linear
// probing.
func buildPairHash(ppoff []uint32, pent []pentry) []pairSlot {
	distinct := 0
	for a := 0; a+1 < len(ppoff); a++ {
		run := pent[ppoff[a]:ppoff[a+1]]
		for i := range run {
			if i == 0 || run[i].B != run[i-1].B {
				distinct++
			}
		}
	}
	slots := 1
	for slots*3 < distinct*4+4 {
		slots *= 2
	}
	tab := make([]pairSlot, slots)
	mask := uint64(slots - 1)
	for a := 0; a+1 < len(ppoff); a++ {
		lo, hi := int(ppoff[a]), int(ppoff[a+1])
		for i := lo; i < hi; {
			j := i + 1
			for j < hi && pent[j].B == pent[i].B {
				j++
			}
			key := uint64(a)<<32 | uint64(pent[i].B)
			h := mix.Mix64(key) & mask
			for tab[h].Count != 0 {
				h = (h + 1) & mask
			}
			tab[h] = pairSlot{Key: key, Start: uint32(i), Count: uint32(j - i)}
			i = j
		}
	}
	return tab
}

// pairs returns a segment's entries for the pair (a, b), a before b: one
// probe of the pair hash table (a cache miss or two), where a binary search
// of a's run would miss the cache at every step on a large segment.
func (s *segment) pairs(a, b uint32) []pentry {
	if len(s.phash) == 0 {
		return nil
	}
	key := uint64(a)<<32 | uint64(b)
	mask := uint64(len(s.phash) - 1)
	for h := mix.Mix64(key) & mask; ; h = (h + 1) & mask {
		sl := &s.phash[h]
		if sl.Count == 0 {
			return nil
		}
		if sl.Key == key {
			if end := uint64(sl.Start) + uint64(sl.Count); end <= uint64(len(s.pent)) {
				return s.pent[sl.Start:end]
			}
			return nil // not written by writeSegment (its checksum would have failed)
		}
	}
}

// pairKey is the mutable part's posting key of the pair (a, b).
func pairKey(a, b uint32) pkey { return pkey{key: uint64(a)<<32 | uint64(b), band: 1} }
