package simjoin

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// The planner suite: generated inputs that differ in what decides the
// choice between the exact join and LSH, each run whole both ways. It
// serves three tests: TestPlannerPredictions (-long) checks the predicted
// whole-run CPU time of each path against the measured, TestPlannerTable
// (-plannersuite) prints BENCHMARKS.md's table, and TestCalibrate
// (-calibrate) fits the planner's unit costs on it.

// plannerWorkload is one input of the planner suite and a threshold.
type plannerWorkload struct {
	name   string // what decides the choice, as BENCHMARKS.md's table names it
	tokens string // the tokenizer (--tokens)
	t      string // the Jaccard threshold
	text   func() []byte
	files  bool // the Go tree from source (GOROOT/src), not text
}

// cached returns f's text, made once per test binary.
func cached(f func() []byte) func() []byte {
	var once sync.Once
	var text []byte
	return func() []byte {
		once.Do(func() { text = f() })
		return text
	}
}

// setsText writes synth.Sets(cfg) a set a line, tokens as integers.
func setsText(cfg synth.SetsConfig) func() []byte {
	return cached(func() []byte {
		var b []byte
		for _, set := range synth.Sets(cfg) {
			for i, tok := range set {
				if i > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendUint(b, uint64(tok), 10)
			}
			b = append(b, '\n')
		}
		return b
	})
}

// docsText writes synth.Documents(cfg), a document a line, its 64-bit
// shingles as integers (too large for the order's values: keys).
func docsText(cfg synth.DocsConfig) func() []byte {
	return cached(func() []byte {
		var b []byte
		for _, set := range synth.Documents(cfg).Sets {
			for i, k := range set {
				if i > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendUint(b, k, 10)
			}
			b = append(b, '\n')
		}
		return b
	})
}

func linesText(lines func() []string) func() []byte {
	return cached(func() []byte { return []byte(strings.Join(lines(), "\n") + "\n") })
}

// passwordsText writes n distinct generated passwords, one a line, as a
// published list has them (a raw leak repeats its popular passwords, and a
// sample of its records then over-represents them: see the planner's
// documentation).
func passwordsText(n int, seed uint64) func() []byte {
	return cached(func() []byte {
		var b []byte
		for pw := range synth.Passwords(synth.PasswordsConfig{N: n, Seed: seed, Distinct: true}) {
			b = append(append(b, pw...), '\n')
		}
		return b
	})
}

var (
	shortZipf    = setsText(synth.SetsConfig{N: 200000, MinSize: 5, MaxSize: 20, Universe: 100000, Zipf: 1, DupFraction: 0.2, Replace: 0.1, Seed: 1})
	longFrequent = setsText(synth.SetsConfig{N: 10000, MinSize: 300, MaxSize: 300, Universe: 20000, DupFraction: 0.05, Replace: 0.3, Seed: 7})
	longZipf     = setsText(synth.SetsConfig{N: 20000, MinSize: 250, MaxSize: 350, Universe: 100000, Zipf: 0.8, DupFraction: 0.05, Replace: 0.1, Seed: 2})
	uniform      = setsText(synth.SetsConfig{N: 20000, MinSize: 100, MaxSize: 200, Universe: 5000, DupFraction: 0.05, Replace: 0.1, Seed: 3})
	mediumZipf   = setsText(synth.SetsConfig{N: 10000, MinSize: 50, MaxSize: 100, Universe: 20000, Zipf: 1, DupFraction: 0.1, Replace: 0.1, Seed: 4})
	nearDups     = setsText(synth.SetsConfig{N: 100000, MinSize: 10, MaxSize: 40, Universe: 200000, Zipf: 0.5, DupFraction: 0.6, Replace: 0.05, Seed: 5})
	rareDocs     = docsText(synth.BenchDocs(7))
	passwordList = passwordsText(60000, 1)
	textDocs     = linesText(func() []string {
		return synth.Text(synth.TextConfig{N: 20000, MinWords: 150, MaxWords: 400, Vocabulary: 50000, Zipf: 1,
			DupFraction: 0.1, Edit: 0.1, Seed: 6})
	})
)

// plannerSuite is the suite: short sets and long, frequent tokens and
// rare, password q-grams, word shingles of text, the Go tree's source,
// uniform tokens, near-duplicate-heavy collections, and a threshold sweep
// from 0.3 to 0.95 on two of them (rare shingles, where the order decides;
// Zipf sets of medium length, where the joins do).
func plannerSuite() []plannerWorkload {
	ws := []plannerWorkload{
		{"short sets, Zipf tokens", "set", "0.7", shortZipf, false},
		{"long sets, frequent tokens", "set", "0.5", longFrequent, false},
		{"long sets, Zipf tokens", "set", "0.5", longZipf, false},
		{"uniform tokens", "set", "0.5", uniform, false},
		{"near-duplicate-heavy", "set", "0.8", nearDups, false},
		{"password q-grams", "qgram:2", "0.7", passwordList, false},
		{"word shingles of text", "shingle:3", "0.5", textDocs, false},
		{"Go source tree", "go:5", "0.5", nil, true},
	}
	for _, t := range []string{"0.3", "0.5", "0.7", "0.9", "0.95"} {
		ws = append(ws, plannerWorkload{"rare shingles (documents)", "set", t, rareDocs, false})
	}
	for _, t := range []string{"0.3", "0.5", "0.7", "0.9", "0.95"} {
		ws = append(ws, plannerWorkload{"medium sets, Zipf tokens", "set", t, mediumZipf, false})
	}
	return ws
}

// goTreeOptions select the Go tree's non-test source as the README's
// command does.
var goTreeOptions = records.FileOptions{Include: []string{"*.go"}, Exclude: []string{"*_test.go", "*/testdata/*"}, MinTokens: 50}

// goSrc returns the Go tree's source directory, skipping tb when it is
// absent.
func goSrc(tb testing.TB) string {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "go", "scanner")); err != nil {
		tb.Skipf("no Go source tree at %s: %v", src, err)
	}
	return src
}

// load reads w with method m (Auto: the planner's road, the order left for
// the exact path).
func (w plannerWorkload) load(ctx context.Context, tb testing.TB, m Method) *Input {
	tb.Helper()
	spec, err := shingle.Parse(w.tokens)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := prefix.ParseThreshold(prefix.Jaccard, w.t)
	if err != nil {
		tb.Fatal(err)
	}
	opts := Options{Tokens: spec, Threshold: t, Method: m}
	var src records.Source
	if w.files {
		opts.Files = goTreeOptions
		src = records.Files(goSrc(tb))
	} else {
		src = records.Lines(bytes.NewReader(w.text()), w.name)
	}
	in, err := Load(ctx, src, records.Source{}, opts)
	if err != nil {
		tb.Fatalf("%s: %v", w.name, err)
	}
	return in
}

// tsvWriter writes pairs as the command line's TSV does, to io.Discard: the
// results' writing is part of a whole run.
type tsvWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newTSV() *tsvWriter { return &tsvWriter{w: bufio.NewWriterSize(io.Discard, 1<<16)} }

func (t *tsvWriter) pair(p Pair) bool {
	b := strconv.AppendInt(t.buf[:0], int64(p.A+1), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(p.B+1), 10)
	b = append(b, '\t')
	b = strconv.AppendFloat(b, p.Sim, 'f', 6, 64)
	t.buf = append(b, '\n')
	t.w.Write(t.buf)
	return true
}

// planned loads w for Method Auto and plans it.
func (w plannerWorkload) planned(ctx context.Context, tb testing.TB) (*Input, *Plan) {
	in := w.load(ctx, tb, Auto)
	p, err := in.Plan(ctx)
	if err != nil {
		tb.Fatalf("%s: %v", w.name, err)
	}
	return in, p
}

// runPath runs path m of plan p on in whole, as Auto runs it (the plan's
// method forced to m), its pairs written as TSV, and returns the analysis
// of the run and the join's statistics.
func runPath(ctx context.Context, tb testing.TB, in *Input, p *Plan, m Method) (*planner.Analysis, Stats) {
	tb.Helper()
	forced := *p
	forced.Method = m
	st, err := in.WithPlan(&forced).Join(ctx, newTSV().pair)
	if err != nil {
		tb.Fatal(err)
	}
	return p.Analyze(MeasuredRun(st), in.frontEnd()), st
}

// wholeCPU is the CPU time of a whole run: reading, the order, the join
// (with planning, for Auto).
func wholeCPU(st Stats) float64 { return (st.Read.CPU + st.Order.CPU + st.Join.CPU).Seconds() }

// methods returns the paths plan p prices.
func methods(p *Plan) []Method {
	if p.LSH.Available {
		return []Method{Exact, LSH}
	}
	return []Method{Exact}
}

// describe words an analysis for a failure message: the whole run, each
// phase and every term flagged.
func describe(a *planner.Analysis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: predicted %.3f s of CPU, measured %.3f s (%.2fx; the model on the run's own counts: %.3f s)\n",
		a.Method, a.Predicted, a.Measured, a.Ratio, a.Counted)
	for _, ph := range a.Phases {
		fmt.Fprintf(&b, "  phase %-10s predicted %.3f s, counted %.3f s, measured %.3f s (%.2fx)\n", ph.Name, ph.Predicted, ph.Counted, ph.Measured, ph.Ratio)
	}
	for _, t := range a.Terms {
		if t.Off {
			fmt.Fprintf(&b, "  term %s (%s): predicted %.0f, measured %.0f (%.2fx)\n", t.Name, t.Phase, t.Predicted, t.Measured, t.Ratio)
		}
	}
	return b.String()
}

// leastRun runs path m of w's plan up to tries times, and returns the
// analysis whose measured CPU time is the least (the run the machine
// disturbed least), stopping as soon as one is within planner.OffBy.
func leastRun(ctx context.Context, tb testing.TB, w plannerWorkload, m Method, tries int) *planner.Analysis {
	var best *planner.Analysis
	for range tries {
		in, p := w.planned(ctx, tb)
		a, _ := runPath(ctx, tb, in, p, m)
		if best == nil || a.Measured < best.Measured {
			best = a
		}
		if !off(best.Ratio) {
			break
		}
	}
	return best
}

func off(r float64) bool { return r > planner.OffBy || r < 1/planner.OffBy || math.IsNaN(r) }
