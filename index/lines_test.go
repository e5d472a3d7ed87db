package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// TestInsertSearchLines streams records through InsertLines (search before
// insert, in small batches) and checks every outcome against the sequential
// greedy dedup of the oracle, and every SearchLines answer against the
// oracle's matches; the batches cover the lines in order.
func TestInsertSearchLines(t *testing.T) {
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	ctx := context.Background()
	min := prefix.Threshold{Num: 1, Den: 2}
	dedup := prefix.Threshold{Num: 7, Den: 10}
	ix, _ := mustCreate(t, exactConfig(prefix.Jaccard, min))
	defer ix.Close()
	sets := synth.Sets(synth.SetsConfig{N: 300, MinSize: 1, MaxSize: 8, Universe: 30, Zipf: 1, DupFraction: 0.3, Seed: seed})
	var text bytes.Buffer
	o := newModel(prefix.Jaccard)
	var want []Outcome
	for _, s := range sets {
		s = distinct(s)
		text.Write(textOf(s))
		text.WriteByte('\n')
		want = append(want, o.insert(s, dedup))
	}
	var got []Outcome
	next := 1
	opt := records.BatchOptions{Name: "recs", MaxLines: 7}
	err := ix.InsertLines(ctx, bytes.NewReader(text.Bytes()), opt, LinesText, InsertOptions{Dedup: dedup}, func(first int, outs []Outcome) error {
		if first != next || len(outs) > 7 {
			t.Fatalf("batch of %d outcomes at line %d, want at line %d and at most 7", len(outs), first, next)
		}
		next += len(outs)
		got = append(got, outs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("outcomes differ from the greedy dedup:\n got %v\nwant %v", got, want)
	}

	var hits [][]Hit
	var queries []string
	err = ix.SearchLines(ctx, bytes.NewReader(text.Bytes()), opt, SearchOptions{Threshold: dedup}, func(first int, qs [][]byte, hs [][]Hit) error {
		if first != len(hits)+1 || len(qs) != len(hs) {
			t.Fatalf("batch at line %d of %d queries and %d answers, want line %d", first, len(qs), len(hs), len(hits)+1)
		}
		for _, q := range qs {
			queries = append(queries, string(q))
		}
		hits = append(hits, hs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sets {
		s = distinct(s)
		if queries[i] != string(textOf(s)) {
			t.Fatalf("query %d is %q, want line %d", i, queries[i], i+1)
		}
		if w := o.matches(s, dedup); !slices.Equal(hits[i], w) && !(len(w) == 0 && len(hits[i]) == 0) {
			t.Fatalf("line %d: got %v, want %v", i+1, hits[i], w)
		}
	}
}

// TestLinesErrors: a line that does not tokenize is named by its line (and
// its batch is not inserted, the earlier batches are); f's error and the
// index's option errors come back as they are.
func TestLinesErrors(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Method: Exact, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2}}
	ix, _ := mustCreate(t, cfg)
	defer ix.Close()
	in := "alpha\nbeta\ngamma\ndel\xffta\nepsilon\n"
	opt := records.BatchOptions{Name: "words.txt", MaxLines: 2}
	err := ix.InsertLines(ctx, strings.NewReader(in), opt, LinesText, InsertOptions{}, func(int, []Outcome) error { return nil })
	var le *records.LineError
	if !errors.As(err, &le) || le.Name != "words.txt" || le.Line != 4 || !errors.Is(err, shingle.ErrUTF8) {
		t.Fatalf("got %v, want words.txt:4: invalid UTF-8", err)
	}
	if st := ix.Stats(); st.Live != 2 {
		t.Errorf("%d records held after the failed batch, want the first batch's 2", st.Live)
	}
	err = ix.SearchLines(ctx, strings.NewReader(in), opt, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}},
		func(int, [][]byte, [][]Hit) error { return nil })
	if !errors.As(err, &le) || le.Line != 4 {
		t.Fatalf("search: got %v, want words.txt:4", err)
	}
	stop := errors.New("stop")
	err = ix.SearchLines(ctx, strings.NewReader(in), opt, SearchOptions{TopK: 1},
		func(int, [][]byte, [][]Hit) error { return stop })
	if err != stop {
		t.Errorf("f's error: got %v", err)
	}
	low := SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 3}}
	if err := ix.ValidateSearch(low); !errors.Is(err, ErrThresholdBelowMin) {
		t.Errorf("ValidateSearch below the minimum: got %v", err)
	}
	if err := ix.ValidateSearch(SearchOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("ValidateSearch of no threshold nor top-k: got %v", err)
	}
	if err := ix.ValidateSearch(SearchOptions{TopK: 3}); err != nil {
		t.Errorf("ValidateSearch top-3: %v", err)
	}
}

func TestParseIDs(t *testing.T) {
	ids, err := ParseIDs("3, 1,18446744073709551615")
	if err != nil || fmt.Sprint(ids) != "[3 1 18446744073709551615]" {
		t.Errorf("ParseIDs: got %v, %v", ids, err)
	}
	for _, bad := range []string{"", "1,,2", "-1", "x", "1,2 3", "0", "01", "+1", "0x1", "1e3", "18446744073709551616", "1_000"} {
		if _, err := ParseIDs(bad); !errors.Is(err, ErrNotID) {
			t.Errorf("ParseIDs(%q): got %v, want ErrNotID", bad, err)
		}
	}
	if _, err := ParseID(" 1"); err == nil || err.Error() != `" 1" is not a record id (a decimal integer >= 1, no leading zeros)` {
		t.Errorf("ParseID(\" 1\"): got %v", err)
	}
	ids, err = ReadIDs(strings.NewReader("4\n 5 \r\n6"), "<stdin>")
	if err != nil || fmt.Sprint(ids) != "[4 5 6]" {
		t.Errorf("ReadIDs: got %v, %v", ids, err)
	}
	_, err = ReadIDs(strings.NewReader("4\nfive\n"), "<stdin>")
	if err == nil || err.Error() != "<stdin>:2: not a record id (a decimal integer >= 1, no leading zeros)" {
		t.Errorf("ReadIDs of a bad line: got %v", err)
	}
}

func TestConfigString(t *testing.T) {
	half := prefix.Threshold{Num: 1, Den: 2}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{exactConfig(prefix.Cosine, half), "tokens set, cosine >= 0.5, exact"},
		{Config{Tokens: shingle.Spec{Kind: shingle.Words}, Method: LSH, Measure: prefix.Jaccard, MinThreshold: half, Perm: 128, Bands: 32, Rows: 4, Bits: 16, Seed: 7},
			"tokens words, jaccard >= 0.5, lsh 32x4, 16-bit signatures of 128 values, seed 7, no raw sets (estimated similarities)"},
	} {
		if got := c.cfg.String(); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}

// TestConfigJSON checks that a Config marshals in the manifest's format
// (docs/index-format.md: the measure by its number, the threshold as a
// fraction), whatever text forms prefix's types have, and reads back.
func TestConfigJSON(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{exactConfig(prefix.Cosine, prefix.Threshold{Num: 4, Den: 5}),
			`{"tokens":{"Kind":0,"N":0,"Norm":0,"DropSemicolons":false},"method":1,"measure":1,"min_threshold":{"Num":4,"Den":5}}`},
		{Config{Tokens: shingle.Spec{Kind: shingle.Words}, Method: LSH, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2},
			Perm: 128, Bands: 30, Rows: 4, Bits: 16, Seed: 7, BloomFPP: 0.01, RawSets: true},
			`{"tokens":{"Kind":1,"N":0,"Norm":0,"DropSemicolons":false},"method":2,"measure":0,"min_threshold":{"Num":1,"Den":2},"perm":128,"bands":30,"rows":4,"bits":16,"seed":7,"bloom_fpp":0.01,"raw_sets":true}`},
	} {
		b, err := json.Marshal(c.cfg)
		if err != nil || string(b) != c.want {
			t.Errorf("%v marshals as\n%s, %v; want\n%s", c.cfg, b, err, c.want)
			continue
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil || back != c.cfg {
			t.Errorf("%s reads back as %+v, %v", b, back, err)
		}
	}
}

// TestConfigJSONVersion1: a configuration of format version 1 has no
// "rows" (it banded all its values): its rows are perm/bands; nor band
// filters.
func TestConfigJSONVersion1(t *testing.T) {
	var c Config
	js := `{"tokens":{"Kind":0,"N":0,"Norm":0},"method":2,"measure":0,"min_threshold":{"Num":1,"Den":2},"perm":69,"bands":23,"bits":32}`
	if err := json.Unmarshal([]byte(js), &c); err != nil || c.Perm != 69 || c.Bands != 23 || c.Rows != 3 || c.BloomFPP != NoBloom {
		t.Errorf("%s reads as %+v, %v", js, c, err)
	}
}

// TestInsertLinesFormats reads records as KEY<TAB>TEXT lines and as JSON
// Lines into indexes with keys, and refuses, naming the line and never
// quoting it, every line that is not a record of the format or breaks the
// index's rules (before its batch is written).
func TestInsertLinesFormats(t *testing.T) {
	ctx := context.Background()
	cfg := func(k KeyKind) Config {
		c := exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})
		c.Keys, c.StoreText = k, true
		return c
	}
	collect := func(ix *Index, in string, f LineFormat, opt InsertOptions) ([]Outcome, error) {
		var outs []Outcome
		err := ix.InsertLines(ctx, strings.NewReader(in), records.BatchOptions{Name: "in"}, f, opt, func(first int, o []Outcome) error {
			outs = append(outs, o...)
			return nil
		})
		return outs, err
	}
	ix, _ := mustCreate(t, cfg(StringKeys))
	defer ix.Close()
	outs, err := collect(ix, "a-1\tw1 w2 w3\nb 2\tw1\tw9\n", LinesTSV, InsertOptions{})
	if err != nil || len(outs) != 2 || outs[0].Key != "a-1" || outs[1].Key != "b 2" {
		t.Fatalf("tsv: %+v, %v", outs, err)
	}
	if s, _, _ := ix.GetKey("b 2"); string(s.Text) != "w1\tw9" {
		t.Errorf("the text after the first tab: %q", s.Text)
	}
	outs, err = collect(ix, `{"id": "c", "text": "w1 w2 w3 w4", "payload": {"lang": "en"}}`+"\n"+`{"text": "w7", "id": "d", "payload": null}`, LinesJSON,
		InsertOptions{Dedup: prefix.Threshold{Num: 3, Den: 4}})
	if err != nil || len(outs) != 2 || outs[0].Inserted || outs[0].Key != "a-1" || !outs[1].Inserted {
		t.Fatalf("jsonl with dedup: %+v, %v", outs, err)
	}
	if s, ok, _ := ix.GetKey("d"); !ok || s.Payload != nil {
		t.Errorf("a null payload: %+v, %v", s, ok)
	}
	ints, _ := mustCreate(t, cfg(IntKeys))
	defer ints.Close()
	if outs, err := collect(ints, `{"id": -12, "text": "w1"}`+"\n7\tw2\n", LinesJSON, InsertOptions{}); err == nil || outs != nil {
		t.Errorf("a tsv line read as JSON: %+v, %v", outs, err)
	}
	if outs, err := collect(ints, `{"id": -12, "text": "w1"}`, LinesJSON, InsertOptions{}); err != nil || outs[0].Key != "-12" {
		t.Errorf("an integer key: %+v, %v", outs, err)
	}
	plain, _ := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	defer plain.Close()
	for _, c := range []struct {
		ix   *Index
		f    LineFormat
		in   string
		want string
	}{
		{ix, LinesTSV, "e\tw1\nno-tab-here\n", "in:2: not a key: want KEY<TAB>TEXT"},
		{ix, LinesTSV, "e\tw1\n\tw2\n", "in:2: not a key: want 1 to 256 bytes, have 0"},
		{ix, LinesText, "w1 w2\n", "in:1: not a key: the index takes a key with each record: give them as tsv or jsonl"},
		{ix, LinesJSON, `{"id": "e", "text": "w1"} x`, "in:1: not a record: data after the object"},
		{ix, LinesJSON, `{"id": "e", "text": "w1", "extra": 1}`, `in:1: not a record: json: unknown field "extra"`},
		{ix, LinesJSON, `{"id": "e", "Text": "w1"}`, `in:1: not a record: unknown field "Text"`},
		{ix, LinesJSON, `{"id": "e", "text": "w1", "text": "w2"}`, `in:1: not a record: "text" given twice`},
		{ix, LinesJSON, `{"id": "e", "text": "w1 \ud800 secret"}`, `in:1: not a record: a lone surrogate \ud800 in a string`},
		{ix, LinesJSON, "{\"id\": \"e\", \"text\": \"w1 \xff secret\"}", `in:1: not a record: invalid UTF-8`},
		{ix, LinesJSON, `{"id": "e", "text": "w1", "payload": [1]}`, `in:1: not a record: "payload": want a JSON object`},
		{ix, LinesJSON, `{"id": 5, "text": "w1"}`, `in:1: "id": not a key: want a JSON string`},
		{ix, LinesJSON, `{"id": "e"}`, `in:1: not a record: want "text", a string`},
		{ix, LinesJSON, `{"id": "e", "text": 5}`, `in:1: not a record: "text": want a string`},
		{ix, LinesJSON, `{"id": "e", "text": "w1 secret"`, `in:1: not a record: unexpected EOF`},
		{ix, LinesTSV, "e\tw1\na-1\tw2\n", `in:2: key "a-1" is held by a live record`},
		{ix, LinesTSV, "e\tw1\ne\tw2\n", `in:2: key "e" given twice in one batch`},
		{ints, LinesJSON, `{"id": 1.0, "text": "w1"}`, `in:1: "id": not a key: want a decimal integer`},
		{ints, LinesJSON, `{"id": "1", "text": "w1"}`, `in:1: "id": not a key: want a JSON number`},
		{ints, LinesTSV, "1e3\tw1", `in:1: not a key: want a decimal integer`},
		{plain, LinesJSON, `{"id": 1, "text": "w1"}`, `in:1: not a key: "id": the index names its records by id`},
		{plain, LinesJSON, `{"text": "w1", "payload": {}}`, `in:1: payload: want a JSON object, on an index that stores text`},
	} {
		before := c.ix.Stats().Records
		_, err := collect(c.ix, c.in, c.f, InsertOptions{})
		var le *records.LineError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%v %q: %v\nwant %s", c.f, c.in, err, c.want)
		}
		if after := c.ix.Stats().Records; after != before {
			t.Errorf("%v %q: %d records inserted by a refused batch", c.f, c.in, after-before)
		}
	}
}
