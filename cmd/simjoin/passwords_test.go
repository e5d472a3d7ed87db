package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
)

const pwTestdata = "../../testdata/passwords.txt"
const pwJohn = "/usr/share/john/password.lst"

// pwRun runs simjoin with args and stdin and returns stdout, stderr and the
// exit status.
func pwRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runChecked(t, args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// pwLines returns the lines of a list file as the CLI reads them.
func pwLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// unescapeTSV undoes the CLI's TSV escaping of a password.
func unescapeTSV(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'n':
			b.WriteByte('\n')
		case 'x':
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				t.Fatalf("bad escape in %q", s)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			t.Fatalf("bad escape in %q", s)
		}
	}
	return b.String()
}

// pwPairs parses TSV pairs, checking that each password column is the
// password on its line, and returns (line_a-1, line_b-1) pairs sorted.
func pwPairs(t *testing.T, out string, lines []string) []jointest.Pair {
	t.Helper()
	var got []jointest.Pair
	for _, row := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if row == "" {
			continue
		}
		f := strings.Split(row, "\t")
		if len(f) != 5 {
			t.Fatalf("row %q: %d fields", row, len(f))
		}
		a, _ := strconv.Atoi(f[0])
		b, _ := strconv.Atoi(f[1])
		if a >= b || a < 1 || b > len(lines) {
			t.Fatalf("row %q: lines out of order or range", row)
		}
		if unescapeTSV(t, f[3]) != lines[a-1] || unescapeTSV(t, f[4]) != lines[b-1] {
			t.Fatalf("row %q: passwords are not those of lines %d and %d", row, a, b)
		}
		got = append(got, jointest.Pair{A: a - 1, B: b - 1})
	}
	jointest.Sort(got)
	return got
}

// pwOracle returns the oracle's pairs of lines of a list with distinct,
// non-empty lines.
func pwOracle(lines []string, g passwords.Grams, m prefix.Measure, th prefix.Threshold) []jointest.Pair {
	ids := map[uint64]uint32{}
	sets := make([][]uint32, len(lines))
	for i, l := range lines {
		for _, k := range g.Append(nil, []byte(l)) {
			if _, ok := ids[k]; !ok {
				ids[k] = uint32(len(ids))
			}
			sets[i] = append(sets[i], ids[k])
		}
	}
	var out []jointest.Pair
	for _, p := range jointest.SelfJoin(sets, m, th) {
		out = append(out, jointest.Pair{A: p.A, B: p.B})
	}
	return out
}

// TestPasswordsCLIOracle runs the command on the project's test list with
// several settings and compares with the brute-force oracle.
func TestPasswordsCLIOracle(t *testing.T) {
	lines := pwLines(t, pwTestdata)
	for _, tc := range []struct {
		args []string
		g    passwords.Grams
		m    prefix.Measure
		t    string
	}{
		{nil, passwords.Grams{Q: 2}, prefix.Jaccard, "0.8"},
		{[]string{"-t", "0.6", "--sort"}, passwords.Grams{Q: 2}, prefix.Jaccard, "0.6"},
		{[]string{"-q", "3", "-t", "1/2", "-j", "1"}, passwords.Grams{Q: 3}, prefix.Jaccard, "1/2"},
		{[]string{"--fold-case"}, passwords.Grams{Q: 2, Norm: passwords.FoldCase}, prefix.Jaccard, "0.8"},
		{[]string{"--fold-leet"}, passwords.Grams{Q: 2, Norm: passwords.FoldLeet}, prefix.Jaccard, "0.8"},
		{[]string{"--strip-suffix"}, passwords.Grams{Q: 2, Norm: passwords.StripSuffix}, prefix.Jaccard, "0.8"},
		{[]string{"--fold-case", "--fold-leet", "--strip-suffix", "--measure", "cosine", "-t", "0.9"},
			passwords.Grams{Q: 2, Norm: passwords.FoldCase | passwords.FoldLeet | passwords.StripSuffix}, prefix.Cosine, "0.9"},
		{[]string{"--measure", "overlap", "-t", "6"}, passwords.Grams{Q: 2}, prefix.Overlap, "6"},
	} {
		args := append([]string{"passwords"}, tc.args...)
		args = append(args, pwTestdata)
		out, stderr, code := pwRun(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		th, _ := prefix.ParseThreshold(tc.m, tc.t)
		want := pwOracle(lines, tc.g, tc.m, th)
		got := pwPairs(t, out, lines)
		if !slices.Equal(got, want) {
			t.Fatalf("%v: %d pairs, oracle %d", args, len(got), len(want))
		}
		if len(want) == 0 {
			t.Fatalf("%v: no pair: the test says nothing", args)
		}
		if slices.Contains(tc.args, "--sort") {
			var order []jointest.Pair
			for _, row := range strings.Split(strings.TrimSpace(out), "\n") {
				f := strings.Split(row, "\t")
				a, _ := strconv.Atoi(f[0])
				b, _ := strconv.Atoi(f[1])
				order = append(order, jointest.Pair{A: a - 1, B: b - 1})
			}
			if !slices.Equal(order, want) {
				t.Fatalf("%v: pairs not sorted by line", args)
			}
		}
	}
}

// TestPasswordsCLIJohn runs the command on Debian's john-data list, comment
// lines skipped, and compares with the library (which is checked against
// the oracle on the same list).
func TestPasswordsCLIJohn(t *testing.T) {
	if _, err := os.Stat(pwJohn); err != nil {
		t.Skipf("%s is absent (Debian package john-data): skipping", pwJohn)
	}
	out, stderr, code := pwRun(t, "", "passwords", "--skip-comments", "--sort", "--stats", pwJohn)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, _ := os.Open(pwJohn)
	defer f.Close()
	l, _, err := passwords.Read(f, passwords.ReadOptions{SkipComments: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []jointest.Pair
	passwords.Join(context.Background(), l, passwords.Options{Threshold: passwords.DefaultThreshold()}, func(p passwords.Pair) bool {
		want = append(want, jointest.Pair{A: l.Line(p.A) - 1, B: l.Line(p.B) - 1})
		return true
	})
	jointest.Sort(want)
	got := pwPairs(t, out, pwLines(t, pwJohn))
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("%d pairs, library %d", len(got), len(want))
	}
	for _, row := range []string{"comments (skipped)       13", "lines read               3,559"} {
		if !strings.Contains(strings.Join(strings.Fields(stderr), " "), strings.Join(strings.Fields(row), " ")) {
			t.Errorf("statistics lack %q:\n%s", row, stderr)
		}
	}
}

func pwWrite(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPasswordsFamilies checks the families in every format on a small
// frequency list.
func TestPasswordsFamilies(t *testing.T) {
	list := pwWrite(t, "freq.txt", "50\tmonkey\n7\tmonkey1\n3\tMonkey12\n9\tdragon\n8\tdragon!\n1\tunrelated\n2\tmonkey1\n")
	out, stderr, code := pwRun(t, "", "passwords", "--families", "--counts", "--fold-case", "--strip-suffix", list)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "3\t62\tmonkey\tmonkey\tmonkey1\tMonkey12\n2\t17\tdragon\tdragon\tdragon!\n"
	if out != want {
		t.Fatalf("families:\n%s\nwant:\n%s", out, want)
	}
	out, _, _ = pwRun(t, "", "passwords", "--families", "--counts=first", "--fold-case", "--strip-suffix", "--format", "csv", list)
	wantCSV := "family,size,count,line,password_count,password\n" +
		"1,3,62,1,50,monkey\n1,3,62,2,9,monkey1\n1,3,62,3,3,Monkey12\n" +
		"2,2,17,4,9,dragon\n2,2,17,5,8,dragon!\n"
	if out != wantCSV {
		t.Fatalf("csv families:\n%s\nwant:\n%s", out, wantCSV)
	}
	out, _, _ = pwRun(t, "", "passwords", "--families", "--counts", "--fold-case", "--strip-suffix", "--format", "jsonl", list)
	var fam struct {
		Size    int    `json:"size"`
		Count   uint64 `json:"count"`
		Top     string `json:"top"`
		Members []struct {
			Line     int    `json:"line"`
			Count    uint64 `json:"count"`
			Password string `json:"password"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &fam); err != nil {
		t.Fatalf("jsonl %q: %v", out, err)
	}
	if fam.Size != 3 || fam.Count != 62 || fam.Top != "monkey" || len(fam.Members) != 3 || fam.Members[1].Password != "monkey1" || fam.Members[1].Count != 9 || fam.Members[1].Line != 2 {
		t.Fatalf("jsonl family %+v", fam)
	}
	// Counts last, the same list.
	last := pwWrite(t, "last.txt", "monkey\t50\nmonkey1\t7\nMonkey12\t3\ndragon\t9\ndragon!\t8\nunrelated\t1\nmonkey1\t2\n")
	out, _, _ = pwRun(t, "", "passwords", "--families", "--counts=last", "--fold-case", "--strip-suffix", last)
	if out != want {
		t.Fatalf("counts last:\n%s\nwant:\n%s", out, want)
	}
}

// TestPasswordsBytes checks Latin-1 passwords, escaping in TSV and base64 in
// JSONL.
func TestPasswordsBytes(t *testing.T) {
	list := pwWrite(t, "latin1.txt", "caf\xe9123\ncaf\xe91234\ncafé123\npa\\ss\tword\npa\\ss\tword1\n")
	out, stderr, code := pwRun(t, "", "passwords", "--sort", list)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "1\t2\t0.857143\tcaf\xe9123\tcaf\xe91234\n4\t5\t0.9\tpa\\\\ss\\tword\tpa\\\\ss\\tword1\n"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	out, _, _ = pwRun(t, "", "passwords", "--sort", "--format", "jsonl", list)
	first := strings.SplitN(out, "\n", 2)[0]
	var p map[string]any
	if err := json.Unmarshal([]byte(first), &p); err != nil {
		t.Fatalf("%q: %v", first, err)
	}
	raw, _ := base64.StdEncoding.DecodeString(p["password_a_base64"].(string))
	if string(raw) != "caf\xe9123" {
		t.Fatalf("base64 password %q", raw)
	}
	second := strings.SplitN(out, "\n", 3)[1]
	if err := json.Unmarshal([]byte(second), &p); err != nil || p["password_b"] != "pa\\ss\tword1" {
		t.Fatalf("%q: %v %v", second, err, p)
	}
	out, _, _ = pwRun(t, "", "passwords", "--sort", "--format", "csv", list)
	if !strings.HasPrefix(out, "line_a,line_b,similarity,password_a,password_b\n1,2,0.857143,caf\xe9123,caf\xe91234\n") {
		t.Fatalf("csv: %q", out)
	}
}

// TestPasswordsCheck checks the answers and exit status of check.
func TestPasswordsCheck(t *testing.T) {
	known := pwWrite(t, "known.txt", "#!comment: x\npassword\nmonkey\nPassword1\ndragon\n")
	// Arguments: one too close (exit 3), matches most similar first.
	out, stderr, code := pwRun(t, "", "passwords", "check", "--against", known, "--fold-case", "correct horse", "password1")
	if code != exitTooClose {
		t.Fatalf("exit %d, want 3: %s", code, stderr)
	}
	if want := "2\t4\t1\tPassword1\n2\t2\t0.875\tpassword\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	if stderr != "" {
		t.Fatalf("stderr %q", stderr)
	}
	// None too close: exit 0, no output.
	out, _, code = pwRun(t, "", "passwords", "check", "--against", known, "correct horse", "Tr0ub4dor&3")
	if code != 0 || out != "" {
		t.Fatalf("exit %d, output %q; want 0 and nothing", code, out)
	}
	// Stdin, --silent: the status alone.
	out, _, code = pwRun(t, "zzz\n\nmonkey1\n", "passwords", "check", "--silent", "--against", known)
	if code != exitTooClose || out != "" {
		t.Fatalf("silent: exit %d, output %q", code, out)
	}
	out, _, code = pwRun(t, "zzz\n\nmonkey12\r\n", "passwords", "check", "--against", known, "-t", "0.7")
	if code != exitTooClose || out != "3\t3\t0.714286\tmonkey\n" {
		t.Fatalf("stdin: exit %d, output %q", code, out)
	}
	out, _, code = pwRun(t, "", "passwords", "check", "--against", known)
	if code != 0 || out != "" {
		t.Fatalf("no candidate: exit %d, output %q", code, out)
	}
	// The library gives the same answers for many stdin candidates (checked
	// in parallel batches).
	lines := pwLines(t, pwTestdata)
	var in strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&in, "%s%d\n", l, i%3)
	}
	out, stderr, code = pwRun(t, in.String(), "passwords", "check", "--against", pwTestdata, "--fold-leet")
	if code != exitTooClose {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	l, _, _ := passwords.Read(strings.NewReader(strings.Join(lines, "\n")), passwords.ReadOptions{})
	ix, _ := passwords.NewIndex(l, passwords.Options{Grams: passwords.Grams{Norm: passwords.FoldLeet}, Threshold: passwords.DefaultThreshold()})
	var want strings.Builder
	for i, c := range strings.Split(strings.TrimSuffix(in.String(), "\n"), "\n") {
		for _, m := range ix.Lookup(nil, []byte(c)) {
			fmt.Fprintf(&want, "%d\t%d\t%s\t%s\n", i+1, l.Line(m.Index), strconv.FormatFloat(m.Sim, 'f', -1, 64), l.Password(m.Index))
		}
	}
	if norm := func(s string) string { // similarities are printed to six places
		var b strings.Builder
		for _, row := range strings.Split(strings.TrimSpace(s), "\n") {
			f := strings.Split(row, "\t")
			v, _ := strconv.ParseFloat(f[2], 64)
			fmt.Fprintf(&b, "%s\t%s\t%.6f\t%s\n", f[0], f[1], v, f[3])
		}
		return b.String()
	}; norm(out) != norm(want.String()) {
		t.Fatalf("stdin candidates: output differs from the library")
	}
}

// TestPasswordsErrors checks exit statuses and messages: usage errors 2,
// runtime errors 1, no partial output file, no password in any message.
func TestPasswordsErrors(t *testing.T) {
	const secret = "Tr0ub4dor&3"
	bad := pwWrite(t, "bad.txt", "3\tok\n"+secret+"\n")
	dir := t.TempDir()
	outFile := filepath.Join(dir, "pairs.tsv")
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		msg   string
	}{
		{[]string{"passwords", "--counts", "-o", outFile, bad}, "", 1, "bad.txt:2: no tab-separated count"},
		{[]string{"passwords", "--counts=last", bad}, "", 1, "bad.txt:1: count is not an unsigned integer"},
		{[]string{"passwords", "check", "--counts", "--against", bad, secret}, "", 1, "bad.txt:2"},
		{[]string{"passwords", filepath.Join(dir, "missing.txt")}, "", 1, "missing.txt"},
		{[]string{"passwords", "-q", "0", pwTestdata}, "", 2, "-q/--qgram"},
		{[]string{"passwords", "-t", "1.5", pwTestdata}, "", 2, "bad threshold"},
		{[]string{"passwords", "--measure", "overlap", pwTestdata}, "", 2, "needs -t"},
		{[]string{"passwords", "--measure", "hamming", pwTestdata}, "", 2, "unknown measure"},
		{[]string{"passwords", "--counts=middle", pwTestdata}, "", 2, "--counts"},
		{[]string{"passwords", "--format", "xml", pwTestdata}, "", 2, "--format"},
		{[]string{"passwords"}, "", 2, "accepts 1 arg"},
		{[]string{"passwords", "check", secret}, "", 2, "missing --against"},
		{[]string{"passwords", "check", "--against", "-"}, "", 2, "--against -"},
		{[]string{"passwords", "check", "--silent", "-o", outFile, "--against", pwTestdata, secret}, "", 2, "--silent"},
	} {
		out, stderr, code := pwRun(t, tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
		if strings.Contains(stderr, secret) || strings.Contains(out, secret) {
			t.Errorf("%v: the password leaks: %q %q", tc.args, out, stderr)
		}
	}
	if _, err := os.Stat(outFile); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s", outFile)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed run left files: %v", ents)
	}
}

// TestPasswordsStats checks the statistics: what was read, skipped and
// joined, and which normalisations were on; no password appears.
func TestPasswordsStats(t *testing.T) {
	list := pwWrite(t, "l.txt", "secretword\n\nx\nsecretword\nsecretword1\n#!comment: c\n7\n")
	js := filepath.Join(t.TempDir(), "stats.json")
	out, stderr, code := pwRun(t, "", "passwords", "--stats", "--stats-json", js, "--fold-leet", "--skip-comments", "-o", filepath.Join(t.TempDir(), "o.tsv"), list)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, out, stderr)
	}
	if strings.Contains(stderr, "secret") {
		t.Fatalf("the statistics hold a password:\n%s", stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("secret")) {
		t.Fatal("the JSON statistics hold a password")
	}
	var rep struct {
		Results  int64 `json:"results"`
		Sections struct {
			Passwords map[string]any `json:"passwords"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"lines": 7.0, "comments_skipped": 1.0, "empty_skipped": 1.0, "duplicates_merged": 1.0,
		"distinct": 4.0, "too_short_skipped": 2.0, "joined": 2.0, "normalisations": "fold-leet", "counts": "none"}
	for k, v := range want {
		if rep.Sections.Passwords[k] != v {
			t.Errorf("%s = %v, want %v", k, rep.Sections.Passwords[k], v)
		}
	}
	if rep.Results != 1 {
		t.Errorf("results %d, want 1", rep.Results)
	}
	for _, row := range []string{"too short for q (skipped)", "normalisations", "fold-leet", "duplicates (merged)"} {
		if !strings.Contains(stderr, row) {
			t.Errorf("text statistics lack %q", row)
		}
	}
}
