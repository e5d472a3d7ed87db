package planner

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

var calibrate = flag.Bool("calibrate", false, "run the calibration suite and print the fitted Calibration (slow: a few minutes)")

// observation is one timed run: the counts of every term of its path's
// cost (the actual counts of the run, not the plan's predictions) and the
// CPU time.
type observation struct {
	name    string
	counts  []float64
	seconds float64
}

// timeRun runs f at least three times and until it has taken two seconds
// or ten times, and returns the least CPU time (the least disturbed by other
// work on the machine) and the least wall time.
func timeRun(f func()) (cpu, wall float64) {
	cpu, wall = math.Inf(1), math.Inf(1)
	var total time.Duration
	for k := 0; k < 10 && (k < 3 || total < 2*time.Second); k++ {
		c0, _ := rusage.CPU()
		t0 := time.Now()
		f()
		d := time.Since(t0)
		c1, _ := rusage.CPU()
		total += d
		wall = min(wall, d.Seconds())
		cpu = min(cpu, (c1 - c0).Seconds())
	}
	return cpu, wall
}

// calibrationRuns are the workloads the LSH constants of the classic scheme
// are fitted on (classic signing is K times the work of one-permutation
// hashing, so they are smaller).
var classicRuns = []workload{
	wl(5000, 50, 100, 5000, 0, 0.1, "0.5"),
	wl(20000, 5, 20, 100000, 1, 0.2, "0.7"),
	wl(2000, 250, 350, 1<<30, 0, 0.05, "0.5"),
}

// TestCalibrate fits the unit costs of the cost model by non-negative least
// squares on relative error, over the calibration suite, and prints them as
// the Default literal of calibration.go. It runs only with -calibrate:
//
//	go test ./planner -run TestCalibrate -calibrate -v -timeout 1h
func TestCalibrate(t *testing.T) {
	if !*calibrate {
		t.Skip("run with -calibrate to fit the cost model's constants")
	}
	ctx := context.Background()
	var exactObs, indexObs, lshObs []observation
	var sampleNs, pairNs []float64
	one := Calibration{}
	for _, u := range one.exactUnits() {
		*u = 1
	}
	for _, u := range one.lshUnits() {
		*u = 1
	}
	counts := func(c Cost) []float64 {
		out := make([]float64, len(c.Terms))
		for i, term := range c.Terms {
			out[i] = term.Count
		}
		return out
	}
	runs := append([]workload{}, suite...)
	for i, w := range append(runs, classicRuns...) {
		classic := i >= len(runs)
		c := w.collection(t)
		opt := Options{Threshold: w.threshold(t)}
		if classic {
			opt.LSH.Scheme = approx.Classic
		}
		p, err := New(ctx, c, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !classic {
			var me Measured
			index := math.Inf(1)
			sec, wall := timeRun(func() {
				if me, err = p.RunMethod(ctx, Exact, c, nil, nil); err != nil {
					t.Fatal(err)
				}
				index = min(index, me.Phase(PhaseIndex))
			})
			st := me.Exact
			cost := p.priceExact(&one, float64(st.Postings), float64(st.Candidates), float64(st.Verified), float64(st.Results))
			exactObs = append(exactObs, observation{w.name, counts(cost), sec})
			// The index is built on one core: its wall time is its CPU time.
			indexObs = append(indexObs, observation{w.name, counts(cost), index})
			t.Logf("exact %-55s %8.3f s CPU %8.3f s wall (index %.3f s)", w.name, sec, wall, index)

			// Planning's own unit costs: building a sample, measuring pairs.
			m := min(2000, c.Len()/4)
			var tokens int64
			bcpu, _ := timeRun(func() {
				ss := newSamples([]*order.Collection{c}, m, 1)
				tokens = int64(ss[0].C.Tokens())
			})
			sampleNs = append(sampleNs, bcpu/float64(tokens)*1e9)
			pl := &planning{opt: Options{PairSample: 20000}, cal: &defaultCalibration, c: c, sides: []*order.Collection{c},
				b: prefix.NewBounds(prefix.Jaccard, w.threshold(t)), p: &Plan{}, pairs: float64(c.Len()) * float64(c.Len()-1) / 2,
				meanSize: float64(c.Tokens()) / float64(c.Len()), budget: math.Inf(1)}
			pcpu, _ := timeRun(func() { pl.pairSample(make([]float64, Bins)) })
			pairNs = append(pairNs, pcpu/(float64(pl.p.Sample.Pairs)*2*pl.meanSize)*1e9)
		}
		var ml Measured
		sec, wall := timeRun(func() {
			if ml, err = p.RunMethod(ctx, LSH, c, nil, nil); err != nil {
				t.Fatal(err)
			}
		})
		cost := p.priceLSH(&one, float64(ml.Collisions), float64(ml.Candidates), float64(ml.Results))
		name := w.name
		if classic {
			name += "/classic"
		}
		lshObs = append(lshObs, observation{name, counts(cost), sec})
		t.Logf("lsh   %-55s %8.3f s CPU %8.3f s wall", name, sec, wall)
	}
	// The index phase first (on its own time), then the rest of the exact
	// path on what remains; LSH as a whole.
	var cal Calibration
	eu := cal.exactUnits()
	fit(t, "exact index", indexObs, eu, []bool{true, true})
	fit(t, "exact", exactObs, eu, []bool{false, false, true, true, true, true, true, true})
	fit(t, "lsh", lshObs, cal.lshUnits(), nil)
	slices.Sort(sampleNs)
	slices.Sort(pairNs)
	cal.PlanSampleToken, cal.PlanPairToken = sampleNs[len(sampleNs)/2], pairNs[len(pairNs)/2]
	t.Logf("planning: %.0f ns a sampled token (%.0f..%.0f), %.2f ns a merged token of a random pair (%.2f..%.2f); medians taken",
		cal.PlanSampleToken, sampleNs[0], sampleNs[len(sampleNs)-1], cal.PlanPairToken, pairNs[0], pairNs[len(pairNs)-1])
	var b strings.Builder
	fmt.Fprintf(&b, "var defaultCalibration = Calibration{\n")
	v := reflect.ValueOf(cal)
	for i := 0; i < v.NumField(); i++ {
		fmt.Fprintf(&b, "\t%s: %.4g,\n", v.Type().Field(i).Name, v.Field(i).Float())
	}
	fmt.Fprintf(&b, "}\n")
	t.Logf("fitted on %s:\n%s", time.Now().Format("2006-01-02"), b.String())
}

// fit solves min Σ ((Σ_j x_j·counts_j - seconds) / seconds)² over x >= 0
// exactly (every subset of the free variables is tried: there are at most
// nine), writes x into units (in nanoseconds) and logs each observation's
// fit. free[j] says whether unit j is fitted (nil: all; beyond len(free):
// none); the others keep their values, and their part is taken off the
// measured time first.
func fit(t *testing.T, path string, obs []observation, units []*float64, free []bool) {
	k := len(units)
	isFree := func(j int) bool { return free == nil || j < len(free) && free[j] }
	fixed := func(o observation) float64 {
		s := 0.0
		for j, c := range o.counts {
			if !isFree(j) {
				s += c * *units[j] * 1e-9
			}
		}
		return s
	}
	best, bestErr := make([]float64, k), math.Inf(1)
	for mask := 1; mask < 1<<k; mask++ {
		var cols []int
		skip := false
		for j := 0; j < k; j++ {
			if mask&(1<<j) != 0 {
				cols = append(cols, j)
				skip = skip || !isFree(j)
			}
		}
		if skip {
			continue
		}
		a := mat.NewDense(len(obs), len(cols), nil)
		b := mat.NewVecDense(len(obs), nil)
		for i, o := range obs {
			for c, j := range cols {
				a.Set(i, c, o.counts[j]*1e-9/o.seconds)
			}
			b.SetVec(i, 1-fixed(o)/o.seconds)
		}
		var x mat.VecDense
		if err := x.SolveVec(a, b); err != nil {
			continue
		}
		ok := true
		for c := range cols {
			if x.AtVec(c) < 0 || math.IsNaN(x.AtVec(c)) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var r mat.VecDense
		r.MulVec(a, &x)
		r.SubVec(&r, b)
		if e := mat.Norm(&r, 2); e < bestErr {
			bestErr = e
			clear(best)
			for c, j := range cols {
				best[j] = x.AtVec(c)
			}
		}
	}
	for j, u := range units {
		if isFree(j) {
			*u = best[j]
		}
	}
	w := tabwriter.NewWriter(os.Stderr, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "%s\tmeasured CPU s\tfitted CPU s\tratio\t\n", path)
	for _, o := range obs {
		pred := fixed(o)
		for j, c := range o.counts {
			if isFree(j) {
				pred += c * best[j] * 1e-9
			}
		}
		fmt.Fprintf(w, "%s\t%.4f\t%.4f\t%.2f\t\n", o.name, o.seconds, pred, pred/o.seconds)
	}
	w.Flush()
	t.Logf("%s: relative residual norm %.3f over %d runs", path, bestErr, len(obs))
}
