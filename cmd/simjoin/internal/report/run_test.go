package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// TestHistogram: similarities go to the bins of simjoin.Stats.Similarity,
// 1 into the top bin, and only the non-empty bins are listed.
func TestHistogram(t *testing.T) {
	var h Histogram
	for _, s := range []float64{1, 1, 0.5, 0.52, 0.049} {
		h.Add(s)
	}
	want := []Bin{{0, 0.05, 1}, {0.5, 0.55, 2}, {0.95, 1, 2}}
	if got := h.Bins(); !slices.Equal(got, want) {
		t.Errorf("bins %v, want %v", got, want)
	}
	var r Report
	r.SetResults(5, &h, prefix.Jaccard)
	if r.Results != 5 || !slices.Equal(r.Histogram, want) {
		t.Errorf("jaccard: results %d, histogram %v", r.Results, r.Histogram)
	}
	r = Report{}
	r.SetResults(5, &h, prefix.Overlap)
	if r.Results != 5 || r.Histogram != nil {
		t.Errorf("overlap: results %d, histogram %v, want none", r.Results, r.Histogram)
	}
}

// TestCounter: pairs counted with their similarities, and the steps of a
// cross-check recorded as phases.
func TestCounter(t *testing.T) {
	var c Counter
	for _, s := range []float64{1, 0.5} {
		if !c.Add(join.Pair{Sim: s}) {
			t.Fatal("Add stopped the join")
		}
	}
	if c.N != 2 || c.Hist[simjoin.SimilarityBin(1)] != 1 || c.Hist[simjoin.SimilarityBin(0.5)] != 1 {
		t.Errorf("counter %+v", c)
	}
	var r Report
	r.AddSteps([]planner.Step{{Kind: planner.StepExact, Seconds: 2, CPU: 3}, {Kind: planner.StepLSH, Shape: approx.Shape{B: 4, R: 2}, Seconds: 1}})
	if len(r.Phases) != 2 || r.Phases[0] != (Phase{"exact", 2, 3}) || r.Phases[1].Name != "lsh 4x2" {
		t.Errorf("phases %+v", r.Phases)
	}
}

// TestPhase: a phase that succeeds is recorded after the phases before it;
// one that fails returns its error and is not recorded.
func TestPhase(t *testing.T) {
	r := &Report{}
	r.Start("read").Done()
	ran := false
	if err := r.Phase("write", func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("write: ran %v, %v", ran, err)
	}
	fail := errors.New("disk full")
	if err := r.Phase("again", func() error { return fail }); err != fail {
		t.Errorf("failed phase: %v", err)
	}
	if len(r.Phases) != 2 || r.Phases[1].Name != "write" || r.Phases[1].Seconds < 0 {
		t.Errorf("phases %+v", r.Phases)
	}
}

// TestTimerAndEmit: phases are recorded in order under their names,
// compressed inputs are noted, and Emit writes the text and the JSON with
// the peak memory filled in.
func TestTimerAndEmit(t *testing.T) {
	r := &Report{Command: "join", Input: []string{"a.gz", "b"}}
	r.NoteCompressed("a.gz", decompress.Gzip)
	r.NoteCompressed("b", decompress.None)
	r.Start("read").Done()
	r.Start("join").Done()
	if len(r.Phases) != 2 || r.Phases[0].Name != "read" || r.Phases[1].Name != "join" || r.Phases[0].Seconds < 0 {
		t.Errorf("phases %+v", r.Phases)
	}
	if !slices.Equal(r.Compressed, []string{"a.gz: gzip"}) {
		t.Errorf("compressed %q", r.Compressed)
	}
	var text, js bytes.Buffer
	if err := r.Emit(&text, &js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "decompressed") || !strings.Contains(text.String(), "a.gz: gzip") {
		t.Errorf("text report:\n%s", text.String())
	}
	var m map[string]any
	if err := json.Unmarshal(js.Bytes(), &m); err != nil || m["command"] != "join" {
		t.Fatalf("JSON report %v: %s", err, js.String())
	}
	if rss, _ := m["peak_rss_bytes"].(float64); rss <= 0 && r.PeakRSS != 0 {
		t.Errorf("peak_rss_bytes %v, report %d", m["peak_rss_bytes"], r.PeakRSS)
	}
	if err := r.Emit(nil, nil); err != nil {
		t.Errorf("Emit to nowhere: %v", err)
	}
}

// TestTimerCarvesNested: a phase recorded while a timer runs (the order a
// join builds for the planner) is a phase of its own, before the timer's,
// and the timer's time is what remains (here none: the nested phase is
// longer than anything the timer can have seen); AddJoin adds the order a
// join built once, and the distinct tokens it counted.
func TestTimerCarvesNested(t *testing.T) {
	r := &Report{Vocabulary: -1}
	tm := r.Start("join")
	st := simjoin.Stats{Order: simjoin.Timing{Wall: time.Hour, CPU: time.Hour}, Vocabulary: 42}
	r.AddJoin(st, "auto", prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})
	r.AddJoin(st, "auto", prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})
	tm.Done()
	if len(r.Phases) != 2 || r.Phases[0].Name != "order" || r.Phases[1].Name != "join" || r.Vocabulary != 42 {
		t.Fatalf("phases %+v, vocabulary %d", r.Phases, r.Vocabulary)
	}
	if j := r.Phases[1]; j.Seconds != 0 || j.CPU != 0 {
		t.Errorf("join phase %+v: the order's hour is not carved out of it", j)
	}
}
