package join

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// Index answers "which sets of a collection reach the threshold with this
// one?" for any number of query sets, exactly, against a collection indexed
// once. It is the exact counterpart of approx.Index, with the same shape:
// build once, then Query, TopK and QueryAll.
//
// # Design
//
// A query is an R-S join of one set with the collection, so the index is the
// R-S join's: a prefix index (prefix.Index) over each group's probe prefix
// (prefix.Bounds.ProbePrefix, the prefix that serves partners of any size),
// in the collection's rare-first token order. A query's keys are mapped to
// ids with Dictionary.Map, which gives keys the collection lacks ids after
// every known one: such tokens meet no indexed set, and putting them last
// keeps the query's prefix on tokens that can match (any total order keeps
// the filters exact). The query then scans the postings of its own probe
// prefix, skips groups outside its size range by binary search (postings are
// in size order), and verifies each distinct group met with Verify.
//
// For collections of queryKeysMin sets or more whose sets are short (such as
// password bigrams at high thresholds), the index also holds the token pairs
// of each group's ℓ-prefix with ℓ = 2 (|y| - MinOverlap(|y|, lo) + 2 tokens,
// lo its smallest admissible partner, so that it serves partners of any
// size; see lprefix.go), and a query that is not tiny looks up the pairs of
// its own ℓ-prefix instead: its first two tokens shared with an indexed set
// lie in both ℓ-prefixes. On password bigrams this meets far fewer sets than
// single tokens do (32 times faster against a million passwords).
//
// # Cost and concurrency
//
// Building: one pass over the probe prefixes (12 bytes a posting), with the
// pair keys 12 bytes an entry plus 16 per distinct pair. A query: mapping its
// keys (O(k) lookups), the postings of its prefix within its size range, and
// an O(|x| + |y|) merge per distinct group met. An Index is immutable and
// safe for concurrent use; each concurrent query borrows scratch space of 4
// bytes per group, and allocates nothing once warmed up beyond the growth of
// dst.
type Index struct {
	c       *order.Collection
	b       prefix.Bounds
	s       *side         // c's groups
	ix      *prefix.Index // every group under its probe prefix (partners of any size)
	keyIx   *keyIndex     // ℓ = 2: every group under the token pairs of its ℓ-prefix; nil if not worth it
	masks   []uint64      // token mask of each group, with keyIx
	workers int
	st      Stats
	pool    sync.Pool // *querier
}

// queryKeysMin is the number of sets from which NewIndex considers pair
// keys: below it the prefix index's posting lists are short.
const queryKeysMin = 20_000

// querier is the scratch space of one query.
type querier struct {
	keys  []uint64
	pairs []uint64
	ids   []uint32
	seen  []uint32 // epoch of the last query that met each group
	epoch uint32
}

// Match is a set of the collection that reaches the threshold with a query:
// its record id (the index given to order.Input), the overlap and the
// similarity.
type Match struct {
	ID      int
	Overlap int
	Sim     float64
}

// NewIndex indexes c for queries at opt's measure and threshold. opt.Ell
// chooses the keys: 0 by cost (pairs for large collections of short sets), 1
// the prefix index alone, 2 token pairs; opt.Workers goroutines build it.
// The index reads c's sets when it answers: c must outlive it. Stats() tells
// what the build did.
func NewIndex(c *order.Collection, opt Options) (*Index, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if opt.Ell > 2 {
		return nil, fmt.Errorf("%w: a query index takes ℓ up to 2, not %d", ErrEll, opt.Ell)
	}
	t0 := rusage.Start()
	b := prefix.NewBounds(opt.Measure, opt.Threshold)
	s := groupsOf(c)
	vocab := c.Dict().Len()
	ix := &Index{c: c, b: b, s: s, workers: opt.Workers,
		ix: prefix.NewIndex(s.groups(), vocab, s.set, b.ProbePrefix, opt.Workers)}
	ix.st = Stats{Records: c.Records(), Skipped: c.Skipped(), Groups: s.groups(),
		IndexEntries: ix.ix.Len(), Workers: opt.Workers, Ell: 1}
	ell := opt.Ell
	if ell == 0 {
		ell = 1
		if queryKeys(s, b) {
			ell = 2
		}
	}
	if ell == 2 {
		var err error
		ix.keyIx, ix.masks, err = newKeyIndex(s, vocab, 2, func(n int) int {
			lo, _ := b.SizeRange(n)
			return min(n, n-b.MinOverlap(n, max(lo, 1))+2)
		}, opt.Workers, false)
		if err != nil {
			return nil, err
		}
		ix.st.IndexEntries += len(ix.keyIx.groups)
		ix.st.Ell = 2
	}
	ix.st.IndexTime, ix.st.IndexCPU = t0.Lap()
	return ix, nil
}

// queryKeys reports whether a query index of token pairs suits s at b: when
// the sets have few pairs in their ℓ-prefixes (short sets, high thresholds)
// and the collection is large enough for the prefix index's posting lists
// to be long.
func queryKeys(s *side, b prefix.Bounds) bool {
	if s.c.Len() < queryKeysMin {
		return false
	}
	var keys int64
	for g := range s.groups() {
		n := int(s.size[g])
		lo, _ := b.SizeRange(n)
		first, end := s.members(g)
		keys += int64(end-first) * binom(min(n, n-b.MinOverlap(n, max(lo, 1))+2), 2)
	}
	return keys <= maxKeys*int64(s.c.Len())
}

// Stats returns what building the index did: the records indexed and
// skipped, the groups, the index entries, the keys (Ell) and the build time.
func (ix *Index) Stats() Stats { return ix.st }

// Collection returns the indexed collection.
func (ix *Index) Collection() *order.Collection { return ix.c }

// Bounds returns the measure and threshold the index answers at.
func (ix *Index) Bounds() prefix.Bounds { return ix.b }

// Query appends to dst every indexed set whose similarity with the query set
// reaches the threshold, sorted by ID, and returns the extended slice. keys
// are the query's tokens as given to order.Input (any order, duplicates
// ignored); an empty query matches nothing. It is exact: the same matches as
// the nested-loop R-S join. Safe for concurrent use.
func (ix *Index) Query(dst []Match, keys []uint64) []Match {
	start := len(dst)
	dst = ix.query(dst, keys)
	slices.SortFunc(dst[start:], func(a, b Match) int { return cmp.Compare(a.ID, b.ID) })
	return dst
}

// TopK appends to dst the k indexed sets most similar to the query among
// those reaching the threshold, highest similarity first, ties by ID. Cost:
// as Query plus sorting its matches.
func (ix *Index) TopK(dst []Match, keys []uint64, k int) []Match {
	if k <= 0 {
		return dst
	}
	start := len(dst)
	dst = ix.query(dst, keys)
	slices.SortFunc(dst[start:], ByRank)
	return dst[:start+min(k, len(dst)-start)]
}

// ByRank orders matches by similarity descending, then by ID ascending.
func ByRank(a, b Match) int {
	if c := cmp.Compare(b.Sim, a.Sim); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// queryBlock is the number of queries in one QueryAll chunk.
const queryBlock = 256

// QueryAll runs Query for every query set on the index's workers and hands
// the matches to yield from the calling goroutine: query by query in order,
// each query's matches by ID; the same for any number of workers. yield
// returning false stops early without error. ctx cancels it.
func (ix *Index) QueryAll(ctx context.Context, queries [][]uint64, yield func(query int, m Match) bool) error {
	type qm struct {
		q int
		m Match
	}
	return parallel.Ordered(ctx, parallel.Even(len(queries), queryBlock), ix.workers,
		func() *[]Match { return new([]Match) },
		func(ms *[]Match, c *parallel.Chunk[qm, struct{}]) {
			for q := c.Lo; q < c.Hi; q++ {
				*ms = ix.Query((*ms)[:0], queries[q])
				for _, m := range *ms {
					c.Out = append(c.Out, qm{q, m})
				}
			}
		},
		func(c *parallel.Chunk[qm, struct{}]) bool {
			for _, x := range c.Out {
				if !yield(x.q, x.m) {
					return false
				}
			}
			return true
		})
}

// query appends the matches of the query set keys in no fixed order.
func (ix *Index) query(dst []Match, keys []uint64) []Match {
	qr, _ := ix.pool.Get().(*querier)
	if qr == nil {
		qr = &querier{seen: make([]uint32, ix.s.groups())}
	}
	defer ix.pool.Put(qr)
	qr.epoch++
	if qr.epoch == 0 {
		clear(qr.seen)
		qr.epoch = 1
	}
	qr.keys = append(qr.keys[:0], keys...)
	if !slices.IsSorted(qr.keys) {
		slices.Sort(qr.keys)
	}
	qr.keys = slices.Compact(qr.keys)
	qr.ids = ix.c.Dict().Map(qr.ids[:0], qr.keys)
	x := qr.ids
	n := len(x)
	if n == 0 {
		return dst
	}
	lo, hi := ix.b.SizeRange(n)
	if px, ok := probeLen(ix.b, n, 2); ok && ix.keyIx != nil {
		return ix.queryKeys(dst, qr, x, px, lo, hi)
	}
	return ix.queryPrefix(dst, qr, x, lo, hi)
}

// queryKeys finds the matches of query x (probe ℓ-prefix px) through the
// token pairs: the first two tokens x shares with an indexed set lie in both
// ℓ-prefixes, the indexed ones taken for partners of any size.
func (ix *Index) queryKeys(dst []Match, qr *querier, x []uint32, px, lo, hi int) []Match {
	b, s := ix.b, ix.s
	n := len(x)
	first := uint32(s.firstOfSize(lo))
	end := uint32(s.firstOfSize(hi + 1))
	alpha := b.MinOverlap(n, max(lo, 1))
	// Query tokens outside the collection have mask bits of their own: they
	// only make the bound tighter, never wrong.
	mx := TokenMask(x)
	qr.pairs = appendKeys(qr.pairs[:0], x, px, 2)
	for _, key := range qr.pairs {
		groups, masks := ix.keyIx.lookup(key)
		k := 0
		if len(groups) > 0 && groups[0] < first {
			k, _ = slices.BinarySearch(groups, first)
		}
		for ; k < len(groups); k++ {
			gy := groups[k]
			if gy >= end {
				break
			}
			if n-bits.OnesCount64(mx&^masks[k]) < alpha || qr.seen[gy] == qr.epoch {
				continue
			}
			qr.seen[gy] = qr.epoch
			dst = ix.verify(dst, x, int(gy))
		}
	}
	return dst
}

// queryPrefix finds the matches of query x through the prefix index.
func (ix *Index) queryPrefix(dst []Match, qr *querier, x []uint32, lo, hi int) []Match {
	b, s := ix.b, ix.s
	first := uint32(s.firstOfSize(lo))
	end := uint32(s.firstOfSize(hi + 1))
	for _, w := range x[:b.ProbePrefix(len(x))] {
		post := ix.ix.Postings(w)
		for _, e := range post[skipTo(post, first):] {
			if e.Rec >= end {
				break
			}
			if qr.seen[e.Rec] == qr.epoch {
				continue
			}
			qr.seen[e.Rec] = qr.epoch
			dst = ix.verify(dst, x, int(e.Rec))
		}
	}
	return dst
}

// verify appends a match for every record of group g when it reaches the
// threshold with x.
func (ix *Index) verify(dst []Match, x []uint32, g int) []Match {
	y := ix.s.set(g)
	o, ok := Verify(ix.b, x, y)
	if !ok {
		return dst
	}
	sim := ix.b.Similarity(o, len(x), len(y))
	lo, hi := ix.s.members(g)
	for pos := lo; pos < hi; pos++ {
		dst = append(dst, Match{ID: ix.c.ID(pos), Overlap: o, Sim: sim})
	}
	return dst
}
