package sink

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/simjoin/simjoin/internal/fieldenc"
)

// FuzzPairLines writes a pair of any two ids in every format and checks that
// the line parses under the format's strict reader, holds no raw control
// byte but its separators, and gives the ids back byte for byte.
func FuzzPairLines(f *testing.F) {
	for _, n := range []string{"tab\there", "new\nline", "ctl\x01x", "latin1-\xe9", `quo"te,comma`, `back\slash`, "plain"} {
		f.Add([]byte(n), []byte("plain"))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for _, format := range formats {
			var out bytes.Buffer
			pw := NewPairWriter(&out, format.f, false, false, nil, nil)
			if err := pw.Write(a, b, false, 0.5); err != nil {
				t.Fatal(err)
			}
			if err := pw.Flush(); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			for _, c := range []byte(text) {
				if c != '\n' && c != '\t' && (c < 0x20 || c == 0x7f) {
					t.Fatalf("%s: control byte %#x in %q", format.name, c, text)
				}
			}
			var fields []string
			switch format.f {
			case fieldenc.JSONL:
				fields = jsonIDs(t, strings.TrimSuffix(text, "\n"))
			case fieldenc.TSV:
				fields = strings.Split(strings.TrimSuffix(text, "\n"), "\t")
			case fieldenc.CSV:
				recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
				if err != nil || len(recs) != 2 {
					t.Fatalf("csv %q: %v", text, err)
				}
				fields = recs[1]
			}
			if len(fields) != 3 {
				t.Fatalf("%s: %q has %d fields", format.name, text, len(fields))
			}
			if format.f != fieldenc.JSONL {
				for i := range 2 {
					raw, ok := fieldenc.UnescapeTSV([]byte(fields[i]))
					if !ok {
						t.Fatalf("%s: bad escape in %q", format.name, fields[i])
					}
					fields[i] = string(raw)
				}
			}
			if fields[0] != string(a) || fields[1] != string(b) {
				t.Errorf("%s: %q %q came back as %q %q", format.name, a, b, fields[0], fields[1])
			}
		}
	})
}

// jsonIDs returns the ids a and b (under their keys, or decoded from
// key_base64) and the similarity of a strict JSON object line.
func jsonIDs(t *testing.T, line string) []string {
	t.Helper()
	var m map[string]any
	if !utf8.ValidString(line) || json.Unmarshal([]byte(line), &m) != nil {
		t.Fatalf("not strict JSON: %q", line)
	}
	ids := []string{"", "", ""}
	for i, key := range []string{"a", "b"} {
		if s, ok := m[key].(string); ok {
			ids[i] = s
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(m[key+"_base64"].(string))
		if err != nil {
			t.Fatalf("%q: %s_base64: %v", line, key, err)
		}
		ids[i] = string(raw)
	}
	return ids
}
