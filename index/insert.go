package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// prepare tokenizes records into queries (sorted distinct keys; LSH: the
// signature), on the index's workers for large batches. A cancelled ctx
// stops it with ctx's error.
func (ix *Index) prepare(ctx context.Context, records [][]byte) ([]query, error) {
	qs := make([]query, len(records))
	errs := make([]error, len(records))
	err := parallel.For(ctx, len(records), 256, ix.workers, func(_, lo, hi int) {
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
	})
	if err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, &RecordError{Index: i, Err: err}
		}
	}
	return qs, nil
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
		mask := join.TokenMask(q.set)
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
		bb := cfg.Rows * cfg.Bits / 8
		if len(q.keys) > 0 || !cfg.RawSets && !emptyRow(q.row) {
			for j := 0; j < cfg.Bands; j++ {
				m.add(pkey{band: uint32(j), key: approx.BandKey(q.row[j*bb:(j+1)*bb], j)}, mpost{row: row})
			}
		}
	}
	if cfg.Keys != NoKeys {
		m.ukeys = append(m.ukeys, q.ukey...)
		m.ukoffs = append(m.ukoffs, uint32(len(m.ukeys)))
		m.addKey(q.ukey, row)
	}
	if cfg.StoreText {
		m.texts = append(m.texts, q.text...)
		m.toffs = append(m.toffs, uint64(len(m.texts)))
		m.pays = append(m.pays, q.payload...)
		m.poffs = append(m.poffs, uint64(len(m.pays)))
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
		return &ThresholdError{t, ix.cfg.MinThreshold}
	}
	return nil
}

// Record is one record to insert: its text and, by the index's Config, its
// key (Config.Keys) and a JSON payload object kept with its text
// (Config.StoreText; nil for none).
type Record struct {
	Key     Key
	Text    []byte
	Payload []byte
}

// InsertOptions say how InsertRecords treats records. The zero value
// inserts every record and fails a batch holding a key already held.
type InsertOptions struct {
	// Dedup, when not zero, is the search-before-insert threshold (Insert).
	Dedup prefix.Threshold
	// OnConflict is what a record whose key is held gets (Conflict).
	OnConflict Conflict
}

// ErrPayload is wrapped by the error of a payload that is not a JSON
// object, or given to an index that keeps none.
var ErrPayload = errors.New("payload: want a JSON object, on an index that stores text")

// Insert inserts records, each text a record, with dedup as InsertRecords
// has it: the records of an index without keys.
func (ix *Index) Insert(ctx context.Context, records [][]byte, dedup prefix.Threshold) ([]Outcome, error) {
	recs := make([]Record, len(records))
	for i, r := range records {
		recs[i].Text = r
	}
	return ix.InsertRecords(ctx, recs, InsertOptions{Dedup: dedup})
}

// InsertRecords tokenizes and adds records. With opt.Dedup zero every
// record is inserted. Otherwise a record is inserted only when no live held
// record, nor an earlier record of this batch that was inserted, reaches
// the threshold: for an Exact index the kept records are exactly those of
// a sequential greedy dedup; for LSH a held duplicate at similarity s is
// found with the S-curve's probability P(s). On an index with keys, a
// record's key is first checked against the live records (and the earlier
// records of the batch): under ConflictError a key held, or given twice in
// the batch, fails the batch with a *KeyError before anything is written;
// ConflictSkip skips the record (Outcome.Exists); ConflictReplace inserts
// it, when dedup lets it (the record it replaces is not searched), and
// deletes the record that held the key, in the same batch of the log.
// InsertRecords returns once the batch is durable (one WAL append and
// fsync per batch). Inserts are serialised; searches running meanwhile see
// the state before the batch or after it, never part of it.
//
// A record that breaks the rules of the index (a key of another kind, or
// none on an index with keys, a payload that is not a JSON object or on an
// index that stores none) or does not tokenize (invalid UTF-8 for a text
// tokenizer) fails the whole batch with a *RecordError before anything is
// written. ctx is checked while the records are tokenized and before the
// batch is written.
//
// The outcomes say whether the batch is durable: with an error, they are
// nil when it is not (a write or sync of the log that failed is cut off
// again; the error says so in the rare case that this fails too), and
// given when it is but the checkpoint after it failed. A write that fails
// fails the index (ErrFailed): it must be reopened.
func (ix *Index) InsertRecords(ctx context.Context, recs []Record, opt InsertOptions) ([]Outcome, error) {
	dedup := opt.Dedup
	if dedup.Den != 0 {
		if err := ix.checkThreshold(dedup); err != nil {
			return nil, err
		}
	}
	cfg := &ix.cfg
	texts := make([][]byte, len(recs))
	var ukeys [][]byte
	if cfg.Keys != NoKeys {
		ukeys = make([][]byte, len(recs))
	}
	var kbuf []byte
	for i := range recs {
		r := &recs[i]
		texts[i] = r.Text
		if cfg.Keys != NoKeys || r.Key != "" {
			if _, err := ParseKey(cfg.Keys, string(r.Key)); err != nil {
				return nil, &RecordError{Index: i, Err: fmt.Errorf("key: %w", err)}
			}
			start := len(kbuf)
			kbuf = appendKeyBytes(kbuf, cfg.Keys, r.Key)
			ukeys[i] = kbuf[start:len(kbuf):len(kbuf)]
		}
		if r.Payload != nil && (!cfg.StoreText || !isJSONObject(r.Payload)) {
			return nil, &RecordError{Index: i, Err: ErrPayload}
		}
	}
	qs, err := ix.prepare(ctx, texts)
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
	if uint64(st.next)+uint64(len(recs)) > 1<<32-1 {
		return nil, fmt.Errorf("index: more than 2^32-1 records")
	}
	if ukeys != nil && opt.OnConflict == ConflictError {
		seen := make(map[string]bool, len(ukeys))
		for i, k := range ukeys {
			if seen[string(k)] {
				return nil, &KeyError{Index: i, Key: recs[i].Key}
			}
			seen[string(k)] = true
			if held, live := st.lookupKey(k); live {
				return nil, &KeyError{Index: i, Key: recs[i].Key, ID: held.id()}
			}
		}
	}
	out := make([]Outcome, len(recs))
	sc := &ix.wscratch
	sopt := SearchOptions{Threshold: dedup}
	b := ix.newBatch(st.next)
	var dels []seq
	for i := range qs {
		q := &qs[i]
		if cfg.Exact() {
			q.set = st.dict.mapSet(q.set[:0], q.keys)
		}
		var holder seq
		held := false
		if ukeys != nil {
			q.ukey = ukeys[i]
			holder, held = st.lookupKey(q.ukey)
		}
		if held && opt.OnConflict == ConflictSkip {
			out[i] = Outcome{Exists: true, ID: holder.id(), Key: recs[i].Key}
			continue
		}
		if dedup.Den != 0 {
			var f *filter
			if held { // the record replaced is no duplicate of its replacement
				f = newFilter(nil, []ID{holder.id()}, st.next)
			}
			if h := st.search(sc, q, &sopt, f); len(h) > 0 {
				out[i] = Outcome{ID: h[0].ID, Sim: h[0].Sim, Estimated: h[0].Estimated}
				if cfg.Keys != NoKeys {
					out[i].Key = st.keyOfSeq(seq(h[0].ID - 1))
				}
				continue
			}
		}
		if cfg.StoreText {
			q.text, q.payload = recs[i].Text, compactJSON(recs[i].Payload)
		}
		out[i] = Outcome{Inserted: true, Replaced: held, ID: st.next.id(), Key: recs[i].Key}
		b.add(q)
		st.appendRecord(q)
		if held {
			dels = append(dels, ix.applyDelete([]seq{holder})...)
		}
	}
	if b.count == 0 && len(dels) == 0 {
		return out, nil
	}
	if err := ix.wal.append(b.finish(dels)); err != nil {
		ix.fail(err)
		return nil, fmt.Errorf("%w: %v", ErrFailed, err)
	}
	ix.publish()
	if err := ix.maybeCheckpoint(); err != nil {
		ix.fail(err)
		return out, fmt.Errorf("%w: checkpoint: %v (the batch is durable)", ErrFailed, err)
	}
	return out, nil
}

// isJSONObject reports whether b is one JSON object.
func isJSONObject(b []byte) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i < len(b) && b[i] == '{' && json.Valid(b)
}

// compactJSON returns a JSON text without insignificant spaces (so that it
// prints on one line), or nil for nil.
func compactJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// walBatch builds the payload of a batch block of the log (wal.go): the
// records inserted, in id order from first, then the records deleted.
type walBatch struct {
	cfg   *Config
	p     []byte
	count int
}

func (ix *Index) newBatch(first seq) *walBatch {
	b := &walBatch{cfg: &ix.cfg, p: []byte{walBatchKind}}
	b.p = binary.LittleEndian.AppendUint64(b.p, uint64(first))
	b.p = binary.LittleEndian.AppendUint32(b.p, 0)
	return b
}

// add appends an inserted record.
func (b *walBatch) add(q *query) {
	p := b.p
	if b.cfg.Keys != NoKeys {
		p = binary.LittleEndian.AppendUint16(p, uint16(len(q.ukey)))
		p = append(p, q.ukey...)
	}
	if b.cfg.StoreText {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(q.text)))
		p = append(p, q.text...)
		p = binary.LittleEndian.AppendUint32(p, uint32(len(q.payload)))
		p = append(p, q.payload...)
	}
	if b.cfg.Method == LSH && !b.cfg.RawSets {
		p = append(p, q.row...)
	} else {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(q.keys)))
		for _, k := range q.keys {
			p = binary.LittleEndian.AppendUint64(p, k)
		}
	}
	b.p = p
	b.count++
}

// finish sets the count of inserts and appends the deletes.
func (b *walBatch) finish(dels []seq) []byte {
	binary.LittleEndian.PutUint32(b.p[9:], uint32(b.count))
	b.p = binary.LittleEndian.AppendUint32(b.p, uint32(len(dels)))
	for _, id := range dels {
		b.p = binary.LittleEndian.AppendUint64(b.p, uint64(id))
	}
	return b.p
}

// fail records that a write failed: the index takes no more writes
// (writable, Health). The caller holds wmu.
func (ix *Index) fail(err error) {
	ix.failed = err
	ix.failure.Store(err)
}

func (ix *Index) writable() error {
	ix.snapMu.Lock()
	closed := ix.closed
	ix.snapMu.Unlock()
	if closed {
		return ErrClosed
	}
	if ix.readOnly {
		return ErrReadOnly
	}
	if ix.failed != nil {
		return fmt.Errorf("%w: %v", ErrFailed, ix.failed)
	}
	return nil
}
