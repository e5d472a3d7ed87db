package simjoin

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

// Input is the input of a join, read, tokenized and ordered by Load: one
// collection for a self-join, two (over one token order) for an R-S join,
// with the options they were loaded with. It is immutable and safe for
// concurrent use; Join, Dedup and Explain may run on it any number of
// times.
type Input struct {
	// r and s are the collections, s nil for a self-join; with Method LSH
	// they are built from rk and sk only when asked for (collections).
	r, s *order.Collection
	// rk and sk are the sets as token keys when Method is LSH, which needs
	// no token order (approx.JoinKeys); nil otherwise. sk is nil for a
	// self-join.
	rk, sk *approx.KeySets
	// rb and sb are the records as read when Method is Auto (KeyBatches
	// with Values): the planner reads them before any order is built, and
	// the order is built from them for the exact path (values taking the
	// order's array road, as if read into it), or the key sets made of
	// them for LSH. nil otherwise; sb is nil for a self-join.
	rb, sb   *records.KeyBatches
	lazy     *lazyOrder       // builds r and s from rb and sb, or rk and sk, once
	rid, sid []string         // record ids of Files sources; nil otherwise
	opts     Options          // as given, Workers resolved
	t        prefix.Threshold // the threshold, exactly
	loaded   Stats            // the input's counts and the timings of Read and Order
	planned  *Plan            // set by WithPlan
	counts   records.Counts   // the reading's counts: bytes, tokens read as values, ready sets
}

// progressOf returns a reporter of one stage's advance to f (a no-op without
// it): every report to f is stage's Stage, Name and Method with the counts of
// the call, done of total (-1: unknown), and end once the stage is over.
func progressOf(f func(Progress), stage Progress) func(done, total int64, end bool) {
	if f == nil {
		return func(int64, int64, bool) {}
	}
	ev := stage
	ev.Done, ev.Total, ev.End = 0, -1, false
	f(ev)
	return func(done, total int64, end bool) {
		ev.Done, ev.Total, ev.End = done, total, end
		f(ev)
	}
}

// readStages are the stages of package records' reading as Progress names
// them.
var readStages = [...]Stage{records.StageLines: StageRead, records.StageFiles: StageFiles}

// timing measures one phase in wall and CPU time.
type timing struct {
	wall time.Time
	cpu  time.Duration
}

func startTiming() timing {
	cpu, _ := rusage.CPU()
	return timing{time.Now(), cpu}
}

func (t timing) done() Timing {
	cpu, _ := rusage.CPU()
	return Timing{Wall: time.Since(t.wall), CPU: cpu - t.cpu}
}

// Load reads the records of r (and of s, for an R-S join; the zero Source
// makes it a self-join), tokenizes them by opts.Tokens, checks the memory
// the join will need (opts.MemoryCheck), and orders them into the
// collections of the join. Options are checked before anything is read;
// reading errors name the record (*RecordError), the line (*LineError) or
// the file.
//
// Cost: reading and tokenizing is linear in the input, on opts.Workers
// goroutines for Lines and Files, on the calling goroutine for Strings and
// Sets; ordering is O(T log T) for T tokens, on opts.Workers
// goroutines. Memory: the
// sets (about 16 bytes per token while ordering, 4 after). ctx is checked
// between the phases.
func Load(ctx context.Context, r, s records.Source, opts Options) (*Input, error) {
	if r.IsZero() {
		return nil, fmt.Errorf("%w: no records to join", ErrSources)
	}
	t, err := opts.threshold()
	if err != nil {
		return nil, err
	}
	if opts.Method > LSH {
		return nil, fmt.Errorf("simjoin: %w %d", ErrMethod, opts.Method)
	}
	if opts.Method == LSH && opts.Measure == prefix.Overlap {
		return nil, fmt.Errorf("simjoin: %w: LSH estimates Jaccard similarity, not %s", ErrNoJaccardBound, opts.Measure)
	}
	if r.Tokenized() || s.Tokenized() {
		if err := checkTokens(opts.Tokens); err != nil {
			return nil, err
		}
	}
	opts.Workers = parallel.Workers(opts.Workers)
	rd := records.NewReader(records.Options{Tokens: opts.Tokens, Files: opts.Files, Workers: opts.Workers,
		Progress: func(stage records.Stage, name string) func(done, total int64, end bool) {
			return progressOf(opts.Progress, Progress{Stage: readStages[stage], Name: name})
		}})
	var st Stats
	tm := startTiming()
	var rside, sside records.Side
	if !s.IsZero() {
		rside, sside = records.SideR, records.SideS
	}
	// LSH signs the token keys themselves and verifies on sorted keys: no
	// token order is built unless asked for (Collections). CheckRecall's
	// exact join needs it. With Auto the records are kept as read, values
	// and all, and the order is built only if the planner needs it (for
	// the exact path).
	keys := opts.Method == LSH && !opts.CheckRecall
	deferred := opts.Method == Auto && !opts.CheckRecall
	newSets := func() records.Sink {
		switch {
		case keys:
			return new(records.KeyBatches)
		case deferred:
			return &records.KeyBatches{Values: true}
		}
		return &order.Input{Workers: opts.Workers}
	}
	rto := newSets()
	rid, err := rd.Read(ctx, r, rside, rto)
	if err != nil {
		return nil, err
	}
	var sto records.Sink
	var sid []string
	if !s.IsZero() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sto = newSets()
		if sid, err = rd.Read(ctx, s, sside, sto); err != nil {
			return nil, err
		}
	}
	st.Read, st.Files = tm.done(), rd.FileStats()
	counts := rd.Counts()
	st.Bytes = counts.Bytes
	if deferred {
		rb, sb := rto.(*records.KeyBatches), (*records.KeyBatches)(nil)
		if sto != nil {
			sb = sto.(*records.KeyBatches)
		}
		return loadDeferred(ctx, opts, st, tm, counts, t, rb, sb, rid, sid)
	}
	if keys {
		// The memory is checked before the batches are joined into one
		// arena, which holds every key twice for a moment.
		if err := checkMemory(opts, rto, sto, func(records, tokens int) int64 {
			return approx.EstimateKeysMemory(records, tokens, resolvedLSH(opts, t))
		}); err != nil {
			return nil, err
		}
		rk, sk := rto.(*records.KeyBatches).Sets(opts.Workers), (*approx.KeySets)(nil)
		if sto != nil {
			sk = sto.(*records.KeyBatches).Sets(opts.Workers)
		}
		st.Read = tm.done() // the key sets joined, the form the join reads
		return loadKeys(ctx, opts, st, counts, t, rk, sk, rid, sid)
	}
	rin := rto.(*order.Input)
	var sin *order.Input
	if sto != nil {
		sin = sto.(*order.Input)
	}
	// The order's phase starts here: counting the vocabulary enters the
	// keys that wait (order.Input.Vocabulary), the order's first step.
	tm = startTiming()
	if opts.MemoryCheck != nil {
		n, tokens, vocab := rin.Len(), rin.Tokens(), rin.Vocabulary()
		if sin != nil {
			n, tokens, vocab = n+sin.Len(), tokens+sin.Tokens(), vocab+sin.Vocabulary()
		}
		if err := opts.MemoryCheck(join.EstimateMemory(n, tokens, vocab), n, tokens); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in := &Input{rid: rid, sid: sid, opts: opts, t: t, counts: counts}
	if in.r, in.s, err = buildOrder(rin, sin); err != nil {
		return nil, err
	}
	st.Order = tm.done()
	st.Records, st.Skipped, st.Tokens = in.r.Records(), in.r.Skipped(), in.r.Tokens()
	if in.s != nil {
		st.Records += in.s.Records()
		st.Skipped += in.s.Skipped()
		st.Tokens += in.s.Tokens()
	}
	st.Vocabulary = in.r.Dict().Len()
	in.loaded = st
	return in, nil
}

// buildOrder builds the token order over rin and sin (nil for a self-join)
// and returns the collections.
func buildOrder(rin, sin *order.Input) (r, s *order.Collection, err error) {
	if sin == nil {
		r, err = order.New(rin)
	} else {
		var cs []*order.Collection
		if cs, err = order.Build(rin, sin); err == nil {
			r, s = cs[0], cs[1]
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("simjoin: %w", err)
	}
	return r, s, nil
}

// loadKeys finishes Load for the LSH path: the input stays as key sets (sk
// is nil for a self-join), counted (its distinct tokens only on
// demand, by Vocabulary); Load has checked its memory.
func loadKeys(ctx context.Context, opts Options, st Stats, counts records.Counts, t prefix.Threshold, rk, sk *approx.KeySets, rid, sid []string) (*Input, error) {
	in := &Input{rk: rk, sk: sk, rid: rid, sid: sid, opts: opts, t: t, lazy: new(lazyOrder), counts: counts}
	return in.finishLoad(ctx, st)
}

// loadDeferred finishes Load for Method Auto: the planner reads the
// records before any order is built, which is built only for the exact
// path. Records read as keys become key sets at once, as LSH's Load makes
// them; where some came as small values the batches stay as read (sb is
// nil for a self-join), for the order to take the values' road, and the
// key sets are made from them when LSH asks. The memory is checked for the
// exact path (about half as many distinct tokens as tokens) with the keys
// kept beside it, before the batches are joined. The read phase, begun at
// read, ends once the records are in the form the planner reads.
func loadDeferred(ctx context.Context, opts Options, st Stats, read timing, counts records.Counts, t prefix.Threshold, rb, sb *records.KeyBatches, rid, sid []string) (*Input, error) {
	var ss records.Sink
	if sb != nil {
		ss = sb
	}
	if err := checkMemory(opts, rb, ss, func(records, tokens int) int64 {
		return join.EstimateMemory(records, tokens, tokens/2) + 8*int64(tokens)
	}); err != nil {
		return nil, err
	}
	in := &Input{rid: rid, sid: sid, opts: opts, t: t, lazy: new(lazyOrder), counts: counts}
	if rb.HasValues() || sb != nil && sb.HasValues() {
		in.rb, in.sb = rb, sb
		for _, kb := range []*records.KeyBatches{rb, sb} {
			if kb != nil {
				kb.Index()
			}
		}
	} else {
		in.rk = rb.Sets(opts.Workers)
		if sb != nil {
			in.sk = sb.Sets(opts.Workers)
		}
	}
	st.Read = read.done()
	return in.finishLoad(ctx, st)
}

// finishLoad counts the records of an input loaded without an order
// (their distinct tokens only on demand, by Vocabulary) into st, the
// counts so far.
func (in *Input) finishLoad(ctx context.Context, st Stats) (*Input, error) {
	for _, ks := range in.keySides() {
		if ks == nil {
			continue
		}
		st.Records += ks.Len()
		for i := range ks.Len() {
			n := ks.Size(i)
			st.Tokens += n
			if n == 0 {
				st.Skipped++
			}
		}
	}
	if st.Records >= 1<<32-1 || st.Tokens >= 1<<32-1 {
		return nil, fmt.Errorf("simjoin: collection %w", order.ErrTooLarge) // as building the order would say
	}
	st.Vocabulary = -1 // counted on demand by Vocabulary
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in.loaded = st
	return in, nil
}

// checkMemory checks the memory need says a join of the sets the batches
// r and s (nil for a self-join) hold takes (opts.MemoryCheck, if any), from
// their counts, before the batches are joined.
func checkMemory(opts Options, r, s records.Sink, need func(records, tokens int) int64) error {
	if opts.MemoryCheck == nil {
		return nil
	}
	n, tokens := 0, 0
	for _, side := range []records.Sink{r, s} {
		if kb, ok := side.(*records.KeyBatches); ok && kb != nil {
			n, tokens = n+kb.Len(), tokens+kb.Keys()
		}
	}
	return opts.MemoryCheck(need(n, tokens), n, tokens)
}

// resolvedLSH returns the LSH options of opts at threshold t, resolved
// where they can be.
func resolvedLSH(opts Options, t prefix.Threshold) approx.Options {
	lsh := opts.LSH
	lsh.Measure, lsh.Threshold = opts.Measure, t
	if r, err := lsh.Resolve(); err == nil {
		lsh = r
	}
	return lsh
}

// keySides returns the sides of an input loaded without an order as
// planner.Keys (rb and sb, or rk and sk); the second is nil for a
// self-join, both for an input loaded with its order.
func (in *Input) keySides() []planner.Keys {
	switch {
	case in.rb != nil:
		if in.sb == nil {
			return []planner.Keys{in.rb, nil}
		}
		return []planner.Keys{in.rb, in.sb}
	case in.rk != nil:
		if in.sk == nil {
			return []planner.Keys{planner.KeySetsOf(in.rk), nil}
		}
		return []planner.Keys{planner.KeySetsOf(in.rk), planner.KeySetsOf(in.sk)}
	}
	return nil
}

// rs reports whether the input is an R-S join's.
func (in *Input) rs() bool { return in.s != nil || in.sk != nil || in.sb != nil }

// lazyOrder builds the collections of an input loaded without them, makes
// the key sets of an Auto input, and counts its distinct tokens, each on
// first use.
type lazyOrder struct {
	// mu is held while the records as read (Input.rb and sb) are read or
	// released: building the order releases them batch by batch, so that
	// the records are not held twice, and once built is set they are gone.
	mu   sync.Mutex
	once sync.Once
	r, s *order.Collection
	// distinct is about the distinct tokens (the planner's estimate; 0:
	// unknown), which sizes the vocabulary's table; Order is the time the
	// build took, and built says it ran.
	distinct atomic.Int64
	order    Timing
	built    atomic.Bool

	keysMade bool // rk and sk are made (under mu)
	rk, sk   *approx.KeySets

	// plan is the first plan made of the input (Input.Plan), kept because
	// the records it was made from are released once the order is built.
	planMu sync.Mutex
	plan   *Plan

	vocabOnce sync.Once
	vocab     int
}

// sizeHint records about how many distinct tokens the input holds, to size
// the vocabulary's table when the order is built.
func (lz *lazyOrder) sizeHint(distinct int64) { lz.distinct.Store(distinct) }

// Vocabulary returns the number of distinct tokens of the input (of both
// sides of an R-S join): the token order's length. An input loaded without
// its order (Method LSH or Auto) has none until a join needs it
// (Stats.Vocabulary is -1): then the first call counts its distinct keys
// (keysort.CountDistinct: in a small hash set while they are few, else by
// a sort of every key on the input's workers; a fraction of what building
// the order costs), and later calls return the count. Safe for concurrent
// use.
func (in *Input) Vocabulary() int {
	if in.lazy == nil {
		return in.r.Dict().Len()
	}
	if in.lazy.built.Load() {
		return in.lazy.r.Dict().Len()
	}
	in.lazy.vocabOnce.Do(func() {
		rk, sk, ok := in.keySets()
		if !ok { // the order was built meanwhile
			in.lazy.vocab = in.lazy.r.Dict().Len()
			return
		}
		all := rk.Keys[:rk.Tokens()]
		if sk != nil {
			all = append(slices.Clip(all), sk.Keys[:sk.Tokens()]...)
		}
		in.lazy.vocab = keysort.CountDistinct(all, in.opts.Workers)
	})
	return in.lazy.vocab
}

// collections returns the input's collections, building the token order
// on first use when Load did not (Method LSH or Auto): from the records as
// read (Auto), else from the key sets. Load checked the limits that
// building the order could fail on.
func (in *Input) collections() (r, s *order.Collection) {
	if in.lazy == nil {
		return in.r, in.s
	}
	lz := in.lazy
	lz.once.Do(func() {
		tm := startTiming()
		distinct := int(lz.distinct.Load())
		if distinct == 0 {
			distinct = in.loaded.Tokens / 2
		}
		toInput := func(kb *records.KeyBatches, ks *approx.KeySets) *order.Input {
			switch {
			case kb != nil:
				return kb.Input(in.opts.Workers, distinct)
			case ks != nil:
				oi := &order.Input{Workers: in.opts.Workers}
				oi.Grow(distinct)
				oi.AddBatch(ks.Keys, ks.Offs)
				return oi
			}
			return nil
		}
		lz.mu.Lock()
		defer lz.mu.Unlock()
		var err error
		if lz.r, lz.s, err = buildOrder(toInput(in.rb, in.rk), toInput(in.sb, in.sk)); err != nil {
			panic(err) // unreachable: Load checked the limits
		}
		lz.order = tm.done()
		lz.built.Store(true)
	})
	return lz.r, lz.s
}

// keySets returns the input's key sets (sk nil for a self-join): those Load
// made (Method LSH, or Auto over keys), or made on first use from the
// records as read (Auto where some came as values, which become keys). ok
// is false, and there are none, where the input has only its order: loaded
// with it, or an Auto input whose order was built before any key sets were
// asked for (building it released the records); use the collections then.
func (in *Input) keySets() (rk, sk *approx.KeySets, ok bool) {
	if in.rb == nil {
		return in.rk, in.sk, in.rk != nil
	}
	lz := in.lazy
	lz.mu.Lock()
	defer lz.mu.Unlock()
	if !lz.keysMade {
		if lz.built.Load() {
			return nil, nil, false
		}
		lz.rk = in.rb.KeepSets(in.opts.Workers)
		if in.sb != nil {
			lz.sk = in.sb.KeepSets(in.opts.Workers)
		}
		lz.keysMade = true
	}
	return lz.rk, lz.sk, true
}

// Collections returns the ordered collections: r, and s for an R-S join (nil
// for a self-join). They are shared, not copied: read them only. With
// Method LSH or Auto, Load builds no token order; the first call (or the
// planner, for Auto) builds it (the cost Load's order phase has otherwise)
// and later calls return the same collections.
func (in *Input) Collections() (r, s *order.Collection) { return in.collections() }

// IDs returns the record ids of Files sources (the paths), for r and for s;
// nil for other sources, whose record ids are their indices.
func (in *Input) IDs() (r, s []string) { return in.rid, in.sid }

// Stats returns the input's part of the statistics: Records, Skipped,
// Tokens, Vocabulary, Files, and the Read and Order timings.
func (in *Input) Stats() Stats {
	st := in.loaded
	if st.Files != nil {
		f := *st.Files
		st.Files = &f
	}
	return st
}
