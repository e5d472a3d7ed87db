//go:build invariants

package index

import (
	"testing"

	"github.com/simjoin/simjoin/internal/invariants/invtest"

	"github.com/kelindar/bitmap"
)

// TestStateCheckPanics checks that the snapshot check catches a tombstone
// past its segment's rows, ids out of order across segments, a mutable part
// whose ids do not follow, and tombstones that do not match the segments
// (this file builds only with -tags invariants).
func TestStateCheckPanics(t *testing.T) {
	good := func() *state {
		return &state{
			segs:  []*segment{{name: "seg-1.sj", ids: []uint64{0, 1, 2}}, {name: "seg-2.sj", ids: []uint64{4, 5}}},
			tombs: []bitmap.Bitmap{nil, nil},
			mut:   newMutable(6),
			next:  6,
		}
	}
	st := good()
	st.tombs[0].Set(2)
	st.check()
	for name, breakIt := range map[string]func(st *state){
		"tombstone past the rows": func(st *state) { st.tombs[1].Set(2) },
		"ids out of order":        func(st *state) { st.segs[1].ids[0] = 2 },
		"mutable ids overlap":     func(st *state) { st.mut.base, st.next = 5, 5 },
		"next id":                 func(st *state) { st.next = 7 },
		"tombstone sets":          func(st *state) { st.tombs = st.tombs[:1] },
		"mutable tombstone":       func(st *state) { st.mut.tomb.Set(0) },
	} {
		st := good()
		breakIt(st)
		invtest.Panics(t, name, "index: ", func() { st.check() })
	}
}
