package planner

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// Keys is the input of a plan made before the token order is built
// (NewKeys): the records of one side as sets of 64-bit token keys. Its
// methods must be safe for concurrent use.
type Keys interface {
	Len() int                                // records, empty ones included
	Size(i int) int                          // the distinct tokens of record i
	AppendKeys(dst []uint64, i int) []uint64 // appends record i's distinct keys, in any order
	// Each calls f with every record in order: its index and its distinct
	// tokens as 64-bit stand-ins, the same for the same token wherever it
	// was read alike: its key, or for a token read as a small value a mix
	// of the value, which costs less to make than the key (a token read
	// both ways then counts as two). ids is valid during the call only.
	// It is how planning reads every token once.
	Each(f func(i int, ids []uint64))
}

// KeySetsOf returns ks as Keys.
func KeySetsOf(ks *approx.KeySets) Keys { return keySets{ks} }

type keySets struct{ ks *approx.KeySets }

func (k keySets) Len() int                                { return k.ks.Len() }
func (k keySets) Size(i int) int                          { return len(k.ks.Set(i)) }
func (k keySets) AppendKeys(dst []uint64, i int) []uint64 { return append(dst, k.ks.Set(i)...) }
func (k keySets) Each(f func(i int, ids []uint64)) {
	for i := range k.ks.Len() {
		f(i, k.ks.Set(i))
	}
}

// NewKeys plans a self-join of r (an R-S join of r against s when s is not
// nil) before the token order is built: the order is the exact path's
// alone, and LSH runs over the key sets without it. Both paths are priced
// whole (Options.FrontEnd says what reading did): LSH as on the
// collections, from a seeded sample of the records joined over their keys
// (and so with the signatures of the whole run); exact from the set sizes,
// a hash sample of the keys (the distinct tokens, the share held by one
// set) and a sample of the records joined exactly over an order of its own
// (ExactEstimate.Least is what exact costs at the least: reading, the
// order, grouping).
//
// The plan chooses LSH (ReasonBeforeOrder) only when LSH clearly pays
// even against exact's least; otherwise it chooses exact pending the order
// (Plan.NeedsOrder): build the collections from the same records (one
// order.Build call, R before S) and call Plan.WithOrder, which prices
// exact on the order and decides. With Options.Method LSH it plans LSH
// and needs no order.
//
// Cost: one pass over the keys (a hash each), the samples within the
// budget, and a sort of the records' set sizes. Deterministic, as New.
func NewKeys(ctx context.Context, r, s Keys, opt Options) (*Plan, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	p := newPlan(opt)
	p.FrontEnd.Ordered = false
	pl, done := start(opt, p)
	defer done()
	pl.keys = []Keys{r}
	if s != nil {
		pl.keys = append(pl.keys, s)
	}
	pl.scanKeys()
	pl.sizes()
	pl.resolveLSH()
	pl.setBudget()
	if m := pl.sampleSize(pl.lshLeast().CPU, false, true); m > 0 && p.LSH.Available {
		pos := make([][]int, len(pl.keys))
		for k, ks := range pl.keys {
			pos[k] = nonEmpty(ks, samplePositions(ks.Len(), m, pl.opt.Seed+uint64(k)*0x9e3779b97f4a7c15))
		}
		if err := pl.sampleLSHKeys(ctx, pos, func(side int, dst []uint64, q int) []uint64 {
			return pl.keys[side].AppendKeys(dst, q)
		}); err != nil {
			return nil, err
		}
	}
	pl.keyPairs()
	if err := pl.sampleOrder(ctx); err != nil {
		return nil, err
	}
	pl.finish()
	return p, nil
}

// scanKeys reads every record's size and keys once: the collections'
// statistics (frequencies from a hash sample of the keys), the distinct
// sets LSH will sign (by a hash of each set) and the distinct tokens the
// order will number.
func (pl *planning) scanKeys() {
	p := pl.p
	tokens := pl.opt.FrontEnd.Tokens
	if tokens == 0 {
		for _, ks := range pl.keys {
			ks.Each(func(_ int, ids []uint64) { tokens += int64(len(ids)) })
		}
	}
	// Keys whose hash falls below cut are counted exactly: about
	// keySample occurrences, a uniform sample of the distinct keys.
	rate := 1.0
	if tokens > keySample {
		rate = keySample / float64(tokens)
	}
	cut := uint64(math.MaxUint64)
	if rate < 1 {
		cut = uint64(rate * (1 << 63) * 2)
	}
	union := map[uint64]struct{}{}
	var setHashes []uint64
	p.Stats = p.Stats[:0]
	for _, ks := range pl.keys {
		df := map[uint64]int32{}
		var sizes []int32
		st := Stats{Records: ks.Len()}
		ks.Each(func(_ int, ids []uint64) {
			n := len(ids)
			if n == 0 {
				st.Empty++
				return
			}
			sizes = append(sizes, int32(n))
			st.Tokens += int64(n)
			var sum uint64
			for _, k := range ids {
				h := mix.Mix64(k)
				sum += h
				if h <= cut {
					df[k]++
				}
			}
			setHashes = append(setHashes, mix.Mix64(sum^uint64(n)))
		})
		st.Sets = len(sizes)
		pl.sets = append(pl.sets, st.Sets)
		pl.allSets += st.Sets
		pl.tokens += st.Tokens
		sizeDist(&st, sizes)
		freqFromSample(&st, df, rate)
		for k := range df {
			union[k] = struct{}{}
		}
		pl.keySizes = append(pl.keySizes, sizes)
		p.Stats = append(p.Stats, st)
	}
	p.units = keysort.CountDistinct(setHashes, pl.opt.Workers)
	if pl.allSets > 0 {
		p.unitTokens = int64(math.Round(float64(pl.tokens) * float64(p.units) / float64(pl.allSets)))
	}
	p.FrontEnd.Distinct = int64(math.Round(float64(len(union)) / rate))
	p.keyRate = rate
	// The share of token occurrences held by one set only, which no probe
	// looks up.
	var once, all int64
	for _, st := range p.Stats {
		once += int64(math.Round(st.Freq.Once * float64(st.Distinct)))
		all += st.Tokens
	}
	if all > 0 {
		pl.onceShare = min(1, float64(once)/float64(all))
	}
}

// keySample is the number of token occurrences whose keys the scan of
// NewKeys counts exactly (a hash sample of the distinct keys).
const keySample = 1 << 16

// nonEmpty returns the positions of pos whose records are not empty.
func nonEmpty(ks Keys, pos []int) []int {
	out := pos[:0]
	for _, q := range pos {
		if ks.Size(q) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// sizeDist sets st's size distribution from the sizes of its sets.
func sizeDist(st *Stats, sizes []int32) {
	n := len(sizes)
	if n == 0 {
		return
	}
	slices.Sort(sizes)
	q := func(f float64) int { return int(sizes[int(f*float64(n-1))]) }
	st.Size = SizeDist{
		Min: int(sizes[0]), P10: q(0.10), P25: q(0.25), P50: q(0.50),
		P75: q(0.75), P90: q(0.90), P99: q(0.99), Max: int(sizes[n-1]),
		Mean: float64(st.Tokens) / float64(n),
	}
}

// freqFromSample sets st's distinct tokens and frequencies from the
// document frequencies df of a hash sample of the keys, rate of them:
// the distinct tokens and the ranks scaled up by 1/rate.
func freqFromSample(st *Stats, df map[uint64]int32, rate float64) {
	st.Sampled = rate
	if len(df) == 0 {
		return
	}
	byDF := make([]int, st.Sets+1)
	for _, f := range df {
		byDF[min(int(f), st.Sets)]++
	}
	freqFromCounts(st, byDF, rate)
}

// keyPairs measures random pairs of records over their keys: the pairs
// are drawn from a seeded pool of records whose keys are sorted once.
func (pl *planning) keyPairs() {
	p := pl.p
	p.pairHist = make([]float64, Bins)
	k := pl.pairCount()
	if k == 0 {
		return
	}
	pool := make([][][]uint64, len(pl.keys))
	for side, ks := range pl.keys {
		m := min(ks.Len(), max(keyPool, int(math.Sqrt(float64(2*k)))+1))
		for _, q := range nonEmpty(ks, samplePositions(ks.Len(), m, pl.opt.Seed^0x2b7e)) {
			keys := ks.AppendKeys(nil, q)
			slices.Sort(keys)
			pool[side] = append(pool[side], keys)
		}
	}
	a, b := pool[0], pool[len(pool)-1]
	if len(a) == 0 || len(b) == 0 || len(pl.keys) == 1 && len(a) < 2 {
		return
	}
	pl.pairSample(p.pairHist, k, func(r *rand.Rand) (o, x, y int) {
		i, j := r.IntN(len(a)), r.IntN(len(b))
		for len(pl.keys) == 1 && j == i {
			j = r.IntN(len(b))
		}
		return join.OverlapAtLeast(a[i], b[j], 0), len(a[i]), len(b[j])
	})
}

// keyPool is the least number of records per side whose random pairs
// NewKeys measures.
const keyPool = 400

// sampleOrder joins a seeded sample of the records exactly over an order
// of the sample's own (order.Build on their keys): the exact path's
// postings, candidates and verifications per pair of records, and the
// results, before the input's order exists. Sized by the budget, building
// its order at the order's unit costs.
func (pl *planning) sampleOrder(ctx context.Context) error {
	o := &pl.cal.Order
	perToken := o.TokenEntered + o.TokenOrdered + o.Distinct
	m := pl.sampleSizeAt(0, true, true, perToken)
	if m == 0 {
		return nil
	}
	inputs := make([]*order.Input, len(pl.keys))
	var keys []uint64
	var n []int
	for k, ks := range pl.keys {
		in := &order.Input{Workers: pl.opt.Workers}
		pos := nonEmpty(ks, samplePositions(ks.Len(), m, pl.opt.Seed+uint64(k)*0x9e3779b97f4a7c15))
		for _, q := range pos {
			keys = ks.AppendKeys(keys[:0], q)
			in.Add(keys)
		}
		inputs[k] = in
		n = append(n, len(pos))
	}
	cs, err := order.Build(inputs...)
	if err != nil {
		return err
	}
	ss := make([]*Sample, len(cs))
	for k, c := range cs {
		ss[k] = &Sample{C: c}
	}
	b := 0
	if len(n) > 1 {
		b = n[1]
	}
	return pl.joinSample(ctx, ss, pl.share(n[0], b))
}

// keyExactWork predicts the exact path's work before the order: the
// index entries from the set sizes (every index-prefix token is counted),
// the probe-prefix tokens looked up from the sizes and the share of token
// occurrences held by one set (the rarest, first in every prefix, and never
// looked up), and the postings, candidates and verifications of the
// sample joined over its own order, scaled by its share of the pairs. An
// order of the sample's own sees a token held by one sampled set as rare
// where the input's may not: it predicts somewhat fewer postings than the
// input's order meets.
func (pl *planning) keyExactWork() {
	p := pl.p
	e := &p.Exact
	w := ExactWork{Ell: 1, Groups: p.units}
	probe := func(n int) float64 {
		return max(0, float64(pl.b.ProbePrefix(n))-pl.onceShare*float64(n))
	}
	for side, sizes := range pl.keySizes {
		for _, n32 := range sizes {
			n := int(n32)
			lo, hi := pl.b.SizeRange(n)
			switch {
			case len(pl.keySizes) == 1:
				w.IndexEntries += int64(pl.b.IndexPrefix(n))
				if lo <= n {
					w.ProbeTokens += int64(probe(n))
				}
			case side == 1:
				w.IndexEntries += int64(pl.b.ProbePrefix(n))
			case lo <= hi:
				w.ProbeTokens += int64(probe(n))
			}
		}
	}
	s := &p.Sample
	if len(s.ExactRecords) > 0 && s.ExactUnitFraction > 0 {
		f := s.ExactUnitFraction // postings and candidates pair distinct sets
		w.Postings = int64(math.Round(float64(s.Postings) / f))
		e.Examined = float64(s.Examined) / f
		e.Candidates = float64(s.Candidates) / f
		e.Verified = float64(s.Verified) / f
	} else {
		e.Examined, e.Candidates, e.Verified = 0, 0, 0
	}
	e.Work = w
}

// WithOrder completes a plan made before the order (NewKeys) on the
// collections built from the same records (s nil for a self-join): the
// exact path priced on the order (SelfWork or RSWork, a sample joined over
// it), the LSH path from NewKeys's samples but signing through the order's
// dictionary (the order built, LSH runs over the collections: no key sets
// to make), and the choice made again on the whole runs' prices (the
// order, if LSH is chosen now, spent for nothing). A plan already on the
// order is returned as it is.
//
// Cost: as New's exact part. Deterministic.
func (p *Plan) WithOrder(ctx context.Context, c, s *order.Collection) (*Plan, error) {
	if p.Ordered {
		return p, nil
	}
	q := *p
	q.Ordered = true
	q.Stats = slices.Clone(p.Stats)
	q.Sample = p.Sample
	q.Sample.ExactRecords = nil
	q.Sample.ExactFraction, q.Sample.ExactUnitFraction, q.Sample.Ell = 0, 0, 0
	q.Sample.Postings, q.Sample.Examined, q.Sample.Candidates, q.Sample.Verified, q.Sample.Results = 0, 0, 0, 0, 0
	q.Sample.IndexEntries, q.Sample.ProbeTokens = 0, 0
	q.exactRes = nil
	q.Exact = ExactEstimate{}
	pl, done := start(p.opt, &q)
	defer done()
	pl.c, pl.s = c, s
	if err := pl.collect(); err != nil {
		return nil, err
	}
	// The distinct sets LSH signs are the collections' groups.
	q.units, q.unitTokens = 0, 0
	for _, c := range pl.sides {
		q.units += c.Groups()
		for g := range c.Groups() {
			q.unitTokens += int64(c.Size(groupSet(c, g)))
		}
	}
	if q.LSH.Available && q.LSH.Scheme == approx.OnePerm {
		q.probes = pl.densifyProbes(q.LSH.K)
	}
	pl.setBudget()
	if err := pl.sampleExact(ctx); err != nil {
		return nil, err
	}
	pl.finish()
	return &q, nil
}
