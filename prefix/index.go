package prefix

import (
	"context"
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
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
	// from is the first token id with a list: the ids below it have none
	// (CountPrefixesFrom), and their prefix tokens are counted in below.
	from  uint32
	below int
	// start has one entry per token id from from on and one more: the
	// postings of token w are post[start[w-from]:start[w-from+1]];
	// start[0] = 0, non-decreasing, and the last entry is len(post).
	start []uint32
	// post holds the posting lists back to back; within a list Rec
	// ascends strictly (a record holds a token once) and Pos < Size.
	post []Posting
}

// NewIndex indexes records 0..n-1 over token ids 0..vocab-1: set(r) returns
// the sorted set of record r, of which the first prefixLen(len(set)) tokens
// are indexed. It runs on up to workers goroutines (0 means GOMAXPROCS; the
// index is the same for any number), which call set and prefixLen
// concurrently. Cost: two calls of set per record and two passes over the
// prefixes (with a large vocabulary, a third over the postings:
// Lengths.Index); memory 12 bytes per posting plus 4 per token
// id, and 4 more per token id for each worker past the first.
func NewIndex(n, vocab int, set func(r int) []uint32, prefixLen func(size int) int, workers int) *Index {
	return CountPrefixes(n, vocab, set, prefixLen, workers).Index()
}

// Lengths holds the lengths of the posting lists of the index NewIndex(n,
// vocab, set, prefixLen, workers) would build, counted without building it
// (what a cost estimate needs); Index then builds that index without
// counting again.
type Lengths struct {
	n         int
	set       func(r int) []uint32
	prefixLen func(size int) int
	// from is the first token id counted by list; below counts the
	// prefix tokens below it (CountPrefixesFrom).
	from  uint32
	below int
	// start[w-from+2] is the length of token w's list: the first pass of
	// NewIndex, which Index turns into offsets in place.
	start []uint32
	// With more than one worker, worker k counted records
	// parts[k]..parts[k+1]-1 into cnt[k] (cnt[k][w] postings of token w),
	// and start holds the sums; nil with one.
	parts []int
	cnt   [][]uint32
}

// parallelRecords is the least number of records a worker past the first
// counts and places: below it, one goroutine does the lot (a worker costs 4
// bytes a token id and a pass over them).
const parallelRecords = 1 << 15

// CountPrefixes counts the posting lists of NewIndex(n, vocab, set,
// prefixLen, workers), on up to workers goroutines, each taking a range of
// records with about as many prefix tokens as the others' (split). Cost:
// one call of set per record, one pass over the prefixes; memory 4 bytes
// per token id, and 4 more for each worker past the first.
func CountPrefixes(n, vocab int, set func(r int) []uint32, prefixLen func(size int) int, workers int) *Lengths {
	return CountPrefixesFrom(n, vocab, 0, set, prefixLen, workers)
}

// CountPrefixesFrom is CountPrefixes for an index that holds lists for the
// token ids from from on only (from at most vocab): the prefix tokens below
// it are counted in all (Index.Counted) but get no list, and Len is not
// asked of them. In a join over one order the ids held by one set only come
// first (order numbers tokens rare-first), and no probe looks them up: most
// token ids of a large vocabulary (the Go tree's: 3.2M of 4.0M), whose
// offsets and postings the index then does without. Cost: as CountPrefixes,
// with 4 bytes per token id from from on.
func CountPrefixesFrom(n, vocab int, from uint32, set func(r int) []uint32, prefixLen func(size int) int, workers int) *Lengths {
	from = min(from, uint32(vocab))
	ids := vocab - int(from)
	l := &Lengths{n: n, set: set, prefixLen: prefixLen, from: from, start: make([]uint32, ids+2)}
	workers = min(parallel.Workers(workers), n/parallelRecords)
	if workers <= 1 {
		l.below = l.count(0, n, l.start[2:])
		return l
	}
	l.parts = l.split(workers)
	l.cnt = make([][]uint32, len(l.parts)-1)
	below := make([]int, len(l.cnt))
	parallel.For(context.Background(), len(l.cnt), 1, len(l.cnt), func(_, k, _ int) {
		l.cnt[k] = make([]uint32, ids)
		below[k] = l.count(l.parts[k], l.parts[k+1], l.cnt[k])
	})
	for _, b := range below {
		l.below += b
	}
	sum := l.start[2:]
	parallel.For(context.Background(), ids, 1<<16, workers, func(_, lo, hi int) {
		for _, c := range l.cnt {
			for w, v := range c[lo:hi] {
				sum[lo+w] += v
			}
		}
	})
	return l
}

// splitSample is the number of records split reads the prefix length of
// per part: enough to place the parts' bounds within a few percent of even.
const splitSample = 1024

// split returns the bounds of the workers' parts of records 0..n-1: about
// even in prefix tokens, not records, since the work of counting and above
// all of placing goes by posting, and records numbered in size order have
// longer prefixes the later they come (at Jaccard 0.9 sizes 10 to 50 have
// prefixes of 2 to 6 tokens). The prefix lengths are read on an evenly
// spaced sample of the records, so split costs O(workers·splitSample) calls
// of set and prefixLen, and the parts are the same on every run.
func (l *Lengths) split(workers int) []int {
	step := max(1, l.n/(workers*splitSample))
	var cum []int // cum[i]: prefix tokens of the sampled records before i·step
	total := 0
	for r := 0; r < l.n; r += step {
		cum = append(cum, total)
		total += l.prefixOf(len(l.set(r)))
	}
	parts := make([]int, 1, workers+1)
	for k := 1; k < workers; k++ {
		i, _ := slices.BinarySearch(cum, total*k/workers)
		parts = append(parts, max(parts[k-1], min(i*step, l.n)))
	}
	return append(parts, l.n)
}

// prefixOf returns the number of prefix tokens of a record of size tokens:
// prefixLen(size), no more than size.
func (l *Lengths) prefixOf(size int) int { return min(l.prefixLen(size), size) }

// scatterSample is the number of records scattered reads.
const scatterSample = 2048

// scatterNear is the distance in token ids within which two list ends share
// a cache line (16 offsets of 4 bytes).
const scatterNear = 16

// scattered reports whether, on an evenly spaced sample of the records, most
// steps from one prefix token of a record to the next go further than
// scatterNear token ids (or no record has two prefix tokens): then placing
// each posting straight into its list misses the cache once a posting, and
// placeStaged's extra pass pays (the 1M Zipf sets). Where a record's prefix
// tokens lie together in the order, as a document's own shingles do (ids of
// one document frequency are numbered by shard and first appearance), the
// straight placement walks its lists in order and the extra pass is lost
// (the Go tree's join with two workers, 7-11% of its wall time).
// Cost: O(scatterSample) calls of set and prefixLen.
func (l *Lengths) scattered() bool {
	step := max(1, l.n/scatterSample)
	near, steps := 0, 0
	for r := 0; r < l.n; r += step {
		s := l.set(r)
		p := s[:l.prefixOf(len(s))]
		for i := 1; i < len(p); i++ {
			steps++
			if p[i]-p[i-1] < scatterNear {
				near++
			}
		}
	}
	return steps == 0 || 2*near < steps
}

// count adds the prefix tokens of records lo..hi-1 to cnt (token w at
// w-from) and returns how many were below from.
func (l *Lengths) count(lo, hi int, cnt []uint32) (below int) {
	if len(cnt) <= cachedCounters {
		var pl prefixLens
		for r := lo; r < hi; r++ {
			s := l.set(r)
			p := s[:pl.of(l, len(s))]
			k := l.kept(p)
			below += k
			for _, w := range p[k:] {
				cnt[w-l.from]++
			}
		}
		return below
	}
	var ring prefixRing
	ring.fill(l, lo, hi)
	for r := lo; r < hi; r++ {
		if a := r + aheadRecords; a < hi {
			prefetch.Indexes(cnt, ring.put(l, a), l.from) // those below from skipped
		}
		p := ring.at(r)
		k := l.kept(p)
		below += k
		for _, w := range p[k:] {
			cnt[w-l.from]++
		}
	}
	return below
}

// kept returns where the tokens with lists (from from on) begin in p, a
// prefix: those below from come first, the prefix being sorted.
func (l *Lengths) kept(p []uint32) int {
	if l.from == 0 {
		return 0
	}
	i := 0
	for i < len(p) && p[i] < l.from {
		i++
	}
	return i
}

// aheadRecords is how many records ahead of the one being counted or
// placed the counters of its prefix tokens are hinted into cache (see
// internal/prefetch): consecutive records' tokens are spread over the whole
// vocabulary, so each counter is a cache miss, and the hints let a window
// of them overlap instead of coming one after another. Placing also hints
// the postings' places, for the records half as far ahead (whose counters
// are in cache by then). A power of two.
const aheadRecords = 8

// cachedCounters is the number of counters (token ids) up to which they
// stay in a core's cache: count adds the prefixes directly then, as hinting
// the counters would cost more than it saves (on 59,000 password bigram
// sets, 5,625 tokens, 70% less time).
const cachedCounters = 1 << 15

// prefixLens remembers the prefix length of the last size asked for: records
// numbered in size order ask for the same size again and again, and
// prefixLen is a few divisions.
type prefixLens struct {
	size, n int // min(prefixLen(size), size) is n, once set
	set     bool
}

// of returns l.prefixOf(size), asking prefixLen only when size changes.
func (p *prefixLens) of(l *Lengths, size int) int {
	if !p.set || size != p.size {
		p.size, p.n, p.set = size, l.prefixOf(size), true
	}
	return p.n
}

// prefixRing holds the prefixes of the records from the one being counted
// or placed to aheadRecords ahead of it, so that set and prefixLen are
// called once a record.
type prefixRing struct {
	p    [2 * aheadRecords][]uint32
	lens prefixLens
}

// at returns the prefix of record r, put before (and not more than
// aheadRecords records before the last put).
func (q *prefixRing) at(r int) []uint32 { return q.p[r%len(q.p)] }

// put stores and returns the prefix of record r.
func (q *prefixRing) put(l *Lengths, r int) []uint32 {
	s := l.set(r)
	p := s[:q.lens.of(l, len(s))]
	q.p[r%len(q.p)] = p
	return p
}

// fill puts the prefixes of the first records of lo..hi-1 (up to
// aheadRecords of them).
func (q *prefixRing) fill(l *Lengths, lo, hi int) {
	for r := lo; r < min(lo+aheadRecords, hi); r++ {
		q.put(l, r)
	}
}

// Len returns the length of token w's posting list (w from From() on,
// below vocab).
func (l *Lengths) Len(w uint32) int { return int(l.start[w-l.from+2]) }

// From returns the first token id counted by list (CountPrefixesFrom).
func (l *Lengths) From() uint32 { return l.from }

// Index builds the index the lengths were counted for, on the workers that
// counted them; l must not be used afterwards. Cost: one call of set per
// record and one pass over the prefixes, and with more than cachedCounters
// token ids and scattered prefixes a pass over the postings (placeStaged);
// memory 12 bytes per posting, and 4 more while it runs in that case.
func (l *Lengths) Index() *Index {
	start := l.offsets()
	post := make([]Posting, start[len(start)-1])
	var ix *Index
	switch {
	case len(start)-2 > cachedCounters && l.scattered():
		// Too many lists for their ends to stay in cache, and a record's
		// postings go to lists far apart: by bucket.
		l.placeStaged(start, post)
		ix = &Index{start: start[:len(start)-1], post: post}
	case l.cnt == nil:
		l.place(0, l.n, post, start[1:])
		// Placing moved start[w+1] to the end of w's list, the start of
		// w+1's.
		ix = &Index{start: start[:len(start)-1], post: post}
	default:
		// Worker k places its records after those of workers before it in
		// every list, so records stay ascending within a list.
		parallel.For(context.Background(), len(start)-2, 1<<16, len(l.cnt), func(_, lo, hi int) {
			for w := lo; w < hi; w++ {
				at := start[w+1]
				for _, c := range l.cnt {
					at, c[w] = at+c[w], at
				}
			}
		})
		parallel.For(context.Background(), len(l.cnt), 1, len(l.cnt), func(_, k, _ int) {
			l.place(l.parts[k], l.parts[k+1], post, l.cnt[k])
		})
		l.cnt = nil
		ix = &Index{start: start[1:], post: post}
	}
	ix.from, ix.below = l.from, l.below
	if invariants.Enabled {
		ix.check()
	}
	return ix
}

// stageShift sets the token ids of a staging bucket (placeStaged): 1 <<
// stageShift consecutive ids, whose lists are about 2,000 postings (24 KB)
// on the 1M Zipf sets (941,000 token ids, 2.1M postings at t = 0.9).
const stageShift = 10

// placeStaged places the postings of the records counted by the workers (or
// the one) when the lists are too many for their ends to stay in cache, in
// two passes: each worker copies the postings of its records into post
// grouped by bucket of 1 << stageShift token ids, each bucket in the
// stretch its lists will fill (after the postings of the workers before
// it), with their tokens beside them in toks: a write stream per bucket.
// Then each bucket is copied aside and placed into its stretch, which stays
// in cache while it fills. Placing every posting straight into its list,
// as place does, writes all over post, a cache miss a posting (50 ns each
// on the 1M Zipf sets, 100 ms of CPU for 2.1M postings). Records stay
// ascending within a list: a bucket holds each worker's postings in record
// order, the workers in order. start is offsets' result; afterwards
// start[w] is where token w's list begins, as place leaves it. Memory: 4
// bytes a posting, and 16 a posting of the largest bucket for each worker,
// while it runs.
func (l *Lengths) placeStaged(start []uint32, post []Posting) {
	vocab := len(start) - 2
	nb := (vocab + 1<<stageShift - 1) >> stageShift
	bounds := make([]uint32, nb+1) // bucket b's lists are post[bounds[b]:bounds[b+1]]
	for b := range nb {
		bounds[b] = start[b<<stageShift+1]
	}
	bounds[nb] = start[len(start)-1]
	// at[k][b]: where worker k's next posting of bucket b goes.
	parts, at := l.parts, [][]uint32{slices.Clone(bounds[:nb])}
	if l.cnt == nil {
		parts = []int{0, l.n}
	} else {
		at = make([][]uint32, len(l.cnt))
		parallel.For(context.Background(), len(l.cnt), 1, len(l.cnt), func(_, k, _ int) {
			a := make([]uint32, nb)
			for b := range a {
				for _, c := range l.cnt[k][b<<stageShift : min((b+1)<<stageShift, vocab)] {
					a[b] += c
				}
			}
			at[k] = a
		})
		for b := range nb {
			next := bounds[b]
			for _, a := range at {
				a[b], next = next, next+a[b]
			}
		}
	}
	l.cnt = nil
	workers := len(at)
	toks := make([]uint32, len(post))
	parallel.For(context.Background(), workers, 1, workers, func(_, k, _ int) {
		l.stage(parts[k], parts[k+1], post, toks, at[k])
	})
	next := start[1:] // token w's next posting goes to post[next[w]]
	scratch := make([][]staged, workers)
	parallel.For(context.Background(), nb, max(1, nb/(8*workers)), workers, func(k, lo, hi int) {
		for b := lo; b < hi; b++ {
			from, to := bounds[b], bounds[b+1]
			sc := slices.Grow(scratch[k][:0], int(to-from))
			for i, e := range post[from:to] {
				sc = append(sc, staged{Posting: e, w: toks[int(from)+i]})
			}
			scratch[k] = sc
			for _, e := range sc {
				post[next[e.w]] = e.Posting
				next[e.w]++
			}
		}
	})
}

// staged is a posting on its way to its list, with its token.
type staged struct {
	Posting
	w uint32
}

// stage copies the postings of records lo..hi-1 into post and their tokens
// into toks, those of the tokens of bucket b at at[b] (which it advances).
func (l *Lengths) stage(lo, hi int, post []Posting, toks, at []uint32) {
	var pl prefixLens
	for r := lo; r < hi; r++ {
		s := l.set(r)
		size := uint32(len(s))
		p := s[:pl.of(l, len(s))]
		for i := l.kept(p); i < len(p); i++ {
			w := p[i] - l.from
			k := at[w>>stageShift]
			post[k] = Posting{Rec: uint32(r), Pos: uint32(i), Size: size}
			toks[k] = w
			at[w>>stageShift] = k + 1
		}
	}
}

// Layout returns the index the lengths were counted for with room laid out
// for every list but no posting placed: Span(w) is the room of token w's
// list, and the postings are zero. It is for a caller that places the
// postings itself, in record order, while the records' lists are in its
// cache anyway (a self-join with one worker places each set's postings
// right after probing it); such a caller keeps its own end of every list,
// and the index holds what it wrote. l must not be used afterwards. Cost:
// one pass over the token ids; memory 12 bytes per posting.
func (l *Lengths) Layout() *Index {
	start := l.offsets()
	l.cnt = nil
	return &Index{from: l.from, below: l.below, start: start[1:], post: make([]Posting, start[len(start)-1])}
}

// offsets turns the lengths into the lists' offsets in place and hands them
// over: start[w+1] is where token w's list begins, and the last entry is
// the number of postings.
func (l *Lengths) offsets() []uint32 {
	start := l.start
	l.start = nil
	for w := 2; w < len(start); w++ {
		start[w] += start[w-1]
	}
	return start
}

// place writes the postings of records lo..hi-1 into post, token w's next
// at next[w] (which it advances).
func (l *Lengths) place(lo, hi int, post []Posting, next []uint32) {
	var ring prefixRing
	ring.fill(l, lo, hi)
	var at []uint32 // where the postings of the record half a ring ahead go
	for r := lo; r < hi; r++ {
		if a := r + aheadRecords; a < hi {
			prefetch.Indexes(next, ring.put(l, a), l.from)
		}
		if a := r + aheadRecords/2; a < hi {
			at = at[:0]
			p := ring.at(a)
			for _, w := range p[l.kept(p):] {
				at = append(at, next[w-l.from])
			}
			prefetch.Indexes(post, at, 0)
		}
		p := ring.at(r)
		size := uint32(len(l.set(r)))
		for i := l.kept(p); i < len(p); i++ {
			w := p[i] - l.from
			post[next[w]] = Posting{Rec: uint32(r), Pos: uint32(i), Size: size}
			next[w]++
		}
	}
}

// check panics unless the invariants stated on Index's fields hold
// (called under -tags invariants). Cost: O(postings + vocab).
func (ix *Index) check() {
	if ix.below < 0 || ix.from == 0 && ix.below != 0 {
		panic(fmt.Sprintf("prefix: %d postings below token %d", ix.below, ix.from))
	}
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
				panic(fmt.Sprintf("prefix: token %d, posting %d (record %d, position %d of %d): records not ascending or position past the set", uint32(w)+ix.from, k, e.Rec, e.Pos, e.Size))
			}
		}
	}
}

// Postings returns the postings of token w; nil for a token outside the
// vocabulary or below From(). The slice aliases the index and must not be
// modified.
func (ix *Index) Postings(w uint32) []Posting {
	if w < ix.from || int(w-ix.from)+1 >= len(ix.start) {
		return nil
	}
	return ix.post[ix.start[w-ix.from]:ix.start[w-ix.from+1]]
}

// Span returns where token w's postings lie in Entries: Postings(w) is
// Entries()[lo:hi]. w must be from From() on and below Tokens().
func (ix *Index) Span(w uint32) (lo, hi uint32) {
	return ix.start[w-ix.from], ix.start[w-ix.from+1]
}

// Entries returns every posting, the lists back to back in token order. The
// slice aliases the index and must not be modified.
func (ix *Index) Entries() []Posting { return ix.post }

// Tokens returns the number of token ids the index covers: those below
// From() have no list.
func (ix *Index) Tokens() int { return int(ix.from) + max(len(ix.start)-1, 0) }

// From returns the first token id with a list (CountPrefixesFrom; 0 for
// NewIndex).
func (ix *Index) From() uint32 { return ix.from }

// Len returns the number of postings held.
func (ix *Index) Len() int { return len(ix.post) }

// Counted returns the number of prefix tokens the index was counted for:
// Len, and the prefix tokens below From() besides, which have no list. It
// is the index's size as a join's statistics state it, whatever From().
func (ix *Index) Counted() int { return len(ix.post) + ix.below }
