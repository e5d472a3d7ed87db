package main

import (
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/internal/jsonschema"
)

// statsSchema is docs/stats.schema.json, compiled once.
var statsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	data, err := os.ReadFile("../../docs/stats.schema.json")
	if err != nil {
		return nil, err
	}
	return jsonschema.Compile(data)
})

// runChecked runs the command line as main does; every test runs the command
// through it. When the run wrote a --stats-json report, runChecked validates it
// against the published schema, so that every report the tests produce is
// checked.
func runChecked(t *testing.T, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	t.Helper()
	code := run(args, stdin, stdout, stderr)
	for i, a := range args {
		var path string
		switch {
		case a == "--stats-json" && i+1 < len(args):
			path = args[i+1]
		case strings.HasPrefix(a, "--stats-json="):
			path = strings.TrimPrefix(a, "--stats-json=")
		default:
			continue
		}
		if path == "-" || path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the run failed before writing it, as some tests want
		}
		checkStatsJSON(t, data)
	}
	return code
}

// checkStatsJSON validates a report against docs/stats.schema.json.
func checkStatsJSON(t *testing.T, data []byte) {
	t.Helper()
	s, err := statsSchema()
	if err != nil {
		t.Fatalf("docs/stats.schema.json: %v", err)
	}
	if err := s.Validate(data); err != nil {
		t.Errorf("--stats-json report does not follow docs/stats.schema.json: %v\n%s", err, data)
	}
}

// TestStatsJSONSchema writes the report of every command and path and
// validates each against docs/stats.schema.json (runChecked does).
func TestStatsJSONSchema(t *testing.T) {
	dir := t.TempDir()
	sets := "../../testdata/sets.txt"
	pw := "../../testdata/passwords.txt"
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"join-exact", "", []string{"join", "-t", "0.8", sets}},
		{"join-auto-rs", "", []string{"join", "-t", "0.8", "--against", sets, sets}},
		{"join-lsh", "", []string{"join", "-t", "0.5", "--method", "lsh", "--check-recall", sets}},
		{"join-lsh-estimate", "", []string{"join", "-t", "0.5", "--method", "lsh", "--verify", "estimate", sets}},
		{"join-files", "", []string{"join", "--files", "--tokens", "shingle:3", "-t", "0.5", docsDir}},
		{"dedup", "", []string{"dedup", "-t", "0.6", sets}},
		{"plot", "", []string{"plot", "-t", "0.5", "--shapes", "12x4", sets}},
		{"passwords", "", []string{"passwords", pw}},
		{"families", "", []string{"passwords", "--families", pw}},
		{"check", "password1\n", []string{"passwords", "check", "--against", pw}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := dir + "/" + c.name + ".json"
			args := append(c.args[:len(c.args):len(c.args)], "--stats-json", path)
			var out, errb strings.Builder
			if code := runChecked(t, args, strings.NewReader(c.stdin), &out, &errb); code != 0 && code != exitTooClose {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
		})
	}
}
