package simjoin_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// linesOf writes sets a line each, tokens as decimal integers.
func linesOf[T uint32 | uint64](sets [][]T) string {
	var b []byte
	for _, s := range sets {
		for i, v := range s {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendUint(b, uint64(v), 10)
		}
		b = append(b, '\n')
	}
	return string(b)
}

func joinAll(t *testing.T, in *simjoin.Input) ([]simjoin.Pair, simjoin.Stats) {
	t.Helper()
	var pairs []simjoin.Pair
	st, err := in.Join(context.Background(), func(p simjoin.Pair) bool { pairs = append(pairs, p); return true })
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(pairs, join.ComparePairs)
	return pairs, st
}

func load(t *testing.T, text string, m simjoin.Method, threshold float64) *simjoin.Input {
	t.Helper()
	in, err := simjoin.Load(context.Background(), records.Lines(strings.NewReader(text), "in"), records.Source{},
		simjoin.Options{Threshold: mustThresholdOf(t, threshold), Method: m})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestAutoOrderForExactOnly: Auto plans on the records as read and builds
// the token order only for the exact path. On documents of rare shingles
// (keys too large to be values) LSH's whole run clearly pays against the
// order alone: LSH runs, no order is built (no order phase, the distinct
// tokens uncounted), and its pairs are those --method lsh finds. On short
// sets of integer tokens (which the order takes as values) exact runs, its
// order is built and timed as a phase of its own, and its pairs are the
// exact join's.
func TestAutoOrderForExactOnly(t *testing.T) {
	docs := linesOf(synth.Documents(synth.DocsConfig{N: 3000, MinSize: 250, MaxSize: 350, Planted: 150,
		PlantedLo: 0.5, PlantedHi: 0.95, Seed: 2}).Sets)
	auto, st := joinAll(t, load(t, docs, simjoin.Auto, 0.5))
	if st.Method != simjoin.LSH || st.Plan == nil || st.Plan.Reason.Code != planner.ReasonBeforeOrder ||
		st.Order != (simjoin.Timing{}) || st.Vocabulary != -1 || st.Bytes != int64(len(docs)) {
		t.Fatalf("documents: %s (%+v), order %+v, vocabulary %d, bytes %d of %d", st.Method, st.Plan.Reason, st.Order, st.Vocabulary, st.Bytes, len(docs))
	}
	lsh, _ := joinAll(t, load(t, docs, simjoin.LSH, 0.5))
	if !slices.Equal(auto, lsh) || len(auto) == 0 {
		t.Errorf("documents: auto found %d pairs, --method lsh %d", len(auto), len(lsh))
	}

	short := linesOf(synth.Sets(synth.SetsConfig{N: 20000, MinSize: 5, MaxSize: 20, Universe: 20000, Zipf: 1,
		DupFraction: 0.2, Replace: 0.1, Seed: 1}))
	auto, st = joinAll(t, load(t, short, simjoin.Auto, 0.7))
	if st.Method != simjoin.Exact || !st.Plan.Ordered || st.Order.Wall <= 0 || st.Vocabulary <= 0 {
		t.Fatalf("short sets: %s (%+v), ordered %v, order %+v, vocabulary %d", st.Method, st.Plan.Reason, st.Plan.Ordered, st.Order, st.Vocabulary)
	}
	if tm, ok := st.Plan.Exact.Cost.Term(planner.TermValuesEntered, planner.PhaseOrder); !ok || tm.Count != float64(st.Tokens) {
		t.Errorf("short sets: the plan enters %v tokens as values, of %d", tm.Count, st.Tokens)
	}
	exact, _ := joinAll(t, load(t, short, simjoin.Exact, 0.7))
	if !slices.Equal(auto, exact) || len(exact) == 0 {
		t.Errorf("short sets: auto found %d pairs, --method exact %d", len(auto), len(exact))
	}
}

// TestAutoValuesAsKeys: an Auto input whose records came as small values
// keeps them for the order's array and makes key sets of them only for
// LSH: LSH forced on its plan finds the pairs --method lsh finds (which
// reads keys), and the whole-run analysis of both paths counts what ran.
func TestAutoValuesAsKeys(t *testing.T) {
	text := linesOf(synth.Sets(synth.SetsConfig{N: 4000, MinSize: 20, MaxSize: 40, Universe: 3000, DupFraction: 0.2, Replace: 0.1, Seed: 9}))
	for _, spec := range []string{"set", "qgram:3"} {
		tok, err := shingle.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		opts := simjoin.Options{Threshold: mustThresholdOf(t, 0.6), Tokens: tok}
		loadAs := func(m simjoin.Method) *simjoin.Input {
			opts.Method = m
			in, err := simjoin.Load(context.Background(), records.Lines(strings.NewReader(text), "in"), records.Source{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			return in
		}
		in := loadAs(simjoin.Auto)
		ex, err := in.Explain(context.Background(), simjoin.ExplainOptions{Analyze: true, CrossCheck: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Analyze) != 2 {
			t.Fatalf("%s: %d analyses", spec, len(ex.Analyze))
		}
		forced := *ex.Plan
		forced.Method = simjoin.LSH
		got, st := joinAll(t, in.WithPlan(&forced))
		want, _ := joinAll(t, loadAs(simjoin.LSH))
		if st.Method != simjoin.LSH || !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: lsh on auto's input found %d pairs, --method lsh %d", spec, len(got), len(want))
		}
		for _, a := range ex.Analyze {
			for _, tm := range a.Terms {
				if tm.Name == planner.TermResults && tm.Measured != float64(a.Run.Results) {
					t.Errorf("%s, %s: results term measured %v, the run %d", spec, a.Method, tm.Measured, a.Run.Results)
				}
			}
		}
	}
}

// TestAutoOrderReleasesRecords: building an Auto input's order releases the
// records as read (they are held once, not twice), and everything that
// read them still answers: a second plan is the first, LSH forced after
// the order is built finds --method lsh's pairs, the order built before
// any plan still plans, and joins started at once on one fresh input, with
// its order built meanwhile by Collections, find the same pairs.
func TestAutoOrderReleasesRecords(t *testing.T) {
	ctx := context.Background()
	short := linesOf(synth.Sets(synth.SetsConfig{N: 6000, MinSize: 5, MaxSize: 20, Universe: 6000, Zipf: 1,
		DupFraction: 0.2, Replace: 0.1, Seed: 3}))
	want, _ := joinAll(t, load(t, short, simjoin.Exact, 0.7))
	wantLSH, _ := joinAll(t, load(t, short, simjoin.LSH, 0.7))

	in := load(t, short, simjoin.Auto, 0.7)
	got, st := joinAll(t, in)
	if st.Method != simjoin.Exact || !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("auto ran %s and found %d pairs, exact %d", st.Method, len(got), len(want))
	}
	p1, err := in.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p1 != st.Plan || in.Vocabulary() != st.Vocabulary {
		t.Errorf("a second plan differs from the join's, or the vocabulary (%d, %d)", in.Vocabulary(), st.Vocabulary)
	}
	forced := *p1
	forced.Method = simjoin.LSH
	if got, _ := joinAll(t, in.WithPlan(&forced)); !slices.Equal(got, wantLSH) || len(got) == 0 {
		t.Errorf("lsh after the order was built found %d pairs, --method lsh %d", len(got), len(wantLSH))
	}

	first := load(t, short, simjoin.Auto, 0.7)
	first.Collections()
	if got, st := joinAll(t, first); st.Method != simjoin.Exact || !slices.Equal(got, want) {
		t.Errorf("order built before the plan: %s, %d pairs of %d", st.Method, len(got), len(want))
	}

	fresh := load(t, short, simjoin.Auto, 0.7)
	results := make(chan []simjoin.Pair, 4)
	built := make(chan struct{})
	go func() { fresh.Collections(); close(built) }() // the order built while the joins plan
	for range 4 {
		go func() {
			var pairs []simjoin.Pair
			_, err := fresh.Join(ctx, func(p simjoin.Pair) bool { pairs = append(pairs, p); return true })
			if err != nil {
				t.Error(err)
			}
			slices.SortFunc(pairs, join.ComparePairs)
			results <- pairs
		}()
	}
	for range 4 {
		if got := <-results; !slices.Equal(got, want) {
			t.Errorf("a concurrent join found %d pairs, exact %d", len(got), len(want))
		}
	}
	<-built
}
