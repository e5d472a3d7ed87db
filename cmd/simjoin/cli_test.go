package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// These tests run the command in-process through run(args, stdin, stdout,
// stderr), the same function main calls, and check the CLI contract of
// README.md and DESIGN.md: output formats, ids, R-S joins, --sort, the
// statistics, exit statuses, error messages and the output file.

const cliData = "testdata/cli"

// cliRun runs the command line with stdin and returns the exit status and
// what it wrote.
func cliRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runChecked(t, args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// cliOK runs the command line and fails the test unless it exits 0.
func cliOK(t *testing.T, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	code, out, errs := cliRun(t, stdin, args...)
	if code != 0 {
		t.Fatalf("simjoin %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errs)
	}
	return out, errs
}

// cliWrite writes content to dir/name and returns the path.
func cliWrite(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// basicTSV is the self-join of testdata/cli/basic.txt at Jaccard >= 0.6,
// sorted: line 3 is empty and never joins; lines 1 and 5 are identical.
const basicTSV = "1\t2\t0.8\n" +
	"1\t5\t1\n" +
	"2\t5\t0.8\n" +
	"4\t6\t0.75\n" +
	"7\t8\t0.666667\n"

// TestCLIFormats checks each output format byte for byte.
func TestCLIFormats(t *testing.T) {
	in := filepath.Join(cliData, "basic.txt")
	for _, c := range []struct {
		format string
		want   string
	}{
		{"tsv", basicTSV},
		{"csv", "id_a,id_b,similarity\n1,2,0.8\n1,5,1\n2,5,0.8\n4,6,0.75\n7,8,0.666667\n"},
		{"jsonl", `{"a":1,"b":2,"sim":0.8}` + "\n" + `{"a":1,"b":5,"sim":1}` + "\n" + `{"a":2,"b":5,"sim":0.8}` + "\n" +
			`{"a":4,"b":6,"sim":0.75}` + "\n" + `{"a":7,"b":8,"sim":0.666667}` + "\n"},
	} {
		out, errs := cliOK(t, "", "join", "-t", "0.6", "--sort", "--format", c.format, in)
		if out != c.want {
			t.Errorf("--format %s:\n got %q\nwant %q", c.format, out, c.want)
		}
		if errs != "" {
			t.Errorf("--format %s: unexpected stderr %q", c.format, errs)
		}
	}
	// The default format is tsv; every JSONL line is a JSON object.
	out, _ := cliOK(t, "", "join", "-t", "3/5", "--sort", in)
	if out != basicTSV {
		t.Errorf("default format: got %q, want %q", out, basicTSV)
	}
	out, _ = cliOK(t, "", "join", "-t", "0.6", "--format", "jsonl", in)
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var v struct {
			A, B int
			Sim  float64
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil || v.A < 1 || v.B <= v.A || v.Sim < 0.6 {
			t.Errorf("jsonl line %q: %+v, %v", line, v, err)
		}
	}
}

// TestCLIUnsortedOrder checks that without --sort the output holds the same
// lines, in an order that is the same for any -j and on every run.
func TestCLIUnsortedOrder(t *testing.T) {
	in := filepath.Join(cliData, "basic.txt")
	ref, _ := cliOK(t, "", "join", "-t", "0.6", "-j", "1", in)
	lines := strings.SplitAfter(ref, "\n")
	slices.Sort(lines)
	sorted := strings.SplitAfter(basicTSV, "\n")
	slices.Sort(sorted)
	if !slices.Equal(lines, sorted) {
		t.Fatalf("unsorted output holds other lines:\n%s", ref)
	}
	for _, j := range []string{"1", "2", "4"} {
		if out, _ := cliOK(t, "", "join", "-t", "0.6", "-j", j, in); out != ref {
			t.Errorf("-j %s: output order differs from -j 1:\n%s", j, out)
		}
	}
}

// TestCLISortNumeric checks that --sort orders ids as numbers (9 before 10)
// and that ids are 1-based line numbers, empty lines counted.
func TestCLISortNumeric(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 25; i++ {
		switch {
		case i%7 == 0:
			b.WriteString("\n") // empty: skipped, but counted as a line
		default:
			fmt.Fprintf(&b, "common tokens here %d\n", i%3)
		}
	}
	out, _ := cliOK(t, b.String(), "join", "-t", "1", "--sort", "-")
	type pair struct{ a, b int }
	var got []pair
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		a, _ := strconv.Atoi(f[0])
		bb, _ := strconv.Atoi(f[1])
		if len(f) != 3 || f[2] != "1" {
			t.Fatalf("line %q", line)
		}
		got = append(got, pair{a, bb})
	}
	var want []pair
	for a := 1; a <= 25; a++ {
		for bb := a + 1; bb <= 25; bb++ {
			if a%7 != 0 && bb%7 != 0 && a%3 == bb%3 {
				want = append(want, pair{a, bb})
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// TestCLIRS checks the R-S join: ids are (INPUT line, --against line).
func TestCLIRS(t *testing.T) {
	out, _ := cliOK(t, "", "join", "-t", "0.7", "--sort", "--against", filepath.Join(cliData, "s.txt"), filepath.Join(cliData, "r.txt"))
	if want := "1\t3\t0.75\n2\t2\t1\n"; out != want {
		t.Errorf("R-S join: got %q, want %q", out, want)
	}
	// Swapping the sides swaps the ids.
	out, _ = cliOK(t, "", "join", "-t", "0.7", "--sort", "--against", filepath.Join(cliData, "r.txt"), filepath.Join(cliData, "s.txt"))
	if want := "2\t2\t1\n3\t1\t0.75\n"; out != want {
		t.Errorf("R-S join swapped: got %q, want %q", out, want)
	}
	// A file joined against itself: every self-join pair both ways and the
	// diagonal of non-empty lines.
	in := filepath.Join(cliData, "basic.txt")
	out, _ = cliOK(t, "", "join", "-t", "0.6", "--sort", "--against", in, in)
	want := []string{"1\t1\t1", "1\t2\t0.8", "1\t5\t1", "2\t1\t0.8", "2\t2\t1", "2\t5\t0.8", "4\t4\t1", "4\t6\t0.75",
		"5\t1\t1", "5\t2\t0.8", "5\t5\t1", "6\t4\t0.75", "6\t6\t1", "7\t7\t1", "7\t8\t0.666667", "8\t7\t0.666667", "8\t8\t1"}
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("R-S join of basic.txt with itself:\n got %q\nwant %q", got, want)
	}
}

// TestCLIIdenticalAndEmpty checks that identical lines are distinct records
// joining at 1, that empty and blank lines are skipped but keep their line
// numbers, that CRLF line ends are not part of a record, and that stdin
// works.
func TestCLIIdenticalAndEmpty(t *testing.T) {
	stdin := "same line\r\n\r\nsame line\n   \nsame line\nother\nsame line"
	dir := t.TempDir()
	js := filepath.Join(dir, "stats.json")
	out, _ := cliOK(t, stdin, "join", "-t", "1", "--sort", "--stats-json", js, "-")
	want := "1\t3\t1\n1\t5\t1\n1\t7\t1\n3\t5\t1\n3\t7\t1\n5\t7\t1\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	rep := cliStatsJSON(t, js)
	if rep.Records != 7 || rep.Skipped != 2 || rep.Results != 6 {
		t.Errorf("stats: records %d, skipped %d, results %d; want 7, 2, 6", rep.Records, rep.Skipped, rep.Results)
	}
}

// TestCLIOverlapIntegers checks that the overlap measure prints integers.
func TestCLIOverlapIntegers(t *testing.T) {
	out, _ := cliOK(t, "a b c\na b d\nx a\n", "join", "--measure", "overlap", "-t", "2", "-")
	if out != "1\t2\t2\n" {
		t.Errorf("got %q", out)
	}
	out, _ = cliOK(t, "a b c\na b d\nx a\n", "join", "--measure", "overlap", "-t", "1", "--sort", "--format", "jsonl", "-")
	want := `{"a":1,"b":2,"sim":2}` + "\n" + `{"a":1,"b":3,"sim":1}` + "\n" + `{"a":2,"b":3,"sim":1}` + "\n"
	if out != want {
		t.Errorf("jsonl: got %q, want %q", out, want)
	}
}

// cliReport is the part of the --stats-json report the tests read.
type cliReport struct {
	Command   string   `json:"command"`
	Input     []string `json:"input"`
	Tokens    string   `json:"tokens"`
	Measure   string   `json:"measure"`
	Threshold string   `json:"threshold"`
	Method    string   `json:"method"`
	Workers   int      `json:"workers"`
	Records   int      `json:"records"`
	Skipped   int      `json:"skipped_empty"`
	SetTokens int      `json:"set_tokens"`
	Vocab     int      `json:"vocabulary"`
	Results   int64    `json:"results"`
	Exact     *struct {
		Records      int   `json:"records"`
		Skipped      int   `json:"skipped_empty"`
		Groups       int   `json:"distinct_sets"`
		IndexEntries int   `json:"index_entries"`
		Candidates   int64 `json:"candidates"`
		Positional   int64 `json:"positional_pruned"`
		BoundPruned  int64 `json:"count_bound_pruned"`
		Verified     int64 `json:"verified"`
		Results      int64 `json:"results"`
	} `json:"exact"`
	Histogram []struct {
		From  float64 `json:"from"`
		To    float64 `json:"to"`
		Count int64   `json:"count"`
	} `json:"similarity_histogram"`
	Phases []struct {
		Name    string   `json:"name"`
		Seconds float64  `json:"wall_s"`
		CPU     *float64 `json:"cpu_s"`
	} `json:"phases"`
	PeakRSS int64 `json:"peak_rss_bytes"`
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func cliStatsJSON(t *testing.T, path string) cliReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep cliReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("--stats-json is not JSON: %v\n%s", err, data)
	}
	return rep
}

// TestCLIStats checks the content of --stats (text on stderr) and
// --stats-json (parsed) against what the run did.
func TestCLIStats(t *testing.T) {
	in := filepath.Join(cliData, "basic.txt")
	dir := t.TempDir()
	js := filepath.Join(dir, "stats.json")
	out, errs := cliOK(t, "", "join", "-t", "0.6", "-j", "2", "--stats", "--stats-json", js, in)
	if got := strings.Count(out, "\n"); got != 5 {
		t.Fatalf("%d pairs, want 5", got)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^command +join$`),
		regexp.MustCompile(`(?m)^measure +jaccard >= 0\.6$`),
		regexp.MustCompile(`(?m)^method +exact$`),
		regexp.MustCompile(`(?m)^workers +2$`),
		regexp.MustCompile(`(?m)^records +8$`),
		regexp.MustCompile(`(?m)^skipped \(empty\) +1$`),
		regexp.MustCompile(`(?m)^distinct sets +6$`),
		regexp.MustCompile(`(?m)^candidates +\d+$`),
		regexp.MustCompile(`(?m)^results +5$`),
		regexp.MustCompile(`(?m)^similarity histogram:$`),
		regexp.MustCompile(`(?m)^phases:$`),
		regexp.MustCompile(`(?m)^peak memory +\d`),
	} {
		if !want.MatchString(errs) {
			t.Errorf("--stats lacks %s:\n%s", want, errs)
		}
	}
	rep := cliStatsJSON(t, js)
	if rep.Command != "join" || rep.Measure != "jaccard" || rep.Threshold != "0.6" || rep.Method != "exact" ||
		rep.Tokens != "set" || rep.Workers != 2 || !slices.Equal(rep.Input, []string{in}) {
		t.Errorf("report header: %+v", rep)
	}
	if rep.Records != 8 || rep.Skipped != 1 || rep.Results != 5 || rep.SetTokens != 25 || rep.Vocab != 12 {
		t.Errorf("report counts: records %d skipped %d results %d set tokens %d vocabulary %d; want 8 1 5 25 12",
			rep.Records, rep.Skipped, rep.Results, rep.SetTokens, rep.Vocab)
	}
	if e := rep.Exact; e == nil {
		t.Error("report has no exact section")
	} else if e.Records != 8 || e.Skipped != 1 || e.Groups != 6 || e.Results != 5 || e.Verified > e.Candidates {
		t.Errorf("exact section: %+v", *e)
	}
	var n int64
	for _, b := range rep.Histogram {
		n += b.Count
		if b.From < 0.6-0.05 || b.To > 1 || b.To <= b.From {
			t.Errorf("histogram bin %+v", b)
		}
	}
	if n != 5 {
		t.Errorf("histogram counts %d pairs, want 5", n)
	}
	var phases []string
	var cpu float64
	for _, p := range rep.Phases {
		phases = append(phases, p.Name)
		if p.Seconds < 0 {
			t.Errorf("phase %s: %v s", p.Name, p.Seconds)
		}
		if p.CPU != nil && *p.CPU < 0 {
			t.Errorf("phase %s: %v s of CPU", p.Name, *p.CPU)
		}
		cpu += deref(p.CPU)
	}
	// The process's CPU over its phases: no more than the
	// phases' wall time on every core the runtime may use.
	var wall float64
	for _, p := range rep.Phases {
		wall += p.Seconds
	}
	if cpu < 0 || cpu > wall*float64(runtime.GOMAXPROCS(0))+0.05 {
		t.Errorf("phases' CPU %v s over %v s of wall time", cpu, wall)
	}
	for _, want := range []string{"read", "order", "join", "write"} {
		if !slices.Contains(phases, want) {
			t.Errorf("phases %v lack %q", phases, want)
		}
	}
	if rep.PeakRSS <= 0 {
		t.Errorf("peak RSS %d", rep.PeakRSS)
	}
	// Without --stats nothing goes to stderr.
	if _, errs := cliOK(t, "", "join", "-t", "0.6", in); errs != "" {
		t.Errorf("stderr without --stats: %q", errs)
	}
}

// TestCLIBadInput checks the exit status and the message of every kind of
// bad command line and bad input.
func TestCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(cliData, "basic.txt")
	secret := "hunter2-s3cret"
	bad := cliWrite(t, dir, "bad.txt", "fine words\nmore words\n"+secret+" \xff\xfe\n")
	missing := filepath.Join(dir, "no-such-file.txt")
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		stder string // a substring of stderr
	}{
		{"missing file", []string{"join", "-t", "0.8", missing}, 1, "no-such-file.txt"},
		{"missing against", []string{"join", "-t", "0.8", "--against", missing, good}, 1, "no-such-file.txt"},
		{"directory", []string{"join", "-t", "0.8", dir}, 1, "is a directory"},
		{"threshold 0", []string{"join", "-t", "0", good}, 2, "threshold"},
		{"threshold 1.5", []string{"join", "-t", "1.5", good}, 2, "threshold"},
		{"threshold abc", []string{"join", "-t", "abc", good}, 2, "threshold"},
		{"threshold negative", []string{"join", "-t", "-0.5", good}, 2, "threshold"},
		{"overlap 0.5", []string{"join", "--measure", "overlap", "-t", "0.5", good}, 2, "threshold"},
		{"missing -t", []string{"join", good}, 2, "-t"},
		{"unknown measure", []string{"join", "-t", "0.8", "--measure", "hamming", good}, 2, "hamming"},
		{"unknown tokenizer", []string{"join", "-t", "0.8", "--tokens", "trigrams", good}, 2, "trigrams"},
		{"qgram:0", []string{"join", "-t", "0.8", "--tokens", "qgram:0", good}, 2, "qgram:0"},
		{"unknown format", []string{"join", "-t", "0.8", "--format", "xml", good}, 2, "xml"},
		{"unknown method", []string{"join", "-t", "0.8", "--method", "magic", good}, 2, "magic"},
		{"negative workers", []string{"join", "-t", "0.8", "-j", "-1", good}, 2, "workers"},
		{"unknown flag", []string{"join", "-t", "0.8", "--bogus", good}, 2, "bogus"},
		{"unknown command", []string{"jion", "-t", "0.8", good}, 2, "jion"},
		{"no input", []string{"join", "-t", "0.8"}, 2, ""},
		{"two inputs", []string{"join", "-t", "0.8", good, good}, 2, ""},
		{"invalid UTF-8 words", []string{"join", "-t", "0.8", "--tokens", "words", bad}, 1, "bad.txt:3:"},
		{"invalid UTF-8 qgram", []string{"join", "-t", "0.8", "--tokens", "qgram:2", bad}, 1, "bad.txt:3:"},
		{"invalid UTF-8 against", []string{"join", "-t", "0.8", "--tokens", "words", "--against", bad, good}, 1, "bad.txt:3:"},
	} {
		code, out, errs := cliRun(t, "", c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.name, code, c.code, errs)
			continue
		}
		if out != "" {
			t.Errorf("%s: wrote %q to stdout", c.name, out)
		}
		if !strings.Contains(errs, c.stder) || !strings.HasPrefix(errs, "simjoin: ") {
			t.Errorf("%s: stderr %q, want a simjoin: message naming %q", c.name, errs, c.stder)
		}
		if strings.Count(errs, "\n") > 1 && c.name != "unknown command" { // cobra adds "Did you mean"
			t.Errorf("%s: message is not one line: %q", c.name, errs)
		}
		if strings.Contains(errs, secret) || strings.Contains(errs, "\xff") {
			t.Errorf("%s: message leaks the record: %q", c.name, errs)
		}
	}
	// Set tokens take bytes as they are: invalid UTF-8 is fine.
	if code, _, errs := cliRun(t, "", "join", "-t", "0.8", bad); code != 0 {
		t.Errorf("--tokens set on invalid UTF-8: exit %d, %s", code, errs)
	}
}

// TestCLIOutputFile checks -o: a successful run writes FILE whole and
// nothing else; a failing run (usage or runtime) leaves no FILE and no
// temporary file, and leaves an existing FILE as it was.
func TestCLIOutputFile(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in.txt", "a b c d\na b c d e\nx y\n")
	bad := cliWrite(t, dir, "bad.txt", "ok\nnot \xff ok\n")
	inputs := []string{"bad.txt", "in.txt"}
	outFile := filepath.Join(dir, "pairs.tsv")

	out, _ := cliOK(t, "", "join", "-t", "0.8", "-o", outFile, in)
	if out != "" {
		t.Errorf("-o: stdout %q, want nothing", out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil || string(data) != "1\t2\t0.8\n" {
		t.Errorf("-o FILE holds %q, %v", data, err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"bad.txt", "in.txt", "pairs.tsv"}) {
		t.Errorf("after a successful run the directory holds %v", got)
	}
	os.Remove(outFile)

	failing := [][]string{
		{"join", "-t", "0.8", "--tokens", "words", "-o", outFile, bad},                    // runtime: invalid UTF-8
		{"join", "-t", "0.8", "-o", outFile, filepath.Join(dir, "missing")},               // runtime: no input
		{"join", "-t", "1.5", "-o", outFile, in},                                          // usage
		{"join", "-t", "0.8", "--format", "xml", "-o", outFile, in},                       // usage
		{"join", "-t", "0.8", "--against", bad, "--tokens", "qgram:2", "-o", outFile, in}, // runtime, second file
	}
	for _, args := range failing {
		if code, _, _ := cliRun(t, "", args...); code == 0 {
			t.Fatalf("%v: exit 0, want a failure", args)
		}
		if got := dirNames(t, dir); !slices.Equal(got, inputs) {
			t.Errorf("%v: after a failing run the directory holds %v, want only %v", args, got, inputs)
		}
	}
	// An existing FILE survives a failing run untouched.
	cliWrite(t, dir, "pairs.tsv", "previous\n")
	for _, args := range failing {
		cliRun(t, "", args...)
		if data, _ := os.ReadFile(outFile); string(data) != "previous\n" {
			t.Errorf("%v: a failing run changed FILE to %q", args, data)
		}
	}
	// A directory that does not exist: exit 1, nothing written.
	if code, _, errs := cliRun(t, "", "join", "-t", "0.8", "-o", filepath.Join(dir, "nodir", "p.tsv"), in); code != 1 {
		t.Errorf("-o into a missing directory: exit %d, %s", code, errs)
	}
}

// TestCLIReadmeCommand runs the README's first command on the shipped data
// and checks the output line by line against an independent nested-loop
// join of the file at Jaccard >= 4/5 in integer arithmetic.
func TestCLIReadmeCommand(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "sets.txt")
	out, errs := cliOK(t, "", "join", "-t", "0.8", "--stats", path)
	if out == "" {
		t.Fatal("no pairs")
	}
	if !strings.Contains(errs, "results") {
		t.Errorf("--stats printed no report: %q", errs)
	}
	// The oracle: sets of the whitespace tokens of each line.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sets [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		s := strings.Fields(sc.Text())
		slices.Sort(s)
		sets = append(sets, slices.Compact(s))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	overlap := func(a, b []string) int {
		o, i, j := 0, 0, 0
		for i < len(a) && j < len(b) {
			switch {
			case a[i] < b[j]:
				i++
			case a[i] > b[j]:
				j++
			default:
				o, i, j = o+1, i+1, j+1
			}
		}
		return o
	}
	want := map[[2]int]string{}
	for a := range sets {
		for b := a + 1; b < len(sets); b++ {
			x, y := len(sets[a]), len(sets[b])
			if x == 0 || y == 0 || 5*min(x, y) < 4*max(x, y) {
				continue
			}
			o := overlap(sets[a], sets[b])
			if 5*o >= 4*(x+y-o) { // o/(x+y-o) >= 4/5
				sim := strconv.FormatFloat(float64(o)/float64(x+y-o), 'f', 6, 64)
				sim = strings.TrimRight(strings.TrimRight(sim, "0"), ".")
				want[[2]int{a + 1, b + 1}] = sim
			}
		}
	}
	lineRE := regexp.MustCompile(`^([1-9]\d*)\t([1-9]\d*)\t(1|0\.\d*[1-9])$`)
	got := map[[2]int]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("malformed line %q", line)
		}
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		if a >= b || b > len(sets) {
			t.Fatalf("line %q: ids out of order or range", line)
		}
		if _, dup := got[[2]int{a, b}]; dup {
			t.Fatalf("line %q appears twice", line)
		}
		got[[2]int{a, b}] = m[3]
	}
	if len(got) != len(want) {
		t.Errorf("%d pairs, the oracle finds %d", len(got), len(want))
	}
	for k, sim := range want {
		if got[k] != sim {
			t.Errorf("pair %v: similarity %q, want %q", k, got[k], sim)
		}
	}
}

// TestCLIMatchesLibrary joins the shipped passwords as q-grams through the
// CLI and through the simjoin library and checks that they agree (ids are
// 1-based line numbers in one and 0-based indices in the other).
func TestCLIMatchesLibrary(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "passwords.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, c := range []struct {
		tokens, measure, t string
		spec               shingle.Spec
		m                  prefix.Measure
		tf                 float64
	}{
		{"qgram:2", "jaccard", "0.5", shingle.Spec{Kind: shingle.QGram, N: 2}, prefix.Jaccard, 0.5},
		{"qgram:3", "cosine", "0.7", shingle.Spec{Kind: shingle.QGram, N: 3}, prefix.Cosine, 0.7},
		{"words", "dice", "3/4", shingle.Spec{Kind: shingle.Words}, prefix.Dice, 0.75},
	} {
		out, _ := cliOK(t, "", "join", "-t", c.t, "--measure", c.measure, "--tokens", c.tokens, "--sort", path)
		th, err := prefix.ThresholdOf(c.m, c.tf)
		if err != nil {
			t.Fatal(err)
		}
		opts := simjoin.Options{Tokens: c.spec, Measure: c.m, Threshold: th}
		pairs, _, err := simjoin.SelfJoin(context.Background(), lines, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range pairs {
			sim := strconv.FormatFloat(p.Sim, 'f', 6, 64)
			sim = strings.TrimRight(strings.TrimRight(sim, "0"), ".")
			fmt.Fprintf(&b, "%d\t%d\t%s\n", p.A+1, p.B+1, sim)
		}
		if len(pairs) == 0 {
			t.Fatalf("%s %s: no pairs; the test needs some", c.tokens, c.measure)
		}
		if out != b.String() {
			t.Errorf("%s %s t=%s: CLI and library differ (%d and %d lines)", c.tokens, c.measure, c.t, strings.Count(out, "\n"), len(pairs))
		}
	}
}

// TestCLIStatsJSONFailureNoOutput checks that -o FILE "appears only when
// the run succeeds" also when --stats-json cannot be written (the report was
// once written after FILE had been committed).
func TestCLIStatsJSONFailureNoOutput(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in.txt", "a b c d\na b c d e\n")
	outFile := filepath.Join(dir, "pairs.tsv")
	code, _, errs := cliRun(t, "", "join", "-t", "0.8", "-o", outFile, "--stats-json", filepath.Join(dir, "nodir", "s.json"), in)
	if code != 1 {
		t.Fatalf("unwritable --stats-json: exit %d, want 1 (%s)", code, errs)
	}
	if _, err := os.Stat(outFile); err == nil {
		t.Errorf("the run failed (%s), but -o FILE was written", strings.TrimSpace(errs))
	}
}
