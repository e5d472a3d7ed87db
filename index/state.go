package index

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kelindar/bitmap"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// state is one consistent view of the index: its segments with their
// tombstones, the mutable part, the token order and the next id. The writer
// owns one live state and changes it in place; readers get snapshots (copies
// whose mutable part and dictionary are clones), published after every
// durable batch, so a search never sees a record that is not durable nor
// half of a batch.
type state struct {
	cfg *Config
	// segs are in id order: the ids ascend strictly within each segment and
	// from one segment to the next, all below mut.base.
	segs []*segment
	// tombs[i] marks the deleted rows of segs[i], no bit at or past its
	// rows (len(tombs) = len(segs)); copy-on-write.
	tombs []bitmap.Bitmap
	mut   *mutable // the records since the last checkpoint: ids mut.base..next-1
	dict  dict     // Exact only
	next  seq      // the id the next inserted record gets: mut.base + mut.n
	// minB is the bounds at MinThreshold (Exact); pairMax the largest set
	// size whose records are in the pair index (0: none).
	minB    prefix.Bounds
	pairMax int

	// walBytes and walCut are the log's durable size and the bytes ever
	// cut off logs when the snapshot was published (Stats).
	walBytes, walCut int64

	// readers counts the searches using this snapshot; retired is set when
	// a newer one is published. Both are guarded by Index.snapMu. The
	// segments are released when a retired snapshot has no readers left.
	readers int
	retired bool
}

// check panics unless the invariants stated on state's fields (and on
// mutable's counts) hold: called on every published snapshot under -tags
// invariants. Cost: O(records + deleted rows).
func (st *state) check() {
	if len(st.tombs) != len(st.segs) {
		panic(fmt.Sprintf("index: %d tombstone sets for %d segments", len(st.tombs), len(st.segs)))
	}
	var last uint64
	seen := false
	for i, sg := range st.segs {
		for r, id := range sg.ids {
			if seen && id <= last {
				panic(fmt.Sprintf("index: segment %d (%s), row %d: id %d after %d: ids not ascending", i, sg.name, r, id, last))
			}
			last, seen = id, true
		}
		rows := sg.rows()
		st.tombs[i].Range(func(x uint32) {
			if int(x) >= rows {
				panic(fmt.Sprintf("index: segment %d (%s) has %d rows, a tombstone marks row %d", i, sg.name, rows, x))
			}
		})
	}
	m := st.mut
	if seen && uint64(m.base) <= last || m.base+seq(m.n) != st.next || len(m.offs) != m.n+1 && len(m.offs) != 1 {
		panic(fmt.Sprintf("index: mutable part ids %d..%d after segment id %d, next id %d, %d offsets", m.base, m.base+seq(m.n), last, st.next, len(m.offs)))
	}
	m.tomb.Range(func(x uint32) {
		if int(x) >= m.n {
			panic(fmt.Sprintf("index: mutable part has %d rows, a tombstone marks row %d", m.n, x))
		}
	})
}

// snapshot returns a copy of the live state for readers; it holds a
// reference on every segment.
func (st *state) snapshot() *state {
	c := &state{cfg: st.cfg, next: st.next, minB: st.minB, pairMax: st.pairMax}
	c.segs = slices.Clone(st.segs)
	for _, s := range c.segs {
		s.ref()
	}
	c.tombs = slices.Clone(st.tombs)
	c.mut = st.mut.snapshot()
	if st.cfg.Method == Exact {
		c.dict = st.dict.snapshot()
		c.dict.file.ref()
	}
	return c
}

// release drops the snapshot's segment references.
func (st *state) release() {
	for _, s := range st.segs {
		s.unref()
	}
	st.dict.file.unref()
}

// query is one prepared record: its token keys and, by method, its set of
// token ids or its signature.
type query struct {
	keys []uint64 // sorted, distinct
	set  []uint32 // Exact: ids in the state's order (unknown tokens after all known)
	row  []byte   // LSH: packed signature
	// A record inserted also carries its stored key (with keys) and its
	// text and payload (with stored text).
	ukey, text, payload []byte
}

// filter is a search's Only/Exclude restriction as bitmaps over ids.
type filter struct {
	only, excl       bitmap.Bitmap
	hasOnly, hasExcl bool
}

func newFilter(only, excl []ID, next seq) *filter {
	if only == nil && excl == nil {
		return nil
	}
	f := &filter{hasOnly: only != nil, hasExcl: excl != nil}
	for _, id := range only {
		if s, ok := seqOf(id); ok && s < next {
			f.only.Set(uint32(s))
		}
	}
	for _, id := range excl {
		if s, ok := seqOf(id); ok && s < next {
			f.excl.Set(uint32(s))
		}
	}
	return f
}

func (f *filter) keep(id seq) bool {
	if f == nil {
		return true
	}
	if f.hasOnly && !f.only.Contains(uint32(id)) {
		return false
	}
	return !f.hasExcl || !f.excl.Contains(uint32(id))
}

// scratch is one searcher's reusable memory.
type scratch struct {
	slots []seenSlot // rows seen in the current part: slots stamped gen
	gen   uint32
	used  int
	hits  []Hit
	q     query
	keys  []uint64 // tokenize's buffers
	set   []uint32
	row   []byte
	sig   []uint64
	cands []cand
	// pre, when not nil, holds the query's buckets in every band of every
	// segment, found by a batch's shared lookups (lookupBands):
	// pre[s*bands+j] is band j's of segment s.
	pre []bucketRange
}

type seenSlot struct{ row, gen uint32 }

type cand struct {
	id   seq
	est  float64
	part int // -1: mutable
	row  uint32
}

// begin readies the seen-marks for a part (of any number of rows).
func (sc *scratch) begin(int) {
	if sc.slots == nil {
		sc.slots = make([]seenSlot, 64)
	}
	sc.gen++
	sc.used = 0
	if sc.gen == 0 {
		clear(sc.slots)
		sc.gen = 1
	}
}

// seen marks row and reports whether it was marked already. The marks are a
// small open-addressing table stamped with a generation, so a query's few
// candidates stay in cache whatever the size of the part (a mark per row
// would be a cache miss per candidate on a large segment).
func (sc *scratch) seen(row uint32) bool {
	mask := uint32(len(sc.slots) - 1)
	for i := (row * 0x9e3779b1) >> 7 & mask; ; i = (i + 1) & mask {
		sl := &sc.slots[i]
		if sl.gen != sc.gen {
			sl.gen, sl.row = sc.gen, row
			sc.used++
			if 2*sc.used > len(sc.slots) {
				sc.grow()
			}
			return false
		}
		if sl.row == row {
			return true
		}
	}
}

// grow doubles the marks table, keeping the current generation's marks.
func (sc *scratch) grow() {
	old := sc.slots
	sc.slots = make([]seenSlot, 2*len(old))
	mask := uint32(len(sc.slots) - 1)
	for _, sl := range old {
		if sl.gen != sc.gen {
			continue
		}
		i := (sl.row * 0x9e3779b1) >> 7 & mask
		for sc.slots[i].gen == sc.gen {
			i = (i + 1) & mask
		}
		sc.slots[i] = sl
	}
}

// probeExact calls hit for every live record, allowed by f, whose similarity
// to q reaches b. Records with a single-token prefix are found as join
// probes them (AllPairs with PPJoin's positional filter): q's probe prefix at
// b meets the stored prefixes (the probe prefix at MinThreshold of every set,
// which covers any partner size); a record outside q's size range is
// skipped; at a record's first shared token, at position i of q and j of the
// record, every shared token before lies before both positions and was
// therefore met already (both prefixes hold it), so 1 + min(|q|-i-1, |x|-j-1)
// bounds the overlap and prunes the record when it is below the least
// overlap; a record that survives is verified by merging only the suffixes
// past the shared token (join.OverlapAtLeast), once. Records of the pair
// index (pairs.go) are met through the pairs of q's pair prefix, filtered and
// verified the same way one token later; when q has too many pairs to look
// up (maxQueryPairs) they are met by walking runs and verified in full with
// join.Verify.
func (st *state) probeExact(sc *scratch, q []uint32, b prefix.Bounds, f *filter, hit func(id seq, sim float64)) {
	if len(q) == 0 {
		return
	}
	p := min(b.ProbePrefix(len(q)), len(q))
	lp := min(p+1, len(q)) // the pair prefix
	vocab := uint32(st.dict.len())
	for lp > 0 && q[lp-1] >= vocab {
		lp-- // tokens no record holds pair with nothing
	}
	lo, hi := b.SizeRange(len(q))
	if lo > st.pairMax {
		lp = 0 // no record of an admissible size is in the pair index
	}
	walk := lp*(lp-1)/2 > maxQueryPairs
	qmask := join.TokenMask(q)
	// pass applies the size-dependent bounds to a record of size x met first
	// through its k-th shared token (k = 1: single-token prefix; k = 2: pair),
	// at position i of q and j of x, before anything of the record is read:
	// it returns the least overlap, or false when 1 + ... cannot reach it.
	pass := func(k, i, x, j int) (int, bool) {
		alpha := b.MinOverlap(len(q), x)
		return alpha, alpha <= len(q) && alpha <= x && k+min(len(q)-i-1, x-j-1) >= alpha
	}
	// verify merges the suffixes of a record that passed.
	verify := func(id seq, x []uint32, k, i, j, alpha int) {
		if !f.keep(id) {
			return
		}
		o := k + join.OverlapAtLeast(q[i+1:], x[j+1:], alpha-k)
		if o >= alpha {
			hit(id, b.Similarity(o, len(q), len(x)))
		}
	}
	// check verifies a record met through a pair while walking.
	check := func(id seq, x []uint32) {
		if !f.keep(id) {
			return
		}
		if o, ok := join.Verify(b, q, x); ok {
			hit(id, b.Similarity(o, len(q), len(x)))
		}
	}
	for k, s := range st.segs {
		tomb := st.tombs[k]
		sc.begin(s.rows())
		for i, w := range q[:p] {
			for _, ps := range s.postings(w) {
				if int(ps.Size) < lo || int(ps.Size) > hi || sc.seen(ps.Rec) || tomb.Contains(ps.Rec) {
					continue
				}
				if alpha, ok := pass(1, i, int(ps.Size), int(ps.Pos)); ok {
					verify(seq(s.ids[ps.Rec]), s.set(int(ps.Rec)), 1, i, int(ps.Pos), alpha)
				}
			}
		}
		if walk {
			// Many pairs: walk the runs of q's pair-prefix tokens instead,
			// keeping the entries whose second token is in that prefix.
			for i := 0; i+1 < lp; i++ {
				if int(q[i])+1 >= len(s.ppoff) {
					continue
				}
				for _, e := range s.pent[s.ppoff[q[i]]:s.ppoff[q[i]+1]] {
					if int(e.Size) < lo || int(e.Size) > hi {
						continue
					}
					if _, ok := slices.BinarySearch(q[i+1:lp], e.B); !ok || sc.seen(e.Row) || tomb.Contains(e.Row) {
						continue
					}
					check(seq(s.ids[e.Row]), s.set(int(e.Row)))
				}
			}
			continue
		}
		for i := 0; i+1 < lp; i++ {
			for j := i + 1; j < lp; j++ {
				for _, e := range s.pairs(q[i], q[j]) {
					if int(e.Size) < lo || int(e.Size) > hi || sc.seen(e.Row) || tomb.Contains(e.Row) {
						continue
					}
					if alpha, ok := pass(2, j, int(e.Size), int(e.Pos)); ok && maskBound(len(q), qmask, int(e.Size), e.Mask) >= alpha {
						verify(seq(s.ids[e.Row]), s.set(int(e.Row)), 2, j, int(e.Pos), alpha)
					}
				}
			}
		}
	}
	m := st.mut
	sc.begin(m.n)
	for i, w := range q[:p] {
		m.postings(w, func(row, pos, size uint32) {
			if int(size) < lo || int(size) > hi || sc.seen(row) || m.tomb.Contains(row) {
				return
			}
			if alpha, ok := pass(1, i, int(size), int(pos)); ok {
				verify(m.base+seq(row), m.set(int(row)), 1, i, int(pos), alpha)
			}
		})
	}
	if walk {
		// Many pairs: scan the mutable part's records of pair-index sizes.
		for row := 0; row < m.n; row++ {
			x := m.set(row)
			if len(x) < lo || len(x) > hi || pairPrefix(st.minB, len(x)) == 0 || sc.seen(uint32(row)) || m.tomb.Contains(uint32(row)) {
				continue
			}
			check(m.base+seq(row), x)
		}
		return
	}
	for i := 0; i+1 < lp; i++ {
		for j := i + 1; j < lp; j++ {
			m.pairPostings(q[i], q[j], func(row, pos, size uint32, mask uint64) {
				if int(size) < lo || int(size) > hi || sc.seen(row) || m.tomb.Contains(row) {
					return
				}
				if alpha, ok := pass(2, j, int(size), int(pos)); ok && maskBound(len(q), qmask, int(size), mask) >= alpha {
					verify(m.base+seq(row), m.set(int(row)), 2, j, int(pos), alpha)
				}
			})
		}
	}
}

// candidatesLSH appends to sc.cands every live record allowed by f that
// shares a whole band with q, with its estimated similarity.
func (st *state) candidatesLSH(sc *scratch, q *query, f *filter) {
	cfg := st.cfg
	rb := cfg.Perm * cfg.Bits / 8
	bb := cfg.Rows * cfg.Bits / 8
	var keys [approx.MaxK]uint64
	for j := 0; j < cfg.Bands; j++ {
		keys[j] = approx.BandKey(q.row[j*bb:(j+1)*bb], j)
	}
	add := func(part int, row uint32, id seq, sig []byte) {
		m := approx.MatchRows(q.row, sig, cfg.Bits)
		sc.cands = append(sc.cands, cand{id: id, est: approx.EstimateJaccard(m, cfg.Perm, cfg.Bits), part: part, row: row})
	}
	for i, s := range st.segs {
		tomb := st.tombs[i]
		sc.begin(s.rows())
		for j := 0; j < cfg.Bands; j++ {
			var bucket []bandEntry
			if sc.pre != nil {
				r := sc.pre[i*cfg.Bands+j]
				bucket = s.bent[r.lo:r.hi]
			} else if s.mayHold(j, keys[j]) {
				bucket = s.bucket(j, keys[j])
			}
			for _, e := range bucket {
				if sc.seen(e.row) || tomb.Contains(e.row) {
					continue
				}
				id := seq(s.ids[e.row])
				if f.keep(id) {
					add(i, e.row, id, s.sig(int(e.row)))
				}
			}
		}
	}
	m := st.mut
	sc.begin(m.n)
	for j := 0; j < cfg.Bands; j++ {
		m.bucket(j, keys[j], func(row uint32) {
			if sc.seen(row) || m.tomb.Contains(row) {
				return
			}
			id := m.base + seq(row)
			if f.keep(id) {
				add(-1, row, id, m.sig(int(row), rb))
			}
		})
	}
}

// keysOf returns the raw token keys of a candidate (LSH with raw sets).
func (st *state) keysOf(c cand) []uint64 {
	if c.part < 0 {
		return st.mut.keySet(int(c.row))
	}
	return st.segs[c.part].keySet(int(c.row))
}

// exactLSH verifies a candidate against q exactly (raw sets kept), by
// join.Verify.
func (st *state) exactLSH(q []uint64, c cand, b prefix.Bounds) (float64, bool) {
	x := st.keysOf(c)
	o, ok := join.Verify(b, q, x)
	if !ok {
		return 0, false
	}
	return b.Similarity(o, len(q), len(x)), true
}

// search appends to sc.hits the answer to one prepared query, best first,
// ties by id ascending.
func (st *state) search(sc *scratch, q *query, opt *SearchOptions, f *filter) []Hit {
	sc.hits = sc.hits[:0]
	cfg := st.cfg
	thr := opt.Threshold
	if opt.TopK > 0 && thr.Den == 0 {
		thr = cfg.MinThreshold
	}
	switch cfg.Method {
	case Exact:
		if thr.Den == 0 {
			return nil
		}
		b := prefix.NewBounds(cfg.Measure, thr)
		st.probeExact(sc, q.set, b, f, func(id seq, sim float64) {
			sc.hits = append(sc.hits, Hit{ID: id.id(), Sim: sim})
		})
		sortHits(sc.hits)
	case LSH:
		if len(q.keys) == 0 {
			return nil
		}
		exact := cfg.RawSets && !opt.Estimate
		sc.cands = sc.cands[:0]
		st.candidatesLSH(sc, q, f)
		if opt.TopK > 0 && opt.Threshold.Den == 0 {
			slices.SortFunc(sc.cands, func(a, b cand) int {
				if c := cmp.Compare(b.est, a.est); c != 0 {
					return c
				}
				return cmp.Compare(a.id, b.id)
			})
			refine := max(opt.RefineK, opt.TopK)
			if len(sc.cands) > refine {
				sc.cands = sc.cands[:refine]
			}
			// Only records at or above MinThreshold count, as for Exact.
			hasMin := thr.Den != 0
			var minB prefix.Bounds
			if hasMin {
				minB = prefix.NewBounds(prefix.Jaccard, thr)
			}
			tf := thr.Float()
			for _, c := range sc.cands {
				if exact {
					x := st.keysOf(c)
					o := join.OverlapAtLeast(q.keys, x, 0)
					if hasMin && !minB.Passes(o, len(q.keys), len(x)) {
						continue
					}
					sim := prefix.NewBounds(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 1}).Similarity(o, len(q.keys), len(x))
					sc.hits = append(sc.hits, Hit{ID: c.id.id(), Sim: sim})
				} else if !hasMin || c.est >= tf {
					sc.hits = append(sc.hits, Hit{ID: c.id.id(), Sim: c.est, Estimated: true})
				}
			}
			sortHits(sc.hits)
		} else {
			b := prefix.NewBounds(prefix.Jaccard, thr)
			tf := thr.Float()
			for _, c := range sc.cands {
				if exact {
					if sim, ok := st.exactLSH(q.keys, c, b); ok {
						sc.hits = append(sc.hits, Hit{ID: c.id.id(), Sim: sim})
					}
				} else if c.est >= tf {
					sc.hits = append(sc.hits, Hit{ID: c.id.id(), Sim: c.est, Estimated: true})
				}
			}
			sortHits(sc.hits)
		}
	}
	if opt.TopK > 0 && len(sc.hits) > opt.TopK {
		sc.hits = sc.hits[:opt.TopK]
	}
	return sc.hits
}

func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int {
		if c := cmp.Compare(b.Sim, a.Sim); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
