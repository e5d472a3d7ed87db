package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/kelindar/bitmap"
	"github.com/simjoin/simjoin/order"
)

// writeTomb writes the tombstones of a segment of rows records.
func writeTomb(path string, rows int, tomb bitmap.Bitmap) error {
	bw, err := createBlockFile(path, kindTomb)
	if err != nil {
		return err
	}
	var meta [8]byte
	binary.LittleEndian.PutUint64(meta[:], uint64(rows))
	bw.block("meta", meta[:])
	bw.block("bits", bytesOf([]uint64(tomb)))
	return bw.close()
}

// readTomb reads a tomb file into memory (one bit a row).
func readTomb(path string, rows int) (bitmap.Bitmap, error) {
	bf, err := openBlockFile(path, kindTomb, mapWarm)
	if err != nil {
		return nil, err
	}
	defer bf.close()
	meta, err := bf.need("meta", 8)
	if err != nil {
		return nil, err
	}
	if int(binary.LittleEndian.Uint64(meta)) != rows {
		return nil, corrupt(path, "tombstones for %d rows, the segment has %d", binary.LittleEndian.Uint64(meta), rows)
	}
	b, err := bf.need("bits", 8)
	if err != nil {
		return nil, err
	}
	return bitmap.Bitmap(slices.Clone(asU64(b))), nil
}

// maybeCheckpoint applies the checkpoint policy after a batch.
func (ix *Index) maybeCheckpoint() error {
	st := ix.live
	held := 0
	for _, s := range st.segs {
		held += s.rows()
	}
	m := st.mut
	if st.mut.n < min(max(held, flushMin), flushMax) && m.bytes() < flushBytes {
		return nil
	}
	live := ix.liveCount()
	if ix.cfg.Method == Exact && live >= 2*ix.man.Reordered || ix.cfg.Method == LSH && len(st.segs) >= maxSegments {
		return ix.compact()
	}
	return ix.checkpoint()
}

func (ix *Index) liveCount() uint64 {
	st := ix.live
	n := uint64(st.mut.n - st.mut.tomb.Count())
	for i, s := range st.segs {
		n += uint64(s.rows() - st.tombs[i].Count())
	}
	return n
}

// checkpoint turns the live rows of the mutable part into a new segment
// (in the current token order), merging into it the trailing segments whose
// live records are no more than it holds with them (a binary counter: a
// logarithmic number of segments between compactions, each record rewritten
// O(log n) times); writes the dictionary when tokens were appended and the
// tombstones that changed, starts a new WAL and commits all of it with a new
// manifest. A crash before the manifest's rename leaves the old manifest and
// WAL in force; the new files are removed at the next Open.
func (ix *Index) checkpoint() error {
	st := ix.live
	m := ix.man
	m.Gen++
	gen := m.Gen
	name := func(f string, a ...any) string { return fmt.Sprintf(f, a...) }
	mut := st.mut
	var rows []liveRec
	for r := 0; r < mut.n; r++ {
		if !mut.tomb.Contains(uint32(r)) {
			rows = append(rows, liveRec{-1, r})
		}
	}
	keep := len(st.segs)
	if len(rows) > 0 {
		acc := len(rows)
		for keep > 0 && st.liveRows(keep-1) <= acc {
			keep--
			acc += st.liveRows(keep)
		}
	}
	var merged []liveRec
	for i := keep; i < len(st.segs); i++ {
		for r := 0; r < st.segs[i].rows(); r++ {
			if !st.tombs[i].Contains(uint32(r)) {
				merged = append(merged, liveRec{i, r})
			}
		}
	}
	rows = append(merged, rows...)
	m.Segments = slices.Clone(m.Segments[:keep])
	if len(rows) > 0 {
		ref := segRef{File: name("seg-%d.sj", gen)}
		if err := writeSegment(filepath.Join(ix.dir, ref.File), &ix.cfg, st.dict.len(), st.recordsOf(rows)); err != nil {
			return err
		}
		m.Segments = append(m.Segments, ref)
	}
	if ix.cfg.Method == Exact && (len(st.dict.addedKeys) > 0 || m.Dict == "") {
		m.Dict = name("dict-%d.sj", gen)
		if err := writeDict(filepath.Join(ix.dir, m.Dict), &st.dict); err != nil {
			return err
		}
	}
	for i := 0; i < keep; i++ {
		if ix.tombDirty[i] {
			m.Segments[i].Tomb = name("tomb-%d-%d.sj", gen, i)
			if err := writeTomb(filepath.Join(ix.dir, m.Segments[i].Tomb), st.segs[i].rows(), st.tombs[i]); err != nil {
				return err
			}
		}
	}
	m.NextID = st.next
	if err := ix.commit(&m, keep); err != nil {
		return err
	}
	ix.checkpoints.Add(1)
	return nil
}

// liveRows returns the number of live records of segment i.
func (st *state) liveRows(i int) int { return st.segs[i].rows() - st.tombs[i].Count() }

// recordsOf returns the records at the given places (ascending ids) for
// writeSegment.
func (st *state) recordsOf(live []liveRec) segmentRecords {
	rb := st.cfg.Perm * st.cfg.Bits / 8
	recs := segmentRecords{ids: make([]uint64, len(live))}
	for i, lr := range live {
		if lr.part < 0 {
			recs.ids[i] = uint64(st.mut.base) + uint64(lr.row)
		} else {
			recs.ids[i] = st.segs[lr.part].ids[lr.row]
		}
	}
	recs.set = func(r int) []uint32 { return st.setOf(live[r]) }
	recs.sig = func(r int) []byte {
		lr := live[r]
		if lr.part < 0 {
			return st.mut.sig(lr.row, rb)
		}
		return st.segs[lr.part].sig(lr.row)
	}
	recs.keys = func(r int) []uint64 {
		lr := live[r]
		if lr.part < 0 {
			return st.mut.keySet(lr.row)
		}
		return st.segs[lr.part].keySet(lr.row)
	}
	recs.ukey = func(r int) []byte { return st.keyBytes(live[r].part, live[r].row) }
	recs.text = func(r int) []byte { return st.textOf(live[r].part, live[r].row) }
	recs.payload = func(r int) []byte { return st.payloadOf(live[r].part, live[r].row) }
	return recs
}

// keyBytes, textOf and payloadOf return the stored key, text and payload of
// row row of part part (-1: the mutable part).
func (st *state) keyBytes(part, row int) []byte {
	if part < 0 {
		return st.mut.keyOf(row)
	}
	return st.segs[part].keyOf(row)
}

func (st *state) textOf(part, row int) []byte {
	if part < 0 {
		return st.mut.text(row)
	}
	return st.segs[part].textOf(row)
}

func (st *state) payloadOf(part, row int) []byte {
	if part < 0 {
		return st.mut.payload(row)
	}
	return st.segs[part].payloadOf(row)
}

// locate returns the part (-1: the mutable part) and row of record id, and
// whether it is held (live or tombstoned) by the state.
func (st *state) locate(id seq) (part, row int, ok bool) {
	if id >= st.next {
		return 0, 0, false
	}
	if id >= st.mut.base {
		return -1, int(id - st.mut.base), true
	}
	i, _ := slices.BinarySearchFunc(st.segs, id, func(s *segment, id seq) int {
		if s.rows() > 0 && seq(s.ids[s.rows()-1]) < id {
			return -1
		}
		return 1
	})
	if i == len(st.segs) {
		return 0, 0, false
	}
	r, ok := st.segs[i].rowOf(id)
	return i, r, ok
}

// dead reports whether row row of part part is tombstoned.
func (st *state) dead(part, row int) bool {
	if part < 0 {
		return st.mut.tomb.Contains(uint32(row))
	}
	return st.tombs[part].Contains(uint32(row))
}

// lookupKey returns the live record that holds the stored key b. It looks
// from the newest part to the oldest and stops at the first record with
// the key: any older one is dead (a key is given to a new record only
// once the record holding it is deleted).
func (st *state) lookupKey(b []byte) (seq, bool) {
	if row, ok := st.mut.lookupKey(b); ok {
		return st.mut.base + seq(row), !st.mut.tomb.Contains(row)
	}
	for i := len(st.segs) - 1; i >= 0; i-- {
		if r, ok := st.segs[i].lookupKey(b); ok {
			return seq(st.segs[i].ids[r]), !st.tombs[i].Contains(uint32(r))
		}
	}
	return 0, false
}

// keyOfSeq returns the key of the record id (held by the state), of an
// index with keys.
func (st *state) keyOfSeq(id seq) Key {
	part, row, ok := st.locate(id)
	if !ok {
		return ""
	}
	return keyFromBytes(st.cfg.Keys, st.keyBytes(part, row))
}

// commit starts a new WAL, writes manifest m and switches the live state to
// the files it names: the first keep segments stay open as they are, the
// ones after them in m are opened.
func (ix *Index) commit(m *manifest, keep int) error {
	// A damaged log being cut (open): count its bytes, and start the ids
	// past every id it may have assigned.
	m.WALCut = ix.man.WALCut + ix.cutBytes
	m.NextID = max(m.NextID, ix.skipTo)
	m.WAL = fmt.Sprintf("wal-%d.log", m.Gen)
	w, err := createWAL(filepath.Join(ix.dir, m.WAL))
	if err != nil {
		return err
	}
	if err := writeManifest(ix.dir, m); err != nil {
		w.close()
		return err
	}
	// Committed: from here on a failure leaves a consistent directory that
	// Open recovers; the in-memory switch below only opens what was written.
	ix.cutBytes = 0
	st := ix.live
	next := &state{cfg: st.cfg, next: m.NextID, mut: newMutable(m.NextID), minB: st.minB, pairMax: st.pairMax}
	next.dict.added = newAdded()
	for i := 0; i < keep; i++ {
		next.segs = append(next.segs, st.segs[i])
		st.segs[i].ref()
		next.tombs = append(next.tombs, st.tombs[i])
	}
	for _, ref := range m.Segments[keep:] {
		s, err := openSegment(ix.dir, ref.File, &ix.cfg, ix.load(mapWarm))
		if err != nil {
			w.close()
			next.release()
			return err
		}
		next.segs = append(next.segs, s)
		next.tombs = append(next.tombs, nil)
	}
	if m.Dict != "" {
		if next.dict, err = openDict(filepath.Join(ix.dir, m.Dict), ix.load(mapWarm)); err != nil {
			w.close()
			next.release()
			return err
		}
	}
	ix.wal.close()
	w.onSync = ix.onSync
	ix.wal = w
	ix.man = *m
	st.release()
	ix.live = next
	ix.tombFile = ix.tombFile[:0]
	ix.tombDirty = ix.tombDirty[:0]
	for _, ref := range m.Segments {
		ix.tombFile = append(ix.tombFile, ref.Tomb)
		ix.tombDirty = append(ix.tombDirty, false)
	}
	ix.publish()
	ix.removeUnreferenced()
	return nil
}

// Compact merges every segment and the mutable part into one segment,
// drops deleted records and, for an Exact index, re-orders the tokens
// rare-first (package order) over the live records, so that tokens appended
// since the last compaction stop costing probe time. Searches go on meanwhile
// on their snapshots; inserts wait. Cost: O(live tokens · log) and memory for
// all live sets; ctx is checked before the files are written.
func (ix *Index) Compact(ctx context.Context) error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.writable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := ix.compact(); err != nil {
		ix.fail(err)
		return fmt.Errorf("%w: compact: %v", ErrFailed, err)
	}
	return nil
}

// liveRec locates one live record of the live state.
type liveRec struct {
	part int // -1: mutable
	row  int
}

func (ix *Index) compact() error {
	st := ix.live
	var live []liveRec
	for i, s := range st.segs {
		for r := 0; r < s.rows(); r++ {
			if !st.tombs[i].Contains(uint32(r)) {
				live = append(live, liveRec{i, r})
			}
		}
	}
	for r := 0; r < st.mut.n; r++ {
		if !st.mut.tomb.Contains(uint32(r)) {
			live = append(live, liveRec{-1, r})
		}
	}
	m := ix.man
	m.Gen++
	gen := m.Gen
	recs := st.recordsOf(live)
	vocab := 0
	var dictKeys []uint64
	switch ix.cfg.Method {
	case Exact:
		in := order.Input{Workers: ix.workers}
		var keys []uint64
		for _, lr := range live {
			keys = keys[:0]
			for _, w := range st.setOf(lr) {
				keys = append(keys, st.dict.key(w))
			}
			in.Add(keys)
		}
		c, err := order.New(&in)
		if err != nil {
			return err
		}
		sets := make([][]uint32, len(live))
		for i := 0; i < c.Len(); i++ {
			sets[c.ID(i)] = c.Set(i)
		}
		recs.set = func(r int) []uint32 { return sets[r] }
		d := c.Dict()
		vocab = d.Len()
		dictKeys = make([]uint64, vocab)
		for id := range dictKeys {
			dictKeys[id] = d.Key(uint32(id))
		}
	}
	m.Segments = nil
	if len(live) > 0 {
		ref := segRef{File: fmt.Sprintf("seg-%d.sj", gen)}
		if err := writeSegment(filepath.Join(ix.dir, ref.File), &ix.cfg, vocab, recs); err != nil {
			return err
		}
		m.Segments = []segRef{ref}
	}
	if ix.cfg.Method == Exact {
		m.Dict = fmt.Sprintf("dict-%d.sj", gen)
		if err := writeDictKeys(filepath.Join(ix.dir, m.Dict), dictKeys); err != nil {
			return err
		}
	}
	m.NextID = st.next
	m.Reordered = uint64(len(live))
	if err := ix.commit(&m, 0); err != nil {
		return err
	}
	ix.compactions.Add(1)
	return nil
}

func (st *state) setOf(lr liveRec) []uint32 {
	if lr.part < 0 {
		return st.mut.set(lr.row)
	}
	return st.segs[lr.part].set(lr.row)
}
