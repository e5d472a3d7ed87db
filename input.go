package simjoin

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
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
	rk, sk   *approx.KeySets
	lazy     *lazyOrder       // builds r and s from rk and sk once
	rid, sid []string         // record ids of Files sources; nil otherwise
	opts     Options          // as given, Workers resolved
	t        prefix.Threshold // the threshold, exactly
	loaded   Stats            // the input's counts and the timings of Read and Order
	planned  *Plan            // set by WithPlan
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
	// exact join needs it.
	keys := opts.Method == LSH && !opts.CheckRecall
	newSets := func() records.Sink {
		if keys {
			return new(records.KeyBatches)
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
	if keys {
		rk, sk := rto.(*records.KeyBatches).Sets(opts.Workers), (*approx.KeySets)(nil)
		if sto != nil {
			sk = sto.(*records.KeyBatches).Sets(opts.Workers)
		}
		return loadKeys(ctx, opts, st, t, rk, sk, rid, sid)
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
	in := &Input{rid: rid, sid: sid, opts: opts, t: t}
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
// demand, by Vocabulary), its memory checked.
func loadKeys(ctx context.Context, opts Options, st Stats, t prefix.Threshold, rk, sk *approx.KeySets, rid, sid []string) (*Input, error) {
	in := &Input{rk: rk, sk: sk, rid: rid, sid: sid, opts: opts, t: t, lazy: new(lazyOrder)}
	for _, ks := range []*approx.KeySets{in.rk, in.sk} {
		if ks == nil {
			continue
		}
		st.Records += ks.Len()
		st.Tokens += ks.Tokens()
		for i := range ks.Len() {
			if ks.Offs[i+1] == ks.Offs[i] {
				st.Skipped++
			}
		}
	}
	if st.Records >= 1<<32-1 || st.Tokens >= 1<<32-1 {
		return nil, fmt.Errorf("simjoin: collection %w", order.ErrTooLarge) // as building the order would say
	}
	st.Vocabulary = -1 // counted on demand by Vocabulary
	if opts.MemoryCheck != nil {
		lsh := opts.LSH
		lsh.Measure, lsh.Threshold = opts.Measure, t
		if r, err := lsh.Resolve(); err == nil {
			lsh = r
		}
		if err := opts.MemoryCheck(approx.EstimateKeysMemory(st.Records, st.Tokens, lsh), st.Records, st.Tokens); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in.loaded = st
	return in, nil
}

// rs reports whether the input is an R-S join's.
func (in *Input) rs() bool { return in.s != nil || in.sk != nil }

// lazyOrder builds an LSH input's collections, and counts its distinct
// tokens, on first use.
type lazyOrder struct {
	once      sync.Once
	r, s      *order.Collection
	vocabOnce sync.Once
	vocab     int
}

// Vocabulary returns the number of distinct tokens of the input (of both
// sides of an R-S join): the token order's length. An LSH input has no
// order (Stats.Vocabulary is -1): the first call counts its distinct keys by
// a sort of every key on the input's workers (keysort.CountDistinct, a
// fraction of what building the order costs), and later calls return the
// count. Safe for concurrent use.
func (in *Input) Vocabulary() int {
	if in.lazy == nil {
		return in.r.Dict().Len()
	}
	in.lazy.vocabOnce.Do(func() {
		all := in.rk.Keys[:in.rk.Tokens()]
		if in.sk != nil {
			all = append(slices.Clip(all), in.sk.Keys[:in.sk.Tokens()]...)
		}
		in.lazy.vocab = keysort.CountDistinct(all, in.opts.Workers)
	})
	return in.lazy.vocab
}

// collections returns the input's collections, building the token order
// from the key sets on first use when Load did not (Method LSH). Load
// checked the limits that building the order could fail on.
func (in *Input) collections() (r, s *order.Collection) {
	if in.lazy == nil {
		return in.r, in.s
	}
	in.lazy.once.Do(func() {
		toInput := func(ks *approx.KeySets) *order.Input {
			if ks == nil {
				return nil
			}
			oi := &order.Input{Workers: in.opts.Workers}
			oi.AddBatch(ks.Keys, ks.Offs)
			return oi
		}
		var err error
		if in.lazy.r, in.lazy.s, err = buildOrder(toInput(in.rk), toInput(in.sk)); err != nil {
			panic(err) // unreachable: Load checked the limits
		}
	})
	return in.lazy.r, in.lazy.s
}

// Collections returns the ordered collections: r, and s for an R-S join (nil
// for a self-join). They are shared, not copied: read them only. With
// Method LSH, Load builds no token order; the first call builds it (the cost
// Load's order phase has otherwise) and later calls return the same
// collections.
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
