package report

import (
	"io"
	"time"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// Timer times one phase of a run: its wall-clock time and the CPU time the
// process spent meanwhile (rusage.CPU), less those of the phases recorded
// while it ran (such as the order a join builds when the planner asks for
// it: a phase of its own).
type Timer struct {
	r      *Report
	name   string
	start  time.Time
	cpu    time.Duration
	phases int // the report's phases when it started
}

// Start starts timing the phase name; Timer.Done records it.
func (r *Report) Start(name string) *Timer {
	return &Timer{r: r, name: name, start: time.Now(), cpu: processCPU(), phases: len(r.Phases)}
}

// Done appends the phase to the report's phases.
func (t *Timer) Done() {
	ph := Phase{Name: t.name, Seconds: time.Since(t.start).Seconds(), CPU: (processCPU() - t.cpu).Seconds()}
	for _, in := range t.r.Phases[t.phases:] {
		ph.Seconds = max(ph.Seconds-in.Seconds, 0)
		ph.CPU = max(ph.CPU-in.CPU, 0)
	}
	t.r.Phases = append(t.r.Phases, ph)
}

// Phase runs f as the phase name: timed (Start) and recorded when f
// succeeds; f's error is returned, and the phase is then not recorded.
func (r *Report) Phase(name string, f func() error) error {
	tm := r.Start(name)
	if err := f(); err != nil {
		return err
	}
	tm.Done()
	return nil
}

// processCPU returns the CPU time the process has used, user and system, or
// 0 if the system does not say.
func processCPU() time.Duration {
	d, _ := rusage.CPU()
	return d
}

// Histogram counts similarities in the bins of simjoin.Stats.Similarity:
// 0.05 wide over [0, 1]. The zero value is empty and ready.
type Histogram [simjoin.SimilarityBins]int64

// Add counts one similarity.
func (h *Histogram) Add(sim float64) { h[simjoin.SimilarityBin(sim)]++ }

// Bins returns the non-empty bins (Bins).
func (h *Histogram) Bins() []Bin { return Bins(h[:]) }

// Counter counts the pairs of a join and their similarities as they stream
// out (Add is a join's yield function), for SetResults.
type Counter struct {
	N    int64
	Hist Histogram
}

// Add counts p; it returns true, so that the join goes on.
func (c *Counter) Add(p join.Pair) bool {
	c.N++
	c.Hist.Add(p.Sim)
	return true
}

// AddSteps records the steps of a cross-check (planner.MeasureLSH's
// CrossCheck.Steps) as phases.
func (r *Report) AddSteps(steps []planner.Step) {
	for _, st := range steps {
		r.Phases = append(r.Phases, Phase{Name: st.String(), Seconds: st.Seconds, CPU: st.CPU})
	}
}

// SetResults records the number of results and the histogram of their
// similarities; a join by the overlap measure, whose similarities are
// integers, gets no histogram.
func (r *Report) SetResults(n int64, h *Histogram, m prefix.Measure) {
	r.Results = n
	if m != prefix.Overlap {
		r.Histogram = h.Bins()
	}
}

// NoteCompressed records that the input name was read decompressed from
// format f; it records nothing for decompress.None.
func (r *Report) NoteCompressed(name string, f decompress.Format) {
	if f != decompress.None {
		r.Compressed = append(r.Compressed, name+": "+string(f))
	}
}

// Emit completes the report with the process's peak resident set and writes
// it: as text to text (WriteText), then as JSON to js (WriteJSON). A nil
// writer is not written; the error is js's.
func (r *Report) Emit(text, js io.Writer) error {
	r.PeakRSS = rusage.PeakRSS()
	if text != nil {
		r.WriteText(text)
	}
	if js != nil {
		return r.WriteJSON(js)
	}
	return nil
}
