package rows

import (
	"bytes"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
)

var formats = []struct {
	name string
	f    fieldenc.Format
}{{"tsv", fieldenc.TSV}, {"csv", fieldenc.CSV}, {"jsonl", fieldenc.JSONL}}

// list is a password list of three passwords, the second twice, one of
// them not UTF-8, read from lines 1, 2 and 4.
func list(t *testing.T) *passwords.List {
	t.Helper()
	l, _, err := passwords.Read(strings.NewReader("pass,word\nhunter2\nhunter2\nlatin\xe9\n"), passwords.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRows writes each kind of row in every format.
func TestRows(t *testing.T) {
	l := list(t)
	exact := index.Config{Measure: prefix.Jaccard, Method: index.Exact}
	estimated := index.Config{Measure: prefix.Jaccard, Method: index.LSH}
	overlap := index.Config{Measure: prefix.Overlap, Method: index.Exact}
	cases := []struct {
		name  string
		write func(w *bytes.Buffer, f fieldenc.Format) error
		want  [3]string // tsv, csv, jsonl
	}{
		{"password pairs", func(w *bytes.Buffer, f fieldenc.Format) error {
			rw := NewPasswordPairs(w, f, false)
			rw.Write(l, passwords.Pair{A: 0, B: 2, Sim: 2.0 / 3})
			return rw.Flush()
		}, [3]string{
			"1\t4\t0.666667\tpass,word\tlatin\xe9\n",
			"line_a,line_b,similarity,password_a,password_b\n1,4,0.666667,\"pass,word\",latin\xe9\n",
			`{"a":1,"b":4,"sim":0.666667,"password_a":"pass,word","password_b_base64":"bGF0aW7p"}` + "\n"}},
		{"families", func(w *bytes.Buffer, f fieldenc.Format) error {
			rw := NewFamilies(w, f)
			rw.Write(1, l, passwords.Family{Members: []int{1, 0}, Count: 3})
			return rw.Flush()
		}, [3]string{
			"2\t3\thunter2\thunter2\tpass,word\n",
			"family,size,count,line,password_count,password\n1,2,3,2,2,hunter2\n1,2,3,1,1,\"pass,word\"\n",
			`{"size":2,"count":3,"top":"hunter2","members":[{"line":2,"count":2,"password":"hunter2"},{"line":1,"count":1,"password":"pass,word"}]}` + "\n"}},
		{"families, all", func(w *bytes.Buffer, f fieldenc.Format) error {
			return WriteFamilies(w, f, l, []passwords.Family{{Members: []int{1, 0}, Count: 3}, {Members: []int{2}, Count: 1}})
		}, [3]string{
			"2\t3\thunter2\thunter2\tpass,word\n1\t1\tlatin\xe9\tlatin\xe9\n",
			"family,size,count,line,password_count,password\n1,2,3,2,2,hunter2\n1,2,3,1,1,\"pass,word\"\n2,1,1,4,1,latin\xe9\n",
			`{"size":2,"count":3,"top":"hunter2","members":[{"line":2,"count":2,"password":"hunter2"},{"line":1,"count":1,"password":"pass,word"}]}` + "\n" +
				`{"size":1,"count":1,"top_base64":"bGF0aW7p","members":[{"line":4,"count":1,"password_base64":"bGF0aW7p"}]}` + "\n"}},
		{"matches", func(w *bytes.Buffer, f fieldenc.Format) error {
			rw := NewMatches(w, f, false)
			rw.Write(3, l, passwords.Match{Index: 1, Sim: 0.75})
			return rw.Flush()
		}, [3]string{
			"3\t2\t0.75\thunter2\n",
			"candidate,line,similarity,known_password\n3,2,0.75,hunter2\n",
			`{"candidate":3,"line":2,"sim":0.75,"known_password":"hunter2"}` + "\n"}},
		{"hits", func(w *bytes.Buffer, f fieldenc.Format) error {
			rw := NewHits(w, f, exact, "query", 0)
			rw.Write(1, index.Hit{ID: 7, Sim: 1})
			return rw.Flush()
		}, [3]string{"1\t7\t1\n", "query,id,similarity\n1,7,1\n", `{"query":1,"id":7,"sim":1}` + "\n"}},
		{"hits, a batch", func(w *bytes.Buffer, f fieldenc.Format) error {
			rw := NewHits(w, f, exact, "query", 0)
			if err := rw.WriteBatch(4, [][]index.Hit{{{ID: 7, Sim: 1}, {ID: 2, Sim: 0.5}}, nil, {{ID: 3, Sim: 0.75}}}); err != nil {
				return err
			}
			return rw.Flush()
		}, [3]string{"4\t7\t1\n4\t2\t0.5\n6\t3\t0.75\n", "query,id,similarity\n4,7,1\n4,2,0.5\n6,3,0.75\n",
			`{"query":4,"id":7,"sim":1}` + "\n" + `{"query":4,"id":2,"sim":0.5}` + "\n" + `{"query":6,"id":3,"sim":0.75}` + "\n"}},
		{"no hit", func(w *bytes.Buffer, f fieldenc.Format) error {
			return NewHits(w, f, estimated, "candidate", 0).Flush()
		}, [3]string{"", "candidate,id,estimate\n", ""}},
		{"outcomes", func(w *bytes.Buffer, f fieldenc.Format) error {
			rw := NewOutcomes(w, f, overlap)
			rw.Write(1, index.Outcome{Inserted: true, ID: 0})
			rw.Write(2, index.Outcome{ID: 0, Sim: 3})
			return rw.Flush()
		}, [3]string{
			"1\tinserted\t0\n2\tduplicate\t0\t3\n",
			"line,status,id,similarity\n1,inserted,0,\n2,duplicate,0,3\n",
			`{"line":1,"status":"inserted","id":0}` + "\n" + `{"line":2,"status":"duplicate","id":0,"sim":3}` + "\n"}},
		{"hits with keys and fields", func(w *bytes.Buffer, f fieldenc.Format) error {
			cfg := exact
			cfg.Keys, cfg.StoreText = index.StringKeys, true
			rw := NewHits(w, f, cfg, "query", index.FieldText|index.FieldPayload)
			rw.Write(1, index.Hit{ID: 7, Key: "k,1", Sim: 1, Text: "a\tb", Payload: `{"x":"y"}`})
			rw.Write(2, index.Hit{ID: 8, Key: "k2", Sim: 0.5, Text: "c"})
			return rw.Flush()
		}, [3]string{
			"1\tk,1\t1\ta\\tb\t{\"x\":\"y\"}\n2\tk2\t0.5\tc\t\n",
			"query,id,similarity,text,payload\n1,\"k,1\",1,a\\tb,\"{\"\"x\"\":\"\"y\"\"}\"\n2,k2,0.5,c,\n",
			`{"query":1,"id":"k,1","sim":1,"text":"a\tb","payload":{"x":"y"}}` + "\n" + `{"query":2,"id":"k2","sim":0.5,"text":"c","payload":null}` + "\n"}},
		{"outcomes with integer keys", func(w *bytes.Buffer, f fieldenc.Format) error {
			cfg := exact
			cfg.Keys = index.IntKeys
			return NewOutcomes(w, f, cfg).WriteBatch(1, []index.Outcome{{Inserted: true, Replaced: true, ID: 9, Key: "-4"}, {Exists: true, ID: 3, Key: "12"}, {ID: 2, Key: "5", Sim: 0.5}})
		}, [3]string{
			"1\treplaced\t-4\n2\texists\t12\n3\tduplicate\t5\t0.5\n",
			"line,status,id,similarity\n1,replaced,-4,\n2,exists,12,\n3,duplicate,5,0.5\n",
			`{"line":1,"status":"replaced","id":-4}` + "\n" + `{"line":2,"status":"exists","id":12}` + "\n" + `{"line":3,"status":"duplicate","id":5,"sim":0.5}` + "\n"}},
		{"stored records", func(w *bytes.Buffer, f fieldenc.Format) error {
			cfg := exact
			cfg.Keys, cfg.StoreText = index.StringKeys, true
			rw := NewStored(w, f, cfg)
			rw.Write(index.Stored{ID: 1, Key: "a", Text: []byte("t1"), Payload: []byte(`{"n":1}`)})
			rw.Write(index.Stored{ID: 2, Key: "b", Text: []byte("t2")})
			return rw.Flush()
		}, [3]string{
			"a\tt1\t{\"n\":1}\nb\tt2\t\n",
			"id,text,payload\na,t1,\"{\"\"n\"\":1}\"\nb,t2,\n",
			`{"id":"a","text":"t1","payload":{"n":1}}` + "\n" + `{"id":"b","text":"t2","payload":null}` + "\n"}},
		{"outcomes, a batch", func(w *bytes.Buffer, f fieldenc.Format) error {
			return NewOutcomes(w, f, overlap).WriteBatch(5, []index.Outcome{{Inserted: true, ID: 9}, {ID: 9, Sim: 2}})
		}, [3]string{
			"5\tinserted\t9\n6\tduplicate\t9\t2\n",
			"line,status,id,similarity\n5,inserted,9,\n6,duplicate,9,2\n",
			`{"line":5,"status":"inserted","id":9}` + "\n" + `{"line":6,"status":"duplicate","id":9,"sim":2}` + "\n"}},
	}
	for _, c := range cases {
		for k, f := range formats {
			var w bytes.Buffer
			if err := c.write(&w, f.f); err != nil {
				t.Fatal(err)
			}
			if w.String() != c.want[k] {
				t.Errorf("%s, %s:\n got %q\nwant %q", c.name, f.name, w.String(), c.want[k])
			}
		}
	}
}
