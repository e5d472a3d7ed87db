package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
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
	checkFloatsRounded(t, data)
}

// checkFloatsRounded checks that the floats of a JSON report carry no
// binary noise: a duration in seconds (a name ending in "_s") has at most 9
// decimals, the nanosecond; any other number at most 15 significant
// digits.
func checkFloatsRounded(t *testing.T, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Errorf("report: %v", err)
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(k, x)
			}
		case []any:
			for _, x := range v {
				walk(key, x)
			}
		case json.Number:
			s := string(v)
			mant, exp, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(s, "-")), "e")
			intPart, frac, _ := strings.Cut(mant, ".")
			e, _ := strconv.Atoi(exp)
			if strings.HasSuffix(key, "_s") && len(frac)-e > 9 {
				t.Errorf("%q: %s is finer than the nanosecond", key, s)
			}
			if digits := strings.TrimLeft(intPart+frac, "0"); len(digits) > 15 {
				t.Errorf("%q: %s has more than 15 significant digits", key, s)
			}
		}
	}
	walk("", v)
}

// TestExplainJSONFloatsRounded: explain --json (the plan, the analysis,
// the cross-check) rounds its floats as the statistics report does.
func TestExplainJSONFloatsRounded(t *testing.T) {
	sets := "../../testdata/sets.txt"
	for _, args := range [][]string{
		{"explain", "--json", "-t", "0.5", sets},
		{"explain", "--json", "--analyze", "-t", "0.5", sets},
		{"explain", "--json", "--analyze", "--method", "lsh", "-t", "0.5", sets},
		{"explain", "--json", "--cross-check", "200", "-t", "0.5", sets},
	} {
		out, _ := cliOK(t, "", args...)
		checkFloatsRounded(t, []byte(out))
	}
}
