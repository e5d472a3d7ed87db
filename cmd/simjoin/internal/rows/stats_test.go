package rows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// TestWriteIndexStats: TSV and JSONL hold the same statistics, the
// configuration first (in both: JSONL's "config" is TSV's first line), TSV
// one a line with strings unquoted, JSONL one object with ">=" written as it
// is.
func TestWriteIndexStats(t *testing.T) {
	cfg := index.Config{Method: index.Exact, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2}}
	st := index.Stats{Method: index.Exact, Records: 5, Live: 3, Deleted: 1, Dropped: 1}
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
	if !strings.HasPrefix(jsonl.String(), `{"config":"`+cfg.String()+`",`) {
		t.Errorf("jsonl %q does not start with the configuration %q", jsonl.String(), cfg)
	}
	if len(lines) != len(m) {
		t.Errorf("%d statistics in TSV, %d in JSONL", len(lines), len(m))
	}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, "\t")
		if strings.HasPrefix(v, "{") { // an object, such as predicted_recall: the same JSON
			var o any
			if err := json.Unmarshal([]byte(v), &o); err != nil || !reflect.DeepEqual(o, m[k]) {
				t.Errorf("TSV line %q: JSONL has %q = %v (%v)", l, k, m[k], err)
			}
			continue
		}
		if fmt.Sprint(m[k]) != v {
			t.Errorf("TSV line %q: JSONL has %q = %v", l, k, m[k])
		}
	}
	if m["live"] != 3.0 || m["dropped"] != 1.0 {
		t.Errorf("live %v, dropped %v, want 3 and 1", m["live"], m["dropped"])
	}
}
