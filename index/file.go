package index

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The block file is the one container every immutable file of an index uses
// (segments, dictionaries, tombstones); docs/index-format.md specifies it:
//
//	header  32 bytes: magic "SJIXBLK\x00", version u32, kind u32, 12 zero
//	        bytes, CRC-32C of the 28 bytes before u32
//	blocks  each starting at a multiple of 8, zero padding between them
//	        (checked to be zero)
//	dir     one 32-byte entry per block: tag [8]byte, offset u64, length u64,
//	        CRC-32C of the block u32, 4 zero bytes
//	tail    16 bytes: block count u32, CRC-32C of dir and count u32,
//	        magic "SJIXEND\x00"
//
// All integers are little-endian. Every block is checked against its CRC when
// the file is opened, so a flipped bit is reported, never answered from.

const (
	// formatVersion is the version of the files this build writes; it
	// reads every version from oldestVersion.
	formatVersion = 2
	oldestVersion = 1
	headerSize    = 32
	dirEntrySize  = 32
	tailSize      = 16
)

var (
	blockMagic = [8]byte{'S', 'J', 'I', 'X', 'B', 'L', 'K', 0}
	endMagic   = [8]byte{'S', 'J', 'I', 'X', 'E', 'N', 'D', 0}
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// knownVersion reports whether this build reads files of format version v.
func knownVersion(v uint32) bool { return oldestVersion <= v && v <= formatVersion }

// versionError says why a file of format version v is refused: a newer
// build wrote it.
func versionError(v uint32) error {
	return fmt.Errorf("format version %d, this build reads %d to %d (a newer simjoin wrote it: open it with that one)", v, oldestVersion, formatVersion)
}

// File kinds.
const (
	kindSegment = 1
	kindDict    = 2
	kindTomb    = 3
)

func init() {
	// The files are little-endian and read in place: refuse other machines
	// loudly rather than answer wrongly.
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) != 1 {
		panic("index: big-endian machines are not supported")
	}
}

type dirEntry struct {
	tag      [8]byte
	off, len uint64
	crc      uint32
}

// blockWriter writes a block file: Block calls in any order, then Close,
// which writes the directory, syncs and closes the file.
type blockWriter struct {
	f    *os.File
	w    *bufio.Writer
	off  uint64
	dir  []dirEntry
	kind uint32
	err  error
}

func createBlockFile(path string, kind uint32) (*blockWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	bw := &blockWriter{f: f, w: bufio.NewWriterSize(f, 1<<16), kind: kind}
	var h [headerSize]byte
	copy(h[:], blockMagic[:])
	binary.LittleEndian.PutUint32(h[8:], formatVersion)
	binary.LittleEndian.PutUint32(h[12:], kind)
	binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
	bw.write(h[:])
	return bw, bw.err
}

func (bw *blockWriter) write(p []byte) {
	if bw.err != nil {
		return
	}
	_, bw.err = bw.w.Write(p)
	bw.off += uint64(len(p))
}

func (bw *blockWriter) pad() {
	var z [8]byte
	if r := bw.off % 8; r != 0 {
		bw.write(z[:8-r])
	}
}

// block writes one block made of the concatenation of parts.
func (bw *blockWriter) block(tag string, parts ...[]byte) {
	bw.pad()
	e := dirEntry{off: bw.off}
	copy(e.tag[:], tag)
	crc := uint32(0)
	for _, p := range parts {
		crc = crc32.Update(crc, castagnoli, p)
		bw.write(p)
		e.len += uint64(len(p))
	}
	e.crc = crc
	bw.dir = append(bw.dir, e)
}

func (bw *blockWriter) close() error {
	bw.pad()
	dir := make([]byte, 0, len(bw.dir)*dirEntrySize+tailSize)
	for _, e := range bw.dir {
		dir = append(dir, e.tag[:]...)
		dir = binary.LittleEndian.AppendUint64(dir, e.off)
		dir = binary.LittleEndian.AppendUint64(dir, e.len)
		dir = binary.LittleEndian.AppendUint32(dir, e.crc)
		dir = binary.LittleEndian.AppendUint32(dir, 0)
	}
	dir = binary.LittleEndian.AppendUint32(dir, uint32(len(bw.dir)))
	dir = binary.LittleEndian.AppendUint32(dir, crc32.Checksum(dir, castagnoli))
	dir = append(dir, endMagic[:]...)
	bw.write(dir)
	if bw.err == nil {
		bw.err = fault("file write", bw.f.Name())
	}
	if bw.err == nil {
		bw.err = bw.w.Flush()
	}
	if bw.err == nil {
		bw.err = fault("file sync", bw.f.Name())
	}
	if bw.err == nil {
		bw.err = bw.f.Sync()
	}
	if err := bw.f.Close(); bw.err == nil {
		bw.err = err
	}
	if bw.err != nil {
		os.Remove(bw.f.Name())
	}
	return bw.err
}

// blockFile is a block file opened and memory-mapped read-only; every block's
// checksum has been verified.
type blockFile struct {
	refs     atomic.Int32 // holders of the mapping; unmapped at zero
	path     string
	data     []byte // the mapping, or the bytes read (inMemory); nil for an empty file
	inMemory bool
	blocks   map[string][]byte
}

// injectFault, when set, is asked before each write and sync the index
// makes to disk (op is "wal write", "wal sync", "file write", "file sync"
// or "manifest"; path the file's) and fails it with the error it returns.
// Can change for testing.
var injectFault func(op, path string) error

func fault(op, path string) error {
	if injectFault == nil {
		return nil
	}
	return injectFault(op, path)
}

// errMissing is the reason of a *CorruptError for a file the manifest
// names that is not there.
var errMissing = errors.New("missing")

func corrupt(path string, format string, args ...any) error {
	return &CorruptError{File: path, Err: fmt.Errorf(format, args...)}
}

// load is how a block file's bytes are held once checked.
type load uint8

const (
	mapCold  load = iota // memory-mapped, dropped from the page cache first (Open)
	mapWarm              // memory-mapped as it is (a file just written)
	inMemory             // read into the process's memory (OpenOptions.InMemory)
)

// openBlockFile checks path's header, directory and every block, and
// holds it as how says: mapped (cold: dropped from the page cache first,
// see below) or read into memory.
// Checksums of a mapped file are computed from pread copies in a small
// buffer rather than from the mapping, so verifying does not make the file
// resident in the process's memory; those of a file read into memory, from
// its bytes there.
func openBlockFile(path string, kind uint32, how load) (*blockFile, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &CorruptError{File: path, Err: errMissing}
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	var r io.ReaderAt = f
	var mem []byte
	if how == inMemory {
		// An 8-aligned buffer: blocks are read in place as typed slices.
		words := make([]uint64, (size+7)/8)
		if size > 0 {
			mem = unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)
		}
		if _, err := io.ReadFull(f, mem); err != nil {
			return nil, fmt.Errorf("index: read %s: %w", path, err)
		}
		r = bytes.NewReader(mem)
	}
	dir, err := readDir(r, size, path, kind)
	if err != nil {
		return nil, err
	}
	dirOff := size - tailSize - int64(len(dir))*dirEntrySize
	if err := checkBlocks(r, path, dir, dirOff); err != nil {
		return nil, err
	}
	bf := &blockFile{path: path, data: mem, inMemory: how == inMemory, blocks: make(map[string][]byte, len(dir))}
	if how != inMemory {
		// cold (Open): the file was just read for its checksums; drop it
		// from the page cache, so that the mapping pages in what searches
		// touch, a page at a time (MADV_RANDOM below), rather than whole
		// cached folios (a kernel with large page-cache folios maps a
		// whole folio per fault). A checkpoint or compaction keeps what it
		// wrote warm.
		if how == mapCold {
			dropCache(f)
		}
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			return nil, fmt.Errorf("index: map %s: %w", path, err)
		}
		// Searches touch a few scattered pages: no readahead around them.
		syscall.Madvise(data, syscall.MADV_RANDOM)
		bf.data = data
	}
	bf.refs.Store(1)
	for _, e := range dir {
		bf.blocks[string(trimTag(e.tag))] = bf.data[e.off : e.off+e.len : e.off+e.len]
	}
	return bf, nil
}

func trimTag(t [8]byte) []byte {
	n := 0
	for n < len(t) && t[n] != 0 {
		n++
	}
	return t[:n]
}

// readDir reads and checks the header and the directory of a block file
// of size bytes.
func readDir(f io.ReaderAt, size int64, path string, kind uint32) ([]dirEntry, error) {
	if size < headerSize+tailSize {
		return nil, corrupt(path, "truncated: %d bytes", size)
	}
	var h [headerSize]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, err
	}
	if [8]byte(h[:8]) != blockMagic {
		return nil, corrupt(path, "not an index block file")
	}
	if v := binary.LittleEndian.Uint32(h[8:]); !knownVersion(v) {
		return nil, corrupt(path, "%v", versionError(v))
	}
	if crc32.Checksum(h[:28], castagnoli) != binary.LittleEndian.Uint32(h[28:]) {
		return nil, corrupt(path, "header checksum mismatch")
	}
	if k := binary.LittleEndian.Uint32(h[12:]); k != kind {
		return nil, corrupt(path, "file kind %d, want %d", k, kind)
	}
	var t [tailSize]byte
	if _, err := f.ReadAt(t[:], size-tailSize); err != nil {
		return nil, err
	}
	if [8]byte(t[8:]) != endMagic {
		return nil, corrupt(path, "truncated: no end marker")
	}
	n := int64(binary.LittleEndian.Uint32(t[:]))
	dirOff := size - tailSize - n*dirEntrySize
	if n > 1<<16 || dirOff < headerSize {
		return nil, corrupt(path, "bad block count %d", n)
	}
	raw := make([]byte, n*dirEntrySize+4)
	if _, err := f.ReadAt(raw, dirOff); err != nil {
		return nil, err
	}
	if crc32.Checksum(raw, castagnoli) != binary.LittleEndian.Uint32(t[4:]) {
		return nil, corrupt(path, "directory checksum mismatch")
	}
	dir := make([]dirEntry, n)
	for i := range dir {
		p := raw[i*dirEntrySize:]
		e := &dir[i]
		copy(e.tag[:], p[:8])
		e.off = binary.LittleEndian.Uint64(p[8:])
		e.len = binary.LittleEndian.Uint64(p[16:])
		e.crc = binary.LittleEndian.Uint32(p[24:])
		if e.off%8 != 0 || e.off < headerSize || e.off > uint64(dirOff) || e.len > uint64(dirOff)-e.off {
			return nil, corrupt(path, "block %q out of bounds", trimTag(e.tag))
		}
	}
	return dir, nil
}

// checkBlocks checks every block's checksum and that the bytes between the
// blocks (up to dirOff) are zero padding.
func checkBlocks(f io.ReaderAt, path string, dir []dirEntry, dirOff int64) error {
	buf := make([]byte, 1<<18)
	sorted := slices.Clone(dir)
	slices.SortFunc(sorted, func(a, b dirEntry) int { return cmp.Compare(a.off, b.off) })
	end := uint64(headerSize)
	gap := func(lo, hi uint64) error {
		if hi < lo || hi-lo >= 8 {
			return corrupt(path, "blocks overlap or leave a gap of %d bytes", int64(hi)-int64(lo))
		}
		var z [8]byte
		if _, err := f.ReadAt(z[:hi-lo], int64(lo)); err != nil {
			return err
		}
		for _, c := range z[:hi-lo] {
			if c != 0 {
				return corrupt(path, "padding at offset %d is not zero", lo)
			}
		}
		return nil
	}
	for _, e := range sorted {
		if err := gap(end, e.off); err != nil {
			return err
		}
		end = e.off + e.len
	}
	if err := gap(end, uint64(dirOff)); err != nil {
		return err
	}
	for _, e := range dir {
		crc := uint32(0)
		r := io.NewSectionReader(f, int64(e.off), int64(e.len))
		for {
			n, err := r.Read(buf)
			crc = crc32.Update(crc, castagnoli, buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		if crc != e.crc {
			return corrupt(path, "block %q checksum mismatch", trimTag(e.tag))
		}
	}
	return nil
}

func (bf *blockFile) ref() {
	if bf != nil {
		bf.refs.Add(1)
	}
}

// unref drops a reference and unmaps the file with the last one.
func (bf *blockFile) unref() {
	if bf != nil && bf.refs.Add(-1) == 0 {
		bf.close()
	}
}

func (bf *blockFile) close() error {
	if bf.data == nil || bf.inMemory {
		bf.data = nil
		return nil
	}
	err := syscall.Munmap(bf.data)
	bf.data = nil
	return err
}

// need returns block tag, or a CorruptError when it is missing or its length
// is not a multiple of elem.
func (bf *blockFile) need(tag string, elem int) ([]byte, error) {
	b, ok := bf.blocks[tag]
	if !ok {
		return nil, corrupt(bf.path, "block %q missing", tag)
	}
	if len(b)%elem != 0 {
		return nil, corrupt(bf.path, "block %q: length %d not a multiple of %d", tag, len(b), elem)
	}
	return b, nil
}

// Views of little-endian blocks as typed slices (the init check above
// guarantees the byte order; blocks are 8-aligned in an aligned mapping).

func asU32(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func asU64(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// syncDir fsyncs a directory so that a rename or a new file in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func unsafeSlice[T any](b []byte) []T {
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// dropCache asks the kernel to drop the clean cached pages of f
// (posix_fadvise POSIX_FADV_DONTNEED). It is advice: errors are ignored.
func dropCache(f *os.File) {
	const fadvDontNeed = 4
	syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
}
