package rows

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// TestWriteIndexStats: TSV starts with the configuration and gives one
// statistic a line, strings unquoted; JSONL is one object of the same keys.
func TestWriteIndexStats(t *testing.T) {
	cfg := index.Config{Method: index.Exact, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2}}
	st := index.Stats{Method: index.Exact, Records: 5, Live: 4, Deleted: 1}
	var tsv, jsonl bytes.Buffer
	if err := WriteIndexStats(&tsv, cfg, st, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndexStats(&jsonl, cfg, st, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tsv.String(), "\n"), "\n")
	if lines[0] != "config\t"+cfg.String() {
		t.Errorf("first line %q, want the configuration %q", lines[0], cfg)
	}
	var m map[string]any
	if err := json.Unmarshal(jsonl.Bytes(), &m); err != nil || strings.Count(jsonl.String(), "\n") != 1 {
		t.Fatalf("jsonl %q: %v", jsonl.String(), err)
	}
	if len(lines)-1 != len(m) {
		t.Errorf("%d statistics in TSV, %d in JSONL", len(lines)-1, len(m))
	}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, "\t")
		if _, ok := m[k]; !ok || strings.HasPrefix(v, `"`) {
			t.Errorf("TSV line %q: key not in the JSON object, or a quoted value", l)
		}
	}
	if m["live"] != 4.0 {
		t.Errorf("live %v, want 4", m["live"])
	}
}
