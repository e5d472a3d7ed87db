package planner

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/prefix"
)

// TestNames: every value of the typed names has a name of its own, which
// String and MarshalText give, and a value without one prints as kind(n).
func TestNames(t *testing.T) {
	checkNames(t, "phase", PhaseVerify)
	checkNames(t, "term", TermBandCollisions)
	checkNames(t, "figure", FigureResults)
	checkNames(t, "step", StepLSH)
	checkNames(t, "reason", ReasonPending)
	checkNames(t, "tokenizer", TokenizeGo)
	if PhaseName(0).String() != "phase(0)" || Method(7).String() != "method(7)" || Unit(9).String() != "unit(9)" {
		t.Errorf("zero phase %q, method 7 %q, unit 9 %q", PhaseName(0), Method(7), Unit(9))
	}
}

// checkNames checks the names of the values 1 to last of a typed name.
func checkNames[T interface {
	~uint8
	String() string
	MarshalText() ([]byte, error)
}](t *testing.T, kind string, last T) {
	seen := map[string]bool{}
	first := T(1)
	if kind == "tokenizer" {
		first = 0 // TokenizeNone has a name: "sets"
	}
	for v := first; v <= last; v++ {
		s := v.String()
		text, err := v.MarshalText()
		if s == "" || s == kind+"("+strconv.Itoa(int(v))+")" || seen[s] || string(text) != s || err != nil {
			t.Errorf("%s %d: name %q (seen %v), text %q, %v", kind, v, s, seen[s], text, err)
		}
		seen[s] = true
	}
	if s := (last + 1).String(); s != kind+"("+strconv.Itoa(int(last)+1)+")" {
		t.Errorf("%s %d: %q", kind, last+1, s)
	}
}

// TestPlanJSON: the typed fields of a plan marshal as the names and text
// its JSON has always held: the measure and threshold as text, figures with
// their units (none for counts), LSH's scheme when available and why not
// otherwise, terms and phases by name, a check's steps by name.
func TestPlanJSON(t *testing.T) {
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{Figure{FigureExactCPU, 0.5}, `{"name":"exact predicted CPU","value":0.5,"unit":"s"}`},
		{Figure{FigureExactOverLSH, 2}, `{"name":"exact / lsh","value":2,"unit":"x"}`},
		{Figure{FigureProbeShare, 12.5}, `{"name":"probe prefix share of tokens","value":12.5,"unit":"%"}`},
		{Figure{FigureKeyPostings, 7}, `{"name":"key postings","value":7}`},
		{LSHEstimate{Why: errors.New("approx: no bound")}, `{"available":false,"why":"approx: no bound","seed":0,"cost":{"wall_s":0,"cpu_s":0,"parallel":0,"terms":null}}`},
		{LSHEstimate{Available: true, Scheme: approx.OnePerm, K: 128, Bits: 32, Bands: 32, Rows: 4, Seed: 1},
			`{"available":true,"scheme":"oneperm","k":128,"bits":32,"bands":32,"rows":4,"seed":1,"cost":{"wall_s":0,"cpu_s":0,"parallel":0,"terms":null}}`},
		{Term{Name: TermPrefixPostings, Phase: PhaseJoin, Count: 2, Nanos: 3, CPU: 6e-9},
			`{"name":"prefix postings","phase":"join","count":2,"cpu_ns_per_unit":3,"cpu_s":6e-9}`},
		{Phase{PhaseSignatures, 1.5, 1.25}, `{"name":"signatures","wall_s":1.5,"cpu_s":1.25}`},
		{[]Step{{Kind: StepExact, Seconds: 1, CPU: 2}, {Kind: StepLSH, Shape: approx.Shape{B: 6, R: 4}, Seconds: 3}},
			`[{"name":"exact","wall_s":1,"cpu_s":2},{"name":"lsh 6x4","wall_s":3,"cpu_s":0}]`},
		{Reason{Code: ReasonExactWithin, ExactCPU: 1, LSHCPU: 2, Prefer: 1.25},
			`{"code":"exact_within","exact_cpu_s":1,"lsh_cpu_s":2,"prefer":1.25}`},
	} {
		if got := js(tc.v); got != tc.want {
			t.Errorf("%+v marshals as\n%s\nwant\n%s", tc.v, got, tc.want)
		}
	}
	var m map[string]json.RawMessage
	p := &Plan{Method: Exact, Measure: prefix.Cosine, Threshold: prefix.Threshold{Num: 4, Den: 5}, Reason: Reason{Code: ReasonNoPairs}}
	if err := json.Unmarshal([]byte(js(p)), &m); err != nil {
		t.Fatal(err)
	}
	if string(m["method"]) != `"exact"` || string(m["measure"]) != `"cosine"` || string(m["threshold"]) != `"0.8"` || string(m["reason"]) != `{"code":"no_pairs"}` {
		t.Errorf("plan: method %s, measure %s, threshold %s, reason %s", m["method"], m["measure"], m["threshold"], m["reason"])
	}
}
