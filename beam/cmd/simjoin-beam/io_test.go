package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// runCmd runs the command in-process and returns its exit status and what it
// wrote on stderr. The command sets Beam's flags, which live on the standard
// flag set for the whole process: they are put back afterwards, so that one
// run's --runner or --endpoint does not leak into the next.
func runCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	saved := map[string]string{}
	flag.CommandLine.VisitAll(func(f *flag.Flag) { saved[f.Name] = f.Value.String() })
	defer flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if v := saved[f.Name]; f.Value.String() != v {
			f.Value.Set(v)
		}
	})
	var stderr bytes.Buffer
	code := run(context.Background(), args, &stderr)
	return code, stderr.String()
}

// shards returns the lines of the n output files under prefix, sorted, and
// fails the test if a temporary file was left.
func shards(t *testing.T, prefix string, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		name := fmt.Sprintf("%s-%05d-of-%05d", prefix, i, n)
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(name + ".partial"); err == nil {
			t.Errorf("%s: temporary file left", name)
		}
		if len(b) > 0 {
			out = append(out, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
		}
	}
	slices.Sort(out)
	return out
}

// nothingWritten fails the test if any file starts with prefix.
func nothingWritten(t *testing.T, prefix string) {
	t.Helper()
	if m, _ := filepath.Glob(prefix + "*"); len(m) != 0 {
		t.Errorf("files left: %q", m)
	}
}

// setsLines returns the lines of testdata/sets.txt.
func setsLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(sets)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// input tokenizes records as the CLI does.
func input(t *testing.T, tokens string, recs []string) *order.Input {
	t.Helper()
	spec, err := shingle.Parse(tokens)
	if err != nil {
		t.Fatal(err)
	}
	in := new(order.Input)
	for _, r := range recs {
		keys, err := spec.Append(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		in.Add(keys)
	}
	return in
}

// exactLines is the oracle of join: the CLI's exact join of r (of s, for an
// R-S join: s not nil) at threshold th under Jaccard, formatted with the
// given ids, sorted.
func exactLines(t *testing.T, tokens, th string, r, s, idR, idS []string) []string {
	t.Helper()
	thr, err := prefix.ParseThreshold(prefix.Jaccard, th)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	yield := func(p join.Pair) bool {
		out = append(out, idR[p.A]+"\t"+idS[p.B]+"\t"+string(prefix.Jaccard.AppendSim(nil, p.Sim)))
		return true
	}
	opt := join.Options{Threshold: thr}
	if s == nil {
		c, err := order.New(input(t, tokens, r))
		if err != nil {
			t.Fatal(err)
		}
		_, err = join.SelfJoin(context.Background(), c, opt, yield)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		cs, err := order.Build(input(t, tokens, r), input(t, tokens, s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err = join.RSJoin(context.Background(), cs[0], cs[1], opt, yield); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// numbers returns the ids "1".."n", or "PREFIX:1".."PREFIX:n".
func numbers(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i+1)
	}
	return out
}

func gzipped(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(text))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t *testing.T, text string) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll([]byte(text), nil)
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestCompressedInputs: gzip and zstd files are read decompressed, as the
// CLI reads them, wherever an input is named (--input, --against, --files),
// whole by one worker even when --span-bytes cuts the plain files; a
// truncated one fails with one line naming it.
func TestCompressedInputs(t *testing.T) {
	dir := t.TempDir()
	all := setsLines(t)
	text := func(l []string) string { return strings.Join(l, "\n") + "\n" }
	a := write(t, filepath.Join(dir, "a.gz"), gzipped(t, text(all[:700])))
	b := write(t, filepath.Join(dir, "b.txt"), []byte(text(all[700:1300])))
	c := write(t, filepath.Join(dir, "c.zst"), zstded(t, text(all[1300:])))

	// Several files: ids PATH:LINE in glob order, as `simjoin join` numbers them.
	ids := append(append(numbers(700, a+":"), numbers(600, b+":")...), numbers(700, c+":")...)
	want := exactLines(t, "set", "0.8", all, nil, ids, ids)
	out := filepath.Join(dir, "pairs")
	code, stderr := runCmd(t, "join", "-t", "0.8", "--input", filepath.Join(dir, "*"), "--span-bytes", "1000", "--output", out, "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := shards(t, out, 1); !slices.Equal(got, want) {
		t.Errorf("several files: %d lines, want %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	for _, row := range []string{"gzip files                 1", "zstd files                 1", "records                    2,000"} {
		if !strings.Contains(stderr, row) {
			t.Errorf("--stats lacks %q:\n%s", row, stderr)
		}
	}

	// R-S: each side one compressed file, ids its line numbers.
	want = exactLines(t, "set", "0.7", all[:700], all[1300:], numbers(700, ""), numbers(700, ""))
	out = filepath.Join(dir, "rs")
	if code, stderr := runCmd(t, "join", "-t", "0.7", "--input", a, "--against", c, "--output", out); code != 0 {
		t.Fatalf("R-S: exit %d: %s", code, stderr)
	}
	if got := shards(t, out, 1); !slices.Equal(got, want) {
		t.Errorf("R-S: %d lines, want %d:\n%s", len(got), len(want), firstDiff(got, want))
	}

	// --files: a compressed file is one record, its text decompressed.
	docs := filepath.Join(dir, "docs")
	d1 := write(t, filepath.Join(docs, "d1.txt.gz"), gzipped(t, "the quick brown fox jumps over the lazy dog"))
	d2 := write(t, filepath.Join(docs, "d2.txt"), []byte("the quick brown fox jumps over the lazy cat"))
	d3 := write(t, filepath.Join(docs, "d3.txt.zst"), zstded(t, "a quick brown fox jumps over a lazy cat"))
	want = exactLines(t, "words", "0.5", []string{
		"the quick brown fox jumps over the lazy dog", "the quick brown fox jumps over the lazy cat", "a quick brown fox jumps over a lazy cat",
	}, nil, []string{d1, d2, d3}, []string{d1, d2, d3})
	out = filepath.Join(dir, "files")
	if code, stderr := runCmd(t, "join", "--files", "--tokens", "words", "-t", "0.5", "--input", docs, "--output", out); code != 0 {
		t.Fatalf("--files: exit %d: %s", code, stderr)
	}
	if got := shards(t, out, 1); !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("--files: %q, want %q", got, want)
	}

	// A truncated gzip file: one line naming it, nothing written.
	gz := gzipped(t, text(all[:700]))
	bad := write(t, filepath.Join(dir, "bad", "cut.gz"), gz[:len(gz)/2])
	out = filepath.Join(dir, "cut")
	code, stderr = runCmd(t, "join", "-t", "0.8", "--input", bad, "--output", out)
	if code != 1 || !strings.HasPrefix(stderr, "simjoin-beam: "+bad+": gzip: ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("truncated gzip: exit %d, stderr %q; want 1 and one line naming the file", code, stderr)
	}
	nothingWritten(t, out)
}

// firstDiff lists up to five lines only in got and five only in want (both
// sorted).
func firstDiff(got, want []string) string {
	var b strings.Builder
	only := func(a, c []string, tag string) {
		k := 0
		for _, x := range a {
			if _, ok := slices.BinarySearch(c, x); !ok && k < 5 {
				fmt.Fprintf(&b, "  %s %q\n", tag, x)
				k++
			}
		}
	}
	only(got, want, "extra")
	only(want, got, "missing")
	return b.String()
}

// TestOutputRefused: an output the CLI's -o refuses is refused before any
// work, and no directory is created: a prefix in a directory that does not
// exist or is a file, a shard name that is a directory (exit status 1, the
// CLI's "create" errors), a shard that is an input (exit status 2).
func TestOutputRefused(t *testing.T) {
	dir := t.TempDir()
	file := write(t, filepath.Join(dir, "file"), []byte("x\n"))
	shardDir := filepath.Join(dir, "d-00000-of-00001")
	if err := os.Mkdir(shardDir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := write(t, filepath.Join(dir, "in-00000-of-00001"), []byte("a b c\na b c d\n"))
	for _, tc := range []struct {
		output, input string
		code          int
		msg           string
	}{
		{filepath.Join(dir, "no", "such", "x"), sets, 1, "create " + filepath.Join(dir, "no", "such", "x") + "-00000-of-00001: no such file or directory"},
		{filepath.Join(file, "x"), sets, 1, "create " + filepath.Join(file, "x") + "-00000-of-00001: not a directory"},
		{filepath.Join(dir, "d"), sets, 1, "create " + shardDir + ": is a directory"},
		{filepath.Join(dir, "in"), in, 2, in + ": is an input of this run: refusing to overwrite it"},
	} {
		code, stderr := runCmd(t, "join", "-t", "0.5", "--input", tc.input, "--output", tc.output)
		if code != tc.code || stderr != "simjoin-beam: "+tc.msg+"\n" {
			t.Errorf("--output %s: exit %d, stderr %q; want %d, %q", tc.output, code, stderr, tc.code, tc.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Errorf("the output's directory was created")
	}
	if b, _ := os.ReadFile(in); string(b) != "a b c\na b c d\n" {
		t.Errorf("the input was overwritten: %q", b)
	}
}

// TestOneLineError: a bad record fails the run with one line naming it, the
// runner's logs and plan dumps only with --verbose (and the line last).
func TestOneLineError(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, filepath.Join(dir, "bad.txt"), []byte("a b c\nx \xff y\n"))
	out := filepath.Join(dir, "x")
	want := "simjoin-beam: " + bad + ":2: invalid UTF-8\n"
	code, stderr := runCmd(t, "join", "-t", "0.5", "--tokens", "words", "--input", bad, "--output", out)
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr (%d bytes):\n%s\nwant 1 and %q", code, len(stderr), stderr, want)
	}
	nothingWritten(t, out)
	code, stderr = runCmd(t, "join", "-t", "0.5", "--tokens", "words", "--input", bad, "--output", out, "--verbose")
	if code != 1 || !strings.HasSuffix(stderr, "\n"+want) || !strings.Contains(stderr, "level=ERROR") {
		t.Errorf("--verbose: exit %d, stderr (%d bytes) does not end with %q after the runner's logs:\n%s", code, len(stderr), want, stderr)
	}
	nothingWritten(t, out)
}

// TestNotRun: a runner that accepts the job without running it (Dataflow's
// --dry_run, which needs no network) leaves no output: the shards appear
// only when the job writes them.
func TestNotRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "pairs")
	code, stderr := runCmd(t, "join", "-t", "0.8", "--input", sets, "--output", out,
		"--runner", "dataflow", "--dry_run", "--project", "p", "--region", "us-central1",
		"--staging_location", "gs://b/staging", "--temp_location", "gs://b/tmp")
	if code != 0 || !strings.Contains(stderr, "nothing written") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	nothingWritten(t, out)
}

// TestLaunchRefused: --async where the job cannot outlive the command
// (Prism in-process, the LOOPBACK environment) and a --worker_binary that is
// no linux/amd64 executable are usage errors, found before any work.
func TestLaunchRefused(t *testing.T) {
	dir := t.TempDir()
	notELF := write(t, filepath.Join(dir, "worker"), []byte("#!/bin/sh\n"))
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--async"}, "--async needs a job that outlives this process"},
		{[]string{"--async", "--runner", "universal", "--endpoint", "localhost:1", "--environment_type", "LOOPBACK"}, "--async needs a job that outlives this process"},
		{[]string{"--runner", "universal", "--endpoint", "localhost:1", "--environment_type", "DOCKER", "--worker_binary", notELF}, "--worker_binary " + notELF + ": not an ELF executable"},
		{[]string{"--runner", "flink", "--endpoint", "localhost:1", "--worker_binary", filepath.Join(dir, "none")}, "no such file or directory"},
	} {
		out := filepath.Join(dir, "x")
		code, stderr := runCmd(t, append([]string{"join", "-t", "0.8", "--input", sets, "--output", out}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.msg)
		}
		nothingWritten(t, out)
	}
}

// TestLSHRSJoin: the LSH R-S join equals the CLI's (approx.RSJoin, the same
// seed and banding) line for line, with identical sets within and across
// the sides, and with a cap that S's buckets exceed.
func TestLSHRSJoin(t *testing.T) {
	dir := t.TempDir()
	all := setsLines(t)
	r := append(slices.Clone(all[:900]), all[:50]...)     // copies within R
	s := append(slices.Clone(all[900:]), all[100:150]...) // sets R holds too
	s = append(s, all[900:920]...)                        // copies within S
	rf := write(t, filepath.Join(dir, "r.txt"), []byte(strings.Join(r, "\n")+"\n"))
	sf := write(t, filepath.Join(dir, "s.txt"), []byte(strings.Join(s, "\n")+"\n"))
	for _, tc := range []struct {
		th, shape string
		seed      uint64
		cap       int
	}{
		{"0.6", "", 0, approx.DefaultMaxBucket},
		{"0.8", "6x8", 7, approx.DefaultMaxBucket}, // recall well inside (0, 1)
		{"0.5", "", 3, 3},                          // S buckets over the cap
	} {
		th, _ := prefix.ParseThreshold(prefix.Jaccard, tc.th)
		o := approx.Options{Threshold: th, Seed: tc.seed, MaxBucket: tc.cap}
		if tc.shape != "" {
			o.Shape, _ = approx.ParseShape(tc.shape)
		}
		cs, err := order.Build(input(t, "set", r), input(t, "set", s))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		st, err := approx.RSJoin(context.Background(), cs[0], cs[1], o, func(p join.Pair) bool {
			want = append(want, strconv.Itoa(p.A+1)+"\t"+strconv.Itoa(p.B+1)+"\t"+string(prefix.Jaccard.AppendSim(nil, p.Sim)))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		exact := exactLines(t, "set", tc.th, r, s, numbers(len(r), ""), numbers(len(s), ""))
		if len(want) == 0 || tc.shape != "" && len(want) >= len(exact) || tc.cap == 3 && st.CappedBuckets == 0 {
			t.Fatalf("fixture too weak at %s: %d LSH pairs of %d, %d capped buckets", tc.th, len(want), len(exact), st.CappedBuckets)
		}
		out := filepath.Join(dir, "lsh-"+tc.th)
		args := []string{"join", "--method", "lsh", "-t", tc.th, "--seed", strconv.FormatUint(tc.seed, 10),
			"--max-bucket", strconv.Itoa(tc.cap), "--input", rf, "--against", sf, "--output", out, "--shards", "2"}
		if tc.shape != "" {
			args = append(args, "--lsh", tc.shape)
		}
		if code, stderr := runCmd(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := shards(t, out, 2); !slices.Equal(got, want) {
			t.Errorf("-t %s: %d lines, want %d:\n%s", tc.th, len(got), len(want), firstDiff(got, want))
		}
	}
}

// dedupOracle is `simjoin dedup`'s clustering of recs (exact, Jaccard th):
// the clusters as lists of record indexes in input order, in the order of
// their first records.
func dedupOracle(t *testing.T, tokens, th string, recs []string) [][]int {
	t.Helper()
	thr, _ := prefix.ParseThreshold(prefix.Jaccard, th)
	c, err := order.New(input(t, tokens, recs))
	if err != nil {
		t.Fatal(err)
	}
	f := cluster.New(len(recs))
	if _, err := join.SelfJoin(context.Background(), c, join.Options{Threshold: thr}, func(p join.Pair) bool {
		f.Union(p.A, p.B)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return f.Clusters(1)
}

// TestDedupOutputs: --keep first|longest|shortest choose the record kept of
// each cluster (first in input order among equals), --clusters writes every
// record with the one kept of its cluster, --output-records the kept
// records' lines; against `simjoin dedup`'s clusters.
func TestDedupOutputs(t *testing.T) {
	dir := t.TempDir()
	all := setsLines(t)
	// Repeat some sets with a different number of spaces: the same set,
	// lines of different lengths, so that the rules disagree.
	recs := slices.Clone(all)
	for i := 0; i < 300; i += 3 {
		recs = append(recs, strings.ReplaceAll(all[i], " ", "  "), all[i]+" ")
	}
	in := write(t, filepath.Join(dir, "in.txt"), []byte(strings.Join(recs, "\n")+"\n"))
	clusters := dedupOracle(t, "set", "0.7", recs)
	if len(clusters) == len(recs) {
		t.Fatal("no cluster: the fixture is wrong")
	}
	better := map[string]func(a, b int) bool{
		"first":    func(a, b int) bool { return false },
		"longest":  func(a, b int) bool { return len(recs[a]) > len(recs[b]) },
		"shortest": func(a, b int) bool { return len(recs[a]) < len(recs[b]) },
	}
	for _, keep := range []string{"first", "longest", "shortest"} {
		var kept, text, labels []string
		for _, c := range clusters {
			k := c[0]
			for _, i := range c[1:] {
				if better[keep](i, k) {
					k = i
				}
			}
			kept = append(kept, strconv.Itoa(k+1))
			text = append(text, recs[k])
			for _, i := range c {
				labels = append(labels, strconv.Itoa(i+1)+"\t"+strconv.Itoa(k+1))
			}
		}
		for _, tc := range []struct {
			flag string
			want []string
		}{{"", kept}, {"--clusters", labels}, {"--output-records", text}} {
			slices.Sort(tc.want)
			out := filepath.Join(dir, keep+tc.flag)
			args := []string{"dedup", "--method", "exact", "-t", "0.7", "--keep", keep, "--input", in, "--output", out, "--shards", "3"}
			if tc.flag != "" {
				args = append(args, tc.flag)
			}
			if code, stderr := runCmd(t, args...); code != 0 {
				t.Fatalf("%q: exit %d: %s", args, code, stderr)
			}
			if got := shards(t, out, 3); !slices.Equal(got, tc.want) {
				t.Errorf("--keep %s %s: %d lines, want %d:\n%s", keep, tc.flag, len(got), len(tc.want), firstDiff(got, tc.want))
			}
		}
	}
}

// TestUnsettled: a dedup whose clusters do not settle in --rounds fails
// within the job, whatever the runner reports, and writes nothing.
func TestUnsettled(t *testing.T) {
	dir := t.TempDir()
	// A chain: record i shares all but one token with record i+1.
	var chain []string
	for i := range 64 {
		chain = append(chain, fmt.Sprintf("t%d t%d t%d t%d", i, i+1, i+2, i+3))
	}
	in := write(t, filepath.Join(dir, "chain.txt"), []byte(strings.Join(chain, "\n")+"\n"))
	out := filepath.Join(dir, "kept")
	code, stderr := runCmd(t, "dedup", "--method", "exact", "-t", "0.6", "--rounds", "1", "--input", in, "--output", out)
	if code != 1 || !strings.HasPrefix(stderr, "simjoin-beam: clusters did not settle in 1 rounds") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	nothingWritten(t, out)
}

// jsonLine is one JSON Lines record of the tests: an id, the text and a
// field the command does not read.
func jsonLine(id any, text string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "text": text, "meta": map[string]any{"n": 1, "tags": []string{"x"}}})
	return string(b)
}

// TestJSONL: JSON Lines inputs (--jsonl-field, --jsonl-id) give the CLI's
// pairs over their text fields, with the ids the input gives in every
// output (join, dedup, --clusters), the kept JSON objects whole with
// --output-records, and one line naming FILE:LINE for a bad line or an id
// that repeats.
func TestJSONL(t *testing.T) {
	dir := t.TempDir()
	all := setsLines(t)
	var lines, ids []string
	for i, l := range all {
		var id any = fmt.Sprintf("doc\t%d", i) // a tab: escaped in TSV
		if i%3 == 0 {
			id = 1000000 + i // a number, written as spelled
		}
		lines = append(lines, jsonLine(id, l))
		ids = append(ids, strings.ReplaceAll(fmt.Sprint(id), "\t", `\t`))
	}
	in := write(t, filepath.Join(dir, "docs.jsonl"), []byte(strings.Join(lines, "\r\n")+"\r\n"))

	want := exactLines(t, "set", "0.8", all, nil, ids, ids)
	out := filepath.Join(dir, "pairs")
	if code, stderr := runCmd(t, "join", "-t", "0.8", "--jsonl-field", "text", "--jsonl-id", "id", "--input", in, "--output", out, "--shards", "2"); code != 0 {
		t.Fatalf("join: exit %d: %s", code, stderr)
	}
	if got := shards(t, out, 2); !slices.Equal(got, want) {
		t.Errorf("join: %d lines, want %d:\n%s", len(got), len(want), firstDiff(got, want))
	}
	// Without --jsonl-id, ids are line numbers, as for plain lines.
	want = exactLines(t, "set", "0.8", all, nil, numbers(len(all), ""), numbers(len(all), ""))
	out = filepath.Join(dir, "numbered")
	if code, stderr := runCmd(t, "join", "-t", "0.8", "--jsonl-field", "text", "--input", in, "--output", out); code != 0 {
		t.Fatalf("join: exit %d: %s", code, stderr)
	}
	if got := shards(t, out, 1); !slices.Equal(got, want) {
		t.Errorf("join without ids: %d lines, want %d", len(got), len(want))
	}

	clusters := dedupOracle(t, "set", "0.8", all)
	var kept, objects, labels []string
	for _, c := range clusters {
		kept = append(kept, ids[c[0]])
		objects = append(objects, lines[c[0]])
		for _, i := range c {
			labels = append(labels, ids[i]+"\t"+ids[c[0]])
		}
	}
	for _, tc := range []struct {
		flag string
		want []string
	}{{"", kept}, {"--clusters", labels}, {"--output-records", objects}} {
		slices.Sort(tc.want)
		out := filepath.Join(dir, "dedup"+tc.flag)
		args := []string{"dedup", "--method", "exact", "-t", "0.8", "--jsonl-field", "text", "--jsonl-id", "id", "--input", in, "--output", out}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		if code, stderr := runCmd(t, args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if got := shards(t, out, 1); !slices.Equal(got, tc.want) {
			t.Errorf("dedup %s: %d lines, want %d:\n%s", tc.flag, len(got), len(tc.want), firstDiff(got, tc.want))
		}
	}

	// Bad input: one line naming the file and line, nothing written.
	for _, tc := range []struct {
		bad, msg string
	}{
		{`{"id": "a", "text": "x y"`, ":3: not a JSON object"},
		{`["x y"]`, ":3: not a JSON object"},
		{`{"id": "a", "text": "x y"} {}`, ":3: not a JSON object"},
		{`{"id": "a", "txt": "x y"}`, `:3: no field "text"`},
		{`{"text": "x y"}`, `:3: no field "id"`},
		{`{"id": "a", "text": 5}`, `:3: field "text" is not a string`},
		{`{"id": "a", "text": "x", "text": "y"}`, `:3: field "text" repeats`},
		{`{"id": "a", "text": "x \udc00 y"}`, `:3: field "text" holds a lone surrogate escape`},
		{`{"id": null, "text": "x y"}`, `:3: field "id" is neither a string nor a number`},
		{"{\"id\": \"a\", \"text\": \"x \xff y\"}", ":3: invalid UTF-8"},
		{jsonLine("doc\t0", "x y"), `:3: id "doc\t0" repeats the id of ` + filepath.Join(dir, "bad.jsonl") + ":2"},
	} {
		bad := write(t, filepath.Join(dir, "bad.jsonl"), []byte(jsonLine(7, "a b")+"\n"+jsonLine("doc\t0", "c d")+"\n"+tc.bad+"\n"))
		out := filepath.Join(dir, "badout")
		code, stderr := runCmd(t, "join", "-t", "0.8", "--jsonl-field", "text", "--jsonl-id", "id", "--input", bad, "--output", out)
		if want := "simjoin-beam: " + bad + tc.msg + "\n"; code != 1 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want 1, %q", tc.bad, code, stderr, want)
		}
		nothingWritten(t, out)
	}
}
