package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

const sets = "../../../testdata/sets.txt"

// oracle joins sets.txt as `simjoin join --method exact -t 0.8` does.
func oracle(t *testing.T) []join.Pair {
	t.Helper()
	text, err := os.ReadFile(sets)
	if err != nil {
		t.Fatal(err)
	}
	in := new(order.Input)
	for _, l := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		keys, err := shingle.Spec{}.Append(nil, l)
		if err != nil {
			t.Fatal(err)
		}
		in.Add(keys)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.8")
	var out []join.Pair
	if _, err := join.SelfJoin(context.Background(), c, join.Options{Threshold: th}, func(p join.Pair) bool {
		out = append(out, p)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(l)
	return l
}

// setsOutputs returns what the README's commands write for sets.txt at 0.8:
// the lines of `simjoin join --method exact` and the ids `simjoin dedup`
// keeps, both sorted.
func setsOutputs(t *testing.T) (pairs, kept []string) {
	t.Helper()
	f := cluster.New(2000)
	for _, p := range oracle(t) {
		pairs = append(pairs, strings.Join([]string{strconv.Itoa(p.A + 1), strconv.Itoa(p.B + 1), string(prefix.Jaccard.AppendSim(nil, p.Sim))}, "\t"))
		f.Union(p.A, p.B)
	}
	for _, i := range f.Firsts() {
		kept = append(kept, strconv.Itoa(i+1))
	}
	slices.Sort(pairs)
	slices.Sort(kept)
	return pairs, kept
}

// TestCommands runs the README's command lines in-process on Prism.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	want, kept := setsOutputs(t)

	var stderr bytes.Buffer
	out := filepath.Join(dir, "pairs")
	if code := run(context.Background(), []string{"join", "-t", "0.8", "--input", sets, "--output", out, "--stats"}, &stderr); code != 0 {
		t.Fatalf("join: exit %d: %s", code, stderr.String())
	}
	if got := readLines(t, out+"-00000-of-00001"); !slices.Equal(got, want) {
		t.Errorf("join: %d lines, want %d", len(got), len(want))
	}
	if !strings.Contains(stderr.String(), "results                    500") {
		t.Errorf("join --stats: no results row of 500:\n%s", stderr.String())
	}
	stderr.Reset()
	out = filepath.Join(dir, "kept")
	if code := run(context.Background(), []string{"dedup", "--method", "exact", "-t", "0.8", "--input", sets, "--output", out}, &stderr); code != 0 {
		t.Fatalf("dedup: exit %d: %s", code, stderr.String())
	}
	if got := readLines(t, out+"-00000-of-00001"); !slices.Equal(got, kept) {
		t.Errorf("dedup: %d kept, want %d", len(got), len(kept))
	}
}

func TestUsage(t *testing.T) {
	x := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{
		{},
		{"join", "--input", sets, "--output", x}, // no threshold
		{"join", "-t", "1.5", "--input", sets, "--output", x},                     // out of range
		{"join", "-t", "0.8", "--output", x},                                      // no input
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--method", "auto"}, // no planner
		{"dedup", "-t", "0.8", "--input", sets, "--output", x, "--against", sets},
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--method", "lsh", "--lsh", "40x40"},
		{"join", "-t", "0.8", "--input", sets, "--output", x, "extra"},
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--jsonl-id", "id"},                      // no --jsonl-field
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--jsonl-field", "t", "--jsonl-id", "t"}, // one field
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--jsonl-field", "t", "--files"},         // lines only
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--keep", "longest"},                     // dedup only
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--clusters"},                            // dedup only
		{"dedup", "-t", "0.8", "--input", sets, "--output", x, "--keep", "last"},                       // no such rule
		{"dedup", "-t", "0.8", "--input", sets, "--output", x, "--output-records", "--clusters"},       // one or the other
		{"dedup", "-t", "0.8", "--input", sets, "--output", x, "--output-records", "--files"},          // lines only
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--verbose", "--log-level", "loud"},      // no such level
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--bogus"},
		{"join", "-t", "0.8", "--input", sets, "--output", x, "--shards", "two"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &stderr); code != 2 || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, stderr.String())
		}
	}
	var help bytes.Buffer
	if code := run(context.Background(), []string{"join", "-h"}, &help); code != 0 || !strings.Contains(help.String(), "-jsonl-field") {
		t.Errorf("-h: exit %d, %d bytes of help", code, help.Len())
	}
	var stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "none")
	if code := run(context.Background(), []string{"join", "-t", "0.8", "--input", "/nonexistent/*.txt", "--output", out}, &stderr); code != 1 {
		t.Errorf("missing input: exit %d, want 1 (%s)", code, stderr.String())
	}
	if m, _ := filepath.Glob(out + "*"); len(m) != 0 {
		t.Errorf("a failed run left %q", m)
	}
}

// TestFilesSelection: --files over a directory with --include, --exclude,
// --min-tokens and --keep-going selects the files `simjoin join --files`
// selects (internal/fileset, as the CLI calls it) and yields the pairs the
// CLI's exact join finds over them (the library, as the CLI calls it).
func TestFilesSelection(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.txt":            "the quick brown fox jumps over the lazy dog",
		"b.txt":            "the quick brown fox jumps over the lazy cat",
		"notes.md":         "a quick brown fox jumps over a lazy cat",
		"obj.mo":           "the quick brown fox jumps over the lazy dog",
		"sub/c.txt":        "the quick brown fox leaps over the lazy dog",
		"sub/c_test.txt":   "the quick brown fox jumps over the lazy dog",
		"testdata/x.txt":   "the quick brown fox jumps over the lazy dog",
		".hidden/y.txt":    "the quick brown fox jumps over the lazy dog",
		"tiny.txt":         "the quick",
		"sub/deep/far.txt": "something else entirely with other words",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "sub", "gone.txt")); err != nil {
		t.Fatal(err)
	}
	include := []string{"*.txt", "*.m[!o]"}
	exclude := []string{"*_test.txt", "*/testdata/*"}

	// The CLI's selection and join.
	filter, err := fileset.NewFilter(include, exclude)
	if err != nil {
		t.Fatal(err)
	}
	var st fileset.Stats
	files, err := fileset.List([]string{dir}, filter, &st, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	if want := []string{"a.txt", "b.txt", "notes.md", "sub/c.txt", "sub/deep/far.txt", "tiny.txt"}; !slices.Equal(rels, want) {
		t.Fatalf("selected %q, want %q", rels, want)
	}
	if st.Dangling != 1 {
		t.Errorf("links to nothing %d, want 1", st.Dangling)
	}
	spec := shingle.Spec{Kind: shingle.Words}
	in := new(order.Input)
	var ids []string
	for _, f := range files {
		text, err := fileset.ReadRegularInto(nil, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := spec.AppendBytes(nil, text)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		if keys = slices.Compact(keys); len(keys) < 3 {
			continue // --min-tokens 3
		}
		in.Add(keys)
		ids = append(ids, f.ID)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	var want []string
	if _, err := join.SelfJoin(context.Background(), c, join.Options{Threshold: th}, func(p join.Pair) bool {
		want = append(want, ids[p.A]+"\t"+ids[p.B]+"\t"+string(prefix.Jaccard.AppendSim(nil, p.Sim)))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	if len(want) < 3 {
		t.Fatalf("fixture too weak: %d pairs", len(want))
	}

	args := []string{"join", "--files", "--input", dir, "--tokens", "words", "-t", "0.5", "--min-tokens", "3"}
	for _, g := range include {
		args = append(args, "--include", g)
	}
	for _, g := range exclude {
		args = append(args, "--exclude", g)
	}
	var stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "pairs")
	if code := run(context.Background(), append(args, "--keep-going", "--stats", "--output", out), &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := readLines(t, out+"-00000-of-00001"); !slices.Equal(got, want) {
		t.Errorf("pairs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range []string{"symbolic link to nothing (skipped)", "below --min-tokens         1", "files selected             6"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}

	// Without --keep-going the link to nothing stops the run; an include
	// glob that matches nothing and a bad glob are usage errors.
	for _, tc := range []struct {
		extra []string
		code  int
	}{
		{nil, 1},
		{[]string{"--keep-going", "--include", "*.zzz"}, 2},
		{[]string{"--keep-going", "--exclude", "[x"}, 2},
	} {
		stderr.Reset()
		o := filepath.Join(t.TempDir(), "x")
		a := append(append(slices.Clone(args), tc.extra...), "--output", o)
		if code := run(context.Background(), a, &stderr); code != tc.code {
			t.Errorf("%q: exit %d, want %d (%s)", tc.extra, code, tc.code, stderr.String())
		}
		if m, _ := filepath.Glob(o + "*"); len(m) != 0 {
			t.Errorf("%q: a failed run left %q", tc.extra, m)
		}
	}
}
