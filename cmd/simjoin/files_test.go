package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/shingle"
)

// docsDir is the document fixture, relative to this package.
var docsDir = filepath.Join("..", "..", "testdata", "docs")

// docsRun runs the command line and returns stdout, stderr and the status.
func docsRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runChecked(t, args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// docPair is one output line: ids and similarity.
type docPair struct {
	a, b string
	sim  float64
}

func parseDocPairs(t *testing.T, out string) []docPair {
	t.Helper()
	var ps []docPair
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("output line %q: want 3 fields", line)
		}
		sim, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		ps = append(ps, docPair{f[0], f[1], sim})
	}
	return ps
}

// oracleDocPairs shingles every file with spec and compares every pair by
// brute force: the pairs with Jaccard >= t, ids in file order.
func oracleDocPairs(t *testing.T, files []string, spec shingle.Spec, th float64) []docPair {
	t.Helper()
	sets := make([][]uint64, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := spec.AppendBytes(nil, b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		slices.Sort(keys)
		sets[i] = slices.Compact(keys)
	}
	var out []docPair
	for i := range files {
		for j := i + 1; j < len(files); j++ {
			x, y := sets[i], sets[j]
			if len(x) == 0 || len(y) == 0 {
				continue
			}
			o := 0
			for _, k := range x {
				if _, ok := slices.BinarySearch(y, k); ok {
					o++
				}
			}
			// Exact decision: o/(x+y-o) >= th, th given as a decimal with
			// at most three places.
			den := len(x) + len(y) - o
			if int64(o)*1000 >= int64(math.Round(th*1000))*int64(den) {
				out = append(out, docPair{files[i], files[j], float64(o) / float64(den)})
			}
		}
	}
	return out
}

func sortPairs(ps []docPair) {
	slices.SortFunc(ps, func(p, q docPair) int {
		if c := strings.Compare(p.a, q.a); c != 0 {
			return c
		}
		return strings.Compare(p.b, q.b)
	})
}

// fixtureFiles lists the files under dir (lexical order, as --files walks)
// whose names match suffix.
func fixtureFiles(t *testing.T, dir string, keep func(rel string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if keep(filepath.ToSlash(rel)) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFilesJoinOracle(t *testing.T) {
	goDir := filepath.Join(docsDir, "go")
	textDir := filepath.Join(docsDir, "text")
	allGo := func(rel string) bool { return strings.HasSuffix(rel, ".go") }
	nonTest := func(rel string) bool {
		return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.Contains("/"+rel, "/testdata/")
	}
	all := func(string) bool { return true }
	for _, tc := range []struct {
		name  string
		dir   string
		keep  func(string) bool
		flags []string
		spec  shingle.Spec
	}{
		{"go:5", goDir, allGo, []string{"--tokens", "go:5", "--include", "*.go"}, shingle.Spec{Kind: shingle.Go, N: 5}},
		{"go:1", goDir, allGo, []string{"--tokens", "go:1", "--include", "*.go"}, shingle.Spec{Kind: shingle.Go, N: 1}},
		{"go:5 drop", goDir, allGo, []string{"--tokens", "go:5", "--include", "*.go", "--go-semicolons", "drop"}, shingle.Spec{Kind: shingle.Go, N: 5, DropSemicolons: true}},
		{"go:5 keep", goDir, allGo, []string{"--tokens", "go:5", "--include", "*.go", "--go-semicolons", "keep"}, shingle.Spec{Kind: shingle.Go, N: 5}},
		{"go:5 non-test", goDir, nonTest, []string{"--tokens", "go:5", "--include", "*.go", "--exclude", "*_test.go", "--exclude", "*/testdata/*"}, shingle.Spec{Kind: shingle.Go, N: 5}},
		{"shingle:3", textDir, all, []string{"--tokens", "shingle:3"}, shingle.Spec{Kind: shingle.Shingle, N: 3}},
		{"shingle:2 keep", textDir, all, []string{"--tokens", "shingle:2", "--case", "keep", "--punct", "keep"}, shingle.Spec{Kind: shingle.Shingle, N: 2, Norm: shingle.KeepCase | shingle.KeepPunct}},
		{"words", textDir, all, []string{"--tokens", "words"}, shingle.Spec{Kind: shingle.Words}},
		{"set", docsDir, all, []string{"--tokens", "set"}, shingle.Spec{Kind: shingle.Set}},
	} {
		files := fixtureFiles(t, tc.dir, tc.keep)
		for _, th := range []float64{0.1, 0.3, 0.5, 0.9, 1} {
			args := append([]string{"join", "--files", "-t", strconv.FormatFloat(th, 'f', -1, 64)}, tc.flags...)
			for _, workers := range []string{"1", "3"} {
				out, errs, code := docsRun(t, append(args, "-j", workers, tc.dir)...)
				if code != 0 {
					t.Fatalf("%s t=%v: exit %d: %s", tc.name, th, code, errs)
				}
				got := parseDocPairs(t, out)
				want := oracleDocPairs(t, files, tc.spec, th)
				sortPairs(got)
				sortPairs(want)
				if len(got) != len(want) {
					t.Fatalf("%s t=%v -j %s: %d pairs, oracle %d\ngot  %v\nwant %v", tc.name, th, workers, len(got), len(want), got, want)
				}
				for i := range got {
					if got[i].a != want[i].a || got[i].b != want[i].b || math.Abs(got[i].sim-want[i].sim) > 1e-6 {
						t.Errorf("%s t=%v: pair %d: got %v, want %v", tc.name, th, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestFilesIDsAsGiven(t *testing.T) {
	oak := filepath.Join(docsDir, "text", "oak.txt")
	dir := filepath.Join(docsDir, "text")
	out, errs, code := docsRun(t, "join", "--files", "--tokens", "shingle:3", "-t", "0.5", "--format", "jsonl", oak, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// oak.txt is given twice: as a file and inside the directory. Both are
	// records, identical, with the ids as given.
	want := []string{
		fmt.Sprintf(`{"a":%q,"b":%q,"sim":0.8`, oak, filepath.Join(dir, "oak-copy.txt")),
		fmt.Sprintf(`{"a":%q,"b":%q,"sim":1}`, oak, filepath.Join(dir, "oak.txt")),
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %s:\n%s", w, out)
		}
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readStatsJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func fileSection(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	secs, _ := m["sections"].(map[string]any)
	f, ok := secs["files"].(map[string]any)
	if !ok {
		t.Fatalf("no files section in %v", m)
	}
	return f
}

func TestFilesBadInput(t *testing.T) {
	reader, err := os.ReadFile(filepath.Join(docsDir, "go", "reader.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{
		"a/reader.go":    string(reader),
		"b/reader.go":    string(reader),
		"c/blob.go":      "\x7fELF\x02\x01\x01\x00binary\xff\x00",
		"d/comments.go":  "// nothing but comments\n/* at all */\n",
		".git/config.go": string(reader),
	})
	args := func(extra ...string) []string {
		return append([]string{"join", "--files", "--tokens", "go:5", "-t", "0.5"}, extra...)
	}
	t.Run("binary stops the run", func(t *testing.T) {
		out, errs, code := docsRun(t, args(dir)...)
		blob := filepath.Join(dir, "c", "blob.go")
		if code != 1 || !strings.Contains(errs, blob+":1:1: illegal character U+007F") || out != "" {
			t.Errorf("exit %d, stderr %q, stdout %q; want 1 naming %s:1:1", code, errs, out, blob)
		}
	})
	t.Run("binary skipped with --keep-going", func(t *testing.T) {
		js := filepath.Join(t.TempDir(), "stats.json")
		out, errs, code := docsRun(t, args("--keep-going", "--stats-json", js, dir)...)
		if code != 0 || !strings.Contains(errs, "warning: "+filepath.Join(dir, "c", "blob.go")+":1:1:") {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		want := filepath.Join(dir, "a", "reader.go") + "\t" + filepath.Join(dir, "b", "reader.go") + "\t1\n"
		if out != want {
			t.Errorf("stdout %q, want %q", out, want)
		}
		m := readStatsJSON(t, js)
		f := fileSection(t, m)
		// .git is hidden: 4 files listed, the binary one skipped, the
		// comments-only one an empty record.
		if f["listed"] != 4.0 || f["unreadable"] != 1.0 || f["records"] != 3.0 || m["skipped_empty"] != 1.0 {
			t.Errorf("files section %v, skipped_empty %v", f, m["skipped_empty"])
		}
	})
	t.Run("min-tokens drops near-empty files", func(t *testing.T) {
		js := filepath.Join(t.TempDir(), "stats.json")
		_, errs, code := docsRun(t, args("--exclude", "c/*", "--min-tokens", "50", "--stats-json", js, dir)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		m := readStatsJSON(t, js)
		f := fileSection(t, m)
		if f["below_min"] != 1.0 || f["records"] != 2.0 || m["records"] != 2.0 || m["skipped_empty"] != 0.0 {
			t.Errorf("files section %v, records %v", f, m["records"])
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing directory", args(filepath.Join(dir, "nope")), 1, filepath.Join(dir, "nope")},
		{"include matches nothing", args("--include", "*.gox", dir), 2, `--include "*.gox" matches no file`},
		{"everything excluded", args("--exclude", "*", dir), 2, "no file selected"},
		{"bad glob", args("--include", "[a", dir), 2, "bad glob"},
		{"two inputs without --files", []string{"join", "-t", "0.5", "a", "b"}, 2, "use --files"},
		{"stdin with --files", args("-"), 2, "not standard input"},
		{"include without --files", []string{"join", "-t", "0.5", "--include", "*.go", "x"}, 2, "--include needs --files"},
		{"bad --case", args("--case", "upper", dir), 2, "--case"},
		{"bad --punct", args("--punct", "yes", dir), 2, "--punct"},
		{"bad --go-semicolons", args("--tokens", "go:5", "--go-semicolons", "no", dir), 2, "--go-semicolons"},
		{"--go-semicolons without go:N", args("--tokens", "shingle:5", "--go-semicolons", "drop", dir), 2, "--go-semicolons applies to --tokens go:N"},
		{"negative --min-tokens", args("--min-tokens", "-1", dir), 2, "--min-tokens"},
		{"directory without --files", []string{"join", "-t", "0.5", dir}, 1, "use --files"},
		{"text file as Go", []string{"join", "--files", "--tokens", "words", "-t", "0.5", filepath.Join(dir, "c", "blob.go")}, 1, "invalid UTF-8"},
	} {
		out, errs, code := docsRun(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.name, code, errs, out, tc.code, tc.msg)
		}
	}
}

func TestFilesNoPartialOutput(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.go": "package a\n", "z.go": "\x00"})
	outFile := filepath.Join(t.TempDir(), "pairs.tsv")
	_, _, code := docsRun(t, "join", "--files", "--tokens", "go:1", "-t", "0.5", "-o", outFile, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if _, err := os.Stat(outFile); !os.IsNotExist(err) {
		t.Errorf("output file left behind: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Dir(outFile))
	if len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
}

func TestFilesRSJoin(t *testing.T) {
	text := filepath.Join(docsDir, "text")
	out, errs, code := docsRun(t, "join", "--files", "--tokens", "shingle:3", "-t", "0.4", "--sort",
		"--against", filepath.Join(text, "oak.txt"), text)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := filepath.Join(text, "oak-copy.txt") + "\t" + filepath.Join(text, "oak.txt") + "\t0.878049\n" +
		filepath.Join(text, "oak.txt") + "\t" + filepath.Join(text, "oak.txt") + "\t1\n"
	if out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
}
