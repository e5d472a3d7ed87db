package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/join"
)

// Phase is one timed phase of a run in the report.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"wall_s"`
	// CPU is the process's CPU time (user and system, all threads, the
	// runtime's included) during the phase: what a loaded machine disturbs
	// least, and what one worker's phase compares with a single-threaded
	// program's. Absent for phases timed inside the library (passwords'
	// grams and order).
	CPU float64 `json:"cpu_s,omitempty"`
}

// Bin is one bin of the similarity histogram: Count pairs in [From, To).
type Bin struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Count int64   `json:"count"`
}

// Bins returns the non-empty bins of counts, bin k holding [k/n, (k+1)/n)
// for n bins (simjoin.Stats.Similarity).
func Bins(counts []int64) []Bin {
	var out []Bin
	n := float64(len(counts))
	for k, c := range counts {
		if c > 0 {
			out = append(out, Bin{float64(k) / n, float64(k+1) / n, c})
		}
	}
	return out
}

// Section is a titled block of rows that a path adds to the report's text.
type Section struct {
	Title string
	Rows  [][2]string
}

// ExactRows is the text of the exact join's counters.
func ExactRows(s *join.Stats) [][2]string {
	return [][2]string{
		{"distinct sets", numfmt.Group(int64(s.Groups))},
		{"index entries", numfmt.Group(int64(s.IndexEntries))},
		{"postings scanned", numfmt.Group(s.Postings)},
		{"size filter skipped", numfmt.Group(s.SizePruned)},
		{"position skipped", numfmt.Group(s.LateSkipped)},
		{"candidates", numfmt.Group(s.Candidates)},
		{"  positional filter", numfmt.Group(s.Positional) + Pct(s.Positional, s.Candidates)},
		{"  count bound", numfmt.Group(s.BoundPruned) + Pct(s.BoundPruned, s.Candidates)},
		{"  bitmap bound", numfmt.Group(s.BitmapPruned) + Pct(s.BitmapPruned, s.Candidates)},
		{"  verified by merge", numfmt.Group(s.Verified) + Pct(s.Verified, s.Candidates)},
	}
}

// WriteText writes the statistics report for people: the rows, then each
// section's rows indented under its title, the similarity histogram, the
// phases with their total, and the peak memory; keys aligned in one column.
func WriteText(w io.Writer, rows [][2]string, sections []Section, hist []Bin, phases []Phase, peakRSS int64) {
	width := 0
	for _, row := range rows {
		width = max(width, len(row[0]))
	}
	for _, sec := range sections {
		for _, row := range sec.Rows {
			width = max(width, len(row[0])+2)
		}
	}
	for _, ph := range phases {
		width = max(width, len(ph.Name)+2)
	}
	line := func(k, v string) { fmt.Fprintf(w, "%-*s  %s\n", width, k, v) }
	for _, row := range rows {
		line(row[0], row[1])
	}
	for _, sec := range sections {
		fmt.Fprintf(w, "%s:\n", sec.Title)
		for _, row := range sec.Rows {
			line("  "+row[0], row[1])
		}
	}
	if len(hist) > 0 {
		fmt.Fprintln(w, "similarity histogram:")
		var most int64
		for _, b := range hist {
			most = max(most, b.Count)
		}
		for _, b := range hist {
			bar := strings.Repeat("#", int(math.Ceil(30*float64(b.Count)/float64(most))))
			fmt.Fprintf(w, "  %s  %*s  %s\n", BinLabel(b.From, b.To), 12, numfmt.Group(b.Count), bar)
		}
	}
	fmt.Fprintln(w, "phases:")
	total := 0.0
	for _, ph := range phases {
		line("  "+ph.Name, fmt.Sprintf("%.3f s", ph.Seconds))
		total += ph.Seconds
	}
	line("  total", fmt.Sprintf("%.3f s", total))
	line("peak memory", numfmt.Bytes(peakRSS, 2))
}
