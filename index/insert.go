package index

import (
	"context"
	"encoding/binary"
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
		return &ThresholdError{t, ix.cfg.MinThreshold}
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
// the whole batch with a *RecordError before anything is written. ctx is
// checked while the records are tokenized and before the batch is written.
//
// The outcomes say whether the batch is durable: with an error, they are
// nil when it is not (a write or sync of the log that failed is cut off
// again; the error says so in the rare case that this fails too), and
// given when it is but the checkpoint after it failed. A write that fails
// fails the index (ErrFailed): it must be reopened.
func (ix *Index) Insert(ctx context.Context, records [][]byte, dedup prefix.Threshold) ([]Outcome, error) {
	if dedup.Den != 0 {
		if err := ix.checkThreshold(dedup); err != nil {
			return nil, err
		}
	}
	qs, err := ix.prepare(ctx, records)
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
	payload = binary.LittleEndian.AppendUint64(payload, uint64(first))
	payload = binary.LittleEndian.AppendUint32(payload, 0)
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
		out[i] = Outcome{Inserted: true, ID: st.next.id()}
		st.appendRecord(q)
		count++
		if ix.cfg.Method == LSH && !ix.cfg.RawSets {
			payload = append(payload, q.row...)
		} else {
			payload = binary.LittleEndian.AppendUint32(payload, uint32(len(q.keys)))
			for _, k := range q.keys {
				payload = binary.LittleEndian.AppendUint64(payload, k)
			}
		}
	}
	if count == 0 {
		return out, nil
	}
	binary.LittleEndian.PutUint32(payload[9:], uint32(count))
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
	if ix.readOnly {
		return ErrReadOnly
	}
	if ix.failed != nil {
		return fmt.Errorf("%w: %v", ErrFailed, ix.failed)
	}
	return nil
}
