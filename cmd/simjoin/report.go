package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/numfmt"
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

type phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"wall_s"`
	// CPU is the process's CPU time (user and system, all threads, the
	// runtime's included) during the phase: what a loaded machine disturbs
	// least, and what one worker's phase compares with a single-threaded
	// program's. Absent for phases timed inside the library (passwords'
	// grams and order).
	CPU float64 `json:"cpu_s,omitempty"`
}

type histogramBin struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Count int64   `json:"count"`
}

// reportSection is a titled block of rows that a path adds to the report.
type reportSection struct {
	title string
	rows  [][2]string
}

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
	r.extra = append(r.extra, reportSection{title, rows})
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
	r.Phases = append(r.Phases, phase{name, t.Wall.Seconds(), t.CPU.Seconds()})
}

func (t *timer) done(name string) {
	t.r.Phases = append(t.r.Phases, phase{name, time.Since(t.start).Seconds(), (processCPU() - t.cpu).Seconds()})
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

func (h *histogram) bins() []histogramBin {
	var out []histogramBin
	for k, n := range h {
		if n > 0 {
			out = append(out, histogramBin{float64(k) / simjoin.SimilarityBins, float64(k+1) / simjoin.SimilarityBins, n})
		}
	}
	return out
}

// peakRSS returns the peak resident set size of the process in bytes.
func peakRSS() int64 { return rusage.PeakRSS() }

// The formatting of internal/report, by the names the commands use.
var (
	plural    = rpt.Plural
	binLabel  = rpt.BinLabel
	bytesText = rpt.Bytes
	count     = rpt.Count
	pct       = rpt.Pct
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
	if s := r.Exact; s != nil {
		rows = append(rows,
			[2]string{"distinct sets", numfmt.Group(int64(s.Groups))},
			[2]string{"index entries", numfmt.Group(int64(s.IndexEntries))},
			[2]string{"postings scanned", numfmt.Group(s.Postings)},
			[2]string{"size filter skipped", numfmt.Group(s.SizePruned)},
			[2]string{"position skipped", numfmt.Group(s.LateSkipped)},
			[2]string{"candidates", numfmt.Group(s.Candidates)},
			[2]string{"  positional filter", numfmt.Group(s.Positional) + pct(s.Positional, s.Candidates)},
			[2]string{"  count bound", numfmt.Group(s.BoundPruned) + pct(s.BoundPruned, s.Candidates)},
			[2]string{"  bitmap bound", numfmt.Group(s.BitmapPruned) + pct(s.BitmapPruned, s.Candidates)},
			[2]string{"  verified by merge", numfmt.Group(s.Verified) + pct(s.Verified, s.Candidates)},
		)
	}
	rows = append(rows, [2]string{"results", numfmt.Group(r.Results)})
	width := 0
	for _, row := range rows {
		width = max(width, len(row[0]))
	}
	for _, sec := range r.extra {
		for _, row := range sec.rows {
			width = max(width, len(row[0])+2)
		}
	}
	for _, ph := range r.Phases {
		width = max(width, len(ph.Name)+2)
	}
	line := func(k, v string) { fmt.Fprintf(w, "%-*s  %s\n", width, k, v) }
	for _, row := range rows {
		line(row[0], row[1])
	}
	for _, sec := range r.extra {
		fmt.Fprintf(w, "%s:\n", sec.title)
		for _, row := range sec.rows {
			line("  "+row[0], row[1])
		}
	}
	if len(r.Histogram) > 0 {
		fmt.Fprintln(w, "similarity histogram:")
		var most int64
		for _, b := range r.Histogram {
			most = max(most, b.Count)
		}
		for _, b := range r.Histogram {
			bar := strings.Repeat("#", int(math.Ceil(30*float64(b.Count)/float64(most))))
			fmt.Fprintf(w, "  %s  %*s  %s\n", binLabel(b.From, b.To), 12, numfmt.Group(b.Count), bar)
		}
	}
	fmt.Fprintln(w, "phases:")
	total := 0.0
	for _, ph := range r.Phases {
		line("  "+ph.Name, fmt.Sprintf("%.3f s", ph.Seconds))
		total += ph.Seconds
	}
	line("  total", fmt.Sprintf("%.3f s", total))
	line("peak memory", bytesText(r.PeakRSS))
}

// writeJSON writes the report as JSON to w.
func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
