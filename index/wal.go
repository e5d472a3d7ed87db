package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
)

// The write-ahead log holds every batch acknowledged since the last
// checkpoint (docs/index-format.md):
//
//	header  16 bytes: magic "SJIXWAL\x00", version u32, 4 zero bytes
//	block   length u32, CRC-32C of the payload u32, payload
//
// A payload is one batch: kind 1 (insert: first id u64, count u32, then per
// record its sorted token keys as a count u32 and u64s, or for LSH without
// raw sets its packed signature) or kind 2 (delete: count u32, ids u64).
// Appending a block and fsyncing the file is what makes a batch durable.
// On replay a last block that is incomplete or fails its checksum is a torn
// write of a batch that was never acknowledged: it is cut off. A bad block
// followed by more data is corruption.

const (
	walHeaderSize = 16
	walInsert     = 1
	walDelete     = 2
)

var walMagic = [8]byte{'S', 'J', 'I', 'X', 'W', 'A', 'L', 0}

type wal struct {
	f    *os.File
	path string
	size int64
	buf  []byte
}

// createWAL creates an empty log at path, durable on return.
func createWAL(path string) (*wal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	var h [walHeaderSize]byte
	copy(h[:], walMagic[:])
	binary.LittleEndian.PutUint32(h[8:], formatVersion)
	if _, err := f.Write(h[:]); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return &wal{f: f, path: path, size: walHeaderSize}, nil
}

// openWAL reads the log at path, calls apply for every complete block in
// order, truncates a torn tail and returns the log ready for appending, with
// the number of bytes cut off.
func openWAL(path string, apply func(payload []byte) error) (*wal, int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, 0, corrupt(path, "missing")
		}
		return nil, 0, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	fail := func(err error) (*wal, int64, error) {
		f.Close()
		return nil, 0, err
	}
	if len(data) < walHeaderSize || [8]byte(data[:8]) != walMagic {
		return fail(corrupt(path, "not a write-ahead log"))
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != formatVersion {
		return fail(corrupt(path, "format version %d, this build reads %d", v, formatVersion))
	}
	off := walHeaderSize
	for off < len(data) {
		rest := data[off:]
		if len(rest) < 8 {
			break // torn header
		}
		n := int(binary.LittleEndian.Uint32(rest))
		if n > len(rest)-8 {
			break // torn payload
		}
		payload := rest[8 : 8+n]
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(rest[4:]) {
			if 8+n == len(rest) {
				break // the last block, torn
			}
			return fail(corrupt(path, "block at offset %d: checksum mismatch", off))
		}
		if err := apply(payload); err != nil {
			var ce *CorruptError
			if errors.As(err, &ce) {
				return fail(err)
			}
			return fail(corrupt(path, "block at offset %d: %v", off, err))
		}
		off += 8 + n
	}
	cut := int64(len(data) - off)
	if cut > 0 {
		if err := f.Truncate(int64(off)); err != nil {
			return fail(err)
		}
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if _, err := f.Seek(int64(off), io.SeekStart); err != nil {
		return fail(err)
	}
	return &wal{f: f, path: path, size: int64(off)}, cut, nil
}

// append writes one block holding payload and fsyncs: on a nil return the
// batch is durable.
func (w *wal) append(payload []byte) error {
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:], crc32.Checksum(payload, castagnoli))
	w.buf = append(append(w.buf[:0], h[:]...), payload...)
	if _, err := w.f.Write(w.buf); err != nil {
		return err
	}
	w.size += int64(len(w.buf))
	return w.f.Sync()
}

func (w *wal) close() error { return w.f.Close() }

// walReader decodes a payload; a malformed one sets err.
type walReader struct {
	b   []byte
	err error
}

var errShort = errors.New("payload too short")

func (r *walReader) u32() uint32 {
	if len(r.b) < 4 {
		r.err = errShort
		r.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *walReader) u64() uint64 {
	if len(r.b) < 8 {
		r.err = errShort
		r.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *walReader) bytes(n int) []byte {
	if len(r.b) < n || n < 0 {
		r.err = errShort
		r.b = nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
