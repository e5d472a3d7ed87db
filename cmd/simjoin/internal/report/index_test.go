package report

import (
	"slices"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// TestNewIndexSearch: the report of a search of an index says the index's
// tokenizer, measure and method, and the threshold searched at.
func TestNewIndexSearch(t *testing.T) {
	cfg := index.Config{Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Measure: prefix.Jaccard, Method: index.LSH}
	r := NewIndexSearch("passwords check", "ix", cfg, prefix.Threshold{Num: 7, Den: 10}, 3)
	if r.Command != "passwords check" || !slices.Equal(r.Input, []string{"--index", "ix"}) || r.Tokens != "qgram:2" ||
		r.Measure != "jaccard" || r.Threshold != "0.7" || r.Method != "index: lsh" || r.Workers != 3 {
		t.Errorf("report %+v", r)
	}
}
