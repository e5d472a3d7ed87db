//go:build invariants

package index

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/invtest"
	"github.com/simjoin/simjoin/prefix"

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

// TestBandTablesCheckPanics checks that the check of a segment's band
// tables catches a table out of (key, row) order, one of the wrong length
// and offsets that run backwards, and that opening an LSH segment whose
// table is out of order (its checksums intact) fires it.
func TestBandTablesCheckPanics(t *testing.T) {
	good := func() ([]bandEntry, []uint32) {
		return []bandEntry{{key: 1, row: 0}, {key: 1, row: 2}, {key: 3, row: 1}, {key: 2, row: 1}, {key: 4, row: 0}, {key: 4, row: 2}},
			[]uint32{0, 3, 6}
	}
	bent, boff := good()
	checkBandTables("seg", bent, boff, 3)
	for name, breakIt := range map[string]func(bent []bandEntry, boff []uint32){
		"keys out of order": func(bent []bandEntry, boff []uint32) { bent[3], bent[4] = bent[4], bent[3] },
		"rows out of order": func(bent []bandEntry, boff []uint32) { bent[0], bent[1] = bent[1], bent[0] },
		"short table":       func(bent []bandEntry, boff []uint32) { boff[1] = 2 },
		"offsets backwards": func(bent []bandEntry, boff []uint32) { boff[1] = 7 },
	} {
		bent, boff := good()
		breakIt(bent, boff)
		invtest.Panics(t, name, "index: ", func() { checkBandTables("seg", bent, boff, 3) })
	}

	dir := t.TempDir()
	cfg := Config{Method: LSH, Measure: prefix.Jaccard, Perm: 4, Bands: 2, Rows: 2, Bits: 8, BloomFPP: NoBloom} // no band filters: the test writes none
	write := func(name string, bent []bandEntry, boff []uint32) {
		bw, err := createBlockFile(filepath.Join(dir, name), kindSegment)
		if err != nil {
			t.Fatal(err)
		}
		var meta [16]byte
		binary.LittleEndian.PutUint64(meta[:], 3)
		binary.LittleEndian.PutUint32(meta[8:], uint32(LSH))
		bw.block("meta", meta[:])
		bw.block("ids", bytesOf([]uint64{0, 1, 2}))
		bw.block("sigs", make([]byte, 3*cfg.Perm*cfg.Bits/8))
		bw.block("boff", bytesOf(boff))
		bw.block("bent", bytesOf(bent))
		if err := bw.close(); err != nil {
			t.Fatal(err)
		}
	}
	write("seg-1.sj", bent, boff)
	seg, err := openSegment(dir, "seg-1.sj", &cfg, mapCold)
	if err != nil {
		t.Fatal(err)
	}
	seg.unref()
	bent, boff = good()
	bent[3], bent[4] = bent[4], bent[3]
	write("seg-2.sj", bent, boff)
	invtest.Panics(t, "segment opened", "index: ", func() { openSegment(dir, "seg-2.sj", &cfg, mapCold) })
}
