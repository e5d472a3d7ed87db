package simjoin

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/planner"
)

var (
	calibrate    = flag.Bool("calibrate", false, "fit the planner's unit costs on the planner suite and write planner/calibration.json (several minutes)")
	observations = flag.String("observations", "", "with -calibrate: write the calibration's measured runs to `FILE`, or fit those FILE holds (written by an earlier run) instead of measuring")
	plannerTable = flag.Bool("plannersuite", false, "run both paths and auto on every workload of the planner suite and print BENCHMARKS.md's table (several minutes)")
)

// TestPlannerPredictions (with -long, which .ci/run gives): on every
// workload of the planner suite, the predicted CPU time of each path's
// whole run is within planner.OffBy (2x) of the measured, the least of up
// to five runs (CPU time, not wall: the machines are shared). An engine
// change that makes the cost model wrong fails here, naming the workload,
// the path and each phase's and term's ratio, instead of shipping a wrong
// choice. Run it again after fitting the model (TestCalibrate).
func TestPlannerPredictions(t *testing.T) {
	if !jointest.Long() {
		t.Skip("the planner suite's predictions are checked with -long (a few minutes)")
	}
	ctx := context.Background()
	for _, w := range plannerSuite() {
		t.Run(w.name+"/t="+w.t, func(t *testing.T) {
			_, p := w.planned(ctx, t)
			for _, m := range methods(p) {
				a := leastRun(ctx, t, w, m, 5)
				t.Logf("%s", describe(a))
				if off(a.Ratio) {
					t.Errorf("%s t=%s, %s's whole run: predicted %.3f s of CPU, measured %.3f s at least (%.2fx, beyond %gx)\n%s",
						w.name, w.t, m, a.Predicted, a.Measured, a.Ratio, planner.OffBy, describe(a))
				}
			}
		})
	}
}

// TestPlannerTable (with -plannersuite) runs every workload of the planner
// suite both ways as the command line does (--method exact and --method
// lsh, whole runs, the least CPU time of three), and with the planner's
// choice (auto, planning included), and prints BENCHMARKS.md's table.
//
//	go test . -run TestPlannerTable -plannersuite -v -timeout 1h
func TestPlannerTable(t *testing.T) {
	if !*plannerTable {
		t.Skip("run with -plannersuite to measure the planner suite (several minutes)")
	}
	ctx := context.Background()
	least := func(w plannerWorkload, m Method) (float64, Stats) {
		best, bestSt := math.Inf(1), Stats{}
		for range 3 {
			in := w.load(ctx, t, m)
			st, err := in.Join(ctx, newTSV().pair)
			if err != nil {
				t.Fatal(err)
			}
			if c := wholeCPU(st); c < best {
				best, bestSt = c, st
			}
		}
		return best, bestSt
	}
	var b strings.Builder
	fmt.Fprintln(&b, "| workload | tokens | t | choice | exact CPU | LSH CPU | LSH recall | chosen / cheaper | auto CPU (planning) | predicted / measured, exact | predicted / measured, LSH |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|")
	worst := 0.0
	for _, w := range plannerSuite() {
		if w.files {
			goSrc(t) // skips the whole table without the Go tree
		}
		ecpu, est := least(w, Exact)
		lcpu, lst := least(w, LSH)
		acpu, ast := least(w, Auto)
		p := ast.Plan
		chosen := ecpu
		if p.Method == LSH {
			chosen = lcpu
		}
		ratio := chosen / min(ecpu, lcpu)
		worst = max(worst, ratio)
		recall := 1.0
		if est.Results > 0 {
			recall = float64(lst.Results) / float64(est.Results)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.3f | %.2f | %s (%s) | %.2f | %.2f |\n",
			w.name, w.tokens, w.t, p.Method, numfmt.Secs(ecpu), numfmt.Secs(lcpu), recall, ratio,
			numfmt.Secs(acpu), numfmt.Secs(p.CPU), p.Exact.Cost.CPU/ecpu, p.LSH.Cost.CPU/lcpu)
		t.Logf("%s t=%s: %s (%+v)", w.name, w.t, p.Method, p.Reason)
	}
	t.Logf("worst chosen/cheaper %.2f on %d cores, %s\n%s", worst, runtime.NumCPU(), runtime.Version(), b.String())
}

// calibrationExtras are inputs that only their reading and order
// calibrate: the tokenizers and roads the suite does not read.
func calibrationExtras() []plannerWorkload {
	words := linesText(func() []string {
		return synth.Text(synth.TextConfig{N: 30000, MinWords: 50, MaxWords: 150, Vocabulary: 100000, Zipf: 1, Seed: 8})
	})
	return []plannerWorkload{
		{"text as words", "words", "0.5", words, false},
		{"text as set", "set", "0.5", words, false},
		{"text as shingle:2", "shingle:2", "0.5", words, false},
		{"passwords as qgram:4", "qgram:4", "0.5", passwordList, false},
		{"passwords as qgram:3", "qgram:3", "0.5", passwordList, false},
		{"short sets as shingle:2", "shingle:2", "0.5", shortZipf, false},
		{"Go source tree as go:3", "go:3", "0.5", nil, true},
	}
}

// TestCalibrate (with -calibrate) fits the planner's unit costs: it runs
// both paths of every workload of the planner suite whole, as Auto runs
// them, and reads and orders the calibration's extra inputs, three times
// each; takes the phases of the least run and each run's own counts
// (planner.Plan.Counted); fits each phase's costs by non-negative least
// squares on relative error (planner.Fit); and writes them to
// planner/calibration.json, which the planner embeds. LSH over collections
// (an input loaded with its order) is run on a few workloads too.
//
//	go test . -run TestCalibrate -calibrate -v -timeout 1h
func TestCalibrate(t *testing.T) {
	if !*calibrate {
		t.Skip("run with -calibrate to fit the planner's unit costs and write planner/calibration.json")
	}
	var obs []planner.Observation
	if *observations != "" {
		if data, err := os.ReadFile(*observations); err == nil {
			if err := json.Unmarshal(data, &obs); err != nil {
				t.Fatalf("%s: %v", *observations, err)
			}
			t.Logf("fitting the %d runs %s holds", len(obs), *observations)
		}
	}
	if obs == nil {
		obs = measureCalibration(t)
		if *observations != "" {
			data, err := json.MarshalIndent(obs, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(*observations, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	fitCalibration(t, obs)
}

// measureCalibration measures the calibration's runs (see TestCalibrate).
func measureCalibration(t *testing.T) []planner.Observation {
	ctx := context.Background()
	const reps = 3
	var obs []planner.Observation
	observe := func(name string, c planner.Cost, fe planner.FrontEnd, cpu map[planner.PhaseName]float64) {
		obs = append(obs, planner.Observation{Name: name, Cost: c, FrontEnd: fe, CPU: cpu})
	}
	// leastInto keeps in best the phases of the run whose phases sum to
	// the least CPU time so far (the run the machine disturbed least):
	// whole runs, as the predictions are checked, rather than each phase's
	// least, which sum to less than any run took.
	leastInto := func(best map[planner.PhaseName]float64, m planner.Measured, phases ...planner.PhaseName) {
		sum, was := 0.0, 0.0
		for _, ph := range phases {
			sum += m.PhaseCPU(ph)
			was += best[ph]
		}
		if sum > 0 && (was == 0 || sum < was) {
			for _, ph := range phases {
				best[ph] = m.PhaseCPU(ph)
			}
		}
	}
	for _, w := range plannerSuite() {
		if w.files && !hasGoSrc() {
			t.Logf("%s: no Go source tree, left out", w.name)
			continue
		}
		name := w.name + " t=" + w.t
		eBest, lBest := map[planner.PhaseName]float64{}, map[planner.PhaseName]float64{}
		var eCost, lCost planner.Cost
		var fe planner.FrontEnd
		lsh := false
		for range reps {
			in, p := w.planned(ctx, t)
			ae, _ := runPath(ctx, t, in, p, Exact)
			fe = in.frontEnd()
			eCost = p.Counted(ae.Run, fe)
			leastInto(eBest, ae.Run, planner.PhaseRead, planner.PhaseOrder, planner.PhaseIndex, planner.PhaseJoin)
			if p.LSH.Available {
				lsh = true
				al, _ := runPath(ctx, t, in, p, LSH)
				lCost = p.Counted(al.Run, fe)
				leastInto(lBest, al.Run, planner.PhaseSignatures, planner.PhaseBands, planner.PhaseVerify)
			}
		}
		observe(name+" exact", eCost, fe, eBest)
		if lsh {
			observe(name+" lsh", lCost, fe, lBest)
		}
		t.Logf("%s: exact %v, lsh %v", name, eBest, lBest)
	}
	// LSH over collections: an input loaded with its order.
	suite := plannerSuite()
	for _, w := range []plannerWorkload{suite[0], suite[2], suite[6], suite[9]} {
		best := map[planner.PhaseName]float64{}
		var c planner.Cost
		var fe planner.FrontEnd
		for range reps {
			in := w.load(ctx, t, Exact)
			p, err := in.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := runPath(ctx, t, in, p, LSH)
			fe = in.frontEnd()
			c = p.Counted(a.Run, fe)
			leastInto(best, a.Run, planner.PhaseSignatures, planner.PhaseBands, planner.PhaseVerify)
		}
		observe(w.name+" t="+w.t+" lsh over collections", c, fe, best)
	}
	// Reading and ordering alone.
	for _, w := range calibrationExtras() {
		if w.files && !hasGoSrc() {
			continue
		}
		best := map[planner.PhaseName]float64{}
		var fe planner.FrontEnd
		for range reps {
			in := w.load(ctx, t, Auto)
			in.collections()
			st := in.Stats()
			in.orderStats(&st)
			leastInto(best, MeasuredRun(st), planner.PhaseRead, planner.PhaseOrder)
			fe = in.frontEnd()
		}
		observe(w.name, (&planner.Plan{}).Counted(planner.Measured{}, fe), fe, best)
		t.Logf("%s: %v", w.name, best)
	}
	return obs
}

// fitCalibration fits the unit costs to obs and writes
// planner/calibration.json.
func fitCalibration(t *testing.T, obs []planner.Observation) {
	cal, reports := planner.Fit(obs, planner.DefaultCalibration())
	f := planner.CalibrationFile{
		Command: "go test . -run TestCalibrate -calibrate -timeout 1h",
		Fitted:  fmt.Sprintf("%s, %s, %d cores (%s/%s)", time.Now().Format("2006-01-02"), runtime.Version(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH),
		Costs:   cal,
		Fit:     map[string][2]float64{},
	}
	for _, r := range reports {
		f.Fit[r.Phase.String()] = [2]float64{round3(r.Low), round3(r.Hi)}
		var rows strings.Builder
		for _, row := range r.Rows {
			fmt.Fprintf(&rows, "\n  %-50s measured %8.4f s, fitted %8.4f s (%.2fx)", row.Name, row.Measured, row.Fitted, row.Fitted/row.Measured)
		}
		t.Logf("phase %s: %d runs fitted within %.2fx..%.2fx of their measured CPU time (relative residual norm %.2f)%s",
			r.Phase, r.Runs, r.Low, r.Hi, r.Residual, rows.String())
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if _, err := planner.ParseCalibration(data); err != nil {
		t.Fatalf("the fitted calibration does not read back: %v", err)
	}
	path := filepath.Join("planner", "calibration.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s:\n%s", path, data)
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// hasGoSrc reports whether the Go tree's source is here.
func hasGoSrc() bool {
	_, err := os.Stat(filepath.Join(runtime.GOROOT(), "src", "go", "scanner"))
	return err == nil
}
