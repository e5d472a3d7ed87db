package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Delete tombstones the records of ids. It is durable on return; unknown
// or already deleted ids (and 0) are not an error and not counted.
func (ix *Index) Delete(ids []ID) (deleted int, err error) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.writable(); err != nil {
		return 0, err
	}
	seqs := make([]seq, 0, len(ids))
	for _, id := range ids {
		if s, ok := seqOf(id); ok {
			seqs = append(seqs, s)
		}
	}
	done := ix.applyDelete(seqs)
	if len(done) == 0 {
		return 0, nil
	}
	payload := []byte{walDelete}
	payload = binary.LittleEndian.AppendUint32(payload, uint32(len(done)))
	for _, id := range done {
		payload = binary.LittleEndian.AppendUint64(payload, uint64(id))
	}
	if err := ix.wal.append(payload); err != nil {
		ix.failed = err
		return 0, fmt.Errorf("%w: %v", ErrFailed, err)
	}
	ix.publish()
	return len(done), nil
}

// applyDelete tombstones the live records among seqs in the live state
// (copy-on-write bitmaps) and returns the seqs it deleted.
func (ix *Index) applyDelete(ids []seq) []seq {
	st := ix.live
	var done []seq
	copied := make(map[int]bool)
	for _, id := range ids {
		if id >= st.next {
			continue
		}
		if id >= st.mut.base {
			row := uint32(id - st.mut.base)
			if st.mut.tomb.Contains(row) {
				continue
			}
			if !copied[-1] {
				st.mut.tomb = slices.Clone(st.mut.tomb)
				copied[-1] = true
			}
			st.mut.tomb.Set(row)
			done = append(done, id)
			continue
		}
		i, _ := slices.BinarySearchFunc(st.segs, id, func(s *segment, id seq) int {
			if s.rows() > 0 && seq(s.ids[s.rows()-1]) < id {
				return -1
			}
			return 1
		})
		if i == len(st.segs) {
			continue
		}
		s := st.segs[i]
		row, ok := s.rowOf(id)
		if !ok || st.tombs[i].Contains(uint32(row)) {
			continue
		}
		if !copied[i] {
			st.tombs[i] = slices.Clone(st.tombs[i])
			copied[i] = true
			ix.tombDirty[i] = true
		}
		st.tombs[i].Set(uint32(row))
		done = append(done, id)
	}
	return done
}

// Stats returns the index's statistics. Cost: a directory listing.
func (ix *Index) Stats() Stats {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	st := ix.live
	s := Stats{Method: ix.cfg.Method, Records: uint64(st.next), Segments: len(st.segs), Mutable: st.mut.n}
	for i, seg := range st.segs {
		d := uint64(st.tombs[i].Count())
		s.Live += uint64(seg.rows()) - d
		s.Deleted += d
	}
	d := uint64(st.mut.tomb.Count())
	s.Live += uint64(st.mut.n) - d
	s.Deleted += d
	s.Dropped = s.Records - s.Live - s.Deleted
	if ix.cfg.Method == Exact {
		s.Tokens = st.dict.len()
		s.Appended = len(st.dict.addedKeys)
	}
	s.WALBytes, s.WALTruncated, s.WALTorn = ix.wal.size+ix.torn, ix.man.WALCut, ix.torn
	ents, _ := os.ReadDir(ix.dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			s.BytesOnDisk += info.Size()
		}
	}
	return s
}

// Verify re-reads every file of the open index from disk and checks every
// checksum, changing nothing; an error is a *CorruptError naming the file
// (for the write-ahead log, wrapping a *WALDamage). It holds off writers
// while it runs. Cost: one read of every file. The package's Verify checks
// an index that is not open.
func (ix *Index) Verify() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.writable(); err != nil && errors.Is(err, ErrClosed) {
		return err
	}
	m, err := readManifest(ix.dir)
	if err != nil {
		if errors.Is(err, ErrNotIndex) {
			return corrupt(filepath.Join(ix.dir, manifestName), "missing")
		}
		return err
	}
	check := func(name string, kind uint32) error {
		bf, err := openBlockFile(filepath.Join(ix.dir, name), kind, false)
		if err != nil {
			return err
		}
		return bf.close()
	}
	if m.Dict != "" {
		if err := check(m.Dict, kindDict); err != nil {
			return err
		}
	}
	for _, ref := range m.Segments {
		if err := check(ref.File, kindSegment); err != nil {
			return err
		}
		if ref.Tomb != "" {
			if err := check(ref.Tomb, kindTomb); err != nil {
				return err
			}
		}
	}
	l, err := readWAL(filepath.Join(ix.dir, m.WAL), func() seq { return ix.live.next }, ix.minRecordBytes(), nil)
	if err != nil {
		return err
	}
	if l.damage != nil {
		return &CorruptError{File: l.path, Err: l.damage}
	}
	return nil
}

// removeUnreferenced deletes the files of the index directory that the
// manifest does not name (left by a checkpoint or compaction that crashed
// before its commit, or replaced by one that committed): only regular files
// whose names are of the forms the index writes (isIndexFile), never
// anything else a user keeps in the directory.
func (ix *Index) removeUnreferenced() {
	keep := map[string]bool{manifestName: true, ix.man.WAL: true, ix.man.Dict: true}
	for _, r := range ix.man.Segments {
		keep[r.File], keep[r.Tomb] = true, true
	}
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if n := e.Name(); !keep[n] && e.Type().IsRegular() && isIndexFile(n) {
			os.Remove(filepath.Join(ix.dir, n))
		}
	}
}
