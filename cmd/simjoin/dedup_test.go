package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// linesOracle clusters whitespace-token lines by brute force: Jaccard >= num/den,
// components by repeated relabelling. It returns 1-based cluster labels in
// order of first record.
func linesOracle(lines []string, num, den int) []int {
	sets := make([][]string, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		slices.Sort(f)
		sets[i] = slices.Compact(f)
	}
	parent := make([]int, len(lines))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			x, y := sets[i], sets[j]
			if len(x) == 0 || len(y) == 0 {
				continue
			}
			o := 0
			for _, w := range x {
				if _, ok := slices.BinarySearch(y, w); ok {
					o++
				}
			}
			if o*den >= num*(len(x)+len(y)-o) {
				a, b := find(i), find(j)
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	labels := make([]int, len(lines))
	seen := map[int]int{}
	for i := range lines {
		r := find(i)
		if _, ok := seen[r]; !ok {
			seen[r] = len(seen) + 1
		}
		labels[i] = seen[r]
	}
	return labels
}

// randomLines makes near-duplicate lines: a few base records and mutated
// copies, shuffled.
func randomLines(r *rand.Rand, n int) []string {
	var bases [][]string
	for range 1 + n/6 {
		var w []string
		for range 3 + r.IntN(8) {
			w = append(w, "w"+strconv.Itoa(r.IntN(60)))
		}
		bases = append(bases, w)
	}
	lines := make([]string, n)
	for i := range lines {
		b := slices.Clone(bases[r.IntN(len(bases))])
		for range r.IntN(3) {
			b[r.IntN(len(b))] = "w" + strconv.Itoa(r.IntN(60))
		}
		if r.IntN(10) == 0 {
			b = nil // an empty record
		}
		lines[i] = strings.Join(b, " ")
	}
	return lines
}

func TestDedupAgainstOracle(t *testing.T) {
	seed := uint64(7041)
	t.Logf("Using seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	for k := range 8 {
		lines := randomLines(r, 20+r.IntN(80))
		path := filepath.Join(dir, fmt.Sprintf("lines%d.txt", k))
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, th := range [][2]int{{1, 2}, {2, 3}, {4, 5}, {1, 1}} {
			want := linesOracle(lines, th[0], th[1])
			tflag := fmt.Sprintf("%d/%d", th[0], th[1])
			out, errs, code := docsRun(t, "dedup", "--clusters", "-t", tflag, path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got []int
			for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				id, label, ok := strings.Cut(line, "\t")
				n, err := strconv.Atoi(label)
				if !ok || err != nil || id != strconv.Itoa(i+1) {
					t.Fatalf("line %d: %q", i+1, line)
				}
				got = append(got, n)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("lines%d t=%s: clusters\n%v\nwant\n%v", k, tflag, got, want)
			}
			// Default output: the first record of each cluster, in order.
			out, _, _ = docsRun(t, "dedup", "-t", tflag, path)
			var kept []string
			for i, l := range want {
				if l == len(kept)+1 {
					kept = append(kept, strconv.Itoa(i+1))
				}
			}
			if out != strings.Join(kept, "\n")+"\n" {
				t.Fatalf("lines%d t=%s: kept\n%s\nwant\n%v", k, tflag, out, kept)
			}
		}
	}
}

func TestDedupFiles(t *testing.T) {
	goDir := filepath.Join(docsDir, "go")
	js := filepath.Join(t.TempDir(), "stats.json")
	out, errs, code := docsRun(t, "dedup", "--files", "--tokens", "go:5", "--include", "*.go", "-t", "0.5", "--clusters", "--stats-json", js, goDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	p := func(rel string) string { return filepath.Join(goDir, filepath.FromSlash(rel)) }
	want := strings.Join([]string{
		p("doc.go") + "\t1",
		p("reader.go") + "\t2",
		p("sub/reader_test.go") + "\t3",
		p("sub/strreader.go") + "\t2",
		p("testdata/reader.go") + "\t2",
		p("tokens.go") + "\t4",
	}, "\n") + "\n"
	if out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	m := readStatsJSON(t, js)
	sec := m["sections"].(map[string]any)["clusters"].(map[string]any)
	if sec["clusters"] != 4.0 || sec["removed"] != 2.0 || sec["largest"] != 3.0 || sec["singletons"] != 3.0 {
		t.Errorf("clusters section %v", sec)
	}
	top := sec["largest_clusters"].([]any)[0].(map[string]any)
	if top["first"] != p("reader.go") || top["size"] != 3.0 {
		t.Errorf("largest cluster %v", top)
	}
	out, _, _ = docsRun(t, "dedup", "--files", "--tokens", "go:5", "--include", "*.go", "-t", "0.5", "--format", "jsonl", goDir)
	wantJSON := fmt.Sprintf("{\"id\":%q}\n{\"id\":%q}\n{\"id\":%q}\n{\"id\":%q}\n", p("doc.go"), p("reader.go"), p("sub/reader_test.go"), p("tokens.go"))
	if out != wantJSON {
		t.Errorf("jsonl\n%s\nwant\n%s", out, wantJSON)
	}
	out, _, _ = docsRun(t, "dedup", "--files", "--tokens", "go:5", "--include", "*.go", "-t", "0.5", "--format", "csv", "--clusters", goDir)
	if !strings.HasPrefix(out, "id,cluster\n"+p("doc.go")+",1\n") {
		t.Errorf("csv\n%s", out)
	}
}

// TestDedupLSH: LSH reports no false pair, so each of its clusters lies
// inside one exact cluster; identical records always meet.
func TestDedupLSH(t *testing.T) {
	seed := uint64(99)
	t.Logf("Using seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	lines := randomLines(r, 300)
	path := filepath.Join(t.TempDir(), "lines.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	labels := func(args ...string) []int {
		out, errs, code := docsRun(t, append([]string{"dedup", "--clusters", "-t", "0.6"}, append(args, path)...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var ls []int
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			_, l, _ := strings.Cut(line, "\t")
			n, _ := strconv.Atoi(l)
			ls = append(ls, n)
		}
		return ls
	}
	exact := labels("--method", "exact")
	lsh := labels("--method", "lsh", "--perm", "64")
	inside := map[int]int{}
	for i, l := range lsh {
		if e, ok := inside[l]; ok && e != exact[i] {
			t.Fatalf("LSH cluster %d spans exact clusters %d and %d", l, e, exact[i])
		}
		inside[l] = exact[i]
	}
	for i := range lines {
		for j := i + 1; j < len(lines); j++ {
			if lines[i] != "" && lines[i] == lines[j] && lsh[i] != lsh[j] {
				t.Fatalf("identical lines %d and %d in LSH clusters %d and %d", i+1, j+1, lsh[i], lsh[j])
			}
		}
	}
	if slices.Max(lsh) < slices.Max(exact) {
		t.Logf("LSH found %d clusters where exact has %d (it may miss pairs)", slices.Max(lsh), slices.Max(exact))
	}
}

func TestDedupUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"dedup", "-t", "0.5", "--against", "x", "y"}, "--against"},
		{[]string{"dedup", "x"}, "threshold"},
		{[]string{"dedup", "-t", "0.5"}, "arg"},
	} {
		_, errs, code := docsRun(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.msg)
		}
	}
}

// TestDedupCopiesLinear is the regression test for dedup on exact copies:
// n identical lines are one group, unioned in n - 1 steps, not n(n-1)/2
// pairs; the report still counts the record pairs they stand for, and the
// clusters are those of the pairs.
func TestDedupCopiesLinear(t *testing.T) {
	const n = 2000
	var lines []string
	for i := range n {
		lines = append(lines, "a b c d", "a b c e", "x"+strconv.Itoa(i%5)+" y")
	}
	path := filepath.Join(t.TempDir(), "copies.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(t.TempDir(), "stats.json")
	out, errs, code := docsRun(t, "dedup", "--method", "exact", "-t", "0.6", "--stats-json", js, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != "1\n3\n6\n9\n12\n15\n" {
		t.Fatalf("kept %q, want the first of the copies' cluster and of each x cluster", out)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results  int64 `json:"results"`
		Sections struct {
			Clusters struct {
				Records  int   `json:"records"`
				Clusters int   `json:"clusters"`
				Unions   int64 `json:"unions"`
			} `json:"clusters"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	// "a b c d" and "a b c e" (Jaccard 3/5) all pair: 2n records; each
	// "xk y" pairs with its n/5 copies.
	want := int64(2*n*(2*n-1)/2 + 5*(n/5)*(n/5-1)/2)
	c := rep.Sections.Clusters
	if rep.Results != want || c.Records != 3*n || c.Clusters != 6 {
		t.Errorf("results %d (want %d), records %d, clusters %d", rep.Results, want, c.Records, c.Clusters)
	}
	if c.Unions <= 0 || c.Unions > int64(3*n) {
		t.Errorf("%d unions for %d records: want at most one a record, not one a pair of copies", c.Unions, 3*n)
	}
}
