package simjoin

import (
	"context"
	"fmt"
	"time"

	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// Input is the input of a join, read, tokenized and ordered by Load: one
// collection for a self-join, two (over one token order) for an R-S join,
// with the options they were loaded with. It is immutable and safe for
// concurrent use; Join, Pairs, Dedup and Explain may run on it any number of
// times.
type Input struct {
	r, s     *order.Collection // s is nil for a self-join
	rid, sid []string          // record ids of Files sources; nil otherwise
	opts     Options           // as given, Workers resolved
	t        prefix.Threshold  // the threshold, exactly
	loaded   Stats             // the input's counts and the timings of Read and Order
	planned  *Plan             // set by WithPlan
}

// loading is the state of one Load: options, the keyers shared by Sets
// sources, the file filter shared by Files sources, and the counts so far.
type loading struct {
	opts    Options
	keyers  []any
	nextKey uint64
	filter  *fileset.Filter
	stats   Stats
}

// progress returns a reporter of one stage's advance to Options.Progress (a
// no-op without it): done of total (-1: unknown), and end once the stage is
// over.
func (l *loading) progress(stage Stage, name string) func(done, total int64, end bool) {
	return progressOf(l.opts.Progress, stage, name)
}

func progressOf(f func(Progress), stage Stage, name string) func(done, total int64, end bool) {
	if f == nil {
		return func(int64, int64, bool) {}
	}
	f(Progress{Stage: stage, Name: name, Total: -1})
	return func(done, total int64, end bool) {
		f(Progress{Stage: stage, Name: name, Done: done, Total: total, End: end})
	}
}

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
// goroutines for Lines and Files (on the calling goroutine for Strings and
// Sets); ordering is O(T log T) for T tokens, over all cores. Memory: the
// sets (about 16 bytes per token while ordering, 4 after). ctx is checked
// between the phases.
func Load(ctx context.Context, r, s Source, opts Options) (*Input, error) {
	if r.read == nil {
		return nil, fmt.Errorf("%w: no records to join", ErrSources)
	}
	t, err := opts.threshold()
	if err != nil {
		return nil, err
	}
	if opts.Method > LSH {
		return nil, fmt.Errorf("%w: %d", ErrMethod, opts.Method)
	}
	if opts.Method == LSH && opts.Measure == prefix.Overlap {
		return nil, fmt.Errorf("%w: LSH estimates Jaccard similarity, not %s", ErrMethod, opts.Measure)
	}
	if r.tokens || s.tokens {
		if err := checkTokens(opts.Tokens); err != nil {
			return nil, err
		}
	}
	opts.Workers = parallel.Workers(opts.Workers)
	l := &loading{opts: opts}
	tm := startTiming()
	rside, sside := "", ""
	if s.read != nil {
		rside, sside = "r", "s"
	}
	rin, rid, err := r.read(l, rside)
	if err != nil {
		return nil, err
	}
	var sin *order.Input
	var sid []string
	if s.read != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if sin, sid, err = s.read(l, sside); err != nil {
			return nil, err
		}
	}
	l.stats.Read = tm.done()
	if opts.MemoryCheck != nil {
		records, tokens, vocab := rin.Len(), rin.Tokens(), rin.Vocabulary()
		if sin != nil {
			records, tokens, vocab = records+sin.Len(), tokens+sin.Tokens(), vocab+sin.Vocabulary()
		}
		if err := opts.MemoryCheck(join.EstimateMemory(records, tokens, vocab), records, tokens); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tm = startTiming()
	in := &Input{rid: rid, sid: sid, opts: opts, t: t}
	if sin == nil {
		in.r, err = order.New(rin)
	} else {
		var cs []*order.Collection
		if cs, err = order.Build(rin, sin); err == nil {
			in.r, in.s = cs[0], cs[1]
		}
	}
	if err != nil {
		return nil, fmt.Errorf("simjoin: %w", err)
	}
	l.stats.Order = tm.done()
	st := &l.stats
	st.Records, st.Skipped, st.Tokens = in.r.Records(), in.r.Skipped(), in.r.Tokens()
	if in.s != nil {
		st.Records += in.s.Records()
		st.Skipped += in.s.Skipped()
		st.Tokens += in.s.Tokens()
	}
	st.Vocabulary = in.r.Dict().Len()
	in.loaded = *st
	return in, nil
}

// Collections returns the ordered collections: r, and s for an R-S join (nil
// for a self-join). They are shared, not copied: read them only.
func (in *Input) Collections() (r, s *order.Collection) { return in.r, in.s }

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
