package planner

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

var runSuite = flag.Bool("suite", false, "run the workload suite: both paths measured, the plan's choice and predictions (slow)")

// heldOut are workloads the calibration never saw: other sizes, skews and
// seeds, and the three inputs the planner's specification names.
var heldOut = []workload{
	{name: "spec: 20,000 sets of 300 tokens, vocabulary 20,000", t: "0.5",
		cfg: synth.SetsConfig{N: 20000, MinSize: 300, MaxSize: 300, Universe: 20000, Seed: 7}},
	{name: "spec: 20,000 documents of ~300 random 64-bit shingles", t: "0.5", key: "benchdocs",
		build: func(tb testing.TB) *order.Collection { return docs(tb, synth.BenchDocs(7)) }},
	{name: "spec: Go source tree, go:5 shingles", t: "0.5", key: "gotree", build: goTree},
	heldOutWL(200000, 3, 12, 200000, 1.1, 0.3, "0.8", 11),
	heldOutWL(30000, 20, 60, 30000, 0.7, 0.2, "0.6", 12),
	heldOutWL(30000, 20, 60, 30000, 0.7, 0.2, "0.4", 12),
	heldOutWL(8000, 150, 250, 8000, 0, 0.05, "0.6", 13),
	heldOutWL(8000, 150, 250, 8000, 0, 0.05, "0.8", 13),
	heldOutWL(15000, 400, 600, 1<<30, 0, 0.05, "0.4", 14),
	heldOutWL(15000, 80, 120, 40000, 1, 0.1, "0.5", 15),
	heldOutWL(15000, 80, 120, 40000, 1, 0.1, "0.7", 15),
}

func heldOutWL(n, lo, hi, u int, zipf, dup float64, t string, seed uint64) workload {
	w := wl(n, lo, hi, u, zipf, dup, t)
	w.cfg.Seed = seed
	return w
}

func docs(tb testing.TB, cfg synth.DocsConfig) *order.Collection {
	d := synth.Documents(cfg)
	in := new(order.Input)
	for _, s := range d.Sets {
		in.Add(s)
	}
	c, err := order.New(in)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// goTree reads the non-test Go files of the Go source tree as go:5 shingle
// sets; it skips when the tree is absent.
func goTree(tb testing.TB) *order.Collection {
	root := filepath.Join(runtime.GOROOT(), "src")
	spec, err := shingle.Parse("go:5")
	if err != nil {
		tb.Fatal(err)
	}
	in := new(order.Input)
	var keys []uint64
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "/testdata/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if keys, err = spec.Append(keys[:0], string(src)); err != nil {
			keys = keys[:0] // not Go: an empty record
		}
		in.Add(keys)
		return nil
	})
	if err != nil || in.Len() == 0 {
		tb.Skipf("no Go source tree at %s", root)
	}
	c, err := order.New(in)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestSuite runs both paths on every workload of the calibration suite and
// the held-out suite, and prints a Markdown table: each path's measured CPU
// and wall time (least of at least three runs), LSH's measured recall, the
// planner's choice and its predicted CPU time for both paths. It fails when
// the chosen path's CPU time is more than 1.5 times the faster path's.
//
//	go test ./planner -run TestSuite -suite -v -timeout 2h
func TestSuite(t *testing.T) {
	if !*runSuite {
		t.Skip("run with -suite to measure both paths on the workload suite")
	}
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintln(&b, "| workload | t | exact CPU (wall) | LSH CPU (wall) | LSH recall | choice | predicted exact CPU | predicted LSH CPU | chosen / best |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|")
	all := append(append([]workload{}, suite...), heldOut...)
	worst := 0.0
	for i, w := range all {
		c := w.collection(t)
		p, err := New(ctx, c, nil, Options{Threshold: w.threshold(t)})
		if err != nil {
			t.Fatal(err)
		}
		var me, ml Measured
		ecpu, ewall := timeRun(func() {
			if me, err = p.RunMethod(ctx, Exact, c, nil, nil); err != nil {
				t.Fatal(err)
			}
		})
		lcpu, lwall := timeRun(func() {
			if ml, err = p.RunMethod(ctx, LSH, c, nil, nil); err != nil {
				t.Fatal(err)
			}
		})
		recall := 1.0
		if me.Results > 0 {
			recall = float64(ml.Results) / float64(me.Results)
		}
		chosen := ecpu
		if p.Method == LSH {
			chosen = lcpu
		}
		ratio := chosen / math.Min(ecpu, lcpu)
		worst = max(worst, ratio)
		name := w.name
		if strings.HasPrefix(name, "n=") {
			name = strings.ReplaceAll(strings.TrimSuffix(name, "/t="+w.t), "/", " ")
		}
		if i == len(suite) {
			fmt.Fprintln(&b, "| *held out* | | | | | | | | |")
		}
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s (%s) | %.3f | %s | %s | %s | %.2f |\n",
			name, w.t, numfmt.Secs(ecpu), numfmt.Secs(ewall), numfmt.Secs(lcpu), numfmt.Secs(lwall), recall, p.Method,
			numfmt.Secs(p.Exact.Cost.CPU), numfmt.Secs(p.LSH.Cost.CPU), ratio)
		t.Logf("%s t=%s: %+v", w.name, w.t, p.Reason)
		if ratio > 1.5 {
			t.Errorf("%s t=%s: chose %s, %.2fx the CPU time of the faster path", w.name, w.t, p.Method, ratio)
		}
	}
	t.Logf("worst chosen/best %.2f\n%s", worst, b.String())
}
