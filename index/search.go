package index

import (
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/parallel"
)

// Search answers each query: the records whose similarity reaches
// opt.Threshold, or the opt.TopK best; best first, ties by ID ascending.
// opt must pass SearchOptions.Validate, and its threshold suit the index.
// Queries are tokenized like records (the first that does not tokenize fails
// the call with a *RecordError) and answered on the index's workers from
// one snapshot. Safe for concurrent use, with each other and with the writer.
// Cost per query (Exact): the postings of its probe prefix within the size
// range and one verification per candidate; (LSH) signing, b band lookups
// per segment, one estimate per candidate and, with raw sets, one
// verification.
func (ix *Index) Search(ctx context.Context, queries [][]byte, opt SearchOptions) ([][]Hit, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Threshold.Den != 0 {
		if err := ix.checkThreshold(opt.Threshold); err != nil {
			return nil, err
		}
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
	err = parallel.For(ctx, len(qs), 64, ix.workers, func(_, lo, hi int) {
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
	})
	if err != nil {
		return nil, err
	}
	if badErr != nil {
		return nil, &RecordError{Query: true, Index: firstBad, Err: badErr}
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
