package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/sink"
)

// newsTxt is the collection of the tests below: lines 2 and 5 are near
// copies of line 1 (7/9 and 1 under words), line 6 of line 4 (5/6).
const newsTxt = `the quick brown fox jumps over the lazy dog
the quick brown fox jumped over the lazy dog
a fast brown fox leaps over a sleepy dog
lorem ipsum dolor sit amet
The quick brown fox jumps over the lazy dog!
lorem ipsum dolor sit amet consectetur
`

// TestIndexWorkflow walks create, add with and without --dedup, search by
// threshold and top-k, delete, compact, stats and verify, byte for byte.
func TestIndexWorkflow(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "news.idx")
	news := cliWrite(t, dir, "news.txt", newsTxt)
	out, _ := cliOK(t, "", "index", "create", ix, "--tokens", "words", "--min-threshold", "0.5")
	if want := "created " + ix + ": tokens words, jaccard >= 0.5, exact\npredicted recall at jaccard 0.5: 1 (exact)\n"; out != want {
		t.Errorf("create: %q, want %q", out, want)
	}
	out, _ = cliOK(t, "", "index", "add", ix, "--dedup", "-t", "0.7", news)
	wantAdd := "1\tinserted\t1\n2\tduplicate\t1\t0.777778\n3\tinserted\t2\n4\tinserted\t3\n5\tduplicate\t1\t1\n6\tduplicate\t3\t0.833333\n"
	if out != wantAdd {
		t.Errorf("add --dedup:\n got %q\nwant %q", out, wantAdd)
	}
	// Searching the same lines: by threshold, best first.
	out, _ = cliOK(t, "", "index", "search", ix, "-t", "0.5", news)
	wantSearch := "1\t1\t1\n2\t1\t0.777778\n3\t2\t1\n4\t3\t1\n5\t1\t1\n6\t3\t0.833333\n"
	if out != wantSearch {
		t.Errorf("search -t 0.5:\n got %q\nwant %q", out, wantSearch)
	}
	out, _ = cliOK(t, "", "index", "search", ix, "--top-k", "1", "--format", "jsonl", "-")
	if out != "" {
		t.Errorf("search of no queries: %q", out)
	}
	// -o writes the file whole; CSV has the search's own header.
	res := filepath.Join(dir, "res.csv")
	if out, _ = cliOK(t, "", "index", "search", ix, "-t", "0.8", "--format", "csv", "-o", res, news); out != "" {
		t.Errorf("search -o: stdout %q", out)
	}
	if data, err := os.ReadFile(res); err != nil || string(data) != "query,id,similarity\n1,1,1\n3,2,1\n4,3,1\n5,1,1\n6,3,0.833333\n" {
		t.Errorf("search -o %s: %q, %v", res, data, err)
	}
	out, _ = cliOK(t, "lorem ipsum dolor\n", "index", "search", ix, "--top-k", "1", "--format", "jsonl", "-")
	if want := `{"query":1,"id":3,"sim":0.6}` + "\n"; out != want {
		t.Errorf("search --top-k 1 --format jsonl: %q, want %q", out, want)
	}
	// A record added without --dedup is inserted even when it is a copy.
	out, _ = cliOK(t, "lorem ipsum dolor sit amet\n", "index", "add", ix, "-")
	if out != "1\tinserted\t4\n" {
		t.Errorf("add without --dedup: %q", out)
	}
	out, _ = cliOK(t, "", "index", "delete", ix, "3", "4", "17")
	if out != "deleted 2 of 3 ids\n" {
		t.Errorf("delete: %q", out)
	}
	out, _ = cliOK(t, "", "index", "search", ix, "-t", "0.5", news)
	if want := "1\t1\t1\n2\t1\t0.777778\n3\t2\t1\n5\t1\t1\n"; out != want {
		t.Errorf("search after delete:\n got %q\nwant %q", out, want)
	}
	cliOK(t, "", "index", "compact", ix)
	if out2, _ := cliOK(t, "", "index", "search", ix, "-t", "0.5", news); out2 != out {
		t.Errorf("search after compact:\n got %q\nwant %q", out2, out)
	}
	out, _ = cliOK(t, "", "index", "stats", ix)
	for _, want := range []string{"config\ttokens words, jaccard >= 0.5, exact\n", "method\texact\n", "records\t4\n", "live\t2\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats: %q lacks %q", out, want)
		}
	}
	out, _ = cliOK(t, "", "index", "verify", ix)
	if out != ix+": ok\n" {
		t.Errorf("verify: %q", out)
	}
}

// TestIndexAddOracle streams a generated collection through index add
// --dedup in small batches and checks every output line against the
// sequential greedy dedup, in exact arithmetic.
func TestIndexAddOracle(t *testing.T) {
	const seed = 5
	t.Logf("seed %d", seed)
	sets := synth.Sets(synth.SetsConfig{N: 300, MinSize: 2, MaxSize: 10, Universe: 40, Zipf: 0.7, DupFraction: 0.4, Replace: 0.2, Seed: seed})
	var in strings.Builder
	for _, s := range sets {
		for k, tok := range s {
			if k > 0 {
				in.WriteByte(' ')
			}
			fmt.Fprintf(&in, "t%d", tok)
		}
		in.WriteByte('\n')
	}
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	cliOK(t, "", "index", "create", ix, "--min-threshold", "3/5")
	out, _ := cliOK(t, in.String(), "index", "add", ix, "--dedup", "-t", "3/5", "--batch", "7", "-")
	th := prefix.Threshold{Num: 3, Den: 5}
	var kept [][]uint32
	var want strings.Builder
	for i, x := range sets {
		best, bo, by := -1, 0, 0
		for k, y := range kept {
			o := jointest.Overlap(x, y)
			if jointest.Reaches(prefix.Jaccard, th, o, len(x), len(y)) && (best < 0 || o*(len(x)+by-bo) > bo*(len(x)+len(y)-o)) {
				best, bo, by = k, o, len(y)
			}
		}
		if best < 0 {
			kept = append(kept, x)
			fmt.Fprintf(&want, "%d\tinserted\t%d\n", i+1, len(kept)) // ids from 1
			continue
		}
		fmt.Fprintf(&want, "%d\tduplicate\t%d\t%s\n", i+1, best+1, sink.AppendSimilarity(nil, float64(bo)/float64(len(x)+by-bo), false))
	}
	if out != want.String() {
		t.Errorf("index add --dedup differs from the greedy dedup:\n got %q\nwant %q", out, want.String())
	}
	if len(kept) == len(sets) || len(kept) < len(sets)/4 {
		t.Errorf("kept %d of %d: the data tests nothing", len(kept), len(sets))
	}
}

// TestIndexErrors checks exit statuses and messages: usage errors 2,
// runtime errors 1, and a corrupt file named by verify.
func TestIndexErrors(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	in := cliWrite(t, dir, "in.txt", "a b c\n")
	cliOK(t, "", "index", "create", ix, "--min-threshold", "0.5")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"index", "create", ix, "--min-threshold", "0.5"}, 1, "simjoin: " + ix + " already holds an index\n"},
		{[]string{"index", "create", dir, "--min-threshold", "0.5"}, 1, "is not empty"},
		{[]string{"index", "create", filepath.Join(dir, "no", "such"), "--min-threshold", "0.5"}, 1, "no such file or directory"},
		{[]string{"serve", ix, "--addr", "127.0.0.1:99999"}, 2, `--addr "127.0.0.1:99999": want HOST:PORT with a port from 0 to 65535`},
		{[]string{"serve", ix, "--addr", "localhost"}, 2, `--addr "localhost": want HOST:PORT`},
		{[]string{"index", "create", filepath.Join(dir, "x"), "--min-threshold", "0.5"}, 0, ""},
		{[]string{"index", "create", filepath.Join(dir, "y")}, 2, "missing --min-threshold"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "1.5"}, 2, "--min-threshold"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "fuzzy"}, 2, "unknown --method"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--perm", "64"}, 2, "--perm applies to --method lsh"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--measure", "cosine"}, 2, "Jaccard"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--lsh", "8x2", "--perm", "15"}, 2, "--lsh 8x2 uses 16 signature values but --perm is 15"},
		// The banding of the Milvus guide at its minimum of 0.5: recall 0.000244.
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--lsh", "16x16"}, 2, "--lsh 16x16 finds a pair at --min-threshold 0.5 with probability 0.000244 (1-(1-s^16)^16), below 0.5: give more bands or fewer rows, or --force"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--recall", "0.3"}, 2, "the banding 12x5 chosen for --recall 0.3 finds a pair"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--force"}, 2, "--force applies to --method lsh"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--bits", "12"}, 2, "--bits"},
		{[]string{"index", "add", filepath.Join(dir, "none"), in}, 1, "not an index"},
		{[]string{"index", "add", ix, "--dedup", in}, 2, "--dedup needs -t"},
		{[]string{"index", "add", ix, "-t", "0.8", in}, 2, "-t applies to --dedup"},
		{[]string{"index", "add", ix, "--dedup", "-t", "0.4", in}, 2, "simjoin: -t 0.4 is below the index's minimum threshold 0.5\n"},
		{[]string{"index", "add", ix, filepath.Join(dir, "missing.txt")}, 1, "missing.txt"},
		{[]string{"index", "search", ix, in}, 2, "missing -t/--threshold or --top-k"},
		{[]string{"index", "search", ix, "-t", "0.8", "--top-k", "3", in}, 2, "not both"},
		{[]string{"index", "search", ix, "--refine-k", "3", "-t", "0.8", in}, 2, "--refine-k needs --top-k"},
		{[]string{"index", "search", ix, "--top-k", "3", "--refine-k", "2", in}, 2, "--refine-k 2"},
		{[]string{"index", "search", ix, "-t", "0.8", "--only", "1,x", in}, 2, "--only"},
		{[]string{"index", "search", ix, "-t", "0.3", in}, 2, "simjoin: -t 0.3 is below the index's minimum threshold 0.5\n"},
		{[]string{"index", "delete", ix, "x"}, 2, "not a record id"},
		{[]string{"index", "stats", ix, "--format", "csv"}, 2, `unknown --format "csv": want tsv or jsonl`},
		{[]string{"index", "search", ix, "-t", "0.8", "-j", "-1", in}, 2, "-j/--workers must be >= 0"},
		{[]string{"index", "add", ix, "-j", "-1", in}, 2, "-j/--workers must be >= 0"},
		{[]string{"index", "compact", ix, "-j", "-1"}, 2, "-j/--workers must be >= 0"},
		{[]string{"serve", ix, "-j", "-1"}, 2, "-j/--workers must be >= 0"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--bands", "0"}, 2, "--bands 0: want 1 to --perm (128)"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--lsh", "100x100"}, 2, "--lsh 100x100 needs 10000 signature values, at most 1024"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--lsh", "4x4", "--bands", "4"}, 2, "give --lsh BxR or --bands B, not both"},
		{[]string{"index", "create", filepath.Join(dir, "y"), "--min-threshold", "0.5", "--method", "lsh", "--recall", "1"}, 2, "--recall 1: want a number in (0, 1)"},
		{[]string{"index", "verify", filepath.Join(dir, "none")}, 1, "not an index"},
		// The rules of the HTTP API's search and delete: a flag given as 0
		// is not "not given", --only needs an id, ids are written one way.
		{[]string{"index", "search", ix, "--top-k", "0", in}, 2, "--top-k 0: want >= 1"},
		{[]string{"index", "search", ix, "--top-k", "2", "--refine-k", "0", in}, 2, "--refine-k 0"},
		{[]string{"index", "search", ix, "-t", "0.8", "--only", "", in}, 2, "--only: want at least one id"},
		{[]string{"index", "search", ix, "-t", "0.8", "--only", "0", in}, 2, `"0" is not a record id`},
		{[]string{"index", "search", ix, "-t", "0.8", "--exclude", "2,01", in}, 2, `"01" is not a record id`},
		{[]string{"index", "delete", ix, "01"}, 2, `"01" is not a record id`},
		{[]string{"index", "delete", ix, "0"}, 2, `"0" is not a record id`},
		{[]string{"index", "bogus", ix}, 2, `unknown command "bogus" for "simjoin index"`},
	} {
		code, _, errs := cliRun(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
	// Invalid UTF-8 under a tokenizer that needs text names the file and line.
	words := filepath.Join(dir, "words")
	cliOK(t, "", "index", "create", words, "--tokens", "words", "--min-threshold", "0.5")
	bad := cliWrite(t, dir, "bad.txt", "good line\nbad \xff line\n")
	code, out, errs := cliRun(t, "", "index", "add", words, bad)
	if code != 1 || !strings.Contains(errs, "bad.txt:2") || out != "" {
		t.Errorf("invalid UTF-8: exit %d, stdout %q, stderr %q; want 1 naming bad.txt:2 and no output", code, out, errs)
	}
	// Nothing of the refused batch is held.
	if out, _ := cliOK(t, "", "index", "stats", "--format", "jsonl", words); !strings.Contains(out, `"records":0`) {
		t.Errorf("stats after a refused batch: %s", out)
	}
}

// TestIndexVerifyCorrupt flips a byte in each file of an index and checks
// that verify (or opening) exits 1 naming that file.
func TestIndexVerifyCorrupt(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	news := cliWrite(t, dir, "news.txt", newsTxt)
	cliOK(t, "", "index", "create", ix, "--tokens", "words", "--min-threshold", "0.5")
	cliOK(t, "", "index", "add", ix, news)
	cliOK(t, "", "index", "compact", ix)
	cliOK(t, "", "index", "add", ix, news)
	cliOK(t, "", "index", "add", ix, news)
	var files []string
	filepath.WalkDir(ix, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("the index has no files")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			continue
		}
		flipped := append([]byte(nil), data...)
		at := len(flipped) / 2
		if strings.HasPrefix(filepath.Base(f), "wal-") {
			// Inside the log's first block (after the 16-byte header and
			// the block's 8-byte length and checksum): damage in the last
			// block is a torn write, which opening truncates.
			at = 16 + 8 + 2
		}
		flipped[at] ^= 0x10
		if err := os.WriteFile(f, flipped, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := cliRun(t, "", "index", "verify", ix)
		if code != 1 || !strings.Contains(errs, filepath.Base(f)) {
			t.Errorf("%s with a flipped byte: verify exit %d, %q; want 1 naming the file", filepath.Base(f), code, errs)
		}
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errs := cliRun(t, "", "index", "verify", ix); code != 0 {
		t.Errorf("verify after restoring every file: exit %d %s", code, errs)
	}
}

// TestIndexLSH creates LSH indexes with and without raw sets and checks what
// the command line says of them: the banding chosen or given, exact
// similarities with raw sets, estimates (JSONL key "est", CSV header
// "estimate") without.
func TestIndexLSH(t *testing.T) {
	dir := t.TempDir()
	news := cliWrite(t, dir, "news.txt", newsTxt)
	raw := filepath.Join(dir, "raw")
	out, _ := cliOK(t, "", "index", "create", raw, "--tokens", "words", "--method", "lsh", "--min-threshold", "0.5", "--lsh", "16x4", "--raw-sets", "--seed", "7")
	if want := "created " + raw + ": tokens words, jaccard >= 0.5, lsh 16x4, 32-bit signatures of 64 values, seed 7, band filters at 0.01, raw sets (exact similarities)\n" +
		"predicted recall at jaccard 0.5: 0.644 (1-(1-s^4)^16: 16 bands of 4 rows)\n"; out != want {
		t.Errorf("create --raw-sets: %q, want %q", out, want)
	}
	est := filepath.Join(dir, "est")
	out, _ = cliOK(t, "", "index", "create", est, "--tokens", "words", "--method", "lsh", "--min-threshold", "0.5", "--bits", "16")
	if !strings.Contains(out, "16-bit signatures") || !strings.Contains(out, "estimated similarities") {
		t.Errorf("create without raw sets: %q", out)
	}
	// Identical records are found at 1 by both; near copies at their exact
	// similarity with raw sets.
	for _, ix := range []string{raw, est} {
		cliOK(t, "", "index", "add", ix, news)
	}
	out, _ = cliOK(t, "the quick brown fox jumps over the lazy dog\n", "index", "search", raw, "-t", "0.7", "-")
	// Seed 7 finds the near copy (P(0.78) = 0.9994 under 16x4).
	if want := "1\t1\t1\n1\t5\t1\n1\t2\t0.777778\n"; out != want {
		t.Errorf("raw sets search: %q, want %q", out, want)
	}
	out, _ = cliOK(t, "the quick brown fox jumps over the lazy dog\n", "index", "search", est, "-t", "0.9", "--format", "jsonl", "-")
	if !strings.HasPrefix(out, `{"query":1,"id":1,"est":1}`+"\n") {
		t.Errorf("estimates in JSONL: %q", out)
	}
	out, _ = cliOK(t, "the quick brown fox jumps over the lazy dog\n", "index", "search", est, "--top-k", "1", "--format", "csv", "-")
	if !strings.HasPrefix(out, "query,id,estimate\n1,1,1\n") {
		t.Errorf("estimates in CSV: %q", out)
	}
	out, _ = cliOK(t, "", "index", "add", est, "--dedup", "-t", "0.9", "--format", "jsonl", news)
	if !strings.Contains(out, `{"line":5,"status":"duplicate","id":1,"est":1}`) {
		t.Errorf("add --dedup on estimates: %q", out)
	}
	out, _ = cliOK(t, "the quick brown fox jumps over the lazy dog\n", "index", "add", est, "--dedup", "-t", "0.9", "--format", "csv", "-")
	if out != "line,status,id,estimate\n1,duplicate,1,1\n" {
		t.Errorf("add --dedup --format csv on estimates: %q", out)
	}
}
