package simjoin_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// setLines writes each set as a line of space-separated tokens, so that the
// Strings, Lines and Files sources read the same sets as Sets.
func setLines(sets [][]uint32) []string {
	lines := make([]string, len(sets))
	for i, set := range sets {
		var b strings.Builder
		for k, tok := range set {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatUint(uint64(tok), 10))
		}
		lines[i] = b.String()
	}
	return lines
}

// collectAll runs in.Join and returns its pairs as oracle pairs, sorted.
func collectAll(t *testing.T, in *simjoin.Input) ([]jointest.Pair, simjoin.Stats) {
	t.Helper()
	var got []jointest.Pair
	st, err := in.Join(context.Background(), func(p simjoin.Pair) bool {
		got = append(got, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	jointest.Sort(got)
	var binned int64
	for _, n := range st.Similarity {
		binned += n
	}
	if st.Results != int64(len(got)) || binned != st.Results && binned != 0 {
		t.Errorf("stats: %d results, %d in the similarity bins, for %d pairs", st.Results, binned, len(got))
	}
	return got, st
}

// sources are the ways the face reads one side: the same sets each time.
func sources(t *testing.T, sets [][]uint32) map[string]records.Source {
	lines := setLines(sets)
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	return map[string]records.Source{
		"sets":    records.Sets(sets),
		"strings": records.Strings(lines),
		"lines":   records.Lines(strings.NewReader(text), "in"),
	}
}

// TestFaceAgainstOracle runs every fixture through Load and Input.Join with
// Method Exact and Auto, self and R-S, from sets, strings and lines, and
// compares with the nested-loop oracle: Exact gives every pair, Auto every
// pair when the planner chose Exact and a subset with exact overlaps when it
// chose LSH; Stats counts what was given.
func TestFaceAgainstOracle(t *testing.T) {
	ctx := context.Background()
	for _, fx := range jointest.Fixtures(7) {
		half := len(fx.Sets) / 2
		r, s := fx.Sets[:half], fx.Sets[half:]
		self, cross := jointest.SelfOverlaps(fx.Sets), jointest.RSOverlaps(r, s)
		for _, m := range allMeasures {
			th := floatThresholds(m)[1]
			t0, _ := prefix.ThresholdOf(m, th)
			for _, method := range []simjoin.Method{simjoin.Exact, simjoin.Auto} {
				opts := simjoin.Options{Measure: m, Threshold: t0, Method: method, Workers: 2}
				for name, src := range sources(t, fx.Sets) {
					what := fmt.Sprintf("%s/%s/%s/%s/self", fx.Name, m, method, name)
					in, err := simjoin.Load(ctx, src, records.Source{}, opts)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					got, st := collectAll(t, in)
					checkMethod(t, what, st, got, self.Join(m, t0))
					if st.Records != len(fx.Sets) || st.Results != int64(len(got)) {
						t.Errorf("%s: stats records %d results %d, want %d and %d", what, st.Records, st.Results, len(fx.Sets), len(got))
					}
				}
				rs, ss := sources(t, r), sources(t, s)
				for name := range rs {
					what := fmt.Sprintf("%s/%s/%s/%s/rs", fx.Name, m, method, name)
					in, err := simjoin.Load(ctx, rs[name], ss[name], opts)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					got, st := collectAll(t, in)
					checkMethod(t, what, st, got, cross.Join(m, t0))
				}
			}
		}
	}
}

// checkMethod checks a join's pairs against the oracle's for the method
// that ran.
func checkMethod(t *testing.T, what string, st simjoin.Stats, got, want []jointest.Pair) {
	t.Helper()
	switch st.Method {
	case simjoin.Exact:
		if st.Exact == nil || st.LSH != nil {
			t.Errorf("%s: exact ran, stats %+v", what, st)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d pairs, want %d: %v / %v", what, len(got), len(want), head(got), head(want))
		}
	case simjoin.LSH:
		if st.LSH == nil || st.Exact != nil {
			t.Errorf("%s: LSH ran without its stats", what)
		}
		for _, p := range got {
			if _, ok := slices.BinarySearchFunc(want, p, func(a, b jointest.Pair) int {
				return cmpPair(a, b)
			}); !ok {
				t.Errorf("%s: LSH reported %+v, which the oracle does not have", what, p)
				return
			}
		}
	default:
		t.Errorf("%s: method %v ran", what, st.Method)
	}
}

func cmpPair(a, b jointest.Pair) int {
	if a.A != b.A {
		return a.A - b.A
	}
	if a.B != b.B {
		return a.B - b.B
	}
	return a.Overlap - b.Overlap
}

// TestFaceLSH runs Method LSH with exact verification on the fixtures, self
// and R-S: every pair reported is a true pair with its exact overlap, and
// the pairs found, over all fixtures, are no fewer than the S-curve's least
// probability at the threshold promises (a binomial bound, four standard
// deviations below its mean).
func TestFaceLSH(t *testing.T) {
	ctx := context.Background()
	var found, truth int
	var least float64 = 1
	for _, fx := range jointest.Fixtures(11) {
		half := len(fx.Sets) / 2
		for _, rs := range []bool{false, true} {
			for _, th := range []float64{0.5, 0.8} {
				t0, _ := prefix.ThresholdOf(prefix.Jaccard, th)
				opts := simjoin.Options{Threshold: t0, Method: simjoin.LSH, LSH: approx.Options{Seed: 3}}
				var in *simjoin.Input
				var err error
				var want []jointest.Pair
				if rs {
					in, err = simjoin.Load(ctx, records.Sets(fx.Sets[:half]), records.Sets(fx.Sets[half:]), opts)
					want = jointest.RSJoin(fx.Sets[:half], fx.Sets[half:], prefix.Jaccard, t0)
				} else {
					in, err = simjoin.Load(ctx, records.Sets(fx.Sets), records.Source{}, opts)
					want = jointest.SelfJoin(fx.Sets, prefix.Jaccard, t0)
				}
				if err != nil {
					t.Fatal(err)
				}
				got, st := collectAll(t, in)
				what := fmt.Sprintf("%s/rs=%v/t=%v", fx.Name, rs, th)
				if st.Method != simjoin.LSH || st.LSH == nil || st.Plan != nil {
					t.Fatalf("%s: method %v, LSH stats %v, plan %v", what, st.Method, st.LSH != nil, st.Plan != nil)
				}
				checkMethod(t, what, st, got, want)
				found += len(got)
				truth += len(want)
				least = min(least, st.LSH.PredictedRecall)
			}
		}
	}
	mean := float64(truth) * least
	if bound := mean - 4*math.Sqrt(mean*(1-least)) - 1; float64(found) < bound {
		t.Errorf("LSH found %d of %d true pairs, below %.0f (P(t) >= %.3f)", found, truth, bound, least)
	}
	t.Logf("LSH found %d of %d true pairs (P(t) >= %.3f)", found, truth, least)
}

// TestFaceFiles reads one record per file under a directory, selected by
// include and exclude globs, and joins as the same records given as strings.
func TestFaceFiles(t *testing.T) {
	var fx jointest.Fixture
	for _, fx = range jointest.Fixtures(5) {
		if len(fx.Sets) >= 20 {
			break
		}
	}
	lines := setLines(fx.Sets)
	dir := t.TempDir()
	var kept []string // the records of the files kept, in path order
	for i, line := range lines {
		name := fmt.Sprintf("r%04d.txt", i)
		if i%5 == 4 {
			name = fmt.Sprintf("r%04d.skip", i)
		} else {
			kept = append(kept, line)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: simjoin.Exact,
		Files: records.FileOptions{Include: []string{"*.txt", "*.skip"}, Exclude: []string{"*.skip"}}}
	ctx := context.Background()
	in, err := simjoin.Load(ctx, records.Files(dir), records.Source{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, st := collectAll(t, in)
	ids, _ := in.IDs()
	if len(ids) != len(kept) || st.Files == nil || st.Files.Records != len(kept) || st.Files.Listed != len(lines) {
		t.Fatalf("%d ids, files %+v; want %d records of %d listed", len(ids), st.Files, len(kept), len(lines))
	}
	for i, id := range ids {
		if filepath.Base(id) != fmt.Sprintf("r%04d.txt", i+i/4) {
			t.Fatalf("id %d is %s", i, id)
		}
	}
	want, _, err := simjoin.SelfJoin(ctx, kept, opts)
	if err != nil {
		t.Fatal(err)
	}
	var wantPairs []jointest.Pair
	for _, p := range want {
		wantPairs = append(wantPairs, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
	}
	if !slices.Equal(got, wantPairs) {
		t.Errorf("files: %d pairs, strings: %d", len(got), len(wantPairs))
	}
	// R-S: the files against the same records as strings.
	in, err = simjoin.Load(ctx, records.Files(dir), records.Strings(kept), opts)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = collectAll(t, in)
	rsWant, _, err := simjoin.Collect(ctx, records.Strings(kept), records.Strings(kept), opts)
	if err != nil {
		t.Fatal(err)
	}
	var rsPairs []jointest.Pair
	for _, p := range rsWant {
		rsPairs = append(rsPairs, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
	}
	if rid, sid := in.IDs(); !slices.Equal(got, rsPairs) || len(rid) != len(kept) || sid != nil {
		t.Errorf("files against strings: %d pairs, want %d; %d and %v ids", len(got), len(rsPairs), len(rid), sid)
	}
	_, err = simjoin.Load(ctx, records.Files(dir), records.Source{},
		simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Files: records.FileOptions{Include: []string{"*.none"}}})
	if err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("an include glob matching nothing: %v", err)
	}
}

// TestFaceDedup: Dedup's clusters are the connected components of the
// oracle's pairs, with copies grouped or observed one by one.
func TestFaceDedup(t *testing.T) {
	ctx := context.Background()
	for _, fx := range jointest.Fixtures(13) {
		t0, _ := prefix.ThresholdOf(prefix.Jaccard, 0.5)
		want := cluster.New(len(fx.Sets))
		pairs := jointest.SelfJoin(fx.Sets, prefix.Jaccard, t0)
		for _, p := range pairs {
			want.Union(p.A, p.B)
		}
		in, err := simjoin.Load(ctx, records.Sets(fx.Sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: simjoin.Exact})
		if err != nil {
			t.Fatal(err)
		}
		f, st, err := in.Dedup(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Labels(), want.Labels()) || st.Results != int64(len(pairs)) {
			t.Errorf("%s: clusters differ from the oracle's, or %d results for %d pairs", fx.Name, st.Results, len(pairs))
		}
		var seen int64
		f, _, err = in.Dedup(ctx, func(simjoin.Pair) bool { seen++; return true })
		if err != nil || !slices.Equal(f.Labels(), want.Labels()) || seen != int64(len(pairs)) {
			t.Errorf("%s: observed %d pairs of %d (%v)", fx.Name, seen, len(pairs), err)
		}
	}
	in, _ := simjoin.Load(ctx, records.Strings([]string{"a"}), records.Strings([]string{"a"}), simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}})
	if _, _, err := in.Dedup(ctx, nil); !errors.Is(err, simjoin.ErrSources) {
		t.Errorf("Dedup of an R-S join: %v", err)
	}
}

// TestFaceExplain: the plan prices both paths; Analyze runs its method and
// counts the oracle's pairs; a cross-check of Overlap (no LSH) fails with
// ErrNoLSH and still returns the plan.
func TestFaceExplain(t *testing.T) {
	ctx := context.Background()
	var fx jointest.Fixture
	for _, fx = range jointest.Fixtures(17) {
		if len(fx.Sets) >= 20 {
			break
		}
	}
	t0, _ := prefix.ThresholdOf(prefix.Jaccard, 0.5)
	want := jointest.SelfJoin(fx.Sets, prefix.Jaccard, t0)
	in, err := simjoin.Load(ctx, records.Sets(fx.Sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: simjoin.Exact})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := in.Explain(ctx, simjoin.ExplainOptions{Analyze: true, CrossCheck: -1})
	if err != nil {
		t.Fatal(err)
	}
	// With the cross-check, both paths run: exact, the plan's, first.
	if ex.Plan.Method != simjoin.Exact || !ex.Plan.Forced || len(ex.Analyze) != 2 || ex.Analyze[0].Method != simjoin.Exact ||
		ex.Analyze[0].Run.Results != int64(len(want)) || ex.Analyze[1].Method != simjoin.LSH {
		t.Errorf("plan %v forced %v, analyses %+v; want exact with %d results, then lsh", ex.Plan.Method, ex.Plan.Forced, ex.Analyze, len(want))
	}
	if ex.CrossCheck == nil || ex.CrossCheck.Exact.Results != int64(len(want)) {
		t.Errorf("cross-check %+v, want %d exact pairs", ex.CrossCheck, len(want))
	}
	in, _ = simjoin.Load(ctx, records.Sets(fx.Sets), records.Source{}, simjoin.Options{Measure: prefix.Overlap, Threshold: simjoin.Threshold{Num: 2, Den: 1}})
	ex, err = in.Explain(ctx, simjoin.ExplainOptions{CrossCheck: 10})
	if !errors.Is(err, simjoin.ErrNoLSH) || ex == nil || ex.Plan == nil {
		t.Errorf("cross-check without LSH: %v", err)
	}
}

// TestFaceProgressAndMemory: each stage is reported started, then ended, in
// order; MemoryCheck sees the records read and its error stops Load before
// ordering.
func TestFaceProgressAndMemory(t *testing.T) {
	ctx := context.Background()
	text := strings.Repeat("a b c\na b d\n", 3000)
	var events []simjoin.Progress
	var need int64
	opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: simjoin.Exact,
		Progress: func(p simjoin.Progress) { events = append(events, p) },
		MemoryCheck: func(n int64, records, tokens int) error {
			if records != 6000 || tokens != 18000 {
				t.Errorf("memory check of %d records, %d tokens", records, tokens)
			}
			need = n
			return nil
		}}
	in, err := simjoin.Load(ctx, records.Lines(strings.NewReader(text), "in"), records.Source{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Join(ctx, func(simjoin.Pair) bool { return true }); err != nil {
		t.Fatal(err)
	}
	var stages []simjoin.Stage
	open := false
	for _, ev := range events {
		switch {
		case !open && !ev.End:
			stages, open = append(stages, ev.Stage), true
		case ev.End:
			open = false
		}
		if ev.Stage == simjoin.StageRead && ev.Name != "in" {
			t.Errorf("read event names %q", ev.Name)
		}
	}
	if open || !slices.Equal(stages, []simjoin.Stage{simjoin.StageRead, simjoin.StageJoin}) {
		t.Errorf("stages %v (open at the end: %v)", stages, open)
	}
	// Explain's run names the method it runs.
	events = events[:0]
	if _, err := in.Explain(ctx, simjoin.ExplainOptions{Analyze: true}); err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].Stage != simjoin.StageAnalyze || events[0].Method != simjoin.Exact || events[0].Name != "" ||
		!events[1].End || events[1].Method != simjoin.Exact {
		t.Errorf("explain --analyze's events %+v", events)
	}
	if need <= int64(len(text)) {
		t.Errorf("memory estimate %d bytes for %d bytes of input", need, len(text))
	}
	tooLarge := errors.New("too large")
	opts.MemoryCheck = func(int64, int, int) error { return tooLarge }
	if _, err := simjoin.Load(ctx, records.Strings([]string{"a"}), records.Source{}, opts); err != tooLarge {
		t.Errorf("MemoryCheck's error: got %v", err)
	}
}

// TestFaceErrors: lines name the line, a missing first source and an
// unknown method are refused before reading.
func TestFaceErrors(t *testing.T) {
	ctx := context.Background()
	opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Words}}
	_, err := simjoin.Load(ctx, records.Lines(strings.NewReader("ok\nbad\xff\n"), "f.txt"), records.Source{}, opts)
	var le *records.LineError
	if !errors.As(err, &le) || le.Name != "f.txt" || le.Line != 2 {
		t.Errorf("bad line: %v", err)
	}
	if _, err := simjoin.Load(ctx, records.Source{}, records.Source{}, opts); !errors.Is(err, simjoin.ErrSources) {
		t.Errorf("no source: %v", err)
	}
	if _, err := simjoin.Load(ctx, records.Strings(nil), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: 9}); !errors.Is(err, simjoin.ErrMethod) {
		t.Errorf("method 9: %v", err)
	}
	lshOverlap := simjoin.Options{Measure: prefix.Overlap, Threshold: simjoin.Threshold{Num: 2, Den: 1}, Method: simjoin.LSH}
	if _, err := simjoin.Load(ctx, records.Strings([]string{"a b"}), records.Source{}, lshOverlap); !errors.Is(err, simjoin.ErrNoJaccardBound) {
		t.Errorf("LSH for overlap: %v", err)
	}
}

// TestFaceThresholdAndPlan: Options.Threshold is the threshold exactly (a
// pair at 2/3 joins at 2/3, not at the float 2.0/3, which prefix.ThresholdOf
// reads as 0.666666667, above it); WithPlan runs the plan given and reports
// it.
func TestFaceThresholdAndPlan(t *testing.T) {
	ctx := context.Background()
	sets := [][]int{{1, 2, 3, 4}, {1, 2, 3, 4, 5, 6}} // Jaccard 4/6 = 2/3
	for _, c := range []struct {
		opts simjoin.Options
		want int
	}{
		{simjoin.Options{Threshold: simjoin.Threshold{Num: 2, Den: 3}}, 1},
		{simjoin.Options{Threshold: mustThresholdOf(t, 2.0/3)}, 0},
	} {
		c.opts.Method = simjoin.Exact
		pairs, _, err := simjoin.Collect(ctx, records.Sets(sets), records.Source{}, c.opts)
		if err != nil || len(pairs) != c.want {
			t.Errorf("%+v: %v pairs (%v), want %d", c.opts, pairs, err, c.want)
		}
	}
	if _, _, err := simjoin.Collect(ctx, records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 2}}); !errors.Is(err, simjoin.ErrThreshold) {
		t.Errorf("threshold 3/2: %v", err)
	}
	in, err := simjoin.Load(ctx, records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	st, err := in.WithPlan(p).Join(ctx, func(simjoin.Pair) bool { n++; return true })
	if err != nil || st.Plan != p || st.Method != p.Method || n != 1 {
		t.Errorf("WithPlan: plan %p (want %p), method %v, %d pairs, %v", st.Plan, p, st.Method, n, err)
	}
}

// TestFaceResolve: Resolve plans an Auto input once (the result joins with
// the plan, reported in Stats.Plan, and resolves to it again), and returns
// an input with its method given as it is, unplanned.
func TestFaceResolve(t *testing.T) {
	ctx := context.Background()
	sets := [][]int{{1, 2, 3, 4}, {1, 2, 3, 4, 5, 6}, {7, 8}}
	auto, err := simjoin.Load(ctx, records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}})
	if err != nil {
		t.Fatal(err)
	}
	in, method, err := auto.Resolve(ctx)
	if err != nil || in == auto || method == simjoin.Auto {
		t.Fatalf("Auto: %p (input %p), method %v, %v", in, auto, method, err)
	}
	st, err := in.Join(ctx, func(simjoin.Pair) bool { return true })
	if err != nil || st.Plan == nil || st.Method != method || st.Results != 1 {
		t.Errorf("Auto resolved: plan %v, method %v (resolved %v), %d results, %v", st.Plan, st.Method, method, st.Results, err)
	}
	if again, m, err := in.Resolve(ctx); again != in || m != method || err != nil {
		t.Errorf("resolved again: %p (want %p), %v, %v", again, in, m, err)
	}
	for _, m := range []simjoin.Method{simjoin.Exact, simjoin.LSH} {
		given, err := simjoin.Load(ctx, records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		in, method, err := given.Resolve(ctx)
		if in != given || method != m || err != nil {
			t.Errorf("%v: %p (input %p), method %v, %v", m, in, given, method, err)
		}
	}
}

// mustThresholdOf is prefix.ThresholdOf for Jaccard.
func mustThresholdOf(t *testing.T, f float64) simjoin.Threshold {
	t.Helper()
	th, err := prefix.ThresholdOf(prefix.Jaccard, f)
	if err != nil {
		t.Fatal(err)
	}
	return th
}
