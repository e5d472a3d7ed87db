package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jsonschema"
)

// schemaPath is docs/stats.schema.json, found from the package's directory
// (the tests' working directory when they start; some change it).
var schemaPath = func() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..", "docs", "stats.schema.json")
}()

// statsSchema is docs/stats.schema.json, compiled once.
var statsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	data, err := os.ReadFile(schemaPath)
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
	if code != exitOK && code != exitTooClose {
		return code // a failed run leaves no report, or the file it had
	}
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
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue // stdout, a device or a FIFO; or the run failed before writing it
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
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
