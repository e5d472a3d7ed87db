//go:build invariants

package prefix

import (
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/invtest"
)

// TestIndexCheckPanics checks that the invariant check catches posting
// lists out of record order, a position past its set, bounds that do not
// cover the postings, and postings counted below the first token of an
// index that has none below it (this file builds only with -tags
// invariants).
func TestIndexCheckPanics(t *testing.T) {
	good := func() *Index {
		return &Index{from: 2, below: 5, start: []uint32{0, 2, 3}, post: []Posting{{Rec: 1, Pos: 0, Size: 2}, {Rec: 4, Pos: 1, Size: 3}, {Rec: 0, Pos: 0, Size: 1}}}
	}
	good().check()
	for name, breakIt := range map[string]func(ix *Index){
		"records not ascending":   func(ix *Index) { ix.post[1].Rec = 1 },
		"position past the set":   func(ix *Index) { ix.post[2].Pos = 1 },
		"bounds short":            func(ix *Index) { ix.start[2] = 2 },
		"bounds decreasing":       func(ix *Index) { ix.start[1] = 4 },
		"counted below none":      func(ix *Index) { ix.from = 0 },
		"counted below, negative": func(ix *Index) { ix.below = -1 },
	} {
		ix := good()
		breakIt(ix)
		invtest.Panics(t, name, "prefix: ", func() { ix.check() })
	}
}
