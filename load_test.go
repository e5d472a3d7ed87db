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
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// endless is a reader of "a b\n" lines without end.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "a b\n"[i%4]
	}
	return len(p) - len(p)%4, nil
}

// TestLoadCanceledWhileReading: a context cancelled while Lines or Files
// are read stops Load with the context's error (an endless input would
// otherwise never end; the files after the chunks in flight are not read),
// for one and several workers.
func TestLoadCanceledWhileReading(t *testing.T) {
	dir := t.TempDir()
	text := []byte(strings.Repeat("a b c\n", 20000)) // 120 KB: several chunks of files
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, workers := range []int{1, 3} {
		for _, src := range []struct {
			name  string
			src   records.Source
			stage simjoin.Stage
		}{
			{"lines", records.Lines(endless{}, "endless"), simjoin.StageRead},
			{"files", records.Files(dir), simjoin.StageFiles},
		} {
			ctx, cancel := context.WithCancel(context.Background())
			events := 0
			opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Workers: workers, Progress: func(p simjoin.Progress) {
				if p.Stage == src.stage && !p.End {
					if events++; events == 3 {
						cancel()
					}
				}
			}}
			_, err := simjoin.Load(ctx, src.src, records.Source{}, opts)
			cancel()
			if !errors.Is(err, context.Canceled) || events < 3 || events >= 50 {
				t.Errorf("%s, %d workers: err %v after %d progress events, want context.Canceled after 3 (and before the 50th)", src.name, workers, err, events)
			}
		}
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
		r, s func() records.Source
		opts simjoin.Options
	}{
		{"lines", func() records.Source { return records.Lines(strings.NewReader(string(text)), "sets.txt") }, nil,
			simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}}},
		{"strings-rs-estimate", func() records.Source { return records.Strings(lines[:1200]) },
			func() records.Source { return records.Strings(lines[800:]) },
			simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 5}, Measure: prefix.Cosine, LSH: approx.Options{Verify: approx.VerifyEstimate}}},
		{"files-classic", func() records.Source { return records.Files(docs) }, nil,
			simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 10}, Tokens: shingle.Spec{Kind: shingle.Shingle, N: 2},
				LSH: approx.Options{Scheme: approx.Classic, K: 64, Bits: 16}}},
	} {
		src := func(f func() records.Source) records.Source {
			if f == nil {
				return records.Source{}
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
		lsh.Threshold = opts.Threshold
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
