package report

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// TestNewJoin: a join's report names its tokenizer, measure and threshold.
func TestNewJoin(t *testing.T) {
	r := NewJoin("dedup", []string{"in.txt"}, shingle.Spec{Kind: shingle.Shingle, N: 3}, prefix.Cosine, prefix.Threshold{Num: 4, Den: 5}, 2)
	if r.Command != "dedup" || r.Input[0] != "in.txt" || r.Tokens != "shingle:3" || r.Measure != "cosine" || r.Threshold != "0.8" || r.Workers != 2 || r.Method != "" {
		t.Errorf("report %+v", r)
	}
}

// TestJoinInput: a self-join's inputs as given, an R-S join's with
// --against after them; the inputs are not aliased.
func TestJoinInput(t *testing.T) {
	in := []string{"a.txt"}
	if got := JoinInput(in, ""); strings.Join(got, " ") != "a.txt" {
		t.Errorf("self-join: %q", got)
	}
	got := JoinInput(in, "b.txt")
	if strings.Join(got, " ") != "a.txt --against b.txt" || in[0] != "a.txt" {
		t.Errorf("R-S join: %q", got)
	}
	if got[0] = "x"; in[0] != "a.txt" {
		t.Error("JoinInput aliases its inputs")
	}
}

// TestAddInput: the phases of loading, the input's counts, the vocabulary
// counted only when asked and only when the report is written (a join that
// builds the order counts it: AddJoin), and the files section of --files.
func TestAddInput(t *testing.T) {
	st := simjoin.Stats{Records: 10, Skipped: 1, Tokens: 40, Vocabulary: -1, Read: simjoin.Timing{Wall: time.Second}}
	var r Report
	r.AddInput(st, nil, false, 0)
	if len(r.Phases) != 1 || r.Phases[0] != (Phase{Name: "read", Seconds: 1}) || r.Records != 10 || r.Skipped != 1 || r.SetTokens != 40 || r.Vocabulary != -1 || r.Sections != nil {
		t.Errorf("line input: %+v", r)
	}
	st.Order, st.Files = simjoin.Timing{Wall: time.Millisecond}, &fileset.Stats{Listed: 3, Selected: 2, Records: 2}
	r = Report{}
	counted := 0
	r.AddInput(st, func() int { counted++; return 7 }, true, 2)
	if len(r.Phases) != 2 || r.Phases[0].Name != "read+tokenize" || r.Phases[1].Name != "order" || r.Vocabulary != -1 || counted != 0 {
		t.Errorf("files: phases %+v, vocabulary %d (counted %d times)", r.Phases, r.Vocabulary, counted)
	}
	if r.WriteText(io.Discard); r.Vocabulary != 7 || counted != 1 {
		t.Errorf("written: vocabulary %d (counted %d times)", r.Vocabulary, counted)
	}
	if _, ok := r.Sections["files"]; !ok || len(r.extra) != 1 || r.extra[0].Rows[2][0] != "unreadable, skipped" {
		t.Errorf("files section %+v", r.extra)
	}
}

// TestAddJoin: a planned join reports its plan, a join of a given method
// says so; the counters, results and histogram of the path that ran, and
// the LSH section when LSH ran.
func TestAddJoin(t *testing.T) {
	var r Report
	plan := &planner.Plan{Method: planner.Exact, Reason: planner.Reason{Code: planner.ReasonNoPairs}}
	st := simjoin.Stats{Method: planner.Exact, Plan: plan, Exact: &join.Stats{}, Results: 3}
	st.Similarity[simjoin.SimilarityBin(1)] = 3
	if w := r.AddJoin(st, "auto", prefix.Jaccard, prefix.Threshold{Num: 4, Den: 5}); w != "" {
		t.Errorf("exact join: warning %q", w)
	}
	if r.Sections["plan"] != (PlanJSON{plan}) || r.extra[0].Rows[1] != [2]string{"why", "exact: there are no pairs to join"} || r.Method != "exact" || r.Exact != st.Exact || r.Results != 3 || len(r.Histogram) != 1 {
		t.Errorf("planned join: %+v", r)
	}
	r = Report{}
	st = simjoin.Stats{Method: planner.LSH, LSH: &approx.Stats{Shape: approx.Shape{B: 4, R: 2}}, Results: 2}
	if w := r.AddJoin(st, "lsh", prefix.Overlap, prefix.Threshold{Num: 2, Den: 1}); w != "" {
		t.Errorf("LSH join, no bucket capped: warning %q", w)
	}
	given, ok := r.Sections["plan"].(GivenPlan)
	if !ok || given.Method != "lsh" || !given.Forced || !strings.Contains(given.Reason, "not planned") {
		t.Errorf("given method: plan section %+v", r.Sections["plan"])
	}
	if _, ok := r.Sections["lsh"].(LSH); !ok || r.Histogram != nil || r.Results != 2 {
		t.Errorf("LSH join by overlap: lsh section %v, histogram %v, results %d", r.Sections["lsh"], r.Histogram, r.Results)
	}
	capped := approx.Stats{CappedBuckets: 1200, MaxBucket: 50, CappedPairs: 5, LargestBucket: 70}
	w := CappedWarning(&capped)
	if aw := (&Report{}).AddJoin(simjoin.Stats{Method: planner.LSH, LSH: &capped}, "lsh", prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}); aw != w {
		t.Errorf("capped buckets: AddJoin's warning %q, want %q", aw, w)
	}
	if !strings.HasPrefix(w, "1,200 LSH bucket(s) over --max-bucket 50 ") || !strings.Contains(w, "holds 70 sets") {
		t.Errorf("capped warning %q", w)
	}
}
