package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// TestReasonText: each reason code is worded with the figures it compared,
// as simjoin explain and --stats have always printed them.
func TestReasonText(t *testing.T) {
	for _, tc := range []struct {
		p    planner.Plan
		want string
	}{
		{planner.Plan{Method: planner.LSH, Forced: true, Reason: planner.Reason{Code: planner.ReasonAsked}}, "lsh was asked for"},
		{planner.Plan{Method: planner.Exact, Reason: planner.Reason{Code: planner.ReasonNoLSH}, LSH: planner.LSHEstimate{Why: errors.New("approx: no bound")}},
			"exact: LSH is not available here (no bound)"},
		{planner.Plan{Method: planner.Exact, Reason: planner.Reason{Code: planner.ReasonNoPairs}}, "exact: there are no pairs to join"},
		{planner.Plan{Method: planner.Exact, Reason: planner.Reason{Code: planner.ReasonExactWithin, ExactCPU: 0.00604320, LSHCPU: 0.0301, Prefer: 1.25}},
			"exact: whole run predicted at 6.04 ms of CPU against 30.1 ms for LSH (0.20x, inside the 1.25x margin by 6.23x); exact is kept within the margin, since it loses no pair"},
		{planner.Plan{Method: planner.LSH, Reason: planner.Reason{Code: planner.ReasonLSHCheaper, ExactCPU: 12, LSHCPU: 0.5, Prefer: 1.25, Recall: 0.9712, AtThreshold: 0.9}},
			"lsh: whole run predicted at 500 ms of CPU against 12.00 s for exact (24.00x less, outside the 1.25x margin by 19.20x), expected recall 0.971 (at least 0.900 for every pair at the threshold)"},
		{planner.Plan{Method: planner.LSH, Reason: planner.Reason{Code: planner.ReasonBeforeOrder, ExactCPU: 2.1, ExactLeast: 1.9, LSHCPU: 0.9, Prefer: 1.25, Recall: 0.998, AtThreshold: 0.954}},
			"lsh: whole run predicted at 900 ms of CPU against at least 1.90 s for exact, whose reading and token order alone cost that (2.11x, outside the 1.25x margin by 1.69x), so the order is not built; expected recall 0.998 (at least 0.954 for every pair at the threshold)"},
	} {
		if got := ReasonText(&tc.p); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.p.Reason, got, tc.want)
		}
	}
}

// TestPlanJSON: the report's plan is planner.Plan's JSON, key for key in
// its order, with the reason in words.
func TestPlanJSON(t *testing.T) {
	p := &planner.Plan{Method: planner.Exact, Measure: prefix.Dice, Threshold: prefix.Threshold{Num: 1, Den: 2}, Prefer: 1.25, Recall: 1,
		Reason:  planner.Reason{Code: planner.ReasonNoPairs},
		Figures: []planner.Figure{{Name: planner.FigureExactCPU, Value: 0.5}}}
	b, err := json.Marshal(PlanJSON{p})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"method":"exact","measure":"dice","threshold":"0.5","prefer":1.25,"recall":1,"reason":"exact: there are no pairs to join",` +
		`"figures":[{"name":"exact predicted CPU","value":0.5,"unit":"s"}],"front_end":{`
	if !strings.HasPrefix(string(b), want) || !strings.HasSuffix(string(b), `"plan_s":0,"plan_cpu_s":0}`) {
		t.Errorf("plan JSON\n%s\nwant it to start\n%s", b, want)
	}
	lib, _ := json.Marshal(p)
	strip := func(s string) string { // the reason's value
		_, after, _ := strings.Cut(s, `"reason":`)
		_, after, _ = strings.Cut(after, `,"figures"`)
		return after
	}
	if strip(string(b)) != strip(string(lib)) {
		t.Errorf("after the reason, the report's plan\n%s\ndiffers from the library's\n%s", b, lib)
	}
	ex, err := json.Marshal(ExplainJSON(&simjoin.Explanation{Plan: p}))
	if err != nil || !strings.HasPrefix(string(ex), `{"plan":`+string(b)+`}`) {
		t.Errorf("explain JSON %s, %v", ex, err)
	}
}

// TestWriteExplanation: explain's JSON is ExplainJSON indented, its text
// WriteExplain's, each written whole; a write error is returned.
func TestWriteExplanation(t *testing.T) {
	res := &simjoin.Explanation{Plan: &planner.Plan{Method: planner.Exact, Measure: prefix.Jaccard, Threshold: prefix.Threshold{Num: 1, Den: 2},
		Reason: planner.Reason{Code: planner.ReasonNoPairs}}}
	var js, text, want bytes.Buffer
	if err := WriteExplanation(&js, res, true, false, 1); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(ExplainJSON(res), "", "  ")
	if js.String() != string(b)+"\n" {
		t.Errorf("JSON:\n%s\nwant\n%s", js.String(), b)
	}
	if err := WriteExplanation(&text, res, false, true, 7); err != nil {
		t.Fatal(err)
	}
	if WriteExplain(&want, res, true, 7); text.String() != want.String() {
		t.Errorf("text:\n%s\nwant\n%s", text.String(), want.String())
	}
	if err := WriteExplanation(failWriter{}, res, false, false, 1); err == nil {
		t.Error("a write error was dropped")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
