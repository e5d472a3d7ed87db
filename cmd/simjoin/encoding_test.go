package main

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/simjoin/simjoin/internal/fieldenc"
)

// oddNames are file names that hold a separator, a control byte, a quote or
// bytes that are not UTF-8: ids that every output format must carry intact.
var oddNames = []string{"tab\there", "new\nline", "ctl\x01x", "latin1-\xe9", `quo"te,comma`, `back\slash`, "plain"}

// oddFiles writes one file for each odd name, all with the same content, and
// returns the directory and the paths as the command will print them.
func oddFiles(t *testing.T) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	for _, n := range oddNames {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("alpha beta gamma delta\n"), 0o644); err != nil {
			t.Skipf("file system refuses the name %q: %v", n, err)
		}
		paths = append(paths, filepath.Join(dir, n))
	}
	slices.Sort(paths)
	return dir, paths
}

// decodeJSONID returns the id under key (or key_base64) of a strict JSON
// object line.
func decodeJSONID(t *testing.T, line []byte, key string) string {
	t.Helper()
	if !utf8.Valid(line) || !json.Valid(line) {
		t.Fatalf("not strict JSON: %q", line)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	if s, ok := m[key].(string); ok {
		return s
	}
	s, _ := m[key+"_base64"].(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || s == "" {
		t.Fatalf("line %q: no %s: %v", line, key, err)
	}
	return string(b)
}

// unescapeID undoes the TSV and CSV escaping of an id.
func unescapeID(t *testing.T, f string) string {
	t.Helper()
	b, ok := fieldenc.UnescapeTSV([]byte(f))
	if !ok {
		t.Fatalf("bad escape in %q", f)
	}
	return string(b)
}

// noControl fails on a raw control byte other than the line ends.
func noControl(t *testing.T, format, out string) {
	t.Helper()
	for _, c := range []byte(out) {
		if c != '\n' && c != '\t' && (c < 0x20 || c == 0x7f) {
			t.Fatalf("%s output holds control byte %#x:\n%q", format, c, out)
		}
	}
}

// TestOutputEncodings runs join and dedup on files with odd names in every
// format and checks that each line parses under its format's strict reader
// and gives back the paths byte for byte.
func TestOutputEncodings(t *testing.T) {
	dir, paths := oddFiles(t)
	nPairs := len(paths) * (len(paths) - 1) / 2
	for _, f := range []string{"tsv", "csv", "jsonl"} {
		out, _ := cliOK(t, "", "join", "--files", "-t", "0.5", "--sort", "--format", f, dir)
		noControl(t, f, out)
		var got [][2]string
		switch f {
		case "jsonl":
			for line := range strings.Lines(out) {
				got = append(got, [2]string{decodeJSONID(t, []byte(line), "a"), decodeJSONID(t, []byte(line), "b")})
			}
		case "tsv":
			for line := range strings.Lines(out) {
				cols := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
				if len(cols) != 3 {
					t.Fatalf("tsv line %q has %d fields", line, len(cols))
				}
				got = append(got, [2]string{unescapeID(t, cols[0]), unescapeID(t, cols[1])})
			}
		case "csv":
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatalf("csv: %v\n%q", err, out)
			}
			for _, r := range recs[1:] {
				got = append(got, [2]string{unescapeID(t, r[0]), unescapeID(t, r[1])})
			}
		}
		if len(got) != nPairs {
			t.Fatalf("%s: %d pairs, want %d:\n%q", f, len(got), nPairs, out)
		}
		for _, p := range got {
			if !slices.Contains(paths, p[0]) || !slices.Contains(paths, p[1]) || p[0] == p[1] {
				t.Errorf("%s: pair %q is not two of the paths", f, p)
			}
		}

		out, _ = cliOK(t, "", "dedup", "--files", "-t", "0.5", "--clusters", "--format", f, dir)
		noControl(t, f, out)
		var ids []string
		switch f {
		case "jsonl":
			for line := range strings.Lines(out) {
				ids = append(ids, decodeJSONID(t, []byte(line), "id"))
			}
		case "tsv":
			for line := range strings.Lines(out) {
				cols := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
				if len(cols) != 2 {
					t.Fatalf("dedup tsv line %q has %d fields", line, len(cols))
				}
				ids = append(ids, unescapeID(t, cols[0]))
			}
		case "csv":
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatalf("dedup csv: %v\n%q", err, out)
			}
			for _, r := range recs[1:] {
				ids = append(ids, unescapeID(t, r[0]))
			}
		}
		slices.Sort(ids)
		if !slices.Equal(ids, paths) {
			t.Errorf("dedup %s: ids %q, want %q", f, ids, paths)
		}
	}
}

// TestPasswordsCSVControlBytes checks that passwords' CSV never writes a raw
// control byte and quotes per RFC 4180.
func TestPasswordsCSVControlBytes(t *testing.T) {
	in := "pass\x01word\npass\x01word1\nsay,\"hi\"\nsay,\"hi\"1\n"
	out, _ := cliOK(t, in, "passwords", "--sort", "--format", "csv", "-")
	noControl(t, "csv", out)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("csv %q: %v %q", out, err, recs)
	}
	var got []string
	for _, r := range recs[1:] {
		got = append(got, unescapeID(t, r[3]), unescapeID(t, r[4]))
	}
	want := []string{"pass\x01word", "pass\x01word1", "say,\"hi\"", "say,\"hi\"1"}
	if !bytes.Equal([]byte(strings.Join(got, "|")), []byte(strings.Join(want, "|"))) {
		t.Errorf("passwords %q, want %q", got, want)
	}
}
