package fieldenc_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/simjoin/simjoin/internal/fieldenc"
)

func appendSim(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', -1, 64) }

// TestRow writes rows of every field kind in each format, compares with the
// lines expected, and reads the CSV and JSONL back with strict readers.
func TestRow(t *testing.T) {
	cols := []fieldenc.Column{{Name: "line"}, {Name: "status"}, {Name: "similarity", Key: "sim"}, {Name: "password"}, {Name: "extra"}}
	rows := func(f fieldenc.Format) string {
		r := fieldenc.NewRow(f, cols...)
		var out []byte
		if f == fieldenc.CSV {
			out = append(out, r.Header()...)
		}
		b := r.Begin(out)
		b = r.Int(b, -7)
		b = r.Word(b, "duplicate")
		b = r.Number(b, appendSim, 0.75)
		b = r.Text(b, []byte("a,\"b\"\tc"))
		b = r.Uint(b, 18446744073709551615)
		b = r.End(b)
		b = r.Begin(b)
		b = r.Int(b, 1)
		b = r.Word(b, "inserted")
		b = r.Skip(b)
		b = r.Skip(b)
		b = r.Skip(b)
		b = r.End(b)
		b = r.Begin(b)
		b = append(r.Field(b), '2')
		b = r.Word(b, "x")
		b = r.Number(b, appendSim, 1)
		b = r.Text(b, []byte("l\xe9"))
		b = r.Uint(b, 0)
		return string(r.End(b))
	}
	for _, c := range []struct {
		f    fieldenc.Format
		want string
	}{
		{fieldenc.TSV, "-7\tduplicate\t0.75\ta,\"b\"\\tc\t18446744073709551615\n1\tinserted\n2\tx\t1\tl\xe9\t0\n"},
		{fieldenc.CSV, "line,status,similarity,password,extra\n-7,duplicate,0.75,\"a,\"\"b\"\"\\tc\",18446744073709551615\n1,inserted,,,\n2,x,1,l\xe9,0\n"},
		{fieldenc.JSONL, `{"line":-7,"status":"duplicate","sim":0.75,"password":"a,\"b\"\tc","extra":18446744073709551615}` + "\n" +
			`{"line":1,"status":"inserted"}` + "\n" + `{"line":2,"status":"x","sim":1,"password_base64":"bOk=","extra":0}` + "\n"},
	} {
		got := rows(c.f)
		if got != c.want {
			t.Errorf("format %d:\n got %q\nwant %q", c.f, got, c.want)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader([]byte(rows(fieldenc.CSV)))).ReadAll()
	if err != nil || len(recs) != 4 || recs[1][3] != `a,"b"\tc` {
		t.Errorf("CSV read back: %q, %v", recs, err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace([]byte(rows(fieldenc.JSONL))), []byte("\n")) {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Errorf("JSONL line %s: %v", line, err)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

// TestWriter: the CSV header goes before the first row, or at Flush only
// with EagerHeader; TSV and JSONL have none; the first write error sticks.
func TestWriter(t *testing.T) {
	cols := []fieldenc.Column{{Name: "q"}, {Name: "id"}}
	for _, c := range []struct {
		f     fieldenc.Format
		eager bool
		rows  int
		want  string
	}{
		{fieldenc.CSV, false, 0, ""},
		{fieldenc.CSV, true, 0, "q,id\n"},
		{fieldenc.CSV, false, 2, "q,id\n0,0\n1,2\n"},
		{fieldenc.CSV, true, 1, "q,id\n0,0\n"},
		{fieldenc.TSV, true, 1, "0\t0\n"},
		{fieldenc.JSONL, true, 0, ""},
	} {
		var b bytes.Buffer
		w := fieldenc.NewWriter(&b, c.f, cols...)
		w.EagerHeader = c.eager
		for i := range c.rows {
			b := w.Line()
			b = w.Int(b, int64(i))
			b = w.Int(b, int64(2*i))
			if err := w.WriteRow(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil || b.String() != c.want {
			t.Errorf("format %d, eager %v, %d rows: got %q, %v; want %q", c.f, c.eager, c.rows, b.String(), err, c.want)
		}
	}
	fw := &failWriter{}
	w := fieldenc.NewWriter(fw, fieldenc.TSV, cols...)
	big := bytes.Repeat([]byte("x"), 1<<17) // more than the buffer: written through
	if err := w.WriteLine(big); err == nil {
		t.Fatal("no error from a failing writer")
	}
	w.WriteLine([]byte("y\n"))
	if err := w.Flush(); err == nil || w.Err() != err || fw.n != 1 {
		t.Errorf("after a failed write: Flush %v, Err %v, %d writes tried; want the first error and no more writes", err, w.Err(), fw.n)
	}
}

// BenchmarkRow encodes a pair line (two numeric ids and a similarity), as
// simjoin join writes one per pair.
func BenchmarkRow(b *testing.B) {
	for _, f := range []struct {
		name string
		f    fieldenc.Format
	}{{"tsv", fieldenc.TSV}, {"csv", fieldenc.CSV}, {"jsonl", fieldenc.JSONL}} {
		b.Run("format="+f.name, func(b *testing.B) {
			r := fieldenc.NewRow(f.f, fieldenc.Column{Name: "id_a", Key: "a"}, fieldenc.Column{Name: "id_b", Key: "b"}, fieldenc.Column{Name: "similarity", Key: "sim"})
			b.ReportAllocs()
			n := 0
			var line []byte
			for b.Loop() {
				line = r.Begin(line[:0])
				line = r.Int(line, 123456)
				line = r.Int(line, 654321)
				line = r.Number(line, appendSim, 0.875)
				line = r.End(line)
				n += len(line)
			}
			b.SetBytes(int64(n / max(b.N, 1)))
		})
	}
}

// TestFormatNames: each format's name parses back to it; other text does not.
func TestFormatNames(t *testing.T) {
	for _, f := range []fieldenc.Format{fieldenc.TSV, fieldenc.CSV, fieldenc.JSONL} {
		if got, ok := fieldenc.ParseFormat(f.String()); got != f || !ok {
			t.Errorf("ParseFormat(%q) = %v, %v", f, got, ok)
		}
	}
	for _, s := range []string{"", "TSV", "json", "format(3)"} {
		if _, ok := fieldenc.ParseFormat(s); ok {
			t.Errorf("ParseFormat(%q) took it", s)
		}
	}
	if s := fieldenc.Format(7).String(); s != "format(7)" {
		t.Errorf("Format(7) = %q", s)
	}
	for want, fs := range map[string][]fieldenc.Format{
		"tsv, csv or jsonl": {fieldenc.TSV, fieldenc.CSV, fieldenc.JSONL},
		"tsv or jsonl":      {fieldenc.TSV, fieldenc.JSONL},
		"csv":               {fieldenc.CSV},
	} {
		if got := fieldenc.FormatNames(fs); got != want {
			t.Errorf("FormatNames(%v) = %q, want %q", fs, got, want)
		}
	}
}
