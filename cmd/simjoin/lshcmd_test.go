package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runChecked(t, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestLSHBadFlags: shapes, bits, seeds and recalls that do not fit are usage
// errors (exit 2) before any work, and no output file appears.
func TestLSHBadFlags(t *testing.T) {
	dir := t.TempDir()
	outFile := filepath.Join(dir, "out.tsv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lsh", "20x10", "--perm", "64"}, "--perm"},
		{[]string{"--lsh", "9by13"}, "BxR"},
		{[]string{"--lsh", "0x4"}, "BxR"},
		{[]string{"--perm", "0"}, "--perm"},
		{[]string{"--perm", "5000"}, "--perm"},
		{[]string{"--bits", "12"}, "--bits"},
		{[]string{"--recall", "1"}, "--recall"},
		{[]string{"--recall", "0"}, "--recall"},
		{[]string{"--seed", "-3"}, "--seed"},
		{[]string{"--seed", "18446744073709551616"}, "--seed"},
		{[]string{"--verify", "maybe"}, "--verify"},
		{[]string{"--minhash", "fancy"}, "oneperm"},
		{[]string{"--perm", "4", "--recall", "0.9999"}, "raise K"},
		{[]string{"--measure", "overlap", "-t", "2"}, "--method exact"},
	} {
		args := append([]string{"join", "--method", "lsh", "-t", "0.8", "-o", outFile}, tc.args...)
		args = append(args, "testdata/sets.txt")
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(outFile); err == nil {
			t.Fatalf("%v: output file left behind", tc.args)
		}
	}
}

// TestLSHJoin: --method lsh reports a subset of the exact pairs with their
// exact similarities, and its statistics section says what it predicted and
// measured.
func TestLSHJoin(t *testing.T) {
	code, exact, _ := runCLI(t, "join", "-t", "0.6", "--method", "exact", "--sort", "../../testdata/sets.txt")
	if code != 0 {
		t.Fatalf("exact: exit %d", code)
	}
	truth := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(exact), "\n") {
		truth[line] = true
	}
	statsFile := filepath.Join(t.TempDir(), "stats.json")
	code, lsh, stderr := runCLI(t, "join", "-t", "0.6", "--method", "lsh", "--sort", "--check-recall", "--stats", "--stats-json", statsFile, "../../testdata/sets.txt")
	if code != 0 {
		t.Fatalf("lsh: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(lsh), "\n")
	for _, line := range lines {
		if !truth[line] {
			t.Errorf("lsh reported %q, which the exact join does not", line)
		}
	}
	if len(lines) < len(truth)*9/10 {
		t.Errorf("lsh found %d of %d pairs", len(lines), len(truth))
	}
	for _, want := range []string{"MinHash-LSH:", "predicted recall", "measured recall", "capped buckets"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stats lack %q", want)
		}
	}
	raw, err := os.ReadFile(statsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Method   string `json:"method"`
		Sections struct {
			LSH struct {
				K               int     `json:"k"`
				PredictedRecall float64 `json:"predicted_recall"`
				MeasuredRecall  float64 `json:"measured_recall"`
				ExactPairs      int64   `json:"exact_pairs"`
				Banding         string  `json:"banding"`
			} `json:"lsh"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Sections.LSH
	if rep.Method != "lsh" || s.K != 128 || s.PredictedRecall < 0.95 || s.ExactPairs != int64(len(truth)) || s.MeasuredRecall <= 0 || s.Banding == "" {
		t.Errorf("stats JSON: %+v", rep)
	}
}

// TestLSHEstimateOutput: with --verify estimate the similarity column says
// so: JSONL key "est", CSV header "estimate".
func TestLSHEstimateOutput(t *testing.T) {
	code, out, _ := runCLI(t, "join", "-t", "0.6", "--method", "lsh", "--verify", "estimate", "--format", "jsonl", "../../testdata/sets.txt")
	if code != 0 || !strings.Contains(out, `"est":`) || strings.Contains(out, `"sim":`) {
		t.Errorf("jsonl: exit %d, output %.200q", code, out)
	}
	code, out, _ = runCLI(t, "join", "-t", "0.6", "--method", "lsh", "--verify", "estimate", "--format", "csv", "../../testdata/sets.txt")
	if code != 0 || !strings.HasPrefix(out, "id_a,id_b,estimate\n") {
		t.Errorf("csv: exit %d, output %.200q", code, out)
	}
}
