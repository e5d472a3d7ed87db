package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// BackupStats says what a backup wrote.
type BackupStats struct {
	Files  int   // files in the copy: the manifest, the log and the immutable files
	Linked int   // immutable files hard-linked rather than copied
	Bytes  int64 // bytes of the files, linked or copied
}

// A backup is a new directory holding the files of the index in force at
// one moment: the immutable files the manifest names (segments, the
// dictionary, tombstones), hard-linked when dest is on the same file system
// and copied otherwise, the log up to its last complete batch, and the
// manifest, written last (so a copy cut short is no index: it has no
// manifest). Restoring is opening the copy, where it is or moved anywhere.

// Backup copies the index in dir to dest, a directory it creates (its
// parent must exist; an empty one is taken), while the index may be open
// for writing elsewhere, as by simjoin serve. The copy holds every record
// acknowledged before Backup began: it copies the files the manifest
// names and the log as written when it reads it, starting again from the
// new manifest when a checkpoint of the writer replaces a file meanwhile,
// and cuts the log after its last complete batch (one being written is
// left out). With no writer, it holds the directory's lock shared while it
// copies, and a log damaged before its last batch is an error (a
// *CorruptError wrapping a *WALDamage: repair it first). Cost: a link (or
// a copy) of every immutable file and a copy of the log.
func Backup(dir, dest string) (BackupStats, error) {
	m, err := readManifest(dir)
	if err != nil {
		return BackupStats{}, err
	}
	lock, err := lockDir(dir, true)
	concurrent := errors.Is(err, ErrLocked)
	if err != nil && !concurrent {
		return BackupStats{}, err
	}
	if lock != nil {
		defer lock.Close()
	}
	if err := makeBackupDir(dest); err != nil {
		return BackupStats{}, err
	}
	for attempt := 1; ; attempt++ {
		st, err := backupFiles(dir, dest, m, nil, -1, concurrent)
		if err == nil || !concurrent || !errors.Is(err, errMissing) || attempt == openAttempts {
			if err != nil {
				clearBackup(dest)
			}
			return st, err
		}
		m2, err2 := readManifest(dir)
		if err2 != nil {
			clearBackup(dest)
			return st, err2
		}
		if m2.Gen == m.Gen {
			clearBackup(dest)
			return st, err
		}
		clearBackup(dest)
		m = m2
	}
}

// Backup copies the open index to dest as the package's Backup does, from
// the state of one moment: every batch made durable before it was called.
// It holds off the writer only while it hard-links the immutable files
// (and opens those it must copy) and notes the log's durable size; the
// copying is done while inserts go on. Safe for concurrent use with every
// other method.
func (ix *Index) Backup(dest string) (BackupStats, error) {
	if err := makeBackupDir(dest); err != nil {
		return BackupStats{}, err
	}
	ix.wmu.Lock()
	ix.snapMu.Lock()
	closed := ix.closed
	ix.snapMu.Unlock()
	if closed {
		ix.wmu.Unlock()
		return BackupStats{}, ErrClosed
	}
	m := ix.man
	m.Segments = append([]segRef(nil), m.Segments...)
	walSize := ix.wal.size
	held := map[string]*os.File{}
	var st BackupStats
	var err error
	for _, name := range m.immutable() {
		var f *os.File
		if f, err = linkOrOpen(filepath.Join(ix.dir, name), filepath.Join(dest, name), &st); err != nil {
			break
		}
		if f != nil {
			held[name] = f
		}
	}
	var wal *os.File
	if err == nil {
		wal, err = os.Open(filepath.Join(ix.dir, m.WAL))
	}
	ix.wmu.Unlock()
	defer func() {
		for _, f := range held {
			f.Close()
		}
		if wal != nil {
			wal.Close()
		}
	}()
	if err == nil {
		st, err = backupFiles(ix.dir, dest, &m, held, walSize, false, wal)
	}
	if err != nil {
		clearBackup(dest)
	}
	return st, err
}

// immutable names the immutable files of m: the dictionary, the segments
// and their tombstones.
func (m *manifest) immutable() []string {
	var names []string
	if m.Dict != "" {
		names = append(names, m.Dict)
	}
	for _, r := range m.Segments {
		names = append(names, r.File)
		if r.Tomb != "" {
			names = append(names, r.Tomb)
		}
	}
	return names
}

// makeBackupDir creates dest, or takes it when it is an empty directory.
func makeBackupDir(dest string) error {
	err := os.Mkdir(dest, 0o755)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return err
	}
	ents, err := os.ReadDir(dest)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("%w: %s holds %s", ErrNotEmpty, dest, ents[0].Name())
	}
	return nil
}

// clearBackup removes what a backup that failed wrote into dest: the files
// of an index's names (it never removes anything else).
func clearBackup(dest string) {
	ents, _ := os.ReadDir(dest)
	for _, e := range ents {
		if n := e.Name(); n == manifestName || isIndexFile(n) {
			os.Remove(filepath.Join(dest, n))
		}
	}
}

// linkFiles says whether a backup hard-links what it can; without, it
// copies every file. Can change for testing.
var linkFiles = true

// linkOrOpen hard-links src to dst, or when they are on different file
// systems opens src for copying (returned; the caller copies it). A
// missing src is a *CorruptError wrapping errMissing.
func linkOrOpen(src, dst string, st *BackupStats) (*os.File, error) {
	info, err := os.Stat(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &CorruptError{File: src, Err: errMissing}
	}
	if err != nil {
		return nil, err
	}
	err = syscall.EXDEV
	if linkFiles {
		err = os.Link(src, dst)
	}
	switch {
	case err == nil:
		st.Files++
		st.Linked++
		st.Bytes += info.Size()
		return nil, nil
	case errors.Is(err, os.ErrNotExist):
		return nil, &CorruptError{File: src, Err: errMissing}
	case !errors.Is(err, syscall.EXDEV) && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EMLINK):
		return nil, err
	}
	f, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &CorruptError{File: src, Err: errMissing}
	}
	return f, err
}

// backupFiles writes the copy of the index of manifest m in dir to dest:
// the immutable files not yet there (linked, or copied from held or from
// dir), the log (from wal[0] when given, else from dir; cut to walSize
// when not negative, else after its last complete batch), then the
// manifest, all synced. concurrent says a writer holds dir.
func backupFiles(dir, dest string, m *manifest, held map[string]*os.File, walSize int64, concurrent bool, wal ...*os.File) (BackupStats, error) {
	var st BackupStats
	for _, name := range m.immutable() {
		dst := filepath.Join(dest, name)
		if f := held[name]; f != nil {
			n, err := copyFile(f, dst)
			if err != nil {
				return st, err
			}
			st.Files++
			st.Bytes += n
			continue
		}
		if info, err := os.Stat(dst); err == nil {
			st.Files++
			st.Linked++
			st.Bytes += info.Size()
			continue // linked by the caller
		}
		f, err := linkOrOpen(filepath.Join(dir, name), dst, &st)
		if err != nil {
			return st, err
		}
		if f != nil {
			n, err := copyFile(f, dst)
			f.Close()
			if err != nil {
				return st, err
			}
			st.Files++
			st.Bytes += n
		}
	}
	src := filepath.Join(dir, m.WAL)
	var data []byte
	var err error
	if len(wal) > 0 && wal[0] != nil {
		data = make([]byte, walSize)
		_, err = io.ReadFull(wal[0], data)
	} else {
		data, err = os.ReadFile(src)
		if errors.Is(err, os.ErrNotExist) {
			return st, &CorruptError{File: src, Err: errMissing}
		}
	}
	if err != nil {
		return st, err
	}
	if walSize < 0 {
		good, dmg := walEnd(src, data)
		if dmg != nil && !dmg.Torn && !(concurrent && dmg.Blocks == 1) {
			return st, &CorruptError{File: src, Err: dmg}
		}
		data = data[:good]
	}
	if err := writeSynced(filepath.Join(dest, m.WAL), data); err != nil {
		return st, err
	}
	st.Files++
	st.Bytes += int64(len(data))
	if err := syncDir(dest); err != nil {
		return st, err
	}
	if err := writeManifest(dest, m); err != nil {
		return st, err
	}
	info, err := os.Stat(filepath.Join(dest, manifestName))
	if err != nil {
		return st, err
	}
	st.Files++
	st.Bytes += info.Size()
	return st, nil
}

// walEnd returns the length of the log data up to its last block that is
// whole and passes its checksum, and what follows it (nil when nothing).
func walEnd(path string, data []byte) (int, *WALDamage) {
	if len(data) < walHeaderSize {
		return len(data), nil // not a log: the copy's open says so
	}
	off := walHeaderSize
	for off+8 <= len(data) {
		n := int(binary.LittleEndian.Uint32(data[off:]))
		if n > len(data)-off-8 || crc32c(data[off+8:off+8+n]) != binary.LittleEndian.Uint32(data[off+4:]) {
			break
		}
		off += 8 + n
	}
	if off == len(data) {
		return off, nil
	}
	d, _ := describeDamage(path, data, off, 0, 4)
	return off, d
}

// copyFile copies f (from its start) to a new file dst and syncs it,
// returning the bytes copied.
func copyFile(f *os.File, dst string) (int64, error) {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	w, err := io.Copy(out, io.NewSectionReader(f, 0, 1<<62))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return w, err
}

// writeSynced writes data as a new file path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
