package main

import (
	"fmt"
	"time"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/infile"
	"github.com/simjoin/simjoin/internal/outfile"
	rpt "github.com/simjoin/simjoin/internal/report"
	"github.com/simjoin/simjoin/internal/rusage"
)

// report is the statistics report of a run (internal/report), with the
// names the commands use.
type report struct{ rpt.Report }

// phase and histogramBin are the report's parts, as internal/report renders
// them.
type (
	phase        = rpt.Phase
	histogramBin = rpt.Bin
)

// noteCompressed records that in was read decompressed, if it was.
func (r *report) noteCompressed(in *infile.File) {
	if in.Format != decompress.None {
		r.Compressed = append(r.Compressed, in.Name+": "+string(in.Format))
	}
}

// addSection adds a section: v goes into the JSON under key, rows into the text.
func (r *report) addSection(key, title string, v any, rows [][2]string) {
	r.AddSection(key, title, v, rows)
}

// timer records the phases of a run.
type timer struct {
	r     *report
	start time.Time
	cpu   time.Duration
}

func (r *report) phase(name string) *timer {
	return &timer{r: r, start: time.Now(), cpu: processCPU()}
}

func (t *timer) done(name string) {
	t.r.Phases = append(t.r.Phases, phase{Name: name, Seconds: time.Since(t.start).Seconds(), CPU: (processCPU() - t.cpu).Seconds()})
}

// processCPU returns the CPU time the process has used, user and system, or
// 0 if the system does not say.
func processCPU() time.Duration {
	d, _ := rusage.CPU()
	return d
}

// histogram counts similarities in the bins of simjoin.Stats.Similarity:
// 0.05 wide over [0, 1].
type histogram [simjoin.SimilarityBins]int64

func (h *histogram) add(sim float64) { h[simjoin.SimilarityBin(sim)]++ }

func (h *histogram) bins() []histogramBin { return rpt.Bins(h[:]) }

// peakRSS returns the peak resident set size of the process in bytes.
func peakRSS() int64 { return rusage.PeakRSS() }

// The formatting of internal/report, by the names the commands use.
var (
	plural    = rpt.Plural
	binLabel  = rpt.BinLabel
	bytesText = rpt.Bytes
	count     = rpt.Count
)

// emit completes the report (its peak memory) and writes it where asked:
// as text on stderr (--stats), as JSON to jsonOut (--stats-json's file, nil
// when not asked).
func (r *report) emit(e *env, text bool, jsonOut *outfile.File) error {
	r.PeakRSS = peakRSS()
	if text {
		r.WriteText(e.stderr)
	}
	if jsonOut != nil {
		if err := r.WriteJSON(jsonOut); err != nil {
			return fmt.Errorf("--stats-json: %w", err)
		}
	}
	return nil
}
