package index

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Delete tombstones the records of ids. It is durable on return; unknown
// or already deleted ids (and 0) are not an error and not counted.
func (ix *Index) Delete(ids []ID) (deleted int, err error) {
	return ix.delete(func(*state) []seq {
		seqs := make([]seq, 0, len(ids))
		for _, id := range ids {
			if s, ok := seqOf(id); ok {
				seqs = append(seqs, s)
			}
		}
		return seqs
	})
}

// delete deletes the records that which names in the live state, under
// the writer's lock.
func (ix *Index) delete(which func(*state) []seq) (int, error) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.writable(); err != nil {
		return 0, err
	}
	done := ix.applyDelete(which(ix.live))
	if len(done) == 0 {
		return 0, nil
	}
	payload := []byte{walDelete}
	payload = binary.LittleEndian.AppendUint32(payload, uint32(len(done)))
	for _, id := range done {
		payload = binary.LittleEndian.AppendUint64(payload, uint64(id))
	}
	if err := ix.wal.append(payload); err != nil {
		ix.fail(err)
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
		i, row, ok := st.locate(id)
		if !ok || st.dead(i, row) {
			continue
		}
		if i < 0 {
			if !copied[-1] {
				st.mut.tomb = slices.Clone(st.mut.tomb)
				copied[-1] = true
			}
			st.mut.tomb.Set(uint32(row))
		} else {
			if !copied[i] {
				st.tombs[i] = slices.Clone(st.tombs[i])
				copied[i] = true
				ix.tombDirty[i] = true
			}
			st.tombs[i].Set(uint32(row))
		}
		done = append(done, id)
	}
	return done
}

// Stats returns the index's statistics, from the snapshot searches read
// (so it never waits for a writer, not even a compaction). Safe for
// concurrent use. Cost: counting the tombstones and a directory listing.
func (ix *Index) Stats() Stats {
	st, err := ix.acquire()
	if err != nil {
		return Stats{Method: ix.cfg.Method}
	}
	defer ix.releaseSnap(st)
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
	s.WALBytes, s.WALTruncated, s.WALTorn = st.walBytes+ix.torn, st.walCut, ix.torn
	s.Compactions, s.Checkpoints = ix.compactions.Load(), ix.checkpoints.Load()
	ents, _ := os.ReadDir(ix.dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			s.BytesOnDisk += info.Size()
		}
	}
	return s
}

// Health returns why the index stopped taking writes (a write to disk
// failed: a full disk, a failed fsync; it must be reopened), or nil. Safe
// for concurrent use.
func (ix *Index) Health() error {
	if err, _ := ix.failure.Load().(error); err != nil {
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return nil
}

// Verify re-reads every file of the open index from disk and checks every
// checksum, changing nothing, as the package's Verify does (an error is a
// *CorruptError naming the file; for the write-ahead log, wrapping a
// *WALDamage). It does not hold off the writer: it reads the files in force
// as a read-only open of another process would (starting again when a
// checkpoint replaces one), and a batch being written at the end of the log
// is no damage. Safe for concurrent use. Cost: one read of every file and a
// replay of the log.
func (ix *Index) Verify() error {
	ix.snapMu.Lock()
	closed := ix.closed
	ix.snapMu.Unlock()
	if closed {
		return ErrClosed
	}
	return Verify(ix.dir)
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
