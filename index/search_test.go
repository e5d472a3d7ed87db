package index

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// TestSearchOptions checks top-k, Only and Exclude against the oracle on an
// exact index, and the threshold and option errors.
func TestSearchOptions(t *testing.T) {
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	ctx := context.Background()
	min := prefix.Threshold{Num: 3, Den: 10}
	ix, _ := mustCreate(t, exactConfig(prefix.Jaccard, min))
	defer ix.Close()
	sets := synth.Sets(synth.SetsConfig{N: 200, MinSize: 2, MaxSize: 10, Universe: 40, Zipf: 1, DupFraction: 0.2, Seed: seed})
	o := newModel(prefix.Jaccard)
	var texts [][]byte
	for _, s := range sets {
		s = distinct(s)
		texts = append(texts, textOf(s))
		o.insert(s, prefix.Threshold{})
	}
	if _, err := ix.Insert(ctx, texts, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 30; k++ {
		q := distinct(sets[r.IntN(len(sets))])
		all := o.matches(q, min)
		// top-k: the k best of those at or above MinThreshold.
		for _, topk := range []int{1, 3, 10} {
			got, err := ix.Search(ctx, [][]byte{textOf(q)}, SearchOptions{TopK: topk})
			if err != nil {
				t.Fatal(err)
			}
			want := all[:len(all)-max(0, len(all)-topk)]
			if !slices.Equal(got[0], want) {
				t.Fatalf("top-%d of %v:\n got %v\nwant %v", topk, q, got[0], want)
			}
		}
		// Only and Exclude.
		var only, excl []ID
		for id := ID(0); id < o.next+5; id++ {
			switch r.IntN(3) {
			case 0:
				only = append(only, id)
			case 1:
				excl = append(excl, id)
			}
		}
		for _, c := range []struct {
			only, excl []ID
		}{{only, nil}, {nil, excl}, {only, excl}, {[]ID{}, nil}} {
			got, err := ix.Search(ctx, [][]byte{textOf(q)}, SearchOptions{Threshold: min, Only: c.only, Exclude: c.excl})
			if err != nil {
				t.Fatal(err)
			}
			var want []Hit
			for _, h := range all {
				if (c.only == nil || slices.Contains(c.only, h.ID)) && !slices.Contains(c.excl, h.ID) {
					want = append(want, h)
				}
			}
			if !slices.Equal(got[0], want) && len(want)+len(got[0]) > 0 {
				t.Fatalf("only %v exclude %v:\n got %v\nwant %v", c.only, c.excl, got[0], want)
			}
		}
	}
	// A batch (answered in chunks on the workers) equals its queries one by one.
	batch, err := ix.Search(ctx, texts, SearchOptions{Threshold: min})
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range texts {
		one, err := ix.Search(ctx, [][]byte{tx}, SearchOptions{Threshold: min})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(batch[i], one[0]) {
			t.Fatalf("query %d: batch %v, alone %v", i, batch[i], one[0])
		}
	}
	if _, err := ix.Search(ctx, texts[:1], SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 5}}); !errors.Is(err, ErrThresholdBelowMin) {
		t.Fatalf("threshold below the minimum: %v", err)
	}
	if _, err := ix.Insert(ctx, texts[:1], prefix.Threshold{Num: 29, Den: 100}); !errors.Is(err, ErrThresholdBelowMin) {
		t.Fatalf("dedup below the minimum: %v", err)
	}
	if _, err := ix.Search(ctx, texts[:1], SearchOptions{}); !errors.Is(err, ErrOptions) {
		t.Fatalf("no threshold, no top-k: %v", err)
	}
}

// TestLSHTopKReopen checks an LSH index's top-k with refinement (exact
// similarities with raw sets, estimates without), and that it answers the
// same after a reopen and a compaction.
func TestLSHTopKReopen(t *testing.T) {
	smallCheckpoints(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 1))
	bases, variants := plantedPairs(r, 60, 30, 27)
	for _, raw := range []bool{true, false} {
		cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
			MinThreshold: prefix.Threshold{Num: 7, Den: 10}, Bits: 16, RawSets: raw}
		ix, dir := mustCreate(t, cfg)
		var texts, queries [][]byte
		for i := range bases {
			texts = append(texts, textOf(bases[i]))
			queries = append(queries, textOf(variants[i]))
		}
		if _, err := ix.Insert(ctx, texts, prefix.Threshold{}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Delete([]ID{6}); err != nil { // the sixth record
			t.Fatal(err)
		}
		opt := SearchOptions{TopK: 2, RefineK: 10}
		before, err := ix.Search(ctx, queries, opt)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for i, h := range before {
			if len(h) > 2 {
				t.Fatalf("top-2 gave %d hits", len(h))
			}
			if len(h) > 0 && h[0].ID == ID(i)+1 {
				found++
				if h[0].Estimated == raw {
					t.Fatalf("raw %v: hit %+v", raw, h[0])
				}
				if raw && h[0].Sim != 27.0/33 {
					t.Fatalf("exact similarity %v, want %v", h[0].Sim, 27.0/33)
				}
			}
			if i == 5 && len(h) > 0 && h[0].ID == 6 {
				t.Fatal("deleted record found")
			}
		}
		if found < 50 {
			t.Fatalf("raw %v: top-1 is the planted pair for %d of 60 queries", raw, found)
		}
		ix.Close()
		if ix, err = Open(dir, OpenOptions{}); err != nil {
			t.Fatal(err)
		}
		after, err := ix.Search(ctx, queries, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		compacted, err := ix.Search(ctx, queries, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range before {
			if !slices.Equal(before[i], after[i]) || !slices.Equal(before[i], compacted[i]) {
				t.Fatalf("raw %v query %d: %v, after reopen %v, after compaction %v", raw, i, before[i], after[i], compacted[i])
			}
		}
		if err := ix.Verify(); err != nil {
			t.Fatal(err)
		}
		ix.Close()
	}
}

// TestBadInput checks that a record that does not tokenize fails its whole
// batch and leaves nothing behind, and the Create errors.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	ix, dir := mustCreate(t, Config{Tokens: shingle.Spec{Kind: shingle.Words}, Method: Exact, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2}})
	_, err := ix.Insert(ctx, [][]byte{[]byte("fine words"), []byte("bad \xff utf8")}, prefix.Threshold{})
	if !errors.Is(err, shingle.ErrUTF8) {
		t.Fatalf("invalid UTF-8: %v", err)
	}
	if st := ix.Stats(); st.Records != 0 || st.WALBytes != walHeaderSize {
		t.Fatalf("after a failed batch: %+v", st)
	}
	if _, err := Open(dir, OpenOptions{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v", err)
	}
	ix.Close()
	if _, err := Create(dir, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over an index: %v", err)
	}
	if _, err := Open(t.TempDir(), OpenOptions{}); !errors.Is(err, ErrNotIndex) {
		t.Fatalf("Open of an empty directory: %v", err)
	}
	for _, cfg := range []Config{
		{Method: Exact, Measure: prefix.Jaccard},
		{Method: 9, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2}},
		{Method: LSH, Measure: prefix.Cosine, MinThreshold: prefix.Threshold{Num: 1, Den: 2}},
		{Method: LSH, Measure: prefix.Jaccard, Bits: 12, Bands: 4},
		{Method: LSH, Measure: prefix.Jaccard},
		{Method: Exact, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 3, Den: 2}},
	} {
		if _, err := Create(t.TempDir(), cfg); !errors.Is(err, ErrConfig) {
			t.Fatalf("Create(%+v): %v", cfg, err)
		}
	}
}

// TestWorkersClamped: OpenOptions.Workers far beyond the machine is lowered
// to 4·GOMAXPROCS (a batch search must not start 1<<40 goroutines).
func TestWorkersClamped(t *testing.T) {
	dir := t.TempDir()
	ix, err := Create(dir, passwordConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Insert(context.Background(), [][]byte{[]byte("password"), []byte("passw0rd")}, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(dir, OpenOptions{Workers: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.workers != 4*runtime.GOMAXPROCS(0) {
		t.Errorf("workers = %d, want %d", ix.workers, 4*runtime.GOMAXPROCS(0))
	}
	if _, err := ix.Search(context.Background(), [][]byte{[]byte("password")}, SearchOptions{Threshold: prefix.Threshold{Num: 4, Den: 5}}); err != nil {
		t.Fatal(err)
	}
}

// TestSearchOptionsCheck: SearchOptions.Validate names the option of the first
// rule broken (a threshold or top-k, not both; refine-k only with top-k and
// at least top-k; top-k at least 1), wrapping ErrOptions; Search and
// ValidateSearch refuse the same.
func TestSearchOptionsCheck(t *testing.T) {
	half := prefix.Threshold{Num: 1, Den: 2}
	for _, tc := range []struct {
		opt    SearchOptions
		option string // "" for options that pass
	}{
		{SearchOptions{Threshold: half}, ""},
		{SearchOptions{TopK: 3}, ""},
		{SearchOptions{TopK: 3, RefineK: 3}, ""},
		{SearchOptions{Threshold: half, Only: []ID{1}, Exclude: []ID{2}}, ""},
		{SearchOptions{Threshold: half, TopK: 3}, "TopK"},
		{SearchOptions{Threshold: half, TopK: -1}, "TopK"},
		{SearchOptions{}, "Threshold"},
		{SearchOptions{RefineK: 5}, "Threshold"},
		{SearchOptions{Threshold: half, RefineK: 5}, "RefineK"},
		{SearchOptions{TopK: -2}, "TopK"},
		{SearchOptions{TopK: -2, RefineK: 1}, "TopK"},
		{SearchOptions{TopK: 5, RefineK: 4}, "RefineK"},
		{SearchOptions{TopK: 5, RefineK: -1}, "RefineK"},
		{SearchOptions{TopK: 5, RefineK: 50}, ""},
		{SearchOptions{TopK: 5, RefineK: 51}, "RefineK"},
	} {
		err := tc.opt.Validate()
		var oe *OptionError
		if tc.option == "" && err != nil || tc.option != "" && (!errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, ErrOptions)) {
			t.Errorf("%+v: %v, want option %q", tc.opt, err, tc.option)
		}
	}
	ix, _ := mustCreate(t, exactConfig(prefix.Jaccard, half))
	defer ix.Close()
	var oe *OptionError
	if err := ix.ValidateSearch(SearchOptions{TopK: 5, RefineK: 4}); !errors.As(err, &oe) || oe.Option != "RefineK" {
		t.Errorf("ValidateSearch: %v", err)
	}
}

// TestSearchEachPieces searches an index of 3,000 copies of one record
// with 100 copies as queries (300,000 hits), with a query that does not
// tokenize among them or not: SearchEach answers in query order what Search
// answers, or fails before any answer; SearchLines hands its callback the
// batch in several pieces (each about searchChunkHits hits), whose
// concatenation is Search's answer.
func TestSearchEachPieces(t *testing.T) {
	ix, _ := mustCreate(t, Config{Tokens: shingle.Spec{Kind: shingle.Words}, Method: Exact, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2}})
	defer ix.Close()
	ctx := context.Background()
	recs := make([][]byte, 3000)
	for i := range recs {
		recs[i] = []byte("alpha beta gamma")
	}
	if _, err := ix.Insert(ctx, recs, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	opt := SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}}
	queries := recs[:100]
	want, err := ix.Search(ctx, queries, opt)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	err = ix.SearchEach(ctx, queries, opt, func(i int, hits []Hit) error {
		if i != next || !slices.Equal(hits, want[i]) {
			t.Fatalf("SearchEach: query %d (want %d): %d hits, want %d", i, next, len(hits), len(want[i]))
		}
		next++
		return nil
	})
	if err != nil || next != len(queries) {
		t.Fatalf("SearchEach: %d answers, %v", next, err)
	}
	bad := slices.Clone(queries)
	bad[77] = []byte("bad \xff")
	calls := 0
	err = ix.SearchEach(ctx, bad, opt, func(int, []Hit) error { calls++; return nil })
	var re *RecordError
	if !errors.As(err, &re) || !re.Query || re.Index != 77 || calls != 0 {
		t.Errorf("SearchEach with query 78 invalid: %v after %d answers, want a *RecordError for it before any", err, calls)
	}
	var got [][]Hit
	pieces := 0
	err = ix.SearchLines(ctx, strings.NewReader(strings.Repeat("alpha beta gamma\n", 100)), records.BatchOptions{}, opt, func(first int, qs [][]byte, hits [][]Hit) error {
		if first != len(got)+1 || len(qs) != len(hits) {
			t.Fatalf("piece from line %d of %d queries, %d answers; %d answered before", first, len(qs), len(hits), len(got))
		}
		got = append(got, hits...)
		pieces++
		return nil
	})
	if err != nil || len(got) != len(want) || pieces < 3 {
		t.Fatalf("SearchLines: %d answers in %d pieces, %v", len(got), pieces, err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("SearchLines: line %d differs", i+1)
		}
	}
}
