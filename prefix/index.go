package prefix

import (
	"fmt"

	"github.com/simjoin/simjoin/internal/invariants"
)

// Posting is one entry of the inverted index: record Rec, whose set has Size
// tokens, holds the token at position Pos of its sorted set. Keeping the size
// in the posting lets a probe apply the size-dependent positional filter
// without touching anything else of the record.
type Posting struct {
	Rec  uint32
	Pos  uint32
	Size uint32
}

// Index is an inverted index over the prefixes of sets, in compressed-row
// form: the postings of token w are Postings(w), in ascending record number.
// When records are numbered in size order (as order.Collection numbers them),
// each posting list is in size order too, which the size filter relies on.
// An Index is immutable once built and safe for concurrent use.
type Index struct {
	// start has one entry per token id and one more: the postings of token
	// w are post[start[w]:start[w+1]]; start[0] = 0, non-decreasing, and
	// the last entry is len(post).
	start []uint32
	// post holds the posting lists back to back; within a list Rec
	// ascends strictly (a record holds a token once) and Pos < Size.
	post []Posting
}

// NewIndex indexes records 0..n-1 over token ids 0..vocab-1: set(r) returns
// the sorted set of record r, of which the first prefixLen(len(set)) tokens
// are indexed. Cost: two calls of set per record and two passes over the
// prefixes; memory 12 bytes per posting plus 4 per token id.
func NewIndex(n, vocab int, set func(r int) []uint32, prefixLen func(size int) int) *Index {
	return CountPrefixes(n, vocab, set, prefixLen).Index()
}

// Lengths holds the lengths of the posting lists of the index NewIndex(n,
// vocab, set, prefixLen) would build, counted without building it (what a
// cost estimate needs); Index then builds that index without counting
// again.
type Lengths struct {
	n         int
	set       func(r int) []uint32
	prefixLen func(size int) int
	// start[w+2] is the length of token w's list: the first pass of
	// NewIndex, which Index turns into offsets in place.
	start []uint32
}

// CountPrefixes counts the posting lists of NewIndex(n, vocab, set,
// prefixLen). Cost: one call of set per record, one pass over the prefixes;
// memory 4 bytes per token id.
func CountPrefixes(n, vocab int, set func(r int) []uint32, prefixLen func(size int) int) *Lengths {
	l := &Lengths{n: n, set: set, prefixLen: prefixLen, start: make([]uint32, vocab+2)}
	cnt := l.start[2:]
	for r := 0; r < n; r++ {
		s := set(r)
		for _, w := range s[:min(prefixLen(len(s)), len(s))] {
			cnt[w]++
		}
	}
	return l
}

// Len returns the length of token w's posting list (w below vocab).
func (l *Lengths) Len(w uint32) int { return int(l.start[w+2]) }

// Index builds the index the lengths were counted for; l must not be used
// afterwards. Cost: one call of set per record and one pass over the
// prefixes; memory 12 bytes per posting.
func (l *Lengths) Index() *Index {
	start := l.start
	l.start = nil
	for w := 2; w < len(start); w++ {
		start[w] += start[w-1]
	}
	post := make([]Posting, start[len(start)-1])
	for r := 0; r < l.n; r++ {
		s := l.set(r)
		for i, w := range s[:min(l.prefixLen(len(s)), len(s))] {
			post[start[w+1]] = Posting{Rec: uint32(r), Pos: uint32(i), Size: uint32(len(s))}
			start[w+1]++
		}
	}
	ix := &Index{start: start[:len(start)-1], post: post}
	if invariants.Enabled {
		ix.check()
	}
	return ix
}

// check panics unless the invariants stated on Index's fields hold
// (called under -tags invariants). Cost: O(postings + vocab).
func (ix *Index) check() {
	if len(ix.start) > 0 && (ix.start[0] != 0 || int(ix.start[len(ix.start)-1]) != len(ix.post)) {
		panic(fmt.Sprintf("prefix: index bounds [%d, %d] for %d postings", ix.start[0], ix.start[len(ix.start)-1], len(ix.post)))
	}
	for w := 0; w+1 < len(ix.start); w++ {
		if ix.start[w] > ix.start[w+1] {
			panic(fmt.Sprintf("prefix: token %d's postings end before they start", w))
		}
	}
	for w := 0; w+1 < len(ix.start); w++ {
		post := ix.post[ix.start[w]:ix.start[w+1]]
		for k, e := range post {
			if e.Pos >= e.Size || k > 0 && e.Rec <= post[k-1].Rec {
				panic(fmt.Sprintf("prefix: token %d, posting %d (record %d, position %d of %d): records not ascending or position past the set", w, k, e.Rec, e.Pos, e.Size))
			}
		}
	}
}

// Postings returns the postings of token w; nil for a token outside the
// vocabulary. The slice aliases the index and must not be modified.
func (ix *Index) Postings(w uint32) []Posting {
	if int(w)+1 >= len(ix.start) {
		return nil
	}
	return ix.post[ix.start[w]:ix.start[w+1]]
}

// Tokens returns the number of token ids the index covers.
func (ix *Index) Tokens() int { return max(len(ix.start)-1, 0) }

// Len returns the number of postings.
func (ix *Index) Len() int { return len(ix.post) }
