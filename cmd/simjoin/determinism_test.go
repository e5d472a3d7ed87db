package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// measured matches what a run measures rather than computes: durations and
// memory sizes in the text reports, and the worker count.
var measured = []*regexp.Regexp{
	regexp.MustCompile(`\d[\d,.]*(e[+-]?\d+)? ?(ns|µs|ms|s|KiB|MiB|GiB)\b`),
	regexp.MustCompile(`(?m)^(\s*workers\s+)\d+`),
	regexp.MustCompile(`(?m)^(\s*on )\d+ cores?`),
	// Planning's measured CPU time as a share of the chosen path's.
	regexp.MustCompile(`\d[\d.]*% of (exact|lsh)'s predicted`),
	// explain --analyze's ratios of predicted to measured.
	regexp.MustCompile(`\d[\d.]*x!?(\s|$)`),
	// explain --analyze's legend of the ratios it flags, there when a
	// measured one is off.
	offLegend,
}

// offLegend matches the line explain --analyze adds when a ratio is
// flagged: whether a measured time's is depends on the run.
var offLegend = regexp.MustCompile(`(?m)^\s*! predicted and measured differ by more than .*\n`)

// maskText replaces the measured parts of a text report, and collapses runs
// of spaces, since a measured figure's width moves the columns.
func maskText(s string) string {
	s = measured[0].ReplaceAllString(s, "<measured>")
	s = measured[1].ReplaceAllString(s, "${1}<workers>")
	s = measured[2].ReplaceAllString(s, "${1}<workers>")
	s = measured[3].ReplaceAllString(s, "<measured>")
	s = measured[4].ReplaceAllString(s, "<measured>$1")
	s = measured[5].ReplaceAllString(s, "")
	return spaces.ReplaceAllString(s, " ")
}

var spaces = regexp.MustCompile(` +`)

// maskJSON replaces the measured fields of a JSON document: durations
// (names ending in _s), peak memory, worker counts and ratios; it drops
// "off", which is there only when a ratio is flagged.
func maskJSON(t *testing.T, data []byte) string {
	t.Helper()
	if len(data) == 0 {
		return ""
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "off" {
					delete(x, k)
				} else if strings.HasSuffix(k, "_s") || k == "peak_rss_bytes" || k == "workers" || k == "parallel" || k == "ratio" {
					x[k] = "<measured>"
				} else {
					x[k] = walk(e)
				}
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	out, _ := json.MarshalIndent(walk(v), "", " ")
	return string(out)
}

// runOutputs runs one command line and returns what it wrote, masked where
// the run measures time, memory or the worker count: stdout, stderr, the
// --stats-json report and the files it wrote in dir.
func runOutputs(t *testing.T, dir, stdin string, args []string) []string {
	t.Helper()
	stats := filepath.Join(dir, "stats.json")
	reports := args[0] != "explain" && args[0] != "index" // those have no statistics report
	if reports {
		args = append(args[:len(args):len(args)], "--stats-json", stats)
	}
	var out, errb strings.Builder
	code := runChecked(t, args, strings.NewReader(stdin), &out, &errb)
	if code != 0 && code != exitTooClose {
		t.Fatalf("simjoin %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	stdout := out.String()
	switch {
	case args[0] == "explain" && slices.Contains(args, "--json"):
		stdout = maskJSON(t, []byte(stdout))
	case args[0] == "explain": // predicted and measured times on stdout
		stdout = maskText(stdout)
	}
	res := []string{stdout, maskText(errb.String())}
	data, err := os.ReadFile(stats)
	if err != nil && reports {
		t.Fatalf("simjoin %s wrote no --stats-json report: %v", strings.Join(args, " "), err)
	}
	res = append(res, maskJSON(t, data))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() == "stats.json" {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		res = append(res, e.Name(), string(data))
	}
	return res
}

// TestReportsDeterministic runs every command twice with -j 1 and twice
// with -j 2 and compares what they write byte for byte, but for measured
// times, memory and the worker count. Each run writes its --stats-json
// report, which runChecked validates against docs/stats.schema.json: the
// table covers every command and path that writes one.
func TestReportsDeterministic(t *testing.T) {
	sets := "../../testdata/sets.txt"
	pw := "../../testdata/passwords.txt"
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		setup [][]string // run first, in the same directory, with the default -j
	}{
		{"join-auto", "", []string{"join", "-t", "0.7", "--stats", sets}, nil},
		{"join-exact-jsonl", "", []string{"join", "-t", "0.8", "--method", "exact", "--format", "jsonl", sets}, nil},
		{"join-lsh", "", []string{"join", "-t", "0.5", "--method", "lsh", "--check-recall", "--stats", "--format", "jsonl", sets}, nil},
		{"join-lsh-estimate", "", []string{"join", "-t", "0.5", "--method", "lsh", "--verify", "estimate", "--stats", "--format", "csv", sets}, nil},
		{"join-rs", "", []string{"join", "-t", "0.6", "--against", sets, "--stats", sets}, nil},
		{"join-files", "", []string{"join", "--files", "--tokens", "shingle:3", "-t", "0.3", "--stats", docsDir}, nil},
		{"dedup", "", []string{"dedup", "-t", "0.6", "--stats", sets}, nil},
		{"dedup-clusters", "", []string{"dedup", "-t", "0.6", "--clusters", "--method", "lsh", "--stats", sets}, nil},
		{"plot", "", []string{"plot", "-t", "0.5", "--shapes", "12x4", "--seeds", "2", "--sample", "2000", "--stats", "--circle", "OUT/c.svg", "--scurve", "OUT/s.svg", sets}, nil},
		{"explain", "", []string{"explain", "-t", "0.5", sets}, nil},
		{"explain-json", "", []string{"explain", "-t", "0.5", "--cross-check", "all", "--json", sets}, nil},
		{"explain-analyze", "", []string{"explain", "-t", "0.5", "--analyze", "--cross-check", "500", sets}, nil},
		{"passwords", "", []string{"passwords", "--stats", pw}, nil},
		{"families", "", []string{"passwords", "--families", "--fold-case", "--fold-leet", "--stats", pw}, nil},
		{"check", "password1\ndragon\n", []string{"passwords", "check", "--stats", "--against", pw}, nil},
		{"index-add-dedup", "", []string{"index", "add", "OUT/ix", "--dedup", "-t", "0.6", sets},
			[][]string{{"index", "create", "OUT/ix", "--min-threshold", "0.5"}}},
		{"index-lsh-add-dedup", "", []string{"index", "add", "OUT/ix", "--dedup", "-t", "0.6", sets},
			[][]string{{"index", "create", "OUT/ix", "--method", "lsh", "--min-threshold", "0.5"}}},
		{"index-search", "", []string{"index", "search", "OUT/ix", "-t", "0.5", sets},
			[][]string{{"index", "create", "OUT/ix", "--min-threshold", "0.5"}, {"index", "add", "OUT/ix", sets}}},
		{"index-top-k", "", []string{"index", "search", "OUT/ix", "--top-k", "3", sets},
			[][]string{{"index", "create", "OUT/ix", "--min-threshold", "0.5"}, {"index", "add", "OUT/ix", sets}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var first []string
			for run, j := range []string{"1", "1", "2", "2"} {
				dir := t.TempDir()
				in := func(line []string) []string {
					var args []string
					for _, a := range line {
						args = append(args, strings.ReplaceAll(a, "OUT", dir))
					}
					return args
				}
				for _, s := range c.setup {
					cliOK(t, "", in(s)...)
				}
				args := in(c.args)
				args = append(args, "-j", j)
				got := runOutputs(t, dir, c.stdin, args)
				if run == 0 {
					first = got
					continue
				}
				if len(got) != len(first) {
					t.Fatalf("-j %s run %d wrote %d outputs, the first run %d", j, run, len(got), len(first))
				}
				for k := range got {
					if got[k] != first[k] {
						t.Errorf("-j %s, run %d: output %d differs from the first run (-j 1):\n%s", j, run, k, firstDiff(first[k], got[k]))
					}
				}
			}
		})
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  first: " + x + "\n  this:  " + y
		}
	}
	return "(same lines)"
}

// TestMaskOffLegend: whether explain --analyze flags a measured ratio (its
// "!" and the legend line it then adds) depends on the run, so the masks of
// the determinism and readme tests see two runs that differ only there as
// the same.
func TestMaskOffLegend(t *testing.T) {
	flagged := "analyze: ran exact whole\n     join  3.45 s  3.46 s  7.75 s  0.45x!  17 s\n  ! predicted and measured differ by more than 2x\n\ncross-check: exact and lsh\n"
	within := "analyze: ran exact whole\n     join  3.45 s  3.46 s  4.75 s  0.73x  17 s\n\ncross-check: exact and lsh\n"
	if a, b := maskText(flagged), maskText(within); a != b {
		t.Errorf("maskText:\n%s\nagainst\n%s", a, b)
	}
	if a, b := maskReadme(flagged), maskReadme(within); a != b {
		t.Errorf("maskReadme:\n%s\nagainst\n%s", a, b)
	}
}
