package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/beam/pipeline"
	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// collection is one input: its files, each a list of lines, written with
// the given line ending, and the record text of every line in input order.
type collection struct {
	name   string
	files  [][]string
	crlf   []bool // per file: "\r\n" line endings
	noLast []bool // per file: no newline after the last line
	paths  []string
}

// write writes the files under dir and fills in paths.
func (c *collection) write(t *testing.T, dir string) {
	t.Helper()
	c.paths = nil
	for i, lines := range c.files {
		eol := "\n"
		if i < len(c.crlf) && c.crlf[i] {
			eol = "\r\n"
		}
		text := strings.Join(lines, eol)
		if len(lines) > 0 && !(i < len(c.noLast) && c.noLast[i]) {
			text += eol
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.txt", c.name, i))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c.paths = append(c.paths, p)
	}
}

// records returns every line in input order and its id as the CLI prints it.
func (c *collection) records() (lines, ids []string) {
	for f, fl := range c.files {
		for i, l := range fl {
			lines = append(lines, l)
			if len(c.files) == 1 {
				ids = append(ids, strconv.Itoa(i+1))
			} else {
				ids = append(ids, fmt.Sprintf("%s:%d", c.paths[f], i+1))
			}
		}
	}
	return lines, ids
}

// job is one pipeline run within a test's pipeline, and the lines it must
// write.
type job struct {
	name   string
	in     *collection
	tokens string
	m      prefix.Measure
	t      string
	block  int
	span   int64
	build  func(s beam.Scope, in pipeline.Input, recs beam.PCollection) beam.PCollection
	expect []string
	prefix string
}

// runJobs builds every job into one pipeline, runs it on Prism and compares
// each output with its expectation. It returns the metrics of the run.
func runJobs(t *testing.T, jobs []*job) pipeline.Metrics {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	p, s := beam.NewPipelineWithRoot()
	for _, j := range jobs {
		spec, err := shingle.Parse(j.tokens)
		if err != nil {
			t.Fatal(err)
		}
		var globs []string
		globs = append(globs, j.in.paths...)
		in, err := pipeline.ListInput(ctx, globs, false, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		in.SpanBytes = j.span
		j.prefix = filepath.Join(dir, j.name)
		recs := pipeline.ReadRecords(s.Scope(j.name), in)
		pipeline.WriteLines(s.Scope(j.name), j.build(s.Scope(j.name), in, recs), j.prefix, 2)
	}
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if err := pipeline.Committed(ctx, j.prefix, 2); err != nil {
			t.Fatal(err)
		}
		got := readShards(t, j.prefix, 2)
		want := slices.Clone(j.expect)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d lines, want %d; first differences:\n%s", j.name, len(got), len(want), diff(got, want))
		} else {
			t.Logf("%s: %d lines as expected", j.name, len(got))
		}
	}
	return pipeline.MetricsOf(res)
}

// readShards reads the lines of the n output files under prefix, and checks
// that each file is in id order.
func readShards(t *testing.T, prefix string, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		b, err := os.ReadFile(pipeline.ShardName(prefix, i, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(pipeline.ShardName(prefix, i, n) + ".partial"); err == nil {
			t.Errorf("%s: partial file left behind", prefix)
		}
		if len(b) > 0 {
			out = append(out, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
		}
	}
	return out
}

// diff lists up to five lines only in got and five only in want.
func diff(got, want []string) string {
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

// collect tokenizes records as the CLI does into an order.Input.
func collect(t *testing.T, tokens string, recs []string) *order.Input {
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

// exactPairs is the oracle: the single-machine exact join, as `simjoin join
// --method exact` runs it (order, then join with the exact threshold), pairs
// sorted by (A, B). With s non-nil it is the R-S join of r and s.
func exactPairs(t *testing.T, tokens string, m prefix.Measure, th string, r, s []string) []join.Pair {
	t.Helper()
	thr, err := prefix.ParseThreshold(m, th)
	if err != nil {
		t.Fatal(err)
	}
	opt := join.Options{Measure: m, Threshold: thr}
	var out []join.Pair
	yield := func(p join.Pair) bool { out = append(out, p); return true }
	if s == nil {
		c, err := order.New(collect(t, tokens, r))
		if err != nil {
			t.Fatal(err)
		}
		_, err = join.SelfJoin(context.Background(), c, opt, yield)
	} else {
		cs, err := order.Build(collect(t, tokens, r), collect(t, tokens, s))
		if err != nil {
			t.Fatal(err)
		}
		_, err = join.RSJoin(context.Background(), cs[0], cs[1], opt, yield)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// formatPairs writes pairs as `simjoin join` does.
func formatPairs(pairs []join.Pair, m prefix.Measure, idA, idB []string) []string {
	var out []string
	for _, p := range pairs {
		out = append(out, idA[p.A]+"\t"+idB[p.B]+"\t"+string(m.AppendSim(nil, p.Sim)))
	}
	return out
}

// exactJob is the exact pipeline on c against the library's exact join.
func exactJob(t *testing.T, c *collection, tokens string, m prefix.Measure, th string, block int, span int64) *job {
	t.Helper()
	lines, ids := c.records()
	pairs := exactPairs(t, tokens, m, th, lines, nil)
	thr, _ := prefix.ParseThreshold(m, th)
	return &job{
		name: fmt.Sprintf("%s-%s-%s-b%d", c.name, m, strings.ReplaceAll(th, "/", "_"), block), in: c, tokens: tokens, m: m, t: th, block: block, span: span,
		expect: formatPairs(pairs, m, ids, ids),
		build: func(s beam.Scope, in pipeline.Input, recs beam.PCollection) beam.PCollection {
			out := pipeline.ExactJoin(s, recs, pipeline.Join{Measure: m, Threshold: thr, BlockSize: block})
			return pipeline.FormatPairs(s, out, pipeline.IDsOf(in), m)
		},
	}
}

func lines(c *collection) []string { l, _ := c.records(); return l }

// chain is a collection of n records each of which meets the next link of
// a chain at Jaccard 0.6 and no other record at 0.6, the links in a
// shuffled order: one cluster of diameter n-1 whose ids follow no order,
// the slowest shape for the connected components to settle.
func chain(n int) *collection {
	c := &collection{name: fmt.Sprintf("chain%d", n)}
	fl := make([]string, n)
	for i, at := range rand.New(rand.NewPCG(uint64(n), 1)).Perm(n) {
		fl[at] = fmt.Sprintf("t%d t%d t%d t%d", i, i+1, i+2, i+3)
	}
	c.files = [][]string{fl}
	return c
}

// zipf is a collection of Zipf-distributed token sets with near-duplicates,
// in the style of the set-similarity-join literature.
func zipf(n int, seed uint64) *collection {
	sets := synth.Sets(synth.SetsConfig{N: n, MinSize: 5, MaxSize: 30, Universe: 2000, Zipf: 1,
		DupFraction: 0.3, Replace: 0.15, Seed: seed})
	c := &collection{name: fmt.Sprintf("zipf%d", seed)}
	var fl []string
	for _, set := range sets {
		var b strings.Builder
		for i, tok := range set {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(int(tok)))
		}
		fl = append(fl, b.String())
	}
	c.files = [][]string{fl}
	return c
}

// hot is an adversarial collection: n Zipf sets, each with the token "hot"
// that every record holds, in a shuffled order with every tenth set copied
// five more times and one line 300 times, so that groups of copies split
// into blocks and many pairs are met in more than one group.
func hot(n int) *collection {
	base := zipf(n, 9).files[0]
	var fl []string
	for i, l := range base {
		fl = append(fl, "hot "+l)
		if i%10 == 0 {
			for range 5 {
				fl = append(fl, l+" hot")
			}
		}
	}
	for range 300 {
		fl = append(fl, "hot copy of one line")
	}
	r := rand.New(rand.NewPCG(uint64(n), 2))
	r.Shuffle(len(fl), func(i, j int) { fl[i], fl[j] = fl[j], fl[i] })
	return &collection{name: "hot", files: [][]string{fl}}
}

// passwords is a generated password list split in three files: one with
// "\r\n" endings, one without a final newline, one with empty lines.
func passwords(n int) *collection {
	var all []string
	for pw := range synth.Passwords(synth.PasswordsConfig{N: n, Seed: 7}) {
		all = append(all, string(pw))
	}
	a, b := n/3, 2*n/3
	third := append([]string{""}, all[b:]...)
	third = append(third, "", "")
	return &collection{name: "pw", files: [][]string{all[:a], all[a:b], third},
		crlf: []bool{true, false, false}, noLast: []bool{false, true, false}}
}

// docs is a collection of documents (sets of ~100 random shingles) with pairs
// planted at known similarity.
func docs(n int, seed uint64) (*collection, synth.Docs) {
	d := synth.Documents(synth.DocsConfig{N: n, MinSize: 80, MaxSize: 120, Planted: n / 4,
		PlantedLo: 0.5, PlantedHi: 0.95, Distractors: n / 10, DistractLo: 0.2, DistractHi: 0.5, Seed: seed})
	c := &collection{name: fmt.Sprintf("docs%d", seed)}
	var fl []string
	for _, set := range d.Sets {
		var b strings.Builder
		for i, k := range set {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatUint(k, 10))
		}
		fl = append(fl, b.String())
	}
	c.files = [][]string{fl}
	return c, d
}

// atThreshold holds pairs whose similarity is exactly 0.8 under every
// measure but Jaccard, exactly 0.8 under Jaccard for a subset, and 2/3 for
// Jaccard between the two five-token sets.
func atThreshold() *collection {
	var fl []string
	for i := range 40 {
		w := func(k int) string { return fmt.Sprintf("w%d_%d", i, k) }
		fl = append(fl,
			strings.Join([]string{w(0), w(1), w(2), w(3), w(4)}, " "),
			strings.Join([]string{w(0), w(1), w(2), w(3), w(5)}, " "),
			strings.Join([]string{w(0), w(1), w(2), w(3)}, " "),
			strings.Join([]string{w(0), w(1), w(2), w(6), w(7), "common"}, " "),
			"",
		)
	}
	return &collection{name: "at", files: [][]string{fl}}
}

func TestExactJoin(t *testing.T) {
	dir := t.TempDir()
	sets := &collection{name: "sets"}
	b, err := os.ReadFile("../../testdata/sets.txt")
	if err != nil {
		t.Fatal(err)
	}
	sets.files = [][]string{strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")}
	z := zipf(2000, 1)
	pw := passwords(2000)
	d, _ := docs(400, 3)
	at := atThreshold()
	for _, c := range []*collection{sets, z, pw, d, at} {
		c.write(t, dir)
	}
	jobs := []*job{
		exactJob(t, sets, "set", prefix.Jaccard, "0.8", 0, 0),
		exactJob(t, sets, "set", prefix.Jaccard, "0.5", 0, 0),
		exactJob(t, sets, "set", prefix.Cosine, "0.8", 0, 0),
		exactJob(t, z, "set", prefix.Jaccard, "0.9", 0, 0),
		exactJob(t, z, "set", prefix.Jaccard, "0.7", 16, 0), // hot tokens split into blocks
		exactJob(t, z, "set", prefix.Dice, "0.8", 16, 0),
		exactJob(t, z, "set", prefix.Overlap, "12", 32, 0),
		exactJob(t, pw, "qgram:2", prefix.Jaccard, "0.6", 64, 200), // spans of 200 bytes
		exactJob(t, pw, "qgram:3", prefix.Cosine, "0.7", 0, 0),
		exactJob(t, d, "set", prefix.Jaccard, "0.5", 0, 4096),
		exactJob(t, at, "set", prefix.Jaccard, "0.8", 0, 0),
		exactJob(t, at, "set", prefix.Jaccard, "2/3", 0, 0),
		exactJob(t, at, "set", prefix.Cosine, "0.8", 4, 0),
		exactJob(t, at, "set", prefix.Dice, "0.8", 0, 0),
	}
	// Pairs exactly at the threshold are there, and the groups did split.
	for _, j := range jobs[10:] {
		if len(j.expect) < 40 {
			t.Fatalf("%s: %d pairs at the threshold expected, the fixture is wrong", j.name, len(j.expect))
		}
	}
	m := runJobs(t, jobs)
	if m.Counters["split_groups"] == 0 {
		t.Errorf("no group was split into blocks: %v", m.Counters)
	}
	if m.Counters["found_elsewhere"] == 0 {
		t.Errorf("no pair was met in two groups: the first-token rule went untested")
	}
}

// TestHotToken: a token in every record and many copies, joined whole and
// in small blocks and deduplicated, give the CLI's pairs and clusters: a
// pair dropped in a group as found elsewhere is reported by the group of
// its first shared token.
func TestHotToken(t *testing.T) {
	dir := t.TempDir()
	h := hot(1000)
	h.write(t, dir)
	jobs := []*job{
		exactJob(t, h, "set", prefix.Jaccard, "0.6", 0, 0),
		exactJob(t, h, "set", prefix.Jaccard, "0.6", 32, 0),
		exactJob(t, h, "set", prefix.Cosine, "0.8", 128, 0),
	}
	jobs = append(jobs, dedupJob(t, dedupCase{c: h, tokens: "set", th: "0.6"}))
	m := runJobs(t, jobs)
	if m.Counters["split_groups"] == 0 || m.Counters["found_elsewhere"] == 0 {
		t.Errorf("no group split or no pair met twice: the fixture is wrong: %v", m.Counters)
	}
}

func TestRSJoin(t *testing.T) {
	dir := t.TempDir()
	z := zipf(2000, 2)
	all := z.files[0]
	r := &collection{name: "r", files: [][]string{all[:900]}}
	s := &collection{name: "s", files: [][]string{all[900:]}}
	r.write(t, dir)
	s.write(t, dir)

	runJobs(t, rsJobs(t, "rs", r, s, []rsCase{{prefix.Jaccard, "0.7", 0}, {prefix.Jaccard, "0.6", 8}, {prefix.Cosine, "0.8", 0}}))
}

// rsCase is an exact R-S join's measure, threshold and block size (0: the
// default).
type rsCase struct {
	m  prefix.Measure
	th string
	bs int
}

// rsJobs returns an exact R-S join job of r (the first file) against s per
// case, each expecting the single-machine join's pairs; name prefixes the
// jobs' names.
func rsJobs(t *testing.T, name string, r, s *collection, cases []rsCase) []*job {
	t.Helper()
	_, rid := r.records()
	_, sid := s.records()
	both := &collection{name: name, files: [][]string{r.files[0], s.files[0]}, paths: []string{r.paths[0], s.paths[0]}}
	var jobs []*job
	for _, tc := range cases {
		pairs := exactPairs(t, "set", tc.m, tc.th, r.files[0], s.files[0])
		thr, _ := prefix.ParseThreshold(tc.m, tc.th)
		jobs = append(jobs, &job{
			name: fmt.Sprintf("%s-%s-%s-%d", name, tc.m, tc.th, tc.bs), in: both, tokens: "set",
			expect: formatPairs(pairs, tc.m, rid, sid),
			build: func(sc beam.Scope, in pipeline.Input, recs beam.PCollection) beam.PCollection {
				in.SFrom = 1
				j := pipeline.Join{Measure: tc.m, Threshold: thr, BlockSize: tc.bs, SFrom: pipeline.MakeID(1, 0)}
				return pipeline.FormatPairs(sc, pipeline.ExactJoin(sc, recs, j), pipeline.IDsOf(in), tc.m)
			},
		})
	}
	return jobs
}

// lshOracle runs approx's single-machine self-join on the same records.
func lshOracle(t *testing.T, recs []string, tokens string, o approx.Options) []join.Pair {
	t.Helper()
	c, err := order.New(collect(t, tokens, recs))
	if err != nil {
		t.Fatal(err)
	}
	var out []join.Pair
	if _, err := approx.SelfJoin(context.Background(), c, o, func(p join.Pair) bool {
		out = append(out, p)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLSHJoin(t *testing.T) {
	dir := t.TempDir()
	d, planted := docs(1200, 5)
	z := zipf(3000, 3)
	d.write(t, dir)
	z.write(t, dir)

	type lcase struct {
		c     *collection
		th    string
		shape approx.Shape
		cap   int
	}
	cases := []lcase{
		{d, "0.8", approx.Shape{B: 6, R: 8}, 0}, // P(0.8) = 0.67: recall well inside (0, 1)
		{d, "0.6", approx.Shape{}, 0},
		{z, "0.7", approx.Shape{}, 5}, // a tiny cap: capped buckets counted, pairs still equal approx's
	}
	var jobs []*job
	var exact [][]string
	for k, lc := range cases {
		th, _ := prefix.ParseThreshold(prefix.Jaccard, lc.th)
		o, err := approx.Options{Threshold: th, Shape: lc.shape, MaxBucket: lc.cap, Seed: uint64(k)}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		recs, ids := lc.c.records()
		want := formatPairs(lshOracle(t, recs, "set", o), prefix.Jaccard, ids, ids)
		exact = append(exact, formatPairs(exactPairs(t, "set", prefix.Jaccard, lc.th, recs, nil), prefix.Jaccard, ids, ids))
		jobs = append(jobs, &job{
			name: fmt.Sprintf("lsh-%s-%s-%s", lc.c.name, lc.th, o.Shape), in: lc.c, tokens: "set", expect: want,
			build: func(s beam.Scope, in pipeline.Input, recs beam.PCollection) beam.PCollection {
				pairs, _ := pipeline.LSHSelfJoin(s, recs, pipeline.LSH{Options: o})
				return pipeline.FormatPairs(s, pairs, pipeline.IDsOf(in), prefix.Jaccard)
			},
		})
	}
	m := runJobs(t, jobs)
	if m.Counters["capped_buckets"] == 0 {
		t.Errorf("no bucket was capped: the cap went untested")
	}
	// Every LSH pair is an exact pair.
	for k, j := range jobs {
		ex := slices.Clone(exact[k])
		slices.Sort(ex)
		for _, l := range j.expect {
			if _, ok := slices.BinarySearch(ex, l); !ok {
				t.Errorf("%s: %q is not an exact pair", j.name, l)
			}
		}
	}
	// Recall on the planted pairs at or above 0.8 under 6x8 bands lies within
	// four standard deviations of the S-curve's prediction.
	got := map[string]bool{}
	for _, l := range jobs[0].expect {
		f := strings.Split(l, "\t")
		got[f[0]+"\t"+f[1]] = true
	}
	var mean, vari float64
	found, n := 0, 0
	for _, pp := range planted.Pairs {
		if pp.J < 0.8 {
			continue
		}
		n++
		p := approx.SCurve(pp.J, 6, 8)
		mean += p
		vari += p * (1 - p)
		if got[strconv.Itoa(pp.A+1)+"\t"+strconv.Itoa(pp.B+1)] {
			found++
		}
	}
	sd := math.Sqrt(vari)
	t.Logf("planted pairs >= 0.8: %d, found %d, S-curve predicts %.1f ± %.1f", n, found, mean, sd)
	if n < 50 || math.Abs(float64(found)-mean) > 4*sd+1 {
		t.Errorf("recall %d of %d outside the S-curve's bounds %.1f ± 4·%.1f", found, n, mean, sd)
	}
}

// dedupCase is a dedup to compare with the CLI's: the clusters of the
// exact pairs (lsh zero) or of approx's pairs under lsh, the first record of
// each kept.
type dedupCase struct {
	c      *collection
	tokens string
	m      prefix.Measure
	th     string
	rounds int
	lsh    *approx.Options
}

func dedupJob(t *testing.T, tc dedupCase) *job {
	t.Helper()
	recs, ids := tc.c.records()
	var pairs []join.Pair
	method := "exact"
	if tc.lsh != nil {
		pairs, method = lshOracle(t, recs, tc.tokens, *tc.lsh), "lsh"
	} else {
		pairs = exactPairs(t, tc.tokens, tc.m, tc.th, recs, nil)
	}
	f := cluster.New(len(recs))
	for _, p := range pairs {
		f.Union(p.A, p.B)
	}
	var want []string
	for _, i := range f.Firsts() {
		want = append(want, ids[i])
	}
	if len(want) == len(recs) {
		t.Fatalf("%s at %s: no cluster, the fixture is wrong", tc.c.name, tc.th)
	}
	thr, _ := prefix.ParseThreshold(tc.m, tc.th)
	return &job{
		name: fmt.Sprintf("dedup-%s-%s-%s-%s", method, tc.c.name, tc.m, tc.th), in: tc.c, tokens: tc.tokens, expect: want,
		build: func(s beam.Scope, in pipeline.Input, recs beam.PCollection) beam.PCollection {
			var links beam.PCollection
			if tc.lsh != nil {
				links = pipeline.LSHLinks(s, recs, pipeline.LSH{Options: *tc.lsh})
			} else {
				links = pipeline.ExactLinks(s, recs, pipeline.Join{Measure: tc.m, Threshold: thr, BlockSize: 64})
			}
			labels := pipeline.Components(s, links, tc.rounds)
			return pipeline.DedupLines(s, recs, labels, beam.PCollection{}, pipeline.IDsOf(in), pipeline.Dedup{})
		},
	}
}

func lshOptions(t *testing.T, th string, seed uint64) *approx.Options {
	t.Helper()
	thr, _ := prefix.ParseThreshold(prefix.Jaccard, th)
	o, err := approx.Options{Threshold: thr, Seed: seed}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return &o
}

func TestDedup(t *testing.T) {
	dir := t.TempDir()
	z := zipf(2500, 4)
	pw := passwords(1500)
	ch := chain(2000)
	h := hot(500)
	z.write(t, dir)
	pw.write(t, dir)
	ch.write(t, dir)
	h.write(t, dir)
	var jobs []*job
	for _, tc := range []dedupCase{
		{c: z, tokens: "set", th: "0.7"},
		{c: z, tokens: "set", th: "0.5", rounds: 6},
		{c: pw, tokens: "qgram:2", th: "0.6"},
		{c: ch, tokens: "set", th: "0.6"},
		{c: h, tokens: "set", m: prefix.Overlap, th: "8"}, // copies of sets under 8 tokens stay apart
		{c: z, tokens: "set", th: "0.7", lsh: lshOptions(t, "0.7", 1)},
		{c: h, tokens: "set", th: "0.6", lsh: lshOptions(t, "0.6", 2)},
	} {
		jobs = append(jobs, dedupJob(t, tc))
	}
	runJobs(t, jobs)
}

// TestDedupCopies: a dedup costs linear in the copies of a set, on both
// paths: no record pair is made (results counts only the pairs of distinct
// sets), and the components shuffle what n-1 links a set of n copies need.
func TestDedupCopies(t *testing.T) {
	dir := t.TempDir()
	c := zipf(200, 5)
	for range 600 {
		c.files[0] = append(c.files[0], "one line many times", "and another one")
	}
	c.name = "copies"
	c.write(t, dir)
	m := runJobs(t, []*job{
		dedupJob(t, dedupCase{c: c, tokens: "set", th: "0.7"}),
		dedupJob(t, dedupCase{c: c, tokens: "set", th: "0.7", lsh: lshOptions(t, "0.7", 3)}),
	})
	n := int64(len(c.files[0]))
	if r := m.Counters["results"]; r > 1000 {
		t.Errorf("%d pairs made for %d records, most of them copies", r, n)
	}
	// Each star operation shuffles every link both ways, at most 2·10 bytes
	// each way; two jobs ran.
	if b, most := m.Counters["shuffle_components_bytes"], 2*int64(pipeline.DefaultRounds)*2*20*n; b > most {
		t.Errorf("the components shuffled %d bytes for %d records, more than the %d of links linear in them", b, n, most)
	}
}

// hotSizes is n records of 1 to 9 tokens drawn, skewed, from 16, a third of
// them with the token "g" (rarer than most tokens it comes with, so that
// its group holds records of every size, most of them indexed there), every
// one with the token "h" (the last of every record's order), and every
// fifth a near copy of an earlier one with a token more or less: pairs
// exactly at simple thresholds and at the bounds of the size filter.
func hotSizes(n int, seed uint64) *collection {
	rng := rand.New(rand.NewPCG(seed, 3))
	var sets [][]string
	for i := range n {
		var toks []string
		if i%5 == 4 {
			toks = slices.Clone(sets[rng.IntN(i)])
			if len(toks) > 1 && rng.IntN(2) == 0 {
				toks = toks[1:]
			} else {
				toks = append(toks, fmt.Sprintf("f%d", rng.IntN(16)))
			}
		} else {
			for range 1 + rng.IntN(9) {
				u := rng.Float64()
				toks = append(toks, fmt.Sprintf("f%d", int(16*u*u)))
			}
			if i%3 == 0 {
				toks = append(toks, "g")
			}
		}
		sets = append(sets, toks)
	}
	fl := make([]string, n)
	for i, s := range sets {
		fl[i] = strings.Join(s, " ") + " h"
	}
	return &collection{name: fmt.Sprintf("sizes%d", seed), files: [][]string{fl}}
}

// TestHotGroups: groups of a token in every record, and of a token in a
// third of them, split into blocks of 2 to 16 indexed records in order of
// set size, give the CLI's pairs, self and R-S, under every measure.
func TestHotGroups(t *testing.T) {
	dir := t.TempDir()
	c := hotSizes(400, 1)
	c.write(t, dir)
	all := c.files[0]
	r := &collection{name: "hr", files: [][]string{all[:150]}}
	s := &collection{name: "hs", files: [][]string{all[150:]}}
	r.write(t, dir)
	s.write(t, dir)
	jobs := []*job{
		exactJob(t, c, "set", prefix.Jaccard, "0.5", 2, 0),
		exactJob(t, c, "set", prefix.Jaccard, "0.8", 3, 0),
		exactJob(t, c, "set", prefix.Cosine, "0.8", 4, 0),
		exactJob(t, c, "set", prefix.Dice, "0.5", 16, 0),
		exactJob(t, c, "set", prefix.Overlap, "2", 5, 0),
	}
	jobs = append(jobs, rsJobs(t, "hot-rs", r, s, []rsCase{{prefix.Jaccard, "0.8", 2}, {prefix.Cosine, "0.5", 5}, {prefix.Dice, "0.8", 16}})...)
	for _, j := range jobs {
		if len(j.expect) < 50 {
			t.Fatalf("%s: %d pairs: the fixture is wrong", j.name, len(j.expect))
		}
	}
	m := runJobs(t, jobs)
	if m.Reported && m.Counters["split_groups"] == 0 {
		t.Errorf("no group was split into blocks: %v", m.Counters)
	}
}

// oneTokenPlus is n records of one Zipf token each, followed by the token
// "h" when hot: at Jaccard 0.5 every record's probe prefix holds h.
func oneTokenPlus(n int, hot bool) *collection {
	rng := rand.New(rand.NewPCG(uint64(n), 4))
	z := rand.NewZipf(rng, 1.1, 1, 1<<20)
	fl := make([]string, n)
	name := "plain"
	for i := range fl {
		fl[i] = fmt.Sprint(z.Uint64())
		if hot {
			fl[i] += " h"
			name = "hot"
		}
	}
	return &collection{name: name, files: [][]string{fl}}
}

// TestHotShuffle: on Prism, records all sharing one token shuffle within
// 2x of the same records without it, blocks of 16 records or not (splitting
// the token's group into ⌈g/16⌉ blocks all paired shuffled each record
// ⌈g/16⌉ times), with the same pairs.
func TestHotShuffle(t *testing.T) {
	dir := t.TempDir()
	var bytes [2]int64
	for i, hot := range []bool{false, true} {
		c := oneTokenPlus(2000, hot)
		c.write(t, dir)
		m := runJobs(t, []*job{exactJob(t, c, "set", prefix.Jaccard, "0.5", 16, 0)})
		if !m.Reported {
			t.Fatal("the runner reported no metrics: the shuffle is tested in memory by TestHotGroupShuffle")
		}
		bytes[i] = m.ShuffleBytes()
	}
	t.Logf("shuffled %d bytes without the shared token, %d with it", bytes[0], bytes[1])
	if bytes[1] > 2*bytes[0] {
		t.Errorf("%d bytes shuffled with the shared token, over twice the %d without", bytes[1], bytes[0])
	}
}
