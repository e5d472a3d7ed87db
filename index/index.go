package index

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/kelindar/bitmap"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// Method is how an index finds candidates.
type Method uint8

const (
	// Exact keeps a prefix index over the records' sets (AllPairs/PPJoin
	// filters); similarities are exact and nothing is ever missed.
	Exact Method = 1
	// LSH keeps MinHash signatures and band tables (package approx's hashers
	// and banding); recall follows the S-curve of the banding.
	LSH Method = 2
)

// String returns the command-line name of m: "exact" or "lsh".
func (m Method) String() string {
	switch m {
	case Exact:
		return "exact"
	case LSH:
		return "lsh"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// Config is fixed at Create and stored in the manifest.
type Config struct {
	// Tokens says how a record's text becomes its token set.
	Tokens shingle.Spec `json:"tokens"`
	// Method is Exact or LSH.
	Method Method `json:"method"`
	// Measure is the similarity measure; LSH supports Jaccard only.
	Measure prefix.Measure `json:"measure"`
	// MinThreshold is the smallest threshold a search or dedup may ask of an
	// Exact index: it fixes the length of the indexed prefixes (the probe
	// prefix at MinThreshold of every set). For LSH it is optional and only
	// serves to choose the banding when Bands is zero.
	MinThreshold prefix.Threshold `json:"min_threshold"`
	// Perm is the number of MinHash minima K (LSH, default 128); Bands the
	// number of bands b, with r = Perm/Bands rows each (0: chosen for a
	// recall of approx.DefaultRecall at MinThreshold, Perm then set to b·r);
	// Bits the stored bits of a minimum: 8, 16, 32 or 64 (default 32).
	Perm  int `json:"perm,omitempty"`
	Bands int `json:"bands,omitempty"`
	Bits  int `json:"bits,omitempty"`
	// Seed is the LSH hash seed.
	Seed uint64 `json:"seed,omitempty"`
	// RawSets keeps the records' token sets: LSH candidates are then verified
	// exactly and similarities are exact. Without, an LSH index keeps
	// signatures only and similarities are estimates. Exact always keeps them.
	RawSets bool `json:"raw_sets,omitempty"`
}

// ID identifies a record: assigned 0, 1, 2, ... in insertion order, never reused.
type ID uint64

// OpenOptions are the options of Open. The zero value is the default.
type OpenOptions struct {
	// Workers bounds the goroutines of a batch search or insert; 0 =
	// GOMAXPROCS, and more than 4·GOMAXPROCS means 4·GOMAXPROCS.
	Workers int
}

// Outcome is the answer for one record of an Insert.
type Outcome struct {
	// Inserted is true when the record was added.
	Inserted bool
	// ID is the new record's id, or for a duplicate the held record it
	// matched best (highest similarity, then lowest id).
	ID ID
	// Sim is the similarity to that record, for a duplicate.
	Sim float64
	// Estimated is true when Sim is a MinHash estimate (LSH without raw sets).
	Estimated bool
}

// SearchOptions say what a Search returns.
type SearchOptions struct {
	// Threshold returns every record with similarity >= Threshold (for an
	// Exact index, at least Config.MinThreshold).
	Threshold prefix.Threshold
	// TopK, when > 0 and Threshold is zero, returns the TopK most similar
	// records. LSH: the RefineK (at least TopK) candidates with the best
	// signature estimates are verified exactly when raw sets are kept, and
	// the best TopK returned. Exact: the TopK best of the records at or above
	// MinThreshold, all exact; RefineK is not used.
	TopK, RefineK int
	// Only restricts the search to these ids; Exclude leaves these out. nil
	// means no restriction; an empty non-nil Only allows nothing.
	Only, Exclude []ID
}

// Hit is one record found by Search.
type Hit struct {
	ID        ID
	Sim       float64
	Estimated bool
}

// Stats describes an index.
type Stats struct {
	Method      Method
	Records     uint64 // ids assigned so far (the next ID)
	Live        uint64 // records held and not deleted
	Deleted     uint64 // tombstoned records not yet compacted away
	Segments    int    // immutable segments
	Mutable     int    // records in the mutable part (not yet in a segment)
	Tokens      int    // Exact: distinct tokens in the token order
	Appended    int    // Exact: tokens appended after the last re-ordering
	BytesOnDisk int64  // total size of the index's files
	WALBytes    int64  // size of the write-ahead log
}

var (
	// ErrExists is returned by Create for a directory that already holds an index.
	ErrExists = errors.New("index: directory already holds an index")
	// ErrNotIndex is returned by Open for a directory without an index manifest.
	ErrNotIndex = errors.New("index: not an index directory")
	// ErrThresholdBelowMin is returned for a search or dedup threshold below
	// an Exact index's MinThreshold.
	ErrThresholdBelowMin = errors.New("index: threshold below the index's minimum threshold")
	// ErrClosed is returned by every method of a closed index.
	ErrClosed = errors.New("index: closed")
	// ErrConfig is returned (wrapped) by Create for an invalid Config.
	ErrConfig = errors.New("index: bad config")
	// ErrOptions is returned (wrapped) for invalid search options.
	ErrOptions = errors.New("index: bad search options")
	// ErrLocked is returned by Open when another Index (in this process or
	// another) has the directory open.
	ErrLocked = errors.New("index: the directory is open elsewhere")
	// ErrFailed is returned (wrapped) by every write after a write to disk
	// failed: the index must be reopened, which recovers what was durable.
	ErrFailed = errors.New("index: a write failed; reopen the index")
)

// CorruptError reports a file of the index whose checksum, length or structure
// is wrong. The index never answers from a corrupt file.
type CorruptError struct {
	File string // path of the file
	Err  error  // what is wrong
}

func (e *CorruptError) Error() string { return "index: corrupt file " + e.File + ": " + e.Err.Error() }
func (e *CorruptError) Unwrap() error { return e.Err }

// Index is an open index directory. See the package doc for concurrency.
type Index struct {
	dir     string
	cfg     Config
	workers int
	hasher  *approx.Hasher // LSH

	// wmu serialises the writers (Insert, Delete, Compact, Close, Verify)
	// and guards every field below up to snapMu.
	wmu       sync.Mutex
	live      *state
	man       manifest
	wal       *wal
	tombFile  []string // per segment of live: its tomb file, "" when none
	tombDirty []bool   // per segment of live: tombstones changed since written
	failed    error
	wscratch  scratch
	cut       int64    // WAL bytes cut off as a torn tail at Open
	lock      *os.File // LOCK, flocked while open

	snapMu sync.Mutex // guards cur, closed and every state's readers/retired
	cur    *state
	closed bool

	pool sync.Pool // *scratch for searches
}

// Checkpoint policy ("Can change for testing"): the mutable part becomes a
// segment when it holds flushMax records, or as many as the segments hold
// when that is more than flushMin, or flushBytes of sets and signatures
// (long documents); an Exact index is compacted (tokens re-ordered
// rare-first) when it has doubled since the last re-ordering, an LSH index
// when it has more than maxSegments segments.
var (
	flushMin    = 1024
	flushMax    = 1 << 16
	flushBytes  = 64 << 20
	maxSegments = 8
)

func validThreshold(m prefix.Measure, t prefix.Threshold) bool {
	if t.Den == 0 || t.Num == 0 {
		return false
	}
	if m == prefix.Overlap {
		return t.Den == 1
	}
	return t.Num <= t.Den
}

// below reports a/b < c/d exactly.
func below(a, b prefix.Threshold) bool {
	h1, l1 := bits.Mul64(a.Num, b.Den)
	h2, l2 := bits.Mul64(b.Num, a.Den)
	return h1 < h2 || h1 == h2 && l1 < l2
}

// check validates cfg and fills in the LSH defaults.
func (cfg *Config) check() error {
	if _, err := cfg.Tokens.Append(nil, ""); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if cfg.Measure > prefix.Overlap {
		return fmt.Errorf("%w: unknown measure %d", ErrConfig, cfg.Measure)
	}
	switch cfg.Method {
	case Exact:
		if !validThreshold(cfg.Measure, cfg.MinThreshold) {
			return fmt.Errorf("%w: minimum threshold %s for %v", ErrConfig, cfg.MinThreshold, cfg.Measure)
		}
		cfg.Perm, cfg.Bands, cfg.Bits, cfg.Seed, cfg.RawSets = 0, 0, 0, 0, true
	case LSH:
		if cfg.Measure != prefix.Jaccard {
			return fmt.Errorf("%w: LSH supports Jaccard only", ErrConfig)
		}
		if cfg.MinThreshold.Den != 0 && !validThreshold(cfg.Measure, cfg.MinThreshold) {
			return fmt.Errorf("%w: minimum threshold %s", ErrConfig, cfg.MinThreshold)
		}
		if cfg.Perm == 0 {
			cfg.Perm = approx.DefaultK
		}
		if cfg.Bits == 0 {
			cfg.Bits = 32
		}
		if !approx.ValidBits(cfg.Bits) {
			return fmt.Errorf("%w: bits %d, want 8, 16, 32 or 64", ErrConfig, cfg.Bits)
		}
		if cfg.Perm < 1 || cfg.Perm > approx.MaxK {
			return fmt.Errorf("%w: perm %d, want 1..%d", ErrConfig, cfg.Perm, approx.MaxK)
		}
		if cfg.Bands == 0 {
			if cfg.MinThreshold.Den == 0 {
				return fmt.Errorf("%w: LSH needs bands or a minimum threshold to choose them", ErrConfig)
			}
			sh, err := approx.ChooseRecall(cfg.MinThreshold.Float(), cfg.Perm, approx.DefaultRecall)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrConfig, err)
			}
			cfg.Bands, cfg.Perm = sh.B, sh.B*sh.R
		}
		if cfg.Bands < 1 || cfg.Bands > cfg.Perm {
			return fmt.Errorf("%w: bands %d for perm %d", ErrConfig, cfg.Bands, cfg.Perm)
		}
	default:
		return fmt.Errorf("%w: unknown method %d", ErrConfig, cfg.Method)
	}
	return nil
}

// Create makes a new index in dir (created if missing) with cfg, and returns
// it open. It returns ErrExists when dir already holds an index.
func Create(dir string, cfg Config) (*Index, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
		return nil, ErrExists
	}
	m := manifest{Config: cfg, Gen: 1, WAL: "wal-1.log"}
	os.Remove(filepath.Join(dir, m.WAL))
	w, err := createWAL(filepath.Join(dir, m.WAL))
	if err != nil {
		return nil, err
	}
	w.close()
	if err := writeManifest(dir, &m); err != nil {
		return nil, err
	}
	return Open(dir, OpenOptions{})
}

// Open opens the index in dir: it maps and checks every file (a bad one is a
// *CorruptError naming it), replays the write-ahead log and truncates a
// torn tail. Cost: reading every file once to verify its checksums (through
// a small buffer: the files are mapped, not loaded) and replaying the log.
func Open(dir string, opt OpenOptions) (*Index, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	cfg := m.Config
	ix := &Index{dir: dir, cfg: cfg, man: *m, workers: opt.Workers, lock: lock}
	ix.workers = parallel.Workers(ix.workers)
	if cfg.Method == LSH {
		if ix.hasher, err = approx.NewHasher(approx.OnePerm, cfg.Perm, cfg.Seed); err != nil {
			lock.Close()
			return nil, corrupt(filepath.Join(dir, manifestName), "%v", err)
		}
	}
	st := &state{cfg: &ix.cfg, next: m.NextID, mut: newMutable(m.NextID)}
	st.dict.added = newAdded()
	if cfg.Method == Exact {
		st.minB = prefix.NewBounds(cfg.Measure, cfg.MinThreshold)
		st.pairMax = largestPairSize(st.minB)
	}
	ix.live = st
	fail := func(err error) (*Index, error) {
		st.release()
		lock.Close()
		return nil, err
	}
	if m.Dict != "" {
		if st.dict, err = openDict(filepath.Join(dir, m.Dict), true); err != nil {
			return fail(err)
		}
	}
	for _, ref := range m.Segments {
		s, err := openSegment(dir, ref.File, &ix.cfg, true)
		if err != nil {
			return fail(err)
		}
		st.segs = append(st.segs, s)
		var tomb bitmap.Bitmap
		if ref.Tomb != "" {
			if tomb, err = readTomb(filepath.Join(dir, ref.Tomb), s.rows()); err != nil {
				return fail(err)
			}
		}
		st.tombs = append(st.tombs, tomb)
		ix.tombFile = append(ix.tombFile, ref.Tomb)
		ix.tombDirty = append(ix.tombDirty, false)
	}
	w, cut, err := openWAL(filepath.Join(dir, m.WAL), ix.replay)
	if err != nil {
		return fail(err)
	}
	ix.wal, ix.cut = w, cut
	ix.removeUnreferenced()
	ix.publish()
	return ix, nil
}

// replay applies one WAL block to the live state.
func (ix *Index) replay(payload []byte) error {
	st := ix.live
	r := walReader{b: payload}
	if len(payload) == 0 {
		return errShort
	}
	kind := payload[0]
	r.b = r.b[1:]
	switch kind {
	case walInsert:
		first := ID(r.u64())
		n := int(r.u32())
		if r.err == nil && first != st.next {
			return fmt.Errorf("insert of id %d, the index is at %d", first, st.next)
		}
		var q query
		for i := 0; i < n && r.err == nil; i++ {
			if ix.cfg.Method == LSH && !ix.cfg.RawSets {
				q.row = r.bytes(ix.cfg.Perm * ix.cfg.Bits / 8)
			} else {
				k := int(r.u32())
				b := r.bytes(8 * k)
				q.keys = q.keys[:0]
				for j := 0; j < k && r.err == nil; j++ {
					q.keys = append(q.keys, leU64(b[8*j:]))
				}
				ix.prepareOne(&q)
				if st.cfg.Method == Exact {
					q.set = st.dict.mapSet(q.set[:0], q.keys)
				}
			}
			if r.err == nil {
				st.appendRecord(&q)
			}
		}
	case walDelete:
		n := int(r.u32())
		ids := make([]ID, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			ids = append(ids, ID(r.u64()))
		}
		if r.err == nil {
			ix.applyDelete(ids)
		}
	default:
		return fmt.Errorf("unknown block kind %d", kind)
	}
	if r.err == nil && len(r.b) != 0 {
		return fmt.Errorf("%d bytes after the batch", len(r.b))
	}
	return r.err
}

func leU64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// publish makes a snapshot of the live state the one new searches use.
// The caller holds wmu (or is Open).
func (ix *Index) publish() {
	s := ix.live.snapshot()
	ix.snapMu.Lock()
	old := ix.cur
	ix.cur = s
	ix.snapMu.Unlock()
	if old != nil {
		ix.retire(old)
	}
}

func (ix *Index) retire(s *state) {
	ix.snapMu.Lock()
	s.retired = true
	free := s.readers == 0
	ix.snapMu.Unlock()
	if free {
		s.release()
	}
}

// acquire returns the current snapshot, held until release.
func (ix *Index) acquire() (*state, error) {
	ix.snapMu.Lock()
	defer ix.snapMu.Unlock()
	if ix.closed {
		return nil, ErrClosed
	}
	ix.cur.readers++
	return ix.cur, nil
}

func (ix *Index) releaseSnap(s *state) {
	ix.snapMu.Lock()
	s.readers--
	free := s.retired && s.readers == 0
	ix.snapMu.Unlock()
	if free {
		s.release()
	}
}

// Close releases the index. Every acknowledged write is already durable;
// searches running on other goroutines finish on their snapshot, and the
// files are unmapped when the last one ends.
func (ix *Index) Close() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.snapMu.Lock()
	if ix.closed {
		ix.snapMu.Unlock()
		return ErrClosed
	}
	ix.closed = true
	cur := ix.cur
	ix.snapMu.Unlock()
	ix.retire(cur)
	ix.live.release()
	err := ix.wal.close()
	ix.lock.Close()
	return err
}

// lockDir takes an exclusive flock on dir/LOCK (released by Close, or by
// the kernel when the process dies).
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}

// Config returns the index's configuration (with the LSH defaults filled in).
func (ix *Index) Config() Config { return ix.cfg }

// prepare tokenizes records into queries (sorted distinct keys; LSH: the
// signature), on the index's workers for large batches.
func (ix *Index) prepare(records [][]byte) ([]query, error) {
	qs := make([]query, len(records))
	errs := make([]error, len(records))
	do := func(lo, hi int) {
		var buf []uint64
		for i := lo; i < hi; i++ {
			var err error
			rec := records[i]
			s := ""
			if len(rec) > 0 {
				s = unsafe.String(&rec[0], len(rec))
			}
			buf, err = ix.cfg.Tokens.AppendSet(buf[:0], s)
			if err != nil {
				errs[i] = err
				continue
			}
			qs[i].keys = slices.Clone(buf)
			ix.prepareOne(&qs[i])
		}
	}
	ix.parallel(len(records), 256, do)
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("index: record %d: %w", i+1, err)
		}
	}
	return qs, nil
}

// parallel calls do over [0, n) in chunks of chunk items on the index's
// workers (in the calling goroutine when there is one chunk or one worker);
// every goroutine has ended when it returns.
func (ix *Index) parallel(n, chunk int, do func(lo, hi int)) {
	if n <= chunk || ix.workers == 1 {
		do(0, n)
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, (n+chunk-1)/chunk)
	for lo := 0; lo < n; lo += chunk {
		next <- lo
	}
	close(next)
	for w := 0; w < min(ix.workers, cap(next)); w++ {
		wg.Go(func() {
			for lo := range next {
				do(lo, min(lo+chunk, n))
			}
		})
	}
	wg.Wait()
}

// prepareOne computes the signature of q.keys (LSH).
func (ix *Index) prepareOne(q *query) {
	if ix.cfg.Method != LSH {
		return
	}
	sig := ix.hasher.Sign(nil, q.keys)
	q.row = make([]byte, ix.cfg.Perm*ix.cfg.Bits/8)
	approx.PackRow(q.row, sig, ix.cfg.Perm, ix.cfg.Bits)
}

// appendRecord adds q as the next record of the mutable part. Exact: q.set
// must have been mapped by this state's dict (its unknown tokens are given
// exactly the ids mapSet gave them).
func (st *state) appendRecord(q *query) {
	m := st.mut
	row := uint32(m.n)
	cfg := st.cfg
	switch cfg.Method {
	case Exact:
		st.dict.add(q.keys)
		m.sets = append(m.sets, q.set...)
		m.offs = append(m.offs, uint32(len(m.sets)))
		minB := st.minB
		size := uint32(len(q.set))
		for i, w := range q.set[:singlePrefix(minB, len(q.set))] {
			m.add(pkey{key: uint64(w)}, mpost{row: row, pos: uint32(i), size: size})
		}
		l := pairPrefix(minB, len(q.set))
		mask := tokenMask(q.set)
		for i := 0; i+1 < l; i++ {
			for j := i + 1; j < l; j++ {
				m.add(pairKey(q.set[i], q.set[j]), mpost{row: row, pos: uint32(j), size: size, mask: mask})
			}
		}
	case LSH:
		m.sigs = append(m.sigs, q.row...)
		if cfg.RawSets {
			m.keys = append(m.keys, q.keys...)
			m.offs = append(m.offs, uint32(len(m.keys)))
		}
		bb := cfg.Perm / cfg.Bands * cfg.Bits / 8
		if len(q.keys) > 0 || !cfg.RawSets && !emptyRow(q.row) {
			for j := 0; j < cfg.Bands; j++ {
				m.add(pkey{band: uint32(j), key: approx.BandKey(q.row[j*bb:(j+1)*bb], j)}, mpost{row: row})
			}
		}
	}
	m.n++
	st.next++
}

// emptyRow reports whether a packed signature is all ones (the signature of
// the empty set), which never joins.
func emptyRow(row []byte) bool {
	for _, b := range row {
		if b != 0xff {
			return false
		}
	}
	return true
}

func (ix *Index) checkThreshold(t prefix.Threshold) error {
	m := ix.cfg.Measure
	if !validThreshold(m, t) {
		return fmt.Errorf("%w: threshold %s for %v", ErrOptions, t, m)
	}
	if ix.cfg.Method == Exact && below(t, ix.cfg.MinThreshold) {
		return fmt.Errorf("%w: %s < %s", ErrThresholdBelowMin, t, ix.cfg.MinThreshold)
	}
	return nil
}

// Insert tokenizes and adds records. With dedup.Den == 0 every record is
// inserted. Otherwise a record is inserted only when no live held record, nor
// an earlier record of this batch that was inserted, reaches dedup: for an
// Exact index the kept records are exactly those of a sequential greedy
// dedup; for LSH a held duplicate at similarity s is found with the S-curve's
// probability P(s). Insert returns once the batch is durable (one WAL append
// and fsync per batch). Inserts are serialised; searches running meanwhile
// see the state before the batch or after it, never part of it.
//
// A record that does not tokenize (invalid UTF-8 for a text tokenizer) fails
// the whole batch before anything is written. ctx is checked before the
// batch starts.
func (ix *Index) Insert(ctx context.Context, records [][]byte, dedup prefix.Threshold) ([]Outcome, error) {
	if dedup.Den != 0 {
		if err := ix.checkThreshold(dedup); err != nil {
			return nil, err
		}
	}
	qs, err := ix.prepare(records)
	if err != nil {
		return nil, err
	}
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.writable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := ix.live
	if uint64(st.next)+uint64(len(records)) > 1<<32-1 {
		return nil, fmt.Errorf("index: more than 2^32-1 records")
	}
	out := make([]Outcome, len(records))
	sc := &ix.wscratch
	opt := SearchOptions{Threshold: dedup}
	first := st.next
	payload := []byte{walInsert}
	payload = appendU64(payload, uint64(first))
	payload = appendU32(payload, 0)
	count := 0
	for i := range qs {
		q := &qs[i]
		if ix.cfg.Method == Exact {
			q.set = st.dict.mapSet(q.set[:0], q.keys)
		}
		if dedup.Den != 0 {
			if h := st.search(sc, q, &opt, nil); len(h) > 0 {
				out[i] = Outcome{ID: h[0].ID, Sim: h[0].Sim, Estimated: h[0].Estimated}
				continue
			}
		}
		out[i] = Outcome{Inserted: true, ID: st.next}
		st.appendRecord(q)
		count++
		if ix.cfg.Method == LSH && !ix.cfg.RawSets {
			payload = append(payload, q.row...)
		} else {
			payload = appendU32(payload, uint32(len(q.keys)))
			for _, k := range q.keys {
				payload = appendU64(payload, k)
			}
		}
	}
	if count == 0 {
		return out, nil
	}
	putU32(payload[9:], uint32(count))
	if err := ix.wal.append(payload); err != nil {
		ix.failed = err
		return nil, fmt.Errorf("%w: %v", ErrFailed, err)
	}
	ix.publish()
	if err := ix.maybeCheckpoint(); err != nil {
		ix.failed = err
		return out, fmt.Errorf("%w: checkpoint: %v (the batch is durable)", ErrFailed, err)
	}
	return out, nil
}

func (ix *Index) writable() error {
	ix.snapMu.Lock()
	closed := ix.closed
	ix.snapMu.Unlock()
	if closed {
		return ErrClosed
	}
	if ix.failed != nil {
		return fmt.Errorf("%w: %v", ErrFailed, ix.failed)
	}
	return nil
}

func appendU32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func appendU64(b []byte, v uint64) []byte {
	return appendU32(appendU32(b, uint32(v)), uint32(v>>32))
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// Search answers each query: the records whose similarity reaches
// opt.Threshold, or the opt.TopK best; best first, ties by ID ascending.
// Queries are tokenized like records and answered on the index's workers from
// one snapshot. Safe for concurrent use, with each other and with the writer.
// Cost per query (Exact): the postings of its probe prefix within the size
// range and one verification per candidate; (LSH) signing, b band lookups
// per segment, one estimate per candidate and, with raw sets, one
// verification.
func (ix *Index) Search(ctx context.Context, queries [][]byte, opt SearchOptions) ([][]Hit, error) {
	if opt.Threshold.Den != 0 {
		if err := ix.checkThreshold(opt.Threshold); err != nil {
			return nil, err
		}
	} else if opt.TopK <= 0 {
		return nil, fmt.Errorf("%w: neither a threshold nor top-k", ErrOptions)
	}
	if opt.TopK < 0 || opt.RefineK < 0 {
		return nil, fmt.Errorf("%w: negative top-k or refine-k", ErrOptions)
	}
	snap, err := ix.acquire()
	if err != nil {
		return nil, err
	}
	defer ix.releaseSnap(snap)
	f := newFilter(opt.Only, opt.Exclude, snap.next)
	qs := queries
	out := make([][]Hit, len(qs))
	var errMu sync.Mutex
	firstBad := len(qs) // the first query that does not tokenize
	var badErr error
	do := func(lo, hi int) {
		sc, _ := ix.pool.Get().(*scratch)
		if sc == nil {
			sc = new(scratch)
		}
		for i := lo; i < hi && ctx.Err() == nil; i++ {
			q, err := ix.tokenize(sc, qs[i])
			if err != nil {
				errMu.Lock()
				if i < firstBad {
					firstBad, badErr = i, err
				}
				errMu.Unlock()
				continue
			}
			if ix.cfg.Method == Exact {
				sc.set = snap.dict.mapSet(sc.set[:0], q.keys)
				q.set = sc.set
			}
			out[i] = slices.Clone(snap.search(sc, q, &opt, f))
			if out[i] == nil {
				out[i] = []Hit{}
			}
		}
		ix.pool.Put(sc)
	}
	ix.parallel(len(qs), 64, do)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if badErr != nil {
		return nil, fmt.Errorf("index: query %d: %w", firstBad+1, badErr)
	}
	return out, nil
}

// tokenize prepares one record in sc's buffers (valid until the next call
// with sc): its sorted distinct keys and, for LSH, its signature.
func (ix *Index) tokenize(sc *scratch, rec []byte) (*query, error) {
	s := ""
	if len(rec) > 0 {
		s = unsafe.String(&rec[0], len(rec))
	}
	var err error
	sc.keys, err = ix.cfg.Tokens.AppendSet(sc.keys[:0], s)
	if err != nil {
		return nil, err
	}
	q := &sc.q
	q.keys, q.set, q.row = sc.keys, nil, nil
	if ix.cfg.Method == LSH {
		sc.sig = ix.hasher.Sign(sc.sig[:0], q.keys)
		if rb := ix.cfg.Perm * ix.cfg.Bits / 8; len(sc.row) != rb {
			sc.row = make([]byte, rb)
		}
		approx.PackRow(sc.row, sc.sig, ix.cfg.Perm, ix.cfg.Bits)
		q.row = sc.row
	}
	return q, nil
}

// Delete tombstones ids. It is durable on return; unknown or already deleted
// ids are not an error and not counted.
func (ix *Index) Delete(ids []ID) (deleted int, err error) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	if err := ix.writable(); err != nil {
		return 0, err
	}
	done := ix.applyDelete(ids)
	if len(done) == 0 {
		return 0, nil
	}
	payload := []byte{walDelete}
	payload = appendU32(payload, uint32(len(done)))
	for _, id := range done {
		payload = appendU64(payload, uint64(id))
	}
	if err := ix.wal.append(payload); err != nil {
		ix.failed = err
		return 0, fmt.Errorf("%w: %v", ErrFailed, err)
	}
	ix.publish()
	return len(done), nil
}

// applyDelete tombstones the live records among ids in the live state
// (copy-on-write bitmaps) and returns the ids it deleted.
func (ix *Index) applyDelete(ids []ID) []ID {
	st := ix.live
	var done []ID
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
		i, _ := slices.BinarySearchFunc(st.segs, id, func(s *segment, id ID) int {
			if s.rows() > 0 && ID(s.ids[s.rows()-1]) < id {
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
	if ix.cfg.Method == Exact {
		s.Tokens = st.dict.len()
		s.Appended = len(st.dict.addedKeys)
	}
	s.WALBytes = ix.wal.size
	ents, _ := os.ReadDir(ix.dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			s.BytesOnDisk += info.Size()
		}
	}
	return s
}

// Verify re-reads every file of the index from disk and checks every
// checksum; an error is a *CorruptError naming the file. It holds off
// writers while it runs. Cost: one read of every file.
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
	return verifyWAL(filepath.Join(ix.dir, m.WAL))
}

// verifyWAL checks every block of a log without changing it: after Open has
// cut any torn tail, a bad block anywhere is corruption.
func verifyWAL(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return corrupt(path, "missing")
		}
		return err
	}
	if len(data) < walHeaderSize || [8]byte(data[:8]) != walMagic {
		return corrupt(path, "not a write-ahead log")
	}
	for off := walHeaderSize; off < len(data); {
		rest := data[off:]
		if len(rest) < 8 {
			return corrupt(path, "truncated block header at offset %d", off)
		}
		n := int(leU32(rest))
		if n > len(rest)-8 {
			return corrupt(path, "truncated block at offset %d", off)
		}
		if crc32c(rest[8:8+n]) != leU32(rest[4:]) {
			return corrupt(path, "block at offset %d: checksum mismatch", off)
		}
		off += 8 + n
	}
	return nil
}

func leU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// removeUnreferenced deletes the files of the index directory that the
// manifest does not name (left by a checkpoint or compaction that crashed
// before its commit, or replaced by one that committed).
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
		n := e.Name()
		if keep[n] {
			continue
		}
		for _, p := range []string{"seg-", "dict-", "tomb-", "wal-", manifestName + ".tmp"} {
			if strings.HasPrefix(n, p) {
				os.Remove(filepath.Join(ix.dir, n))
				break
			}
		}
	}
}
