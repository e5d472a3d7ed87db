package join

import (
	"cmp"
	"context"
	"math"
	"slices"
	"unsafe"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/prefix"
)

// chunkGroups is the number of probe groups a worker takes at a time. It is
// fixed, not derived from the number of workers, so that the output order is
// the same for any number of them.
const chunkGroups = 256

// joiner holds what every worker reads: the bounds, the probing side, the
// indexed side and its index. For a self-join probe == build.
type joiner struct {
	b     prefix.Bounds
	probe *side
	build *side
	// ix indexes build's first indexed groups: under their index prefixes
	// in a self-join, their probe prefixes in an R-S join.
	ix   *prefix.Index
	self bool // probe == build
	// fill: ix is only laid out (prefix.Lengths.Layout), and the one
	// worker places each group's postings right after probing it; the
	// probes go in group order, so a probe meets every group before it.
	// A self-join on the prefix path with one worker.
	fill bool
	// bitmaps of the probing side's groups and of build's first indexed
	// groups (the same for a self-join).
	probeBits, buildBits *bitmaps
	// ipre[n] is the indexed side's prefix length for set size n, up to
	// build's largest size.
	ipre []int32
	// ppre[n] is the probing side's probe prefix for set size n, no longer
	// than n, up to its largest size.
	ppre []int32
	// ends holds the last prefix token and the size of each of the first
	// indexed groups (len = indexed), side by side and apart from the
	// arena, so that the count bound reads one place and touches no set.
	ends []groupEnd
	// unique: token ids below it occur in one set only (ids are in
	// document-frequency order), so their postings can meet no partner and
	// probes skip them without a lookup; the index has no list for them
	// (it is ix.From(), the dictionary's FirstShared).
	unique uint32
	// indexed is the number of groups probed through ix: all of build's on
	// the prefix path; the tiny ones (groups 0..indexed-1) on the ℓ-prefix
	// path, whose other groups probe keyIx (see lprefix.go). A tiny probe
	// meets only groups before it, so candidate state for the first indexed
	// groups suffices.
	indexed int
	ell     int       // tokens per index key: 1, 2 or 3
	keyIx   *keyIndex // the ℓ-prefix keys of every group; nil when ell == 1 or every group is tiny
	masks   []uint64  // token mask of each group (TokenMask), with keyIx
	// keyProbes[n] is what a probe of size n needs on the ℓ-prefix path,
	// for n up to the largest size; with keyIx.
	keyProbes []keyProbe
	// copies, if not nil, receives groups of identical sets, and pairs of
	// groups are yielded once (Options.Copies); ids is its reused buffer.
	copies func(ids []int) bool
	ids    []int
}

// prepare computes what every worker shares besides the index, on up to
// workers goroutines.
func (j *joiner) prepare(workers int) {
	j.unique = j.ix.From()
	tokens, sets := 0, 0
	for _, s := range []*side{j.probe, j.build} {
		for g := 0; g < s.groups(); g++ {
			tokens += int(s.size[g])
		}
		sets += s.groups()
	}
	words := bitmapWords(tokens, sets)
	// Only the groups probed through ix need bitmaps and last prefix
	// tokens (all but on the ℓ-prefix path, where the tiny ones).
	j.buildBits = newBitmaps(j.build, j.indexed, words, workers)
	j.probeBits = j.buildBits
	if !j.self {
		j.probeBits = newBitmaps(j.probe, j.probe.groups(), words, workers)
	}
	j.ipre = make([]int32, maxSize(j.build)+1)
	for n := range j.ipre {
		if j.self {
			j.ipre[n] = int32(j.b.IndexPrefix(n))
		} else {
			j.ipre[n] = int32(j.b.ProbePrefix(n))
		}
	}
	j.ppre = make([]int32, maxSize(j.probe)+1)
	for n := range j.ppre {
		j.ppre[n] = int32(min(j.b.ProbePrefix(n), n))
	}
	j.ends = make([]groupEnd, j.indexed)
	parallel.For(context.Background(), len(j.ends), 1<<14, workers, func(_, lo, hi int) {
		for g := lo; g < hi; g++ {
			j.ends[g].size = j.build.size[g]
			if py := j.ipre[j.build.size[g]]; py > 0 {
				j.ends[g].last = j.build.set(g)[py-1]
			}
		}
	})
}

// groupEnd is an indexed group's last prefix token and set size.
type groupEnd struct{ last, size uint32 }

// match is a verified pair of groups. The calling goroutine expands it into
// record pairs as it yields them, so n identical copies never hold their
// n(n-1)/2 pairs in memory: a chunk holds one match per pair of distinct sets.
type match struct {
	gx, gy  uint32 // probe group and indexed group
	same    bool   // the copies within probe group gx, not a pair of groups
	overlap int32
	sim     float64
}

// run probes every group of j.probe on opt.Workers goroutines, in chunks of
// chunkGroups groups, and hands the pairs to yield in chunk order.
func (j *joiner) run(ctx context.Context, opt *Options, st *Stats, yield func(Pair) bool) error {
	t0 := rusage.Start()
	defer func() { st.JoinTime, st.JoinCPU = t0.Lap() }()
	st.Workers = opt.Workers

	total := j.probe.groups()
	cancelled := false // expand stopped on ctx, not on yield
	// A chunk's matches go back here once yielded, so that the chunks in
	// flight (at most 2·workers) reuse a few buffers instead of growing one
	// each.
	free := parallel.NewBuffers[match](2*opt.Workers + 2)
	err := parallel.Ordered(ctx, parallel.Even(total, chunkGroups), opt.Workers,
		func() *prober { return newProber(j) },
		func(p *prober, c *parallel.Chunk[match, Stats]) {
			c.Out = free.Get(0)
			p.stats = &c.Stats
			for g := c.Lo; g < c.Hi; g++ {
				c.Out = p.probeGroup(g, c.Out)
				if j.fill {
					p.place(g)
				}
			}
			c.Out = p.flush(c.Out)
		},
		func(c *parallel.Chunk[match, Stats]) bool {
			st.add(&c.Stats)
			for _, m := range c.Out {
				if !j.expand(ctx, m, st, yield) {
					cancelled = ctx.Err() != nil
					return false
				}
			}
			free.Put(c.Out)
			if opt.Progress != nil {
				opt.Progress(c.Hi, total)
			}
			return true
		})
	if err == nil && cancelled {
		err = context.Cause(ctx)
	}
	if invariants.Enabled {
		st.checkIdentity()
	}
	return err
}

// expand yields the record pairs of m, counting them in st.Results. It
// returns false when yield asks to stop or ctx is done (checked every few
// thousand pairs, so a large group of copies stops promptly).
func (j *joiner) expand(ctx context.Context, m match, st *Stats, yield func(Pair) bool) bool {
	xlo, xhi := j.probe.members(int(m.gx))
	cx := j.probe.c
	if j.copies != nil {
		// Groups, not record pairs: a group's first record has its lowest
		// id (a Collection orders identical sets by original index).
		if m.same {
			k := int64(xhi - xlo)
			st.Results += k * (k - 1) / 2
			j.ids = j.ids[:0]
			for a := xlo; a < xhi; a++ {
				j.ids = append(j.ids, cx.ID(a))
			}
			return j.copies(j.ids)
		}
		ylo, yhi := j.build.members(int(m.gy))
		st.Results += int64(xhi-xlo) * int64(yhi-ylo)
		a, b := cx.ID(xlo), j.build.c.ID(ylo)
		return yield(Pair{A: min(a, b), B: max(a, b), Overlap: int(m.overlap), Sim: m.sim})
	}
	n := 0
	emit := func(a, b int) bool {
		if j.self && a > b {
			a, b = b, a
		}
		st.Results++
		if n++; n&4095 == 0 && ctx.Err() != nil {
			return false
		}
		return yield(Pair{A: a, B: b, Overlap: int(m.overlap), Sim: m.sim})
	}
	if m.same {
		for a := xlo; a < xhi; a++ {
			for b := a + 1; b < xhi; b++ {
				if !emit(cx.ID(a), cx.ID(b)) {
					return false
				}
			}
		}
		return true
	}
	ylo, yhi := j.build.members(int(m.gy))
	cy := j.build.c
	for a := xlo; a < xhi; a++ {
		for b := ylo; b < yhi; b++ {
			if !emit(cx.ID(a), cy.ID(b)) {
				return false
			}
		}
	}
	return true
}

// A worker's probing state of indexed group g is cand[g], the number of
// prefix tokens g shares with the current probe: 0 when g is no candidate
// of it, pruned once the positional filter rules g out. A probe resets the
// states of the groups it listed, the only ones it changes, so nothing else
// needs resetting between probes; 4 bytes a group keep the states of 100,000
// groups within a core's L2 cache. The position of the last shared token
// is not kept: the count bound does not need it (see countBound), and
// verification finds where to resume by a binary search.
//
// pruned is the state of a candidate ruled out by the positional filter:
// so negative that no posting raises it to a least overlap (set sizes are
// below 2³¹ here, as the positions' arithmetic assumes).
const pruned = math.MinInt32

// span is one worker's view of a token's posting list in the index's
// postings: post[lo:end] is the list (with joiner.fill, the postings placed
// so far: end grows as groups are placed), and the postings before cur
// belong to sets below every later probe's size range (probes grow, so cur
// only moves forward).
type span struct{ lo, cur, end uint32 }

// gather is the number of prefix tokens whose posting lists a probe locates
// at once: it reads their spans (independent loads, so the processor
// overlaps their cache misses; the next probe's were hinted by ahead) and
// hints the first posting of each, before scanning any.
const gather = 8

// cachedCandidates is the size of the candidate states (bytes) up to which
// they are taken to stay in cache (a core's L2 on the machines measured):
// below it, hinting them costs more than it saves.
const cachedCandidates = 1 << 20

// hintHits is the least number of candidate states (or candidates) that a
// probe hints into cache before reading them: below it, the hints cost
// about what they save.
const hintHits = 4

// prober is one worker's scratch space; it allocates nothing per probe once
// warmed up.
type prober struct {
	*joiner
	cand []int32 // state by indexed group (len = indexed; see pruned): 0 but for the groups in list during a probe
	// heads has one span per token id from unique on (the tokens below it
	// are never looked up): heads[w-unique] is token w's posting list.
	heads []span
	post  []prefix.Posting // the index's postings (ix.Entries())
	// list holds the groups that passed the filters for the current probe,
	// each once; on the prefix path its length is kept apart and it has
	// room for every indexed group, so that the posting loop stores each
	// group there and keeps it or not without a branch.
	list []uint32
	// pending holds the candidates of probe group pendingGx, whose set is
	// pendingX with probe prefix pendingPx, until flush verifies them; same
	// is the scratch of a probe's copies.
	pending   []pendingCand
	pendingX  []uint32
	pendingPx int
	pendingGx int
	bounded   bool // the pending candidates passed the count bound already
	same      []match
	// hintCand: the candidate states are too many to stay in cache, so
	// a probe hints them before reading them; recs holds the groups of
	// one list whose states it hints. hintEnds: so are the groups' ends,
	// which a probe with many candidates hints before its count bound.
	hintCand, hintEnds bool
	recs               []uint32
	alpha              []int32 // least overlap by candidate size for probes of size sized.n (from sized.lo on; the entries below are not read)
	// sized holds, for probes of size n (0: none yet), the candidate sizes
	// lo..hi and the probe prefix px; probes come in size order, so most
	// find them made for their size already (resize).
	sized  struct{ n, lo, hi, px int }
	stats  *Stats
	bounds prefix.Bounds
	// The ℓ-prefix path's scratch: seen[g] is 1 + the last probe group that
	// met group g (so no reset is needed between probes), and the probe's
	// keys.
	seen []uint32
	keys []uint64
	// nextKeys are the keys of probe group keysFor-1, made ahead
	// (keysAhead); keysFor is 0 when there are none.
	nextKeys []uint64
	keysFor  int
	runs     []keyRun // the probe's keys found in the key index
}

func newProber(j *joiner) *prober {
	p := &prober{joiner: j, cand: make([]int32, j.indexed), bounds: j.b,
		list: make([]uint32, 0, j.indexed+1), post: j.ix.Entries(),
		hintCand: j.indexed*4 > cachedCandidates, hintEnds: j.indexed*int(unsafe.Sizeof(groupEnd{})) > cachedCandidates}
	if n := j.ix.Tokens(); n > int(j.unique) {
		p.heads = make([]span, n-int(j.unique))
		for w := range p.heads {
			lo, hi := j.ix.Span(j.unique + uint32(w))
			if j.fill {
				hi = lo // filled as the groups are probed (place)
			}
			p.heads[w] = span{lo, lo, hi}
		}
	}
	return p
}

// place appends the postings of group g to the lists of its index prefix
// (joiner.fill). Tokens below unique get none: no probe looks them up.
func (p *prober) place(g int) {
	y := p.build.set(g)
	size := uint32(len(y))
	for i, w := range y[:p.ipre[size]] {
		if w >= p.unique {
			h := &p.heads[w-p.unique]
			p.post[h.end] = prefix.Posting{Rec: uint32(g), Pos: uint32(i), Size: size}
			h.end++
		}
	}
}

// probeGroup finds the partners of probe group gx among the indexed groups
// (those before it, in a self-join) and appends the resulting pairs.
//
// Its candidates, when they are few, are verified when the next probe of
// the worker has scanned its lists (or when the chunk ends: flush), so that
// their bitmaps and last prefix tokens, hinted into cache now, have arrived
// by then; the matches still come out in probe order, the copies within gx
// first.
func (p *prober) probeGroup(gx int, out []match) []match {
	if gx >= p.indexed && p.keyIx != nil {
		return p.probeKeys(gx, p.flush(out))
	}
	x := p.probe.set(gx)
	n := len(x)
	var same []match // the copies within gx, after the last probe's matches
	if p.self {
		same = p.sameGroup(gx, n, p.same[:0])
		p.same = same
	}
	if n != p.sized.n {
		p.resize(n)
	}
	lo, hi, px := p.sized.lo, p.sized.hi, p.sized.px
	if lo > hi || px == 0 {
		return append(p.flush(out), same...)
	}
	first := uint32(p.build.firstOfSize(lo))
	end := uint32(p.build.firstOfSize(hi + 1)) // groups at or past end are too large
	if p.self {
		end = min(end, uint32(gx))
	}
	cand := p.cand
	alpha := p.alpha
	var scanned, late int64
	i0 := 0
	for i0 < px && x[i0] < p.unique {
		i0++
	}
	heads, all := p.heads, p.post
	p.ahead(gx)
	listed := p.list[:cap(p.list)]
	nl := 0
	var hs [gather]span
	for i := i0; i < px; i++ {
		if (i-i0)%gather == 0 {
			// Locate the next few lists at once (see gather).
			w := min(gather, px-i)
			for k, t := range x[i : i+w] {
				hs[k] = heads[t-p.unique]
			}
			for _, h := range hs[:w] {
				if h.cur < h.end {
					prefetch.At(all, int(h.cur))
				}
			}
		}
		h := hs[(i-i0)%gather]
		// The size filter's start only moves forward as a worker's probes
		// grow, so each token keeps a cursor past the postings of sets
		// that are too small for every later probe too.
		k := h.cur
		if k < h.end && all[k].Rec < first {
			k += uint32(skipTo(all[k:h.end], first))
			heads[x[i]-p.unique].cur = k
		}
		p.stats.SizePruned += int64(k - h.lo)
		restX := int32(n - i - 1)
		list := all[k:h.end]
		if p.hintCand {
			// The candidate states the loop below will read are hinted
			// into cache before any is read.
			recs := p.recs[:0]
			for _, e := range list {
				if e.Rec >= end {
					break
				}
				recs = append(recs, e.Rec)
			}
			p.recs = recs
			if len(recs) >= hintHits {
				prefetch.Indexes(cand, recs, 0)
			}
		}
		// Each posting updates its group's state by the positional filter:
		// a group not listed yet (count 0) that cannot reach its least
		// overlap from here is a late posting and stays unlisted (a later
		// posting of it in this probe comes later in both sets, so it
		// cannot start it either); a listed one that cannot is pruned. The
		// outcome is selected, not branched on: which way a posting goes
		// is as good as random.
		var sc, lt int
		nl, sc, lt = scanList(list, end, cand, alpha, restX, listed, nl)
		scanned += int64(sc)
		late += int64(lt)
	}
	p.list = listed[:nl]
	st := p.stats
	st.ProbeTokens += int64(px - i0)
	st.LateSkipped += late
	st.Postings += scanned - late
	st.Candidates += int64(nl)
	out = append(p.flush(out), same...)
	p.pending = p.pending[:0]
	p.pendingX, p.pendingPx, p.pendingGx = x, px, gx
	if len(p.list) < hintHits {
		// Few candidates: they wait for the next probe (see above), their
		// last prefix tokens and bitmaps hinted into cache meanwhile.
		prefetch.Indexes(p.ends, p.list, 0)
		prefetch.Strided(p.buildBits.bits, p.buildBits.words, p.list, 0)
		for _, gy := range p.list {
			o := cand[gy]
			cand[gy] = 0
			if o < 0 {
				st.Positional++
				continue
			}
			p.pending = append(p.pending, pendingCand{gy: gy, count: o, alpha: alpha[p.ends[gy].size]})
		}
		p.bounded = false
		p.list = p.list[:0]
		return out
	}
	// Enough candidates for their misses to overlap each other: the count
	// bound first (their last prefix tokens hinted, unless those stay in
	// cache), then the survivors' bitmaps hinted and all verified now.
	if p.hintEnds {
		prefetch.Indexes(p.ends, p.list, 0)
	}
	// Which candidates the filters keep is as good as random, so the loop
	// selects instead of branching: each candidate is stored at the end of
	// kept and of pending, whose lengths grow only for those kept.
	n32, px32, last := int32(n), int32(px), x[px-1]
	kept := p.list[:len(p.list)]
	pending := slices.Grow(p.pending[:0], len(p.list))[:len(p.list)]
	nk, positional, bounded := 0, 0, 0
	for _, gy := range p.list {
		o := cand[gy]
		cand[gy] = 0
		ge := p.ends[gy]
		ny := int32(ge.size)
		a := alpha[ny]
		// countBound, without branches.
		bound := o + ny - p.ipre[ny]
		if last < ge.last {
			bound = o + n32 - px32
		}
		live, pass := 0, 0
		if o >= 0 {
			live = 1
		}
		if bound >= a {
			pass = 1
		}
		kept[nk] = gy
		pending[nk] = pendingCand{gy: gy, count: o, alpha: a}
		nk += live & pass
		positional += 1 - live
		bounded += live &^ pass
	}
	kept, p.pending = kept[:nk], pending[:nk]
	st.Positional += int64(positional)
	st.BoundPruned += int64(bounded)
	prefetch.Strided(p.buildBits.bits, p.buildBits.words, kept, 0)
	p.bounded = true
	p.list = p.list[:0]
	return p.flush(out)
}

// scanList applies the postings of one probe position, with restX tokens
// after it, to the candidate states (see probeGroup) up to the first
// posting of a group at or past end, appending the groups it lists to
// listed[nl:]. It returns the new length of listed, the postings scanned and
// the late ones among them.
func scanList(list []prefix.Posting, end uint32, cand []int32, alpha []int32, restX int32, listed []uint32, nl int) (int, int, int) {
	late, k := 0, 0
	cand = cand[:end]
	for ; k < len(list); k++ {
		e := &list[k]
		if int(e.Rec) >= len(cand) {
			break
		}
		c := &cand[e.Rec]
		cnt := *c
		sy := int32(e.Size)
		rest := min(restX, sy-int32(e.Pos)-1)
		fresh, ok := 0, 0
		if cnt == 0 {
			fresh = 1
		}
		if cnt+1+rest >= alpha[e.Size] {
			ok = 1
		}
		// cnt+1 if ok; else pruned, or 0 for a late posting.
		keep := int32(-ok)
		*c = (cnt+1)&keep | pruned&int32(fresh-1)&^keep
		listed[nl] = e.Rec
		nl += fresh & ok
		late += fresh &^ ok
	}
	return nl, k, late
}

// pendingCand is a candidate of the last probe waiting for verification:
// its group, the prefix tokens it shares with the probe, and its least
// overlap.
type pendingCand struct {
	gy    uint32
	count int32
	alpha int32
}

// flush verifies the candidates of the last probe (probeGroup) and appends
// the resulting matches.
func (p *prober) flush(out []match) []match {
	gx, x, px := p.pendingGx, p.pendingX, p.pendingPx
	for _, pc := range p.pending {
		a := int(pc.alpha)
		if !p.bounded && !p.countBound(x, px, pc.gy, int(pc.count), a) {
			p.stats.BoundPruned++
			continue
		}
		if o := p.verify(gx, int(pc.gy), x, px, int(pc.count), a); o >= a {
			out = p.emit(gx, int(pc.gy), o, len(x), int(p.build.size[pc.gy]), out)
		}
	}
	p.pending = p.pending[:0]
	return out
}

// ahead hints into cache what the next probes of the worker after probe
// group g will read first, in three stages a probe apart (software
// pipelining), so that each stage's cache misses overlap the work of a whole
// probe: the spans of the lists of probe g+3; the first postings of the
// lists of g+2, whose spans were hinted a probe ago; and, when they outgrow
// the cache, the candidate states of the first postings of g+1's lists,
// hinted a probe ago. (A later probe may move a cursor meanwhile: a hint
// then brings a line that is not read, nothing worse.)
func (p *prober) ahead(g int) {
	if len(p.heads) == 0 {
		return
	}
	n := p.probe.groups()
	if g+3 < n {
		prefetch.Indexes(p.heads, p.prefixOf(g+3), p.unique)
	}
	if g+2 < n {
		for _, t := range p.prefixOf(g + 2) {
			if t >= p.unique {
				if h := p.heads[t-p.unique]; h.cur < h.end {
					prefetch.At(p.post, int(h.cur))
				}
			}
		}
	}
	if g+1 < n && p.hintCand {
		for _, t := range p.prefixOf(g + 1) {
			if t >= p.unique {
				if h := p.heads[t-p.unique]; h.cur < h.end {
					if r := p.post[h.cur].Rec; int(r) < len(p.cand) {
						prefetch.At(p.cand, int(r))
					}
				}
			}
		}
	}
}

// resize makes p.sized and p.alpha for probes of size n: the candidate
// sizes (within the build side's, and no larger than n in a self-join),
// the probe prefix and the least overlap with every candidate size. Cost:
// O(hi - lo) divisions.
func (p *prober) resize(n int) {
	b := p.bounds
	lo, hi := b.SizeRange(n)
	if p.self {
		hi = n
	}
	hi = min(hi, maxSize(p.build))
	p.sized.n, p.sized.lo, p.sized.hi, p.sized.px = n, lo, hi, b.ProbePrefix(n)
	if lo > hi {
		return
	}
	p.alpha = slices.Grow(p.alpha[:0], hi+1)[:hi+1]
	for s := lo; s <= hi; s++ {
		p.alpha[s] = int32(b.MinOverlap(n, s))
	}
}

// prefixOf returns the probe prefix of probe group g.
func (p *prober) prefixOf(g int) []uint32 {
	y := p.probe.set(g)
	return y[:p.ppre[len(y)]]
}

func maxSize(s *side) int {
	if len(s.size) == 0 {
		return 0
	}
	return int(s.size[len(s.size)-1])
}

// skipTo returns the first index of post whose Rec is >= rec.
func skipTo(post []prefix.Posting, rec uint32) int {
	if len(post) == 0 || post[0].Rec >= rec {
		return 0
	}
	lo, hi := 0, len(post)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if post[m].Rec < rec {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// countBound reports whether indexed group gy, sharing o tokens of the
// prefixes with x (probe prefix px), can still reach alpha by the tokens
// past them (PPJoin's bound before verification). Every shared token up to
// the smaller of the two prefixes' last tokens is counted already:
//
//   - if x's prefix ends first (x[px-1] < wy), the rest of the overlap lies in
//     x[px:];
//   - otherwise it lies in y[py:].
//
// PPJoin bounds the second case by min(|x| - i - 1, |y| - py) too, i the
// probe position of the last shared token; that term never decides: when it
// is the smaller one, the positional filter, which the candidate passed at
// that token (where |y| - j - 1 >= |y| - py), already ensured
// o + |x| - i - 1 >= alpha.
func (p *prober) countBound(x []uint32, px int, gy uint32, o, alpha int) bool {
	ge := p.ends[gy]
	if x[px-1] < ge.last {
		return o+len(x)-px >= alpha
	}
	ny := int(ge.size)
	return o+ny-int(p.ipre[ny]) >= alpha
}

// verify completes the overlap of x and indexed group gy, which share o
// tokens of the prefixes, for a candidate within the count bound (PPJoin's
// verification): it applies the bitmap bound, then merges the rest of the
// two sets (see countBound) from the first token past the other prefix's
// last one, stopping as soon as alpha is out of reach. It returns the
// overlap, or a value below alpha when the pair fails.
func (p *prober) verify(gx, gy int, x []uint32, px, o, alpha int) int {
	ny := int(p.build.size[gy])
	if overlapBound(p.probeBits.of(gx), p.buildBits.of(gy), len(x), ny) < alpha {
		p.stats.BitmapPruned++
		return -1
	}
	py := int(p.ipre[ny])
	y := p.build.set(gy)
	var xs, ys []uint32
	if wy := p.ends[gy].last; x[px-1] < wy {
		// y's tokens up to x[px-1] lie in its prefix: counted.
		xs, ys = x[px:], y[after(y[:py], x[px-1]):]
	} else {
		// x's tokens up to wy lie in its prefix: counted.
		xs, ys = x[after(x[:px], wy):], y[py:]
	}
	p.stats.Verified++
	return o + intersectAtLeast(xs, ys, alpha-o)
}

// after returns the index of the first token of the sorted s above w.
func after(s []uint32, w uint32) int {
	k, found := slices.BinarySearch(s, w)
	if found {
		k++
	}
	return k
}

// intersectAtLeast is OverlapAtLeast on token ids.
func intersectAtLeast(a, b []uint32, need int) int { return OverlapAtLeast(a, b, need) }

// OverlapAtLeast returns |a ∩ b| for a and b sorted ascending with distinct
// elements, or a value below need as soon as need can no longer be reached
// (the merge with early termination of PPJoin's verification). Cost: at most
// len(a) + len(b) steps; it allocates nothing.
func OverlapAtLeast[T cmp.Ordered](a, b []T, need int) int {
	o := 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if o+min(len(a)-i, len(b)-j) < need {
			return o
		}
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			o++
			i++
			j++
		}
	}
	return o
}

// sameGroup records the copies within probe group g as a match.
func (p *prober) sameGroup(g, n int, out []match) []match {
	lo, hi := p.probe.members(g)
	if hi-lo < 2 || !p.bounds.Passes(n, n, n) {
		return out
	}
	return append(out, match{gx: uint32(g), gy: uint32(g), same: true, overlap: int32(n), sim: p.bounds.Similarity(n, n, n)})
}

// emit records the verified pair of probe group gx and indexed group gy.
func (p *prober) emit(gx, gy, o, nx, ny int, out []match) []match {
	return append(out, match{gx: uint32(gx), gy: uint32(gy), overlap: int32(o), sim: p.bounds.Similarity(o, nx, ny)})
}

// Overlap returns |x ∩ y| for sets sorted ascending with distinct elements
// (as order.Collection stores them). Cost: O(|x| + |y|).
func Overlap(x, y []uint32) int { return intersectAtLeast(x, y, 0) }

// Verify decides whether the sets x and y (sorted ascending, distinct:
// token ids, or token keys) reach the threshold of b, exactly, and returns
// their overlap when they do. Two empty sets never do (Jaccard of two empty
// sets is undefined). The merge stops as soon as the least overlap is out of
// reach, so a failing pair costs less than Overlap. It is the one pair check
// every path uses: the ℓ-prefix and query-index verifications here, the LSH
// candidates of package approx (VerifyExact), the index's walks and raw-set
// LSH candidates. Cost: at most len(x) + len(y) steps; it allocates nothing.
func Verify[T cmp.Ordered](b prefix.Bounds, x, y []T) (overlap int, ok bool) {
	alpha := b.MinOverlap(len(x), len(y))
	if alpha < 1 || alpha > min(len(x), len(y)) {
		return 0, false
	}
	o := OverlapAtLeast(x, y, alpha)
	return o, o >= alpha
}
