package approx

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// Builder collects sets of 64-bit token keys for a query Index. The zero
// value is not usable: call NewBuilder. A Builder is not safe for concurrent
// use.
type Builder struct {
	opt  Options  // resolved (Options.Resolve)
	keys []uint64 // every added set's keys, sorted and distinct within a set, one set after another
	offs []int    // set i is keys[offs[i]:offs[i+1]]; offs[0] = 0, non-decreasing
}

// NewBuilder returns an empty builder for an index with the given options
// (resolved as by Options.Resolve: the threshold and measure are those of
// Query; the banding is chosen for them).
func NewBuilder(opt Options) (*Builder, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return nil, err
	}
	return &Builder{opt: opt, offs: []int{0}}, nil
}

// Add adds a set of keys (any order, duplicates ignored; copied, so the
// caller may reuse the slice) and returns its id: 0, 1, … in order of Add.
// Cost: O(k) for sorted keys, O(k log k) otherwise; amortised O(1)
// allocation.
func (b *Builder) Add(keys []uint64) int {
	start := len(b.keys)
	b.keys = append(b.keys, keys...)
	set := b.keys[start:]
	if !slices.IsSorted(set) {
		slices.Sort(set)
	}
	set = slices.Compact(set)
	b.keys = b.keys[:start+len(set)]
	b.offs = append(b.offs, len(b.keys))
	return len(b.offs) - 2
}

// Len returns the number of sets added.
func (b *Builder) Len() int { return len(b.offs) - 1 }

// Grow makes room for sets more sets of keys more keys in all, so that the
// Adds that follow do not reallocate.
func (b *Builder) Grow(sets, keys int) {
	b.keys = slices.Grow(b.keys, keys)
	b.offs = slices.Grow(b.offs, sets)
}

// Build signs every set (in parallel), bands them and returns the index. It
// consumes the builder, which is empty afterwards. Cost: as the signing and
// banding of SelfJoin.
func (b *Builder) Build(ctx context.Context) (*Index, error) {
	ix := &Index{opt: b.opt, keys: b.keys, offs: b.offs, b: prefix.NewBounds(b.opt.Measure, b.opt.Threshold)}
	*b = Builder{opt: b.opt, offs: []int{0}}
	var err error
	if ix.h, err = NewHasher(ix.opt.Scheme, ix.opt.K, ix.opt.Seed); err != nil {
		return nil, err
	}
	t0 := rusage.Start()
	n := ix.Len()
	if ix.sigs, err = NewSignatures(n, ix.opt.K, ix.opt.Bits); err != nil {
		return nil, err
	}
	buf := make([][]uint64, ix.opt.Workers)
	err = parallel.For(ctx, n, 64, ix.opt.Workers, func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			buf[w] = ix.h.Sign(buf[w], ix.Set(i))
			ix.sigs.Put(i, buf[w])
		}
	})
	if err != nil {
		return nil, err
	}
	ix.signTime, ix.signCPU = t0.Lap()
	t0 = rusage.Start()
	minSize := ix.opt.MinSize
	ix.tab, err = buildTables(ctx, ix.sigs, ix.opt.Shape, func(u int) bool {
		s := ix.Size(u)
		return s > 0 && s >= minSize
	}, ix.opt.MaxBucket, ix.opt.Workers)
	if err != nil {
		return nil, err
	}
	ix.bandTime, ix.bandCPU = t0.Lap()
	return ix, nil
}

// Index is a MinHash-LSH index over sets of 64-bit keys: it finds the sets
// similar to a query set without comparing it with all of them. It is
// immutable, and every method is safe for concurrent use.
type Index struct {
	opt  Options       // resolved (Options.Resolve)
	b    prefix.Bounds // opt's measure and threshold
	h    *Hasher       // signs the indexed sets and every query alike
	keys []uint64      // as Builder's: set i is keys[offs[i]:offs[i+1]], sorted
	offs []int
	// sigs holds one signature per indexed set (sigs.Len() = len(offs)-1),
	// of opt.K values of opt.Bits bits; tab bands them, one table per band
	// of opt.Shape, each sorted by (band key, set).
	sigs              *Signatures
	tab               *tables
	signTime, signCPU time.Duration
	bandTime, bandCPU time.Duration
	scratch           sync.Pool // *queryScratch
}

// Match is one answer of a query: the id of an indexed set, the overlap with
// the query and the similarity. With VerifyEstimate (and for TopK's ranking
// before refinement) Overlap is -1 and Sim an estimate. It is join.Match,
// the exact index's answer, so both indexes answer in one type.
type Match = join.Match

// Len returns the number of indexed sets.
func (ix *Index) Len() int { return len(ix.offs) - 1 }

// Set returns the sorted, distinct keys of set id. The slice aliases the
// index and must not be modified.
func (ix *Index) Set(id int) []uint64 { return ix.keys[ix.offs[id]:ix.offs[id+1]:ix.offs[id+1]] }

// Size returns len(Set(id)).
func (ix *Index) Size(id int) int { return ix.offs[id+1] - ix.offs[id] }

// Options returns the resolved options, with the banding in force.
func (ix *Index) Options() Options { return ix.opt }

// Signatures returns the signatures of the indexed sets (row id is set id).
// They alias the index and must not be modified.
func (ix *Index) Signatures() *Signatures { return ix.sigs }

// Memory returns the bytes held by the signatures, the band tables and the
// sets (8 bytes per key).
func (ix *Index) Memory() (signatures, tables, sets int64) {
	return int64(len(ix.sigs.data)), ix.tab.bytes(), int64(len(ix.keys)) * 8
}

// queryScratch is one query's working space, reused through a pool.
type queryScratch struct {
	keys []uint64
	sig  []uint64
	row  []byte
	cand []Match
	st   Stats
}

func (ix *Index) getScratch() *queryScratch {
	if s, ok := ix.scratch.Get().(*queryScratch); ok {
		return s
	}
	return &queryScratch{row: make([]byte, ix.sigs.RowBytes())}
}

// prepare sorts and de-duplicates the query keys and packs their signature.
func (ix *Index) prepare(s *queryScratch, keys []uint64) []uint64 {
	s.keys = append(s.keys[:0], keys...)
	if !slices.IsSorted(s.keys) {
		slices.Sort(s.keys)
	}
	s.keys = slices.Compact(s.keys)
	s.sig = ix.h.Sign(s.sig, s.keys)
	packRow(s.row, s.sig, ix.sigs.k, ix.sigs.bits)
	return s.keys
}

// packRow stores the low w bits of the k values of sig into row.
func packRow(row []byte, sig []uint64, k, w int) {
	tmp := Signatures{k: k, bits: w, stride: len(row), data: row}
	tmp.Put(0, sig)
}

// Query appends to dst the indexed sets whose similarity to the query set
// (keys in any order) reaches the index's threshold, among the LSH
// candidates, sorted by id. With VerifyExact each is decided exactly; a set
// at or above the threshold is missed with probability at most
// 1 - P(JaccardThreshold). An empty query matches nothing. Cost: signing the
// query, B binary searches, one verification per candidate; no allocation
// beyond dst once warmed up.
func (ix *Index) Query(dst []Match, keys []uint64) []Match {
	s := ix.getScratch()
	defer ix.scratch.Put(s)
	q := ix.prepare(s, keys)
	if len(q) == 0 {
		return dst
	}
	start := len(dst)
	ix.tab.probe(s.row, &s.st, func(w uint32) {
		if m, ok := ix.verify(q, s.row, int(w)); ok {
			dst = append(dst, m)
		}
	})
	slices.SortFunc(dst[start:], func(a, b Match) int { return cmp.Compare(a.ID, b.ID) })
	return dst
}

// verify decides indexed set w against the query (keys q, packed row).
func (ix *Index) verify(q []uint64, row []byte, w int) (Match, bool) {
	y := ix.Set(w)
	if ix.opt.Verify == VerifyEstimate {
		j := EstimateJaccard(matches(row, ix.sigs.Row(w), ix.sigs.bits), ix.sigs.k, ix.sigs.bits)
		sim, ok := estimateMeasure(ix.b, ix.opt.Threshold.Float(), j, len(q), len(y))
		return Match{ID: w, Overlap: -1, Sim: sim}, ok
	}
	o, ok := join.Verify(ix.b, q, y)
	if !ok {
		return Match{}, false
	}
	return Match{ID: w, Overlap: o, Sim: ix.b.Similarity(o, len(q), len(y))}, true
}

// TopK appends to dst the k indexed sets most similar to the query among the
// LSH candidates: the refineK candidates with the highest estimated
// similarity (refineK < k means k) are re-ranked by their exact similarity
// under the index's measure, highest first, ties by id. No threshold applies
// beyond the banding's. Cost: as Query plus sorting the candidates.
func (ix *Index) TopK(dst []Match, keys []uint64, k, refineK int) []Match {
	if k <= 0 {
		return dst
	}
	refineK = max(refineK, k)
	s := ix.getScratch()
	defer ix.scratch.Put(s)
	q := ix.prepare(s, keys)
	if len(q) == 0 {
		return dst
	}
	s.cand = s.cand[:0]
	ix.tab.probe(s.row, &s.st, func(w uint32) {
		j := EstimateJaccard(matches(s.row, ix.sigs.Row(int(w)), ix.sigs.bits), ix.sigs.k, ix.sigs.bits)
		s.cand = append(s.cand, Match{ID: int(w), Overlap: -1, Sim: j})
	})
	byRank := join.ByRank
	slices.SortFunc(s.cand, byRank)
	cand := s.cand[:min(refineK, len(s.cand))]
	for i := range cand {
		y := ix.Set(cand[i].ID)
		o := join.OverlapAtLeast(q, y, 0)
		cand[i] = Match{ID: cand[i].ID, Overlap: o, Sim: ix.b.Similarity(o, len(q), len(y))}
	}
	slices.SortFunc(cand, byRank)
	return append(dst, cand[:min(k, len(cand))]...)
}

// QueryAll runs Query for every query set on the index's workers and hands
// the matches to yield from the calling goroutine: query by query in order,
// each query's matches by id; the same for any number of workers. yield
// returning false stops early without error. ctx cancels it.
func (ix *Index) QueryAll(ctx context.Context, queries [][]uint64, yield func(query int, m Match) bool) error {
	type qm struct {
		q int
		m Match
	}
	return runChunks(ctx, parallel.Even(len(queries), unitsPerChunk), ix.opt.Workers, func() *struct{} { return nil },
		func(_ *struct{}, lo, hi int, out []qm, _ *Stats) []qm {
			var ms []Match
			for q := lo; q < hi; q++ {
				ms = ix.Query(ms[:0], queries[q])
				for _, m := range ms {
					out = append(out, qm{q, m})
				}
			}
			return out
		},
		func(c *parallel.Chunk[qm, Stats]) bool {
			for _, x := range c.Out {
				if !yield(x.q, x.m) {
					return false
				}
			}
			return true
		}, nil)
}

// SelfJoin reports the pairs of indexed sets whose similarity reaches the
// index's threshold among the LSH candidates, as the package's SelfJoin does
// for a collection: A < B are set ids, each pair once, band by band, bucket by
// bucket; the same for any number of workers. Identical sets are not grouped
// here: they meet in every band. Empty sets never join.
func (ix *Index) SelfJoin(ctx context.Context, yield func(join.Pair) bool) (Stats, error) {
	st := Stats{Records: ix.Len(), Units: ix.Len()}
	st.fill(&ix.opt)
	for i := 0; i < ix.Len(); i++ {
		if s := ix.Size(i); s == 0 {
			st.Skipped++
		} else if s < ix.opt.MinSize {
			st.Dropped++
		}
	}
	st.SignatureBytes, st.IndexBytes, _ = ix.Memory()
	st.SignTime, st.BandTime, st.SignCPU, st.BandCPU = ix.signTime, ix.bandTime, ix.signCPU, ix.bandCPU
	st.Tokens = int64(ix.offs[len(ix.offs)-1])
	tab := ix.tab
	st.Buckets, st.LargestBucket = tab.buckets, tab.largest
	st.CappedBuckets, st.CappedPairs = tab.cappedBuckets, tab.cappedPairs
	t0 := rusage.Start()
	tasks, chunks := tab.selfTasks(pairBudget)
	sigs := ix.sigs
	stopped := false
	err := runChunks(ctx, chunks, ix.opt.Workers, func() *struct{} { return nil },
		func(_ *struct{}, lo, hi int, out []join.Pair, cs *Stats) []join.Pair {
			for _, tk := range tasks[lo:hi] {
				tb := tab.band[tk.band]
				for p := tk.from; p < tk.to; p++ {
					u := tb[p].unit
					ru := sigs.Row(int(u))
					for q := p + 1; q < tk.hi; q++ {
						w := tb[q].unit
						cs.Collisions++
						if !tab.firstBand(ru, sigs.Row(int(w)), tk.band, u) {
							continue
						}
						cs.Candidates++
						if m, ok := ix.verify(ix.Set(int(u)), ru, int(w)); ok {
							cs.Passed++
							out = append(out, join.Pair{A: int(u), B: int(w), Overlap: m.Overlap, Sim: m.Sim})
						}
					}
				}
			}
			return out
		},
		func(c *parallel.Chunk[join.Pair, Stats]) bool {
			st.add(&c.Stats)
			for _, p := range c.Out {
				st.Results++
				if !yield(p) {
					stopped = true
					return false
				}
			}
			return true
		}, ix.opt.Progress)
	st.JoinTime, st.JoinCPU = t0.Lap()
	if invariants.Enabled && err == nil {
		st.checkIdentity(!stopped)
	}
	return st, err
}
