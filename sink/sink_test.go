package sink

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/join"
)

var formats = []struct {
	name string
	f    fieldenc.Format
}{{"tsv", fieldenc.TSV}, {"csv", fieldenc.CSV}, {"jsonl", fieldenc.JSONL}}

// TestPairStream: pairs are written as they come, or with sorting in
// (id_a, id_b) order; ids are line numbers, or the names of each side.
func TestPairStream(t *testing.T) {
	pairs := []join.Pair{{A: 2, B: 0, Sim: 0.5}, {A: 0, B: 1, Sim: 1}}
	cases := []struct {
		name          string
		f             fieldenc.Format
		sorted, est   bool
		names, snames []string
		want          string
	}{
		{"numbers", fieldenc.TSV, false, false, nil, nil, "3\t1\t0.5\n1\t2\t1\n"},
		{"sorted", fieldenc.TSV, true, false, nil, nil, "1\t2\t1\n3\t1\t0.5\n"},
		{"self-join names", fieldenc.JSONL, false, false, []string{"a", "b", "c"}, nil,
			`{"a":"c","b":"a","sim":0.5}` + "\n" + `{"a":"a","b":"b","sim":1}` + "\n"},
		{"R-S names, estimates", fieldenc.CSV, true, true, []string{"r0", "r1", "r2"}, []string{"s0", "s1"},
			"id_a,id_b,estimate\nr0,s1,1\nr2,s0,0.5\n"},
		{"numbers, estimates", fieldenc.JSONL, false, true, nil, nil,
			`{"a":3,"b":1,"est":0.5}` + "\n" + `{"a":1,"b":2,"est":1}` + "\n"},
	}
	for _, c := range cases {
		var w bytes.Buffer
		pw := NewPairWriter(&w, c.f, false, c.est, c.names, c.snames)
		s := NewStream(c.sorted, pw.WritePair, pw.Flush)
		for _, p := range pairs {
			if !s.Add(p) {
				t.Fatalf("%s: Add failed: %v", c.name, s.Err())
			}
		}
		if err := s.Close(); err != nil { // writes the held pairs and flushes
			t.Fatal(err)
		}
		if w.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, w.String(), c.want)
		}
	}
	var w bytes.Buffer
	if err := NewPairWriter(&w, fieldenc.CSV, true, false, nil, nil).Flush(); err != nil || w.String() != "id_a,id_b,similarity\n" {
		t.Errorf("no pair in CSV: %q, %v; want the header", w.String(), err)
	}
}

// TestStreamStops: once a write fails, Add says so and takes no more pairs,
// and Close returns the error.
func TestStreamStops(t *testing.T) {
	fail := errors.New("disk full")
	var writes int
	s := NewStream(false, func(join.Pair) error { writes++; return fail }, func() error { t.Error("flushed after a failed write"); return nil })
	if s.Add(join.Pair{}) || s.Add(join.Pair{}) || writes != 1 || s.Err() != fail || s.Close() != fail {
		t.Errorf("after a failed write: %d writes, Err %v", writes, s.Err())
	}
}

// TestWriteClusters: the first record of each cluster, or every record with
// its cluster, in input order.
func TestWriteClusters(t *testing.T) {
	f := cluster.New(4)
	f.Union(1, 3)
	var w bytes.Buffer
	if err := WriteClusters(&w, fieldenc.TSV, f, nil, false); err != nil || w.String() != "1\n2\n3\n" {
		t.Errorf("kept ids %q, %v", w.String(), err)
	}
	w.Reset()
	if err := WriteClusters(&w, fieldenc.CSV, f, []string{"a", "b", "c,d", "e"}, true); err != nil ||
		w.String() != "id,cluster\na,1\nb,2\n\"c,d\",3\ne,2\n" {
		t.Errorf("clusters %q, %v", w.String(), err)
	}
	w.Reset()
	if err := WriteClusters(&w, fieldenc.CSV, cluster.New(0), nil, false); err != nil || w.String() != "id\n" {
		t.Errorf("no record: %q, %v; want the header", w.String(), err)
	}
}

// TestSimilarityCache checks that Writer.Similarity writes what
// AppendSimilarity does for every value, however often it recurs and
// whatever else shares its entry of the cache: ratios of small integers
// (which recur), random floats (which evict them), 0, 1, -0 and values
// whose text is long, in every format.
func TestSimilarityCache(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var sims []float64
	for range 20000 {
		switch r.IntN(4) {
		case 0:
			sims = append(sims, r.Float64())
		case 1:
			sims = append(sims, []float64{0, 1, math.Copysign(0, -1), 1e-7, 123456.5}[r.IntN(5)])
		default:
			n := 1 + r.IntN(20)
			sims = append(sims, float64(r.IntN(n+1))/float64(n))
		}
	}
	for _, integer := range []bool{false, true} {
		for _, fm := range formats {
			var got, want bytes.Buffer
			gw := NewWriter(&got, fm.f, integer, fieldenc.Column{Name: "similarity", Key: "sim"})
			ww := NewWriter(&want, fm.f, integer, fieldenc.Column{Name: "similarity", Key: "sim"})
			for _, v := range sims {
				gw.WriteRow(gw.Similarity(gw.Line(), v))
				ww.WriteRow(AppendSimilarity(ww.Field(ww.Line()), v, integer))
			}
			if err := errors.Join(gw.Flush(), ww.Flush()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s, integer %v: the cached similarities differ from AppendSimilarity's", fm.name, integer)
			}
		}
	}
}
