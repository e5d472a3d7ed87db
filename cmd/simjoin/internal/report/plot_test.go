package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// plotCheck is a cross-check of two bandings run with two seeds: ten true
// pairs at or above the threshold, a sampled bin below the floor.
func plotCheck() *planner.CrossCheck {
	bins := func(found int64) []planner.Bin {
		return []planner.Bin{
			{From: 0, To: 0.5, Pairs: 40, Found: 2, Recall: planner.Interval{Estimate: 0.025}, Predicted: 0.02, Sampled: true, Estimate: 4000},
			{From: 0.5, To: 1, Pairs: 10, Found: found, Recall: planner.Interval{Estimate: float64(found) / 20}, Predicted: 0.9, Estimate: 10},
		}
	}
	return &planner.CrossCheck{Floor: 0.5, Pairs: 10, AboveFloor: 10, Sampled: 40, Bandings: []planner.Banding{
		{Shape: approx.Shape{B: 4, R: 2}, Runs: make([]planner.Run, 2), Candidates: 120.4, PredictedCandidates: 99.6, Found: 9, Recall: 0.9, RecallMin: 0.8, RecallMax: 1, Predicted: 0.92, Seconds: 0.25, Bins: bins(18)},
		{Shape: approx.Shape{B: 2, R: 4}, Runs: make([]planner.Run, 2), Candidates: 30, PredictedCandidates: 28, Found: 6, Recall: 0.6, RecallMin: 0.5, RecallMax: 0.7, Predicted: 0.55, Seconds: 0.5, Bins: bins(12)},
	}}
}

// TestWritePlotTable: the summary, a line per banding and a line per bin,
// found pairs averaged over the seeds and sampled bins marked.
func TestWritePlotTable(t *testing.T) {
	var w bytes.Buffer
	if err := WritePlotTable(&w, 101, 100, prefix.Threshold{Num: 3, Den: 5}, 8, plotCheck()); err != nil {
		t.Fatal(err)
	}
	want := `101 records (100 non-empty), 4,950 pairs; 10 pairs at J >= 0.6; truth: exact at J >= 0.50 (10 pairs), below it sampled 40 pairs of distinct sets

  banding  K  seeds  candidates  predicted  found  of  recall    (min-max)  predicted
      4x2  8      2         120        100      9  10   0.900  0.800-1.000      0.920
      2x4  8      2          30         28      6  10   0.600  0.500-0.700      0.550

    similarity   pairs  4x2 found  share   P(s)  2x4 found  share   P(s)
  [0.00, 0.50)  ~4,000     1.0/40  0.025  0.020     1.0/40  0.025  0.020
  [0.50, 1.00]      10        9.0  0.900  0.900        6.0  0.600  0.900
`
	if w.String() != want {
		t.Errorf("got\n%s\nwant\n%s", w.String(), want)
	}
}

// TestAddPlot: one shape a banding in the JSON, one row a banding in the
// text, under a title that says where the truth was found.
func TestAddPlot(t *testing.T) {
	var r Report
	r.AddPlot(plotCheck(), 8, 2)
	b, err := json.Marshal(r.Sections["plot"])
	if err != nil {
		t.Fatal(err)
	}
	var shapes []map[string]any
	if err := json.Unmarshal(b, &shapes); err != nil || len(shapes) != 2 || shapes[0]["shape"] != "4x2" || shapes[1]["lsh_s"] != 0.5 || shapes[0]["exact"] != 10.0 {
		t.Fatalf("plot section %s: %v", b, err)
	}
	if bins := shapes[0]["bins"].([]any); len(bins) != 2 || bins[0].(map[string]any)["pairs"] != 4000.0 || bins[0].(map[string]any)["sampled"] != true {
		t.Errorf("bins %v", bins)
	}
	sec := r.extra[0]
	if sec.Title != "LSH against the exact join (truth at J >= 0.50, 40 pairs sampled below)" || len(sec.Rows) != 2 ||
		!strings.HasPrefix(sec.Rows[0][1], "120 candidates (predicted 100), recall 0.900 (predicted 0.920; 2 seeds: 0.800 to 1.000)") {
		t.Errorf("text section %+v", sec)
	}
}
