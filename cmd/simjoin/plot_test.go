package main

import (
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/shingle"
)

// plotSection is the JSON of the plot section.
type plotSection []struct {
	Shape           string  `json:"shape"`
	Candidates      float64 `json:"candidates"`
	Found           float64 `json:"found"`
	Exact           int64   `json:"exact"`
	Recall          float64 `json:"recall"`
	RecallMin       float64 `json:"recall_min"`
	RecallMax       float64 `json:"recall_max"`
	PredictedRecall float64 `json:"predicted_recall"`
	Bins            []struct {
		From, To, Pairs, Share, Predicted float64
		Sampled                           bool
	} `json:"bins"`
}

func readPlotSection(t *testing.T, path string) plotSection {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sections struct {
			Plot plotSection `json:"plot"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Sections.Plot
}

// bandMatch is the definition of an LSH candidate: some band of r rows
// agrees on all of them.
func bandMatch(x, y []uint64, b, r int) bool {
	for j := range b {
		if slices.Equal(x[j*r:(j+1)*r], y[j*r:(j+1)*r]) {
			return true
		}
	}
	return false
}

// TestPlotAgainstDefinition runs plot on random near-duplicate lines and
// checks every bin at or above the truth threshold against brute force: the
// pairs in the bin by exact Jaccard, and the share whose MinHash signatures
// (approx.Hasher on the raw keys) agree on a whole band.
func TestPlotAgainstDefinition(t *testing.T) {
	seed := uint64(4242)
	t.Logf("Using seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	lines := randomLines(r, 160)
	dir := t.TempDir()
	path := filepath.Join(dir, "lines.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "stats.json")
	shapes := []approx.Shape{{B: 4, R: 2}, {B: 2, R: 3}}
	const k = 8
	out, errs, code := docsRun(t, "plot", "-t", "0.5", "--truth", "0.2", "--perm", strconv.Itoa(k), "--bits", "64", "--minhash", "classic",
		"--shapes", "4x2,2x3", "--stats-json", js, "--scurve", filepath.Join(dir, "s.png"), "--scurve", filepath.Join(dir, "s.svg"),
		"--circle", filepath.Join(dir, "c.svg"), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The oracle: signatures and Jaccard of every pair of non-empty lines.
	h, err := approx.NewHasher(approx.Classic, k, 0)
	if err != nil {
		t.Fatal(err)
	}
	spec := shingle.Spec{}
	keys := make([][]uint64, len(lines))
	sigs := make([][]uint64, len(lines))
	for i, l := range lines {
		keys[i], _ = spec.Append(nil, l)
		slices.Sort(keys[i])
		keys[i] = slices.Compact(keys[i])
		sigs[i] = h.Sign(nil, keys[i])
	}
	type cell struct{ pairs, found [2]int }
	bins := make([]cell, 20)
	var exact int
	var found [2]int
	var sumP [2]float64
	for i := range lines {
		for j := i + 1; j < len(lines); j++ {
			if len(keys[i]) == 0 || len(keys[j]) == 0 {
				continue
			}
			o := 0
			for _, key := range keys[i] {
				if _, ok := slices.BinarySearch(keys[j], key); ok {
					o++
				}
			}
			den := len(keys[i]) + len(keys[j]) - o
			if 5*o < den { // below the truth threshold 0.2
				continue
			}
			sim := float64(o) / float64(den)
			bin := min(o*20/den, 19)
			for s, sh := range shapes {
				hit := bandMatch(sigs[i], sigs[j], sh.B, sh.R)
				bins[bin].pairs[s]++
				if hit {
					bins[bin].found[s]++
				}
				if 2*o >= den {
					if hit {
						found[s]++
					}
					sumP[s] += sh.P(sim)
				}
			}
			if 2*o >= den {
				exact++
			}
		}
	}
	// Below 0.2: pairs of distinct non-empty sets.
	low := make([]cell, 4)
	var distinct []int
	for i := range lines {
		if len(keys[i]) > 0 && !slices.ContainsFunc(distinct, func(j int) bool { return slices.Equal(keys[i], keys[j]) }) {
			distinct = append(distinct, i)
		}
	}
	for x, i := range distinct {
		for _, j := range distinct[x+1:] {
			o := 0
			for _, key := range keys[i] {
				if _, ok := slices.BinarySearch(keys[j], key); ok {
					o++
				}
			}
			den := len(keys[i]) + len(keys[j]) - o
			if 5*o >= den {
				continue
			}
			bin := o * 20 / den
			for s, sh := range shapes {
				low[bin].pairs[s]++
				if bandMatch(sigs[i], sigs[j], sh.B, sh.R) {
					low[bin].found[s]++
				}
			}
		}
	}
	sec := readPlotSection(t, js)
	if len(sec) != 2 {
		t.Fatalf("plot section %+v", sec)
	}
	for s, ps := range sec {
		if ps.Shape != shapes[s].String() || ps.Exact != int64(exact) || ps.Found != float64(found[s]) {
			t.Errorf("%s: found %v of %d, want %d of %d", ps.Shape, ps.Found, ps.Exact, found[s], exact)
		}
		if want := sumP[s] / float64(exact); math.Abs(ps.PredictedRecall-want) > 1e-9 {
			t.Errorf("%s: predicted recall %v, want %v", ps.Shape, ps.PredictedRecall, want)
		}
		for b := 4; b < 20; b++ {
			got := ps.Bins[b]
			want := bins[b]
			if got.Sampled || got.Pairs != float64(want.pairs[s]) {
				t.Errorf("%s bin %d: %v pairs (sampled %v), want %d", ps.Shape, b, got.Pairs, got.Sampled, want.pairs[s])
				continue
			}
			if want.pairs[s] > 0 && math.Abs(got.Share-float64(want.found[s])/float64(want.pairs[s])) > 1e-9 {
				t.Errorf("%s bin %d: share %v, want %d/%d", ps.Shape, b, got.Share, want.found[s], want.pairs[s])
			}
		}
		// Below the truth threshold, all pairs of distinct sets are few
		// enough to be taken whole.
		for b := 0; b < 4; b++ {
			got, want := ps.Bins[b], low[b]
			if got.Sampled || got.Pairs != float64(want.pairs[s]) {
				t.Errorf("%s bin %d: %v pairs of distinct sets (sampled %v), want %d", ps.Shape, b, got.Pairs, got.Sampled, want.pairs[s])
				continue
			}
			if want.pairs[s] > 0 && math.Abs(got.Share-float64(want.found[s])/float64(want.pairs[s])) > 1e-9 {
				t.Errorf("%s bin %d: share %v, want %d/%d", ps.Shape, b, got.Share, want.found[s], want.pairs[s])
			}
		}
	}
	if !strings.Contains(out, "banding") || !strings.Contains(out, fmt.Sprintf("%d", exact)) {
		t.Errorf("table:\n%s", out)
	}
	// The figures exist and decode.
	f, err := os.Open(filepath.Join(dir, "s.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("s.png: %v", err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "c.svg"))
	if err != nil {
		t.Fatal(err)
	}
	g := string(svg)
	g = g[strings.Index(g, "<g "):strings.Index(g, "</g>")]
	if n := strings.Count(g, "M"); n != exact {
		t.Errorf("circle: %d chords, want the %d exact pairs", n, exact)
	}
	// With a sample smaller than the pairs below the truth threshold, the
	// bins below it are estimates, and marked so.
	_, errs, code = docsRun(t, "plot", "-t", "0.5", "--truth", "0.2", "--perm", strconv.Itoa(k), "--bits", "64", "--minhash", "classic",
		"--shapes", "4x2", "--sample", "500", "--stats-json", js, path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for b, bin := range readPlotSection(t, js)[0].Bins {
		if bin.Sampled != (b < 4) {
			t.Errorf("--sample 500: bin %d sampled %v", b, bin.Sampled)
		}
	}
	// --seeds 3 averages the runs of seeds 0, 1 and 2.
	recallOf := func(extra ...string) plotSection {
		args := append([]string{"plot", "-t", "0.5", "--truth", "0.2", "--perm", strconv.Itoa(k), "--shapes", "4x2", "--stats-json", js}, extra...)
		if _, errs, code := docsRun(t, append(args, path)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return readPlotSection(t, js)
	}
	var sum, lo, hi float64 = 0, 1, 0
	for seed := range 3 {
		r := recallOf("--seed", strconv.Itoa(seed))[0].Recall
		sum += r
		lo, hi = min(lo, r), max(hi, r)
	}
	avg := recallOf("--seeds", "3")[0]
	if math.Abs(avg.Recall-sum/3) > 1e-9 || avg.RecallMin != lo || avg.RecallMax != hi {
		t.Errorf("--seeds 3: recall %v (%v-%v), want %v (%v-%v)", avg.Recall, avg.RecallMin, avg.RecallMax, sum/3, lo, hi)
	}
	// The same run gives the same table, whatever the workers.
	out2, _, _ := docsRun(t, "plot", "-t", "0.5", "--truth", "0.2", "--perm", strconv.Itoa(k), "--bits", "64", "--minhash", "classic",
		"--shapes", "4x2,2x3", "-j", "1", path)
	if out2 != out {
		t.Errorf("-j 1 changed the table:\n%s\nvs\n%s", out2, out)
	}
}

func TestPlotFilesLSHCircle(t *testing.T) {
	goDir := filepath.Join(docsDir, "go")
	dir := t.TempDir()
	circle := filepath.Join(dir, "c.svg")
	out, errs, code := docsRun(t, "plot", "--files", "--tokens", "go:5", "--include", "*.go", "-t", "0.5", "--method", "lsh",
		"--perm", "48", "--shapes", "12x4", "--circle", circle, goDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(circle)
	if err != nil {
		t.Fatal(err)
	}
	// reader.go, strreader.go and testdata/reader.go are near-copies: the
	// LSH candidates are their three pairs.
	if !strings.Contains(string(b), "3 candidate pairs of LSH 12x4") {
		t.Errorf("circle title: %s", string(b)[:400])
	}
	if !strings.Contains(out, "12x4") {
		t.Errorf("table:\n%s", out)
	}
}

func TestPlotUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"plot", "-t", "0.5", "--measure", "cosine", "x"}, "jaccard"},
		{[]string{"plot", "-t", "0.5", "--scurve", "a.gif", "x"}, ".png or .svg"},
		{[]string{"plot", "-t", "0.5", "--scurve", "-", "x"}, ".png or .svg"},
		{[]string{"plot", "-t", "0.5", "--circle", "a.png", "x"}, ".svg"},
		{[]string{"plot", "-t", "0.5", "--against", "y", "x"}, "--against"},
		{[]string{"plot", "-t", "0.5", "--truth", "0", "x"}, "--truth"},
		{[]string{"plot", "-t", "0.5", "--shapes", "9x9", "--perm", "16", "x"}, "--shapes"},
		{[]string{"plot", "-t", "0.5", "--shapes", "nine", "x"}, "--shapes"},
		{[]string{"plot", "-t", "0.5", "--sample", "-1", "x"}, "--sample"},
	} {
		out, errs, code := docsRun(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.msg) || out != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.msg)
		}
	}
}
