package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/outfile"
	rpt "github.com/simjoin/simjoin/internal/report"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
)

// report is the statistics report of a run: text for people (--stats, on
// stderr) and JSON for machines (--stats-json FILE). Every join command fills
// the same fields; paths that know more add sections.
type report struct {
	Command    string          `json:"command"`
	Input      []string        `json:"input"`
	Compressed []string        `json:"compressed,omitempty"` // "NAME: gzip" for each input decompressed
	Tokens     string          `json:"tokens"`
	Measure    string          `json:"measure"`
	Threshold  string          `json:"threshold"`
	Method     string          `json:"method"`
	Workers    int             `json:"workers"`
	Records    int             `json:"records"`
	Skipped    int             `json:"skipped_empty"`
	SetTokens  int             `json:"set_tokens"`
	Vocabulary int             `json:"vocabulary"`
	Exact      *join.Stats     `json:"-"` // written as exactJSON
	Sections   map[string]any  `json:"sections,omitempty"`
	Results    int64           `json:"results"`
	Histogram  []histogramBin  `json:"similarity_histogram,omitempty"`
	Phases     []phase         `json:"phases"`
	PeakRSS    int64           `json:"peak_rss_bytes"`
	extra      []reportSection // text of Sections, in order
}

// phase, histogramBin and reportSection are the report's parts, as
// internal/report renders them.
type (
	phase         = rpt.Phase
	histogramBin  = rpt.Bin
	reportSection = rpt.Section
)

// noteCompressed records that in was read decompressed, if it was.
func (r *report) noteCompressed(in *input) {
	if in.format != decompress.None {
		r.Compressed = append(r.Compressed, in.name+": "+string(in.format))
	}
}

// addSection adds a section: v goes into the JSON under key, rows into the text.
func (r *report) addSection(key, title string, v any, rows [][2]string) {
	if r.Sections == nil {
		r.Sections = map[string]any{}
	}
	r.Sections[key] = v
	r.extra = append(r.extra, reportSection{Title: title, Rows: rows})
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

// addPhase records a phase the library timed.
func (r *report) addPhase(name string, t simjoin.Timing) {
	r.Phases = append(r.Phases, phase{Name: name, Seconds: t.Wall.Seconds(), CPU: t.CPU.Seconds()})
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

// writeText writes the report for people, aligned, with units.
func (r *report) writeText(w io.Writer) {
	rows := [][2]string{
		{"command", r.Command},
		{"input", strings.Join(r.Input, " ")},
	}
	if len(r.Compressed) > 0 {
		rows = append(rows, [2]string{"decompressed", strings.Join(r.Compressed, ", ")})
	}
	rows = append(rows, [][2]string{
		{"tokens", r.Tokens},
		{"measure", r.Measure + " >= " + r.Threshold},
		{"method", r.Method},
		{"workers", strconv.Itoa(r.Workers)},
		{"records", numfmt.Group(int64(r.Records))},
		{"skipped (empty)", numfmt.Group(int64(r.Skipped))},
		{"set tokens", numfmt.Group(int64(r.SetTokens))},
		{"vocabulary", numfmt.Group(int64(r.Vocabulary))},
	}...)
	if r.Exact != nil {
		rows = append(rows, rpt.ExactRows(r.Exact)...)
	}
	rows = append(rows, [2]string{"results", numfmt.Group(r.Results)})
	rpt.WriteText(w, rows, r.extra, r.Histogram, r.Phases, r.PeakRSS)
}

// writeJSON writes the report as JSON to w.
func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// emit completes the report (its peak memory) and writes it where asked:
// as text on stderr (--stats), as JSON to jsonOut (--stats-json's file, nil
// when not asked).
func (r *report) emit(e *env, text bool, jsonOut *outfile.File) error {
	r.PeakRSS = peakRSS()
	if text {
		r.writeText(e.stderr)
	}
	if jsonOut != nil {
		if err := r.writeJSON(jsonOut); err != nil {
			return fmt.Errorf("--stats-json: %w", err)
		}
	}
	return nil
}
