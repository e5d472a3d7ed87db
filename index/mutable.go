package index

import (
	"github.com/google/btree"
	"github.com/kelindar/bitmap"
)

// mutable is the part of the index that takes inserts: the records added
// since the last checkpoint, row r having ID base+r. Its postings (Exact:
// token, row; LSH: band, band key, row) are one B-tree ordered by key, so a
// probe is a range scan and a snapshot is a lazy copy-on-write clone
// (google/btree's Clone): readers scan their clone while the writer goes on
// inserting into the original.
//
// Invariant: the arenas are append-only; a snapshot's slices end at its n,
// and the writer only writes past them (or into fresh arrays when it grows),
// so readers never see a write.
type mutable struct {
	base ID
	n    int
	tree *btree.BTreeG[mitem]
	offs []uint32 // n+1 offsets into sets (Exact) or keys (LSH with raw sets)
	sets []uint32 // Exact: sorted token ids
	keys []uint64 // LSH with raw sets: sorted token keys
	sigs []byte   // LSH: packed signatures, rowBytes each
	// tomb marks deleted rows. Copy-on-write: a delete builds a new bitmap.
	tomb bitmap.Bitmap
}

// mitem is one posting of the mutable part. Exact: key is a token id, band 0;
// LSH: key is the band key of band j = band.
type mitem struct {
	key  uint64
	band uint32
	row  uint32
	pos  uint32 // Exact: position of the token in the set
	size uint32 // Exact: size of the set
}

func lessItem(a, b mitem) bool {
	if a.band != b.band {
		return a.band < b.band
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.row < b.row
}

func newMutable(base ID) *mutable {
	return &mutable{base: base, tree: btree.NewG(32, lessItem), offs: []uint32{0}}
}

func (m *mutable) set(r int) []uint32    { return m.sets[m.offs[r]:m.offs[r+1]] }
func (m *mutable) keySet(r int) []uint64 { return m.keys[m.offs[r]:m.offs[r+1]] }
func (m *mutable) sig(r, rb int) []byte  { return m.sigs[r*rb : (r+1)*rb] }

// snapshot returns a copy that the writer's later inserts do not change.
func (m *mutable) snapshot() *mutable {
	c := *m
	c.tree = m.tree.Clone()
	c.offs = m.offs[:len(m.offs):len(m.offs)]
	c.sets = m.sets[:len(m.sets):len(m.sets)]
	c.keys = m.keys[:len(m.keys):len(m.keys)]
	c.sigs = m.sigs[:len(m.sigs):len(m.sigs)]
	return &c
}

// postings calls fn for every posting of token w among the first n rows.
func (m *mutable) postings(w uint32, fn func(row, pos, size uint32)) {
	m.tree.AscendGreaterOrEqual(mitem{key: uint64(w)}, func(it mitem) bool {
		if it.key != uint64(w) || it.band != 0 {
			return false
		}
		if int(it.row) < m.n {
			fn(it.row, it.pos, it.size)
		}
		return true
	})
}

// bucket calls fn for every row of band j with band key key.
func (m *mutable) bucket(j int, key uint64, fn func(row uint32)) {
	m.tree.AscendGreaterOrEqual(mitem{key: key, band: uint32(j)}, func(it mitem) bool {
		if it.key != key || it.band != uint32(j) {
			return false
		}
		if int(it.row) < m.n {
			fn(it.row)
		}
		return true
	})
}
