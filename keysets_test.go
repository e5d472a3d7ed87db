package simjoin_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// TestReadKeySets: the key sets read are each line's AppendSet, in line
// order, for line ends \n and \r\n, blocks cut inside long inputs and lines
// longer than a block, for any number of workers; errors name the line as
// ReadLines does.
func TestReadKeySets(t *testing.T) {
	var b strings.Builder
	var lines []string
	const n = 60000
	for i := range n {
		line := fmt.Sprintf("w%d w%d w%d", i%97, i%13, i)
		switch {
		case i%7 == 0:
			line = ""
		case i == 30000:
			line = strings.Repeat("long ", 1<<19) + "end" // over two blocks
		}
		lines = append(lines, line)
		b.WriteString(line)
		if i%3 == 0 {
			b.WriteString("\r")
		}
		if i < n-1 {
			b.WriteString("\n")
		}
	}
	for _, tokens := range []string{"set", "qgram:2"} {
		spec, _ := shingle.Parse(tokens)
		for _, workers := range []int{1, 3} {
			ks, err := simjoin.ReadKeySets(strings.NewReader(b.String()), spec, simjoin.ReadOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if ks.Len() != len(lines) {
				t.Fatalf("%s, %d workers: %d records, want %d", tokens, workers, ks.Len(), len(lines))
			}
			for i, line := range lines {
				want, _ := spec.AppendSet(nil, line)
				if !slices.Equal(ks.Set(i), want) {
					t.Fatalf("%s, %d workers: record %d: %d keys, want %d", tokens, workers, i, len(ks.Set(i)), len(want))
				}
			}
		}
	}
	text := strings.Repeat("ok\n", 400000) + "secret\xff\n" + "ok\n"
	spec, _ := shingle.Parse("qgram:2")
	_, err := simjoin.ReadKeySets(strings.NewReader(text), spec, simjoin.ReadOptions{Name: "in.txt"})
	var le *simjoin.LineError
	if !errors.As(err, &le) || le.Line != 400001 || !errors.Is(err, shingle.ErrUTF8) || strings.Contains(err.Error(), "secret") {
		t.Errorf("err = %v, want in.txt:400001 wrapping ErrUTF8", err)
	}
	ks, err := simjoin.ReadKeySets(strings.NewReader(""), spec, simjoin.ReadOptions{})
	if err != nil || ks.Len() != 0 {
		t.Errorf("empty input: %d records, %v", ks.Len(), err)
	}
}

// TestLoadLSHKeys: with Method LSH, Load reads key sets and builds no token
// order, and the join reports the pairs, similarities and LSH statistics
// that approx.Join reports on the collections of the same input (built on
// demand by Collections), with the input counts of an exact Load (the
// vocabulary counted on demand by Vocabulary): lines,
// strings and files, self and R-S, exact and estimated similarities.
func TestLoadLSHKeys(t *testing.T) {
	ctx := context.Background()
	text, err := os.ReadFile(filepath.Join("testdata", "sets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	docs := filepath.Join("testdata", "docs")
	for _, tc := range []struct {
		name string
		r, s func() simjoin.Source
		opts simjoin.Options
	}{
		{"lines", func() simjoin.Source { return simjoin.Lines(strings.NewReader(string(text)), "sets.txt") }, nil,
			simjoin.Options{Threshold: 0.5}},
		{"strings-rs-estimate", func() simjoin.Source { return simjoin.Strings(lines[:1200]) },
			func() simjoin.Source { return simjoin.Strings(lines[800:]) },
			simjoin.Options{Threshold: 0.6, Measure: prefix.Cosine, LSH: approx.Options{Verify: approx.VerifyEstimate}}},
		{"files-classic", func() simjoin.Source { return simjoin.Files(docs) }, nil,
			simjoin.Options{Threshold: 0.3, Tokens: shingle.Spec{Kind: shingle.Shingle, N: 2},
				LSH: approx.Options{Scheme: approx.Classic, K: 64, Bits: 16}}},
	} {
		src := func(f func() simjoin.Source) simjoin.Source {
			if f == nil {
				return simjoin.Source{}
			}
			return f()
		}
		opts := tc.opts
		opts.Method = simjoin.Exact
		exact, err := simjoin.Load(ctx, src(tc.r), src(tc.s), opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Method = simjoin.LSH
		in, err := simjoin.Load(ctx, src(tc.r), src(tc.s), opts)
		if err != nil {
			t.Fatal(err)
		}
		est, lst := exact.Stats(), in.Stats()
		if lst.Records != est.Records || lst.Skipped != est.Skipped || lst.Tokens != est.Tokens || lst.Vocabulary != -1 ||
			in.Vocabulary() != est.Vocabulary || exact.Vocabulary() != est.Vocabulary {
			t.Errorf("%s: input counts %d %d %d %d (counted %d), exact Load's %d %d %d %d", tc.name,
				lst.Records, lst.Skipped, lst.Tokens, lst.Vocabulary, in.Vocabulary(), est.Records, est.Skipped, est.Tokens, est.Vocabulary)
		}
		if lst.Order != (simjoin.Timing{}) {
			t.Errorf("%s: an order phase was timed", tc.name)
		}
		var got []simjoin.Pair
		st, err := in.Join(ctx, func(p simjoin.Pair) bool { got = append(got, p); return true })
		if err != nil {
			t.Fatal(err)
		}
		r, s := in.Collections()
		lsh := opts.LSH
		lsh.Measure, lsh.Workers = opts.Measure, 2
		lsh.Threshold, _ = prefix.ThresholdOf(opts.Measure, opts.Threshold)
		var want []simjoin.Pair
		ast, err := approx.Join(ctx, r, s, lsh, func(p simjoin.Pair) bool { want = append(want, p); return true })
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, join.ComparePairs)
		slices.SortFunc(want, join.ComparePairs)
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: %d pairs from key sets, %d from the collections", tc.name, len(got), len(want))
		}
		kst := *st.LSH
		kst.SignTime, kst.BandTime, kst.JoinTime, ast.SignTime, ast.BandTime, ast.JoinTime = 0, 0, 0, 0, 0, 0
		kst.SignCPU, kst.BandCPU, kst.JoinCPU, ast.SignCPU, ast.BandCPU, ast.JoinCPU = 0, 0, 0, 0, 0, 0
		kst.Workers, ast.Workers, ast.Words = 0, 0, 0 // key sets hash no dictionary
		if kst != ast {
			t.Errorf("%s: LSH statistics\nkeys        %+v\ncollections %+v", tc.name, kst, ast)
		}
	}
}
