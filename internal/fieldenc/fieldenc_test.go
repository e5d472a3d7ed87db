package fieldenc

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// fields are the table every encoder runs, and the fuzz targets' seeds.
var fields = []string{
	"", "a", "1", "path/to/file.go", `quote"inside`, `back\slash`, "tab\there",
	"new\nline", "cr\rlf\n", "\x00\x01\x1f\x7f", "comma,here", `"`, `""`, "\\x41",
	"é ü 日本", "\u2028\u2029", "\xff\xfe", "ok\xc3", "a\xe2\x82", " lead", "trail ",
	"<script>&", "\ufffd",
}

// checkJSON checks that AppendJSONField's object is strict JSON (valid
// UTF-8, accepted by encoding/json) and gives back v under its key.
func checkJSON(t *testing.T, v []byte) {
	t.Helper()
	line := append(AppendJSONField([]byte(`{`), "id", v), '}')
	if !utf8.Valid(line) || !json.Valid(line) {
		t.Fatalf("%q: invalid JSON %q", v, line)
	}
	for _, c := range line {
		if c < 0x20 || c == 0x7f {
			t.Fatalf("%q: JSON %q holds control byte %#x", v, line, c)
		}
	}
	var m map[string]string
	if err := json.Unmarshal(line, &m); err != nil || len(m) != 1 {
		t.Fatalf("%q: %q: %v %v", v, line, m, err)
	}
	var got []byte
	if s, ok := m["id"]; ok {
		got = []byte(s)
	} else {
		var err error
		if got, err = base64.StdEncoding.DecodeString(m["id_base64"]); err != nil {
			t.Fatalf("%q: %q: %v", v, line, err)
		}
		if utf8.Valid(v) {
			t.Errorf("%q: valid UTF-8 written as base64", v)
		}
	}
	if !bytes.Equal(got, v) {
		t.Errorf("%q: JSON %q gives back %q", v, line, got)
	}
}

// checkTSV checks that a TSV field holds no separator and no control byte,
// and unescapes to f.
func checkTSV(t *testing.T, f []byte) {
	t.Helper()
	enc := AppendTSV(nil, f)
	for _, c := range enc {
		if c < 0x20 || c == 0x7f {
			t.Fatalf("%q: TSV %q holds control byte %#x", f, enc, c)
		}
	}
	if got, ok := UnescapeTSV(enc); !ok || !bytes.Equal(got, f) {
		t.Errorf("%q: TSV %q unescapes to %q (%v)", f, enc, got, ok)
	}
}

// checkCSV checks that a CSV record of f and a plain field parses under
// encoding/csv's strict reader into two fields, the first unescaping to f,
// with no control byte written.
func checkCSV(t *testing.T, f []byte) {
	t.Helper()
	line := append(AppendCSV(nil, f), ",x\n"...)
	for _, c := range line[:len(line)-1] {
		if c < 0x20 || c == 0x7f {
			t.Fatalf("%q: CSV %q holds control byte %#x", f, line, c)
		}
	}
	r := csv.NewReader(bytes.NewReader(line))
	rec, err := r.Read()
	if err != nil || len(rec) != 2 || rec[1] != "x" {
		t.Fatalf("%q: CSV %q reads as %q, %v", f, line, rec, err)
	}
	if got, ok := UnescapeTSV([]byte(rec[0])); !ok || !bytes.Equal(got, f) {
		t.Errorf("%q: CSV %q gives back %q (%v)", f, line, got, ok)
	}
}

func TestEncodings(t *testing.T) {
	for _, f := range fields {
		checkJSON(t, []byte(f))
		checkTSV(t, []byte(f))
		checkCSV(t, []byte(f))
	}
}

// TestJSONStringInvalidUTF8 checks that AppendJSONString stays valid JSON on
// bytes that are not UTF-8, writing the replacement character.
func TestJSONStringInvalidUTF8(t *testing.T) {
	got := string(AppendJSONString(nil, []byte("a\xffb\n")))
	if want := `"a\ufffdb\n"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestCSVQuoting(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a,b", `"a,b"`},
		{`say "hi"`, `"say ""hi"""`},
		{"two\nlines", `two\nlines`},
		{"x,\r\n\"", `"x,\r\n"""`},
	} {
		if got := string(AppendCSV(nil, []byte(c.in))); got != c.want {
			t.Errorf("AppendCSV(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzEncodings checks every encoder on any bytes: JSON lines parse under a
// strict parser and give the bytes back, TSV and CSV fields hold no control
// byte and unescape to the bytes.
func FuzzEncodings(f *testing.F) {
	for _, s := range fields {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		checkJSON(t, v)
		checkTSV(t, v)
		checkCSV(t, v)
	})
}
