package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// The write-ahead log holds every batch acknowledged since the last
// checkpoint (docs/index-format.md):
//
//	header  16 bytes: magic "SJIXWAL\x00", version u32, 4 zero bytes
//	block   length u32, CRC-32C of the payload u32, payload
//
// A payload is one batch: kind 3 (a batch: first id u64, count u32, then
// per record its stored key as a length u16 and bytes (an index with keys),
// its text and payload as a length u32 and bytes each (stored text), and
// its sorted token keys as a count u32 and u64s or for LSH without raw sets
// its packed signature; then the ids deleted, a count u32 and u64s, applied
// after the inserts) or kind 2 (delete: count u32, ids u64). Logs of
// format version 1 hold kind 1 (insert: kind 3 without keys, text and
// deletes) and kind 2.
// Appending a block and fsyncing the file is what makes a batch durable; an
// append that fails is cut off again, so that a batch the caller was told
// failed never comes back.
//
// Reading a log (readWAL) replays its blocks in order up to the first that
// cannot be replayed. What follows is the log's damage (WALDamage): a
// partial last block (too short for the length its header gives, or for a
// header) is the trace of a write that never completed, a batch never
// acknowledged; anything else (a block that fails its checksum or its
// replay, wherever it is) may hold acknowledged batches.

const (
	walHeaderSize = 16
	walInsert     = 1 // format version 1
	walDelete     = 2
	walBatchKind  = 3
)

var walMagic = [8]byte{'S', 'J', 'I', 'X', 'W', 'A', 'L', 0}

type wal struct {
	f      *os.File // nil in a read-only index
	path   string
	size   int64 // bytes durable: the file's length after the last append
	buf    []byte
	onSync func(time.Duration) // told each fsync's time (OpenOptions.OnSync)
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
	err = fault("wal write", path)
	if err == nil {
		_, err = f.Write(h[:])
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &wal{f: f, path: path, size: walHeaderSize}, nil
}

// openWALAt opens the log at path for appending after its first size bytes
// (the blocks readWAL replayed; the caller cuts whatever follows by a
// checkpoint, never in place).
func openWALAt(path string, size int64) (*wal, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(size, 0); err != nil {
		f.Close()
		return nil, err
	}
	return &wal{f: f, path: path, size: size}, nil
}

// WALDamage describes the end of an index's write-ahead log that cannot be
// replayed: the Bytes bytes from Offset to the end of File. Torn says all
// of it is one partial last block, the trace of a write that never
// completed (a batch never acknowledged): Open for writing cuts it off by
// itself. Otherwise a block there fails its checksum or its replay and
// batches after it may have been acknowledged: Open refuses the index (a
// *CorruptError wrapping the WALDamage) until Repair cuts the damaged part.
//
// The other fields say what the damaged part held, as far as its block
// headers can be read (a block whose checksum fails says nothing): Blocks
// batches, whole or not; inserts of Records records with ids FirstID to
// LastID; Deletes ids deleted; Unreadable bytes of blocks that could not be
// read.
type WALDamage struct {
	File          string
	Offset, Bytes int64
	Torn          bool
	Reason        string // what is wrong at Offset
	Blocks        int
	Records       int
	FirstID       ID
	LastID        ID
	Deletes       int
	Unreadable    int64
}

func (d *WALDamage) Error() string {
	var b strings.Builder
	if d.Torn {
		fmt.Fprintf(&b, "a partial last batch at offset %d (%d bytes; %s), which the next open for writing cuts off as a write that never completed", d.Offset, d.Bytes, d.Reason)
	} else {
		fmt.Fprintf(&b, "%d bytes from offset %d cannot be replayed (%s)", d.Bytes, d.Offset, d.Reason)
	}
	b.WriteString("; ")
	b.WriteString(d.Held())
	return b.String()
}

// Held says what the damaged part held, as far as it could be read: "2
// batches, 500 records (ids 1001 to 1500), 3 deletes, 12 bytes unreadable".
func (d *WALDamage) Held() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", d.Blocks, plural(d.Blocks, "batch", "batches"))
	if d.Records > 0 {
		fmt.Fprintf(&b, ", %d %s (ids %d to %d)", d.Records, plural(d.Records, "record", "records"), d.FirstID, d.LastID)
	}
	if d.Deletes > 0 {
		fmt.Fprintf(&b, ", %d %s", d.Deletes, plural(d.Deletes, "delete", "deletes"))
	}
	if d.Unreadable > 0 {
		fmt.Fprintf(&b, ", %d bytes unreadable", d.Unreadable)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// walBlock is what the header of a block's payload says (kind, and for an
// insert its first id and count, for a delete its count), read without
// trusting the rest.
type walBlock struct {
	kind  byte
	first seq
	count int
}

// peekBlock reads the header of a payload (possibly cut short), or false.
func peekBlock(p []byte) (walBlock, bool) {
	if len(p) < 1 {
		return walBlock{}, false
	}
	switch p[0] {
	case walInsert, walBatchKind:
		if len(p) >= 13 {
			return walBlock{walInsert, seq(binary.LittleEndian.Uint64(p[1:])), int(binary.LittleEndian.Uint32(p[9:]))}, true
		}
	case walDelete:
		if len(p) >= 5 {
			return walBlock{kind: walDelete, count: int(binary.LittleEndian.Uint32(p[1:]))}, true
		}
	}
	return walBlock{}, false
}

// walLog is a log read whole: its bytes, how far its blocks replayed, and
// the damage after that (nil when it replayed to its end).
type walLog struct {
	path   string
	data   []byte
	good   int64
	damage *WALDamage
	// skipTo is an id past every id the damaged part may have assigned:
	// the ids of its readable inserts and of a partial last insert whose
	// header is plausible. Ids below it are never assigned again.
	skipTo seq
}

// readWAL reads the log at path and calls replay for each block in order
// until one fails its checksum or replay (replay must leave the state
// untouched when it fails), or the data ends in a partial block; next is
// the id the first insert must start at, minRecord the fewest payload bytes
// a record takes. A log that is not one (missing, bad magic or version) is
// a *CorruptError.
func readWAL(path string, next func() seq, minRecord int, replay func(payload []byte) error) (*walLog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &CorruptError{File: path, Err: errMissing}
		}
		return nil, err
	}
	if len(data) < walHeaderSize || [8]byte(data[:8]) != walMagic {
		return nil, corrupt(path, "not a write-ahead log")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); !knownVersion(v) {
		return nil, corrupt(path, "%v", versionError(v))
	}
	l := &walLog{path: path, data: data}
	off := walHeaderSize
	reason := ""
	for off < len(data) {
		rest := data[off:]
		if len(rest) < 8 {
			reason = "a block header cut short"
			break
		}
		n := int(binary.LittleEndian.Uint32(rest))
		if n > len(rest)-8 {
			reason = fmt.Sprintf("a block of %d bytes cut short at %d", n, len(rest)-8)
			break
		}
		payload := rest[8 : 8+n]
		if crc32c(payload) != binary.LittleEndian.Uint32(rest[4:]) {
			reason = fmt.Sprintf("block at offset %d: checksum mismatch", off)
			break
		}
		if replay != nil {
			if err := replay(payload); err != nil {
				reason = fmt.Sprintf("block at offset %d: %v", off, err)
				break
			}
		}
		off += 8 + n
	}
	l.good = int64(off)
	if off < len(data) {
		l.damage, l.skipTo = describeDamage(path, data, off, next(), minRecord)
		l.damage.Reason = reason
	}
	return l, nil
}

// describeDamage walks the blocks from off to the end of data as far as
// their lengths allow and says what they held (WALDamage), and the id past
// every id they may have assigned (walLog.skipTo): next is the id the first
// insert after the good blocks starts at.
func describeDamage(path string, data []byte, off int, next seq, minRecord int) (*WALDamage, seq) {
	d := &WALDamage{File: path, Offset: int64(off), Bytes: int64(len(data) - off)}
	skipTo := next
	for first := true; off < len(data); first = false {
		rest := data[off:]
		d.Blocks++
		if len(rest) < 8 {
			d.Unreadable += int64(len(rest))
			d.Torn = first
			break
		}
		n := int(binary.LittleEndian.Uint32(rest))
		whole := n <= len(rest)-8
		if !whole {
			d.Torn = first
		}
		payload := rest[8:min(8+n, len(rest))]
		h, ok := peekBlock(payload)
		// An insert's ids are skipped when they plausibly follow the ids
		// before: as many records as its length can hold, within 2^32.
		plausible := ok && h.kind == walInsert && h.first >= skipTo && h.count <= (n-13)/minRecord && h.first+seq(h.count) < 1<<32
		switch {
		case whole && ok && crc32c(payload) == binary.LittleEndian.Uint32(rest[4:]):
			// A block that passes its checksum says what it held.
			d.add(h)
			if plausible {
				skipTo = h.first + seq(h.count)
			}
		case !whole && plausible && h.first == skipTo:
			// A partial block's header is not checksummed: it is believed
			// when it continues the ids before it.
			d.add(h)
			skipTo = h.first + seq(h.count)
			d.Unreadable += int64(len(rest))
		default:
			d.Unreadable += int64(min(8+n, len(rest)))
		}
		if !whole {
			break
		}
		off += 8 + n
	}
	return d, skipTo
}

// add counts a readable block of the damaged part.
func (d *WALDamage) add(h walBlock) {
	switch h.kind {
	case walInsert:
		if h.count == 0 {
			return
		}
		if first := h.first.id(); d.Records == 0 || first < d.FirstID {
			d.FirstID = first
		}
		d.LastID = max(d.LastID, (h.first + seq(h.count) - 1).id())
		d.Records += h.count
	case walDelete:
		d.Deletes += h.count
	}
}

// append writes one block holding payload and fsyncs: on a nil return the
// batch is durable. When the write or the sync fails, the block is cut off
// again (and that is synced), so that the batch is not durable; only when
// that fails too is it unknown whether the batch is, and the error says so.
func (w *wal) append(payload []byte) error {
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:], crc32c(payload))
	w.buf = append(append(w.buf[:0], h[:]...), payload...)
	err := fault("wal write", w.path)
	if err == nil {
		_, err = w.f.Write(w.buf)
	}
	if err == nil {
		err = fault("wal sync", w.path)
	}
	if err == nil {
		t0 := time.Now()
		err = w.f.Sync()
		if w.onSync != nil {
			w.onSync(time.Since(t0))
		}
	}
	if err != nil {
		return w.undo(err)
	}
	w.size += int64(len(w.buf))
	return nil
}

// undo cuts the log back to its durable size after a failed append.
func (w *wal) undo(err error) error {
	uerr := w.f.Truncate(w.size)
	if uerr == nil {
		_, uerr = w.f.Seek(w.size, 0)
	}
	if uerr == nil {
		uerr = w.f.Sync()
	}
	if uerr != nil {
		return fmt.Errorf("%v; the log could not be cut back (%v): whether the batch is durable is unknown until the index is reopened", err, uerr)
	}
	return fmt.Errorf("%v (the batch is not durable)", err)
}

func (w *wal) close() error {
	if w.f == nil {
		return nil
	}
	return w.f.Close()
}

// walReader decodes a payload; a malformed one sets err.
type walReader struct {
	b   []byte
	err error
}

var errShort = errors.New("payload too short")

func (r *walReader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *walReader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *walReader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// bytes takes the next n bytes; past the end it sets errShort, takes
// nothing more and returns nil.
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
