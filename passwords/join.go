package passwords

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// DefaultThreshold returns 4/5, the threshold the simjoin passwords command
// takes when none is given. At q = 2 it pairs a password of 5 characters or
// more with the same plus or minus one character at either end ("monkey",
// "monkey1"), and a password of 9 or more with one character changed at an
// end; it does not pair two that differ in the middle unless a
// normalisation makes them meet. It is also the threshold of the published
// benchmarks on password lists. Options.Threshold has no default: its zero
// value is no threshold (prefix.Validate).
func DefaultThreshold() prefix.Threshold { return prefix.Threshold{Num: 4, Den: 5} }

// Options configures Join, Families and NewIndex. The zero value of every
// field but Threshold works: bigrams of the raw passwords, Jaccard, all
// cores.
type Options struct {
	Grams
	Measure prefix.Measure
	// Threshold is required, as for every join of the module: the zero
	// Threshold fails with prefix.ErrNoThreshold (prefix.Validate).
	// DefaultThreshold is the command's choice.
	Threshold prefix.Threshold
	// Workers is the number of goroutines; 0 means GOMAXPROCS, and more than
	// 4·GOMAXPROCS means 4·GOMAXPROCS. Results do not depend on it.
	Workers int
	// Progress, if not nil, is called from the calling goroutine as the join
	// goes, with the probe groups done and their total.
	Progress func(done, total int)
	// Ell is the number of tokens per index key, as join.Options.Ell: 0
	// chooses by cost (for Join) or by the list's size (for NewIndex).
	Ell int
}

func (o *Options) fill() error {
	if err := o.Grams.Validate(); err != nil {
		return err
	}
	t, err := prefix.Validate(o.Measure, o.Threshold)
	if err != nil {
		return fmt.Errorf("passwords: %w", err)
	}
	o.Threshold = t
	o.Workers = parallel.Workers(o.Workers)
	return nil
}

// Pair is two similar passwords: A < B are their indices in the List (so
// the line of A comes first), Overlap the number of q-grams they share and
// Sim their similarity.
type Pair = join.Pair

// Stats counts what a join did. Exact.Ell tells the exact join's keys: 1
// the prefix filter, 2 or 3 the ℓ-prefix of token pairs or triples (short
// sets at high thresholds; see package join).
type Stats struct {
	Passwords  int // distinct passwords in the list
	TooShort   int // skipped: no q-gram after normalisation
	Joined     int // passwords with at least one q-gram, given to the join
	Grams      int // q-grams summed over the joined passwords' sets
	Vocabulary int // distinct q-grams
	Exact      join.Stats
	GramTime   time.Duration // normalising and taking q-grams
	OrderTime  time.Duration // building the token order and the collection
}

// JoinTime is the time of the exact join proper: indexing and probing the
// ready sets.
func (s *Stats) JoinTime() time.Duration { return s.Exact.IndexTime + s.Exact.JoinTime }

// Join reports every pair of distinct passwords of l whose q-gram sets reach
// the threshold, each once with A < B, by an exact join (join.SelfJoin): no
// pair is missed and none is approximate. Short sets at high thresholds
// (passwords at the defaults) go through its ℓ-prefix path, which indexes
// pairs or triples of tokens (AdaptJoin's ℓ-prefix); others through AllPairs
// with PPJoin's filters. Two passwords that normalise to the same set pair
// with similarity 1. It calls yield from the calling goroutine; yield
// returning false stops the join early without error. Pairs come out grouped
// by the later password in set-size order, the same for any number of
// workers; sort them for a total order. ctx cancels the join.
//
// Cost: O(total bytes) to take the grams, on opt.Workers goroutines (as is
// the order), then the exact join (see package join); memory about 12 bytes
// a gram plus the join's index.
func Join(ctx context.Context, l *List, opt Options, yield func(Pair) bool) (Stats, error) {
	if err := opt.fill(); err != nil {
		return Stats{}, err
	}
	c, st, err := collect(l, &opt)
	if err != nil {
		return st, err
	}
	st.Exact, err = join.SelfJoin(ctx, c, join.Options{
		Measure: opt.Measure, Threshold: opt.Threshold, Workers: opt.Workers, Progress: opt.Progress, Ell: opt.Ell,
	}, func(p join.Pair) bool {
		return yield(p)
	})
	return st, err
}

// collect takes the q-grams of every password and builds the collection.
func collect(l *List, opt *Options) (*order.Collection, Stats, error) {
	t0 := time.Now()
	in := input(l, opt.Grams, opt.Workers)
	st := Stats{Passwords: l.Len(), GramTime: time.Since(t0)}
	t0 = time.Now()
	c, err := order.New(in)
	if err != nil {
		return nil, st, err
	}
	st.OrderTime = time.Since(t0)
	st.TooShort = c.Skipped()
	st.Joined = c.Len()
	st.Grams = c.Tokens()
	st.Vocabulary = c.Dict().Len()
	return c, st, nil
}

// gramBlock is the number of passwords a worker turns into sets at a time.
const gramBlock = 8192

// input turns every password of l into its set of q-grams, in list order,
// on workers goroutines (parallel.Ordered: blocks of gramBlock passwords,
// each block's sets handed to the Input in order, in one batch). A block
// whose passwords are all ASCII (under Q of at most 3) goes as small values
// (Grams.AppendValues, order.Input.AddValues: no hash-table step a gram);
// from the first block that is not, every block goes as keys, each set
// sorted. A block's keys or values go into buffers sized for a gram a byte
// (more only when normalising lengthens a password), reused once the Input
// has them.
func input(l *List, g Grams, workers int) *order.Input {
	in := &order.Input{Workers: workers}
	vk := shingle.GramValues{N: g.q()}
	var values atomic.Bool // blocks are still tried as values
	values.Store(g.q() <= shingle.MaxGramValues)
	free := parallel.NewBuffers[uint64](2*parallel.Workers(workers) + 2)
	freeVals := parallel.NewBuffers[uint32](2*parallel.Workers(workers) + 2)
	parallel.Ordered(context.Background(), parallel.Even(l.Len(), gramBlock), workers,
		func() struct{} { return struct{}{} },
		func(_ struct{}, c *parallel.Chunk[uint64, gramBatch]) {
			room := int(l.ends[c.Hi]-l.ends[c.Lo]) + c.Hi - c.Lo
			offs := make([]int, 1, c.Hi-c.Lo+1)
			if values.Load() {
				vals := freeVals.Get(room)
				ok := true
				for i := c.Lo; i < c.Hi && ok; i++ {
					vals, ok = g.AppendValues(vals, l.Password(i))
					offs = append(offs, len(vals))
				}
				if ok {
					c.Stats = gramBatch{offs: offs, vals: vals, values: true}
					return
				}
				values.Store(false)
				freeVals.Put(vals)
				offs = offs[:1]
			}
			c.Out = free.Get(room)
			for i := c.Lo; i < c.Hi; i++ {
				from := len(c.Out)
				c.Out = g.Append(c.Out, l.Password(i))
				set := c.Out[from:]
				slices.Sort(set)
				set = slices.Compact(set)
				c.Out = c.Out[:from+len(set)]
				offs = append(offs, len(c.Out))
			}
			c.Stats = gramBatch{offs: offs}
		},
		func(c *parallel.Chunk[uint64, gramBatch]) bool {
			if c.Stats.values {
				in.AddValues(c.Stats.vals, c.Stats.offs, vk)
				freeVals.Put(c.Stats.vals)
				return true
			}
			in.AddBatch(c.Out, c.Stats.offs)
			free.Put(c.Out)
			return true
		})
	return in
}

// gramBatch is a block of input's sets: offs, and the values when the
// block went as values (else the keys are the chunk's Out).
type gramBatch struct {
	offs   []int
	vals   []uint32
	values bool
}
