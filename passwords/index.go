package passwords

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// Index answers "which known passwords is this one too close to?" for any
// number of candidate passwords, against a list indexed once.
//
// # Design
//
// A check is an R-S join of one candidate with the known list, so the index
// is the R-S join's index, built once: the known passwords' q-gram sets in
// the order package's rare-first token order (document frequency over the
// known list), and a prefix index (prefix.Index) over each set's probe prefix
// (prefix.Bounds.ProbePrefix, the prefix that serves partners of any size, as
// join.RSJoin indexes its S side). A candidate's grams are mapped to ids with
// Dictionary.Map, which gives grams the known list lacks ids after every
// known one: such grams meet no known set, and putting them last keeps the
// candidate's prefix on grams that can match. The candidate then probes the
// postings of its own probe prefix, skips known sets outside its size range
// by binary search (the index is in size order), and verifies each distinct
// candidate exactly with join.Check.
//
// For lists of 20,000 passwords or more whose sets are short (passwords at
// high thresholds), the index also holds the token pairs of each known set's
// ℓ-prefix with ℓ = 2 (|y| - MinOverlap(|y|, lo) + 2 tokens, lo its smallest
// admissible partner, so that it serves partners of any size; see
// lprefix.go), and a candidate that is not tiny looks up the pairs of its
// own ℓ-prefix instead: its first two grams shared with a known set lie in
// both ℓ-prefixes. On password bigrams this meets far fewer known sets than
// single grams do (32 times faster against a million known passwords).
//
// Building the order over the known list plus the candidates (order.Build)
// would rebuild everything for every new candidate; a query index pays the
// build once and then costs a few posting lists per check, and a candidate
// never changes the index, so checks run concurrently. The price is that a
// candidate's unknown grams all share the last places of the order (any
// total order keeps the filters exact; this one only makes them a little
// less sharp).
//
// An Index is immutable and safe for concurrent use; each concurrent Check
// borrows scratch space of 4 bytes per known password. Memory: the sets (4
// bytes a gram), 12 bytes a posting, and with the pair index 12 bytes an
// entry plus 16 per distinct pair.
type Index struct {
	list  *List
	opt   Options
	b     prefix.Bounds
	c     *order.Collection
	ix    *prefix.Index // ℓ = 1: probe prefixes
	g     *groups       // runs of identical sets of c, for keys
	keys  *keyIndex     // ℓ = 2: token pairs of the ℓ-prefixes; nil if not worth it
	stats Stats
	pool  sync.Pool // *checker
}

// checker is the scratch space of one Check.
type checker struct {
	keys  []uint64
	pairs []uint64
	ids   []uint32
	seen  []uint32 // epoch of the last check that met each known set
	epoch uint32
}

// NewIndex indexes the passwords of known for Check, with opt's grams,
// measure and threshold (opt.Workers goroutines build it; opt.Progress is not
// used). The index reads known's passwords when it reports matches: known
// must not change afterwards.
//
// Cost: the grams and the order as for Join, then one pass over the probe
// prefixes; memory about 4 bytes a gram plus 8 bytes a posting.
func NewIndex(known *List, opt Options) (*Index, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	c, st, err := collect(known, &opt)
	if err != nil {
		return nil, err
	}
	b := opt.bounds()
	t0 := time.Now()
	ix := prefix.NewIndex(c.Len(), c.Dict().Len(), c.Set, b.ProbePrefix)
	st.Exact.IndexEntries = ix.Len()
	index := &Index{list: known, opt: opt, b: b, c: c, ix: ix}
	st.Method = "prefix"
	if queryKeys(c, b) {
		index.g = newGroups(c)
		index.keys, err = newKeyIndex(index.g, c.Dict().Len(), 2, func(n int) int {
			lo, _ := b.SizeRange(n)
			return min(n, n-b.MinOverlap(n, max(lo, 1))+2)
		}, opt.Workers)
		if err != nil {
			return nil, err
		}
		st.Exact.IndexEntries += len(index.keys.groups)
		st.Method = "l-prefix (l = 2)"
	}
	st.Exact.IndexTime = time.Since(t0)
	st.Exact.Records = c.Records()
	st.Exact.Skipped = c.Skipped()
	st.Exact.MeasureName = opt.Measure.String()
	st.Exact.ThresholdText = opt.Threshold.String()
	index.stats = st
	return index, nil
}

// queryKeys reports whether a query index of token pairs suits c at b: when
// the known sets have few pairs in their ℓ-prefixes (short sets, high
// thresholds) and the list is large enough for the prefix index's posting
// lists to be long. Can change for testing.
var queryKeys = func(c *order.Collection, b prefix.Bounds) bool {
	if c.Len() < 20_000 {
		return false
	}
	var keys int64
	for i := 0; i < c.Len(); i++ {
		n := c.Size(i)
		lo, _ := b.SizeRange(n)
		keys += binom(min(n, n-b.MinOverlap(n, max(lo, 1))+2), 2)
	}
	return keys <= maxKeys*int64(c.Len())
}

// Stats returns what building the index did: the passwords indexed and
// skipped, the grams, the index entries and the build times.
func (ix *Index) Stats() Stats { return ix.stats }

// Options returns the options the index was built with, defaults filled in.
func (ix *Index) Options() Options { return ix.opt }

// Match is a known password similar to a candidate: its index in the known
// List, the q-grams they share, and their similarity.
type Match struct {
	Index   int
	Overlap int
	Sim     float64
}

// Check appends to dst every known password whose similarity with pw reaches
// the threshold, most similar first (ties by index ascending), and returns
// the extended slice. pw is normalised as the known passwords were; a
// candidate with no q-gram matches nothing. It is exact: the same matches as
// the brute force. Check is safe for concurrent use and allocates nothing
// once warmed up beyond the growth of dst.
//
// Cost: O(len(pw) log V) to map the grams (V: distinct grams of the list),
// then the postings of pw's probe prefix within its size range, and an
// O(|x| + |y|) merge for each distinct known set met.
func (ix *Index) Check(dst []Match, pw []byte) []Match {
	ck, _ := ix.pool.Get().(*checker)
	if ck == nil {
		ck = &checker{seen: make([]uint32, ix.c.Len())}
	}
	defer ix.pool.Put(ck)
	ck.epoch++
	if ck.epoch == 0 {
		clear(ck.seen)
		ck.epoch = 1
	}
	ck.keys = ix.opt.Grams.Append(ck.keys[:0], pw)
	slices.Sort(ck.keys)
	ck.keys = slices.Compact(ck.keys)
	ck.ids = ix.c.Dict().Map(ck.ids[:0], ck.keys)
	x := ck.ids
	n := len(x)
	if n == 0 {
		return dst
	}
	b := ix.b
	lo, hi := b.SizeRange(n)
	start := len(dst)
	if px, ok := probeLen(b, n, 2); ok && ix.keys != nil {
		dst = ix.checkKeys(dst, ck, x, px, lo, hi)
	} else {
		dst = ix.checkPrefix(dst, ck, x, lo, hi)
	}
	slices.SortFunc(dst[start:], func(a, b Match) int {
		if c := cmp.Compare(b.Sim, a.Sim); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return dst
}

// checkKeys finds the matches of query x (size n, probe ℓ-prefix px) through
// the token pairs: the first two tokens x shares with a known set lie in
// both ℓ-prefixes (see lprefix.go), the known ones taken for partners of
// any size.
func (ix *Index) checkKeys(dst []Match, ck *checker, x []uint32, px, lo, hi int) []Match {
	b := ix.b
	n := len(x)
	g := ix.g
	first := uint32(g.firstOfSize(lo))
	end := uint32(g.firstOfSize(hi + 1))
	alpha := b.MinOverlap(n, max(lo, 1))
	var mx uint64
	for _, w := range x {
		mx |= 1 << (uint64(w) * 0x9e3779b97f4a7c15 >> 58)
	}
	ck.pairs = appendKeys(ck.pairs[:0], x, px, 2)
	for _, key := range ck.pairs {
		groups, masks := ix.keys.lookup(key)
		k := 0
		if len(groups) > 0 && groups[0] < first {
			k, _ = slices.BinarySearch(groups, first)
		}
		for ; k < len(groups); k++ {
			gy := groups[k]
			if gy >= end {
				break
			}
			// The mask bound, as in the self-join (query grams outside
			// the list have mask bits of their own: they only make the
			// bound tighter, never wrong).
			if n-bits.OnesCount64(mx&^masks[k]) < alpha || ck.seen[gy] == ck.epoch {
				continue
			}
			ck.seen[gy] = ck.epoch
			y := g.set(int(gy))
			if o, ok := join.Check(b, x, y); ok {
				sim := b.Similarity(o, n, len(y))
				for pos := g.first[gy]; pos < g.first[gy+1]; pos++ {
					dst = append(dst, Match{Index: ix.c.ID(int(pos)), Overlap: o, Sim: sim})
				}
			}
		}
	}
	return dst
}

// checkPrefix finds the matches of query x through the prefix index (ℓ = 1).
func (ix *Index) checkPrefix(dst []Match, ck *checker, x []uint32, lo, hi int) []Match {
	b := ix.b
	n := len(x)
	first := ix.firstOfSize(lo)
	for _, w := range x[:b.ProbePrefix(n)] {
		post := ix.ix.Postings(w)
		k, _ := slices.BinarySearchFunc(post, uint32(first), func(p prefix.Posting, rec uint32) int {
			return cmp.Compare(p.Rec, rec)
		})
		for _, e := range post[k:] {
			pos := int(e.Rec)
			if ix.c.Size(pos) > hi {
				break
			}
			if ck.seen[pos] == ck.epoch {
				continue
			}
			ck.seen[pos] = ck.epoch
			y := ix.c.Set(pos)
			if o, ok := join.Check(b, x, y); ok {
				dst = append(dst, Match{Index: ix.c.ID(pos), Overlap: o, Sim: b.Similarity(o, n, len(y))})
			}
		}
	}
	return dst
}

// firstOfSize returns the first position of a set of size >= n.
func (ix *Index) firstOfSize(n int) int {
	lo, hi := 0, ix.c.Len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ix.c.Size(m) < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
