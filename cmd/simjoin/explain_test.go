package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
)

// explainJSON is the part of explain --json the tests read.
type explainJSON struct {
	Plan struct {
		Method  string  `json:"method"`
		Forced  bool    `json:"forced"`
		Reason  string  `json:"reason"`
		Recall  float64 `json:"recall"`
		Figures []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"figures"`
		Exact struct {
			Work struct {
				Postings int64 `json:"postings"`
			} `json:"work"`
			Cost struct {
				Seconds float64 `json:"wall_s"`
			} `json:"cost"`
		} `json:"exact"`
		LSH struct {
			Available bool `json:"available"`
			Bands     int  `json:"bands"`
			Rows      int  `json:"rows"`
			Cost      struct {
				Seconds float64 `json:"wall_s"`
			} `json:"cost"`
		} `json:"lsh"`
	} `json:"plan"`
	Analyze []struct {
		Method    string  `json:"method"`
		Predicted float64 `json:"predicted_cpu_s"`
		Measured  float64 `json:"measured_cpu_s"`
		Phases    []struct {
			Name      string  `json:"name"`
			Predicted float64 `json:"predicted_cpu_s"`
		} `json:"phases"`
		Terms []struct {
			Name      string  `json:"name"`
			Predicted float64 `json:"predicted"`
			Measured  float64 `json:"measured"`
		} `json:"terms"`
		Run struct {
			Results    int64 `json:"results"`
			Candidates int64 `json:"candidates"`
			Phases     []struct {
				Name string `json:"name"`
			} `json:"phases"`
		} `json:"run"`
	} `json:"analyze"`
	CrossCheck *struct {
		Whole  bool                    `json:"whole"`
		Exact  struct{ Results int64 } `json:"exact"`
		LSH    struct{ Results int64 } `json:"lsh"`
		Recall struct {
			K, N     int64
			Estimate float64
			Lo, Hi   float64
		} `json:"recall"`
		Precision struct{ Estimate float64 } `json:"precision"`
		Bins      []struct {
			From, To  float64
			Predicted float64
		} `json:"bins"`
	} `json:"cross_check"`
}

func lines(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// frequentFile writes long sets of frequent tokens, where LSH is the cheaper
// path at t = 0.5, with some near-duplicates to find.
func frequentFile(t *testing.T) string {
	t.Helper()
	sets := synth.Sets(synth.SetsConfig{N: 3000, MinSize: 200, MaxSize: 200, Universe: 3000, DupFraction: 0.05, Replace: 0.15, Seed: 4})
	path := filepath.Join(t.TempDir(), "frequent.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, s := range sets {
		for i, tok := range s {
			if i > 0 {
				w.WriteByte(' ')
			}
			w.WriteString("w" + strconv.Itoa(int(tok)))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestExplainText(t *testing.T) {
	code, out, stderr := runCLI(t, "explain", "-t", "0.8", "../../testdata/sets.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"plan ", "why ", "predicted recall", "input", "records", "set size", "token frequency",
		"predicted time", "exact cost", "lsh cost", "prefix postings", "band keys", "sample", "planning took"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "analyze") || strings.Contains(out, "cross-check") {
		t.Errorf("explain without --analyze or --cross-check ran something:\n%s", out)
	}
}

// TestExplainAnalyze: --analyze runs the chosen method whole; its measured
// results are the join's, its phases the whole run's (the read, the order,
// the join's), each beside its prediction; the terms' counts measured are
// the run's own. With --cross-check it runs the other method too.
func TestExplainAnalyze(t *testing.T) {
	code, pairs, _ := runCLI(t, "join", "-t", "0.6", "--method", "exact", "../../testdata/sets.txt")
	if code != 0 {
		t.Fatal("join failed")
	}
	code, out, stderr := runCLI(t, "explain", "-t", "0.6", "--method", "exact", "--analyze", "--json", "../../testdata/sets.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ex explainJSON
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(ex.Analyze) != 1 || ex.Analyze[0].Method != "exact" || !ex.Plan.Forced {
		t.Fatalf("analyze %+v, forced %v", ex.Analyze, ex.Plan.Forced)
	}
	a := ex.Analyze[0]
	if a.Run.Results != int64(lines(pairs)) {
		t.Errorf("analyze measured %d results, join wrote %d pairs", a.Run.Results, lines(pairs))
	}
	var phases []string
	for _, ph := range a.Phases {
		phases = append(phases, ph.Name)
	}
	if !slices.Equal(phases, []string{"read", "order", "index", "join"}) || a.Predicted <= 0 || a.Measured <= 0 {
		t.Errorf("phases %v, predicted %v s, measured %v s of CPU", phases, a.Predicted, a.Measured)
	}
	for _, term := range a.Terms {
		if term.Name == "results" && term.Measured != float64(lines(pairs)) {
			t.Errorf("term results: measured %v, join wrote %d", term.Measured, lines(pairs))
		}
	}
	code, out, _ = runCLI(t, "explain", "-t", "0.6", "--method", "lsh", "--analyze", "../../testdata/sets.txt")
	if code != 0 || !strings.Contains(out, "analyze: ran lsh") || !strings.Contains(out, "band collisions") || !strings.Contains(out, "signatures") {
		t.Errorf("explain --method lsh --analyze: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "explain", "-t", "0.6", "--analyze", "--cross-check", "all", "../../testdata/sets.txt")
	if code != 0 || strings.Count(out, "analyze: ran ") != 2 || !strings.Contains(out, "analyze: ran lsh") || !strings.Contains(out, "analyze: ran exact") {
		t.Errorf("explain --analyze --cross-check: exit %d\n%s", code, out)
	}
}

// TestExplainCrossCheck: on the whole input the cross-check's counts are
// those of join --method exact and join --method lsh with the same flags.
func TestExplainCrossCheck(t *testing.T) {
	in := "../../testdata/sets.txt"
	_, exact, _ := runCLI(t, "join", "-t", "0.5", "--method", "exact", in)
	_, lsh, _ := runCLI(t, "join", "-t", "0.5", "--method", "lsh", "--lsh", "6x4", "--seed", "3", in)
	code, out, stderr := runCLI(t, "explain", "-t", "0.5", "--lsh", "6x4", "--seed", "3", "--cross-check", "all", "--json", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ex explainJSON
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	cc := ex.CrossCheck
	if cc == nil || !cc.Whole {
		t.Fatalf("cross-check %+v", cc)
	}
	if cc.Exact.Results != int64(lines(exact)) || cc.LSH.Results != int64(lines(lsh)) || cc.Recall.N != cc.Exact.Results || cc.Recall.K != cc.LSH.Results {
		t.Errorf("cross-check exact %d lsh %d recall %d/%d; join wrote %d exact and %d lsh pairs",
			cc.Exact.Results, cc.LSH.Results, cc.Recall.K, cc.Recall.N, lines(exact), lines(lsh))
	}
	if cc.Precision.Estimate != 1 || cc.Recall.Lo > cc.Recall.Estimate || cc.Recall.Hi < cc.Recall.Estimate || len(cc.Bins) == 0 {
		t.Errorf("cross-check %+v", cc)
	}
	// A sample, in text.
	code, out, _ = runCLI(t, "explain", "-t", "0.5", "--cross-check", "800", in)
	for _, want := range []string{"cross-check: exact and lsh on a sample of 800 records (seed 1)", "recall ", "Clopper-Pearson", "recall by jaccard similarity", "S-curve"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("explain --cross-check 800: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
}

func TestExplainBadFlags(t *testing.T) {
	outFile := filepath.Join(t.TempDir(), "plan.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cross-check", "1"}, "--cross-check"},
		{[]string{"--cross-check", "some"}, "--cross-check"},
		{[]string{"--measure", "overlap", "-t", "2", "--cross-check", "all"}, "LSH is not available"},
		{[]string{"-t", "1.5"}, "threshold"},
		{[]string{"--method", "fast"}, "--method"},
	} {
		args := append([]string{"explain", "-t", "0.8", "-o", outFile}, tc.args...)
		args = append(args, "../../testdata/sets.txt")
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(outFile); err == nil {
			t.Fatalf("%v: output file left behind", tc.args)
		}
	}
	code, _, stderr := runCLI(t, "explain", "-t", "0.8", "no/such/file.txt")
	if code != exitRuntime || !strings.Contains(stderr, "no/such/file.txt") {
		t.Errorf("missing input: exit %d, %q", code, stderr)
	}
}

// TestJoinAutoPlans: join with the default --method auto records the plan in
// the statistics report, and follows it: exact on short sets at a high
// threshold, LSH on long sets of frequent tokens at 0.5, whose pairs are
// then a subset of the exact ones.
func TestJoinAutoPlans(t *testing.T) {
	dir := t.TempDir()
	statsFile := filepath.Join(dir, "stats.json")
	readStats := func() (method string, plan map[string]any) {
		b, err := os.ReadFile(statsFile)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Method   string `json:"method"`
			Sections map[string]map[string]any
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Method, rep.Sections["plan"]
	}
	code, _, stderr := runCLI(t, "join", "-t", "0.8", "--stats", "--stats-json", statsFile, "../../testdata/sets.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	method, plan := readStats()
	if method != "exact" || plan == nil || plan["method"] != "exact" || plan["reason"] == "" {
		t.Errorf("short sets at 0.8: method %q, plan %v", method, plan)
	}
	if !strings.Contains(stderr, "plan:") || !strings.Contains(stderr, "why") {
		t.Errorf("--stats lacks the plan section:\n%s", stderr)
	}
	// A method given: the report's plan section says so, and no planning ran.
	code, _, stderr = runCLI(t, "join", "-t", "0.8", "--method", "lsh", "--stats-json", statsFile, "../../testdata/sets.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	method, plan = readStats()
	if method != "lsh" || plan["method"] != "lsh" || plan["forced"] != true {
		t.Errorf("--method lsh: method %q, plan method %v forced %v", method, plan["method"], plan["forced"])
	}
	if reason, _ := plan["reason"].(string); !strings.Contains(reason, "not planned") || plan["figures"] != nil {
		t.Errorf("--method lsh: plan %v, want a method given and not planned", plan)
	}

	in := frequentFile(t)
	_, exact, _ := runCLI(t, "join", "-t", "0.5", "--method", "exact", in)
	code, auto, stderr := runCLI(t, "join", "-t", "0.5", "--stats-json", statsFile, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	method, plan = readStats()
	if method != "lsh" || plan["method"] != "lsh" {
		t.Fatalf("long frequent sets at 0.5: method %q, plan reason %v", method, plan["reason"])
	}
	truth := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(exact), "\n") {
		truth[l] = true
	}
	got := strings.Split(strings.TrimSpace(auto), "\n")
	for _, l := range got {
		if !truth[l] {
			t.Errorf("auto (lsh) reported %q, which exact does not", l)
		}
	}
	if len(truth) < 50 || len(got) < len(truth)*9/10 {
		t.Errorf("auto (lsh) found %d of %d pairs", len(got), len(truth))
	}
}

// TestLSHMargin: --lsh-margin is a factor >= 1 (exit 2 otherwise, with one
// line); it applies to auto, so join refuses it with a method given, while
// explain (which prices both paths whatever the method) takes it. Where
// the default margin takes LSH, a margin above exact's price over LSH's
// keeps exact, and the reason says how far inside the margin it fell.
func TestLSHMargin(t *testing.T) {
	in := "../../testdata/sets.txt"
	for _, bad := range []string{"0.5", "0", "-1", "NaN", "Inf"} {
		if code, _, stderr := runCLI(t, "join", "-t", "0.5", "--lsh-margin", bad, in); code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--lsh-margin %s: exit %d, %q", bad, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "join", "-t", "0.5", "--method", "exact", "--lsh-margin", "2", in); code != 2 || !strings.Contains(stderr, "--lsh-margin applies to --method auto") {
		t.Errorf("join --method exact --lsh-margin: exit %d, %q", code, stderr)
	}
	var b strings.Builder
	for _, set := range synth.Sets(synth.SetsConfig{N: 3000, MinSize: 100, MaxSize: 100, Universe: 1000, Seed: 3}) {
		for _, tok := range set {
			fmt.Fprintf(&b, "%d ", tok)
		}
		b.WriteString("\n")
	}
	path := filepath.Join(t.TempDir(), "frequent.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Plan struct {
			Method string  `json:"method"`
			Prefer float64 `json:"prefer"`
			Reason string  `json:"reason"`
		} `json:"plan"`
	}
	_, out, _ := runCLI(t, "explain", "-t", "0.5", "--json", path)
	if err := json.Unmarshal([]byte(out), &ex); err != nil || ex.Plan.Method != "lsh" || !strings.Contains(ex.Plan.Reason, "outside the 1.25x margin") {
		t.Fatalf("default margin: %v %+v", err, ex.Plan)
	}
	_, out, _ = runCLI(t, "explain", "-t", "0.5", "--json", "--lsh-margin", "1000", path)
	if err := json.Unmarshal([]byte(out), &ex); err != nil || ex.Plan.Method != "exact" || ex.Plan.Prefer != 1000 || !strings.Contains(ex.Plan.Reason, "inside the 1000x margin") {
		t.Errorf("margin 1000: %v %+v", err, ex.Plan)
	}
}
