package index

import (
	"context"
	"errors"
	"fmt"
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
// verification. Memory: every hit of every query; SearchEach streams them.
func (ix *Index) Search(ctx context.Context, queries [][]byte, opt SearchOptions) ([][]Hit, error) {
	return ix.search(ctx, queries, opt, nil)
}

// searchChunkHits is the number of hits SearchEach aims to hold at a time:
// it answers the queries in chunks sized for it (from one query a worker up
// to 64), the first of 16 a worker.
const searchChunkHits = 1 << 16

// SearchEach answers the queries as Search does, from one snapshot, but
// calls fn with each query's hits in query order instead of returning them
// all: fn(i, hits) answers queries[i], and hits is valid only during the
// call. Every query is tokenized before fn is first called, so a query that
// does not tokenize fails the call (a *RecordError) before any answer. An
// error of fn stops the search and is returned; so is ctx's.
//
// The queries are answered on the index's workers in chunks whose size
// adapts to keep about 64Ki hits at a time, so memory holds the hits of one
// chunk, not the whole answer (a single query's hits are all held: at most
// the index's records). A call of more queries than its first chunk
// tokenizes them twice, once to check them all first. Safe for concurrent
// use, as Search is.
func (ix *Index) SearchEach(ctx context.Context, queries [][]byte, opt SearchOptions, fn func(i int, hits []Hit) error) error {
	_, err := ix.search(ctx, queries, opt, fn)
	return err
}

// search is SearchEach, or with fn nil Search: the queries in one chunk,
// each answer a slice of its own (never nil), all returned.
func (ix *Index) search(ctx context.Context, queries [][]byte, opt SearchOptions, fn func(i int, hits []Hit) error) ([][]Hit, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Threshold.Den != 0 {
		if err := ix.checkThreshold(opt.Threshold); err != nil {
			return nil, err
		}
	}
	if err := ix.checkSearchFields(&opt); err != nil {
		return nil, err
	}
	snap, err := ix.acquire()
	if err != nil {
		return nil, err
	}
	defer ix.releaseSnap(snap)
	snap.resolveKeys(&opt)
	fill := ix.cfg.Keys != NoKeys || opt.Fields != 0
	workers := ix.workers
	chunk := len(queries)
	if fn != nil {
		chunk = min(chunk, 16*workers)
	}
	if len(queries) > chunk {
		if err := ix.checkQueries(ctx, queries); err != nil {
			return nil, err
		}
	}
	f := newFilter(opt.Only, opt.Exclude, snap.next)
	out := make([][]Hit, chunk)
	var errMu sync.Mutex
	firstBad := len(queries) // the first query that does not tokenize
	var badErr error
	for lo := 0; lo < len(queries); {
		hi := min(lo+chunk, len(queries))
		if len(out) < hi-lo {
			out = append(out, make([][]Hit, hi-lo-len(out))...)
		}
		// An LSH batch shares its band lookups: its queries are signed
		// first, and their buckets found table by table.
		var qs []query
		var pre [][]bucketRange
		if ix.cfg.Method == LSH && hi-lo >= batchLookups && len(snap.segs) > 0 {
			if qs, err = ix.prepare(ctx, queries[lo:hi]); err != nil {
				var re *RecordError
				if errors.As(err, &re) {
					re.Query, re.Index = true, re.Index+lo
				}
				return nil, err
			}
			if pre, err = snap.lookupBands(ctx, qs, workers); err != nil {
				return nil, err
			}
		}
		err := parallel.For(ctx, hi-lo, max(1, (hi-lo)/(4*workers)), workers, func(_, a, b int) {
			sc, _ := ix.pool.Get().(*scratch)
			if sc == nil {
				sc = new(scratch)
			}
			for k := a; k < b && ctx.Err() == nil; k++ {
				var q *query
				var err error
				if pre != nil {
					q, sc.pre = &qs[k], pre[k]
				} else if q, err = ix.tokenize(sc, queries[lo+k]); err != nil {
					errMu.Lock()
					if lo+k < firstBad {
						firstBad, badErr = lo+k, err
					}
					errMu.Unlock()
					continue
				}
				if ix.cfg.Method == Exact {
					sc.set = snap.dict.mapSet(sc.set[:0], q.keys)
					q.set = sc.set
				}
				if fn == nil {
					out[k] = append([]Hit{}, snap.search(sc, q, &opt, f)...)
				} else {
					out[k] = append(out[k][:0], snap.search(sc, q, &opt, f)...)
				}
				if fill {
					snap.fill(out[k], opt.Fields)
				}
			}
			sc.pre = nil
			ix.pool.Put(sc)
		})
		if err != nil {
			return nil, err
		}
		if badErr != nil {
			return nil, &RecordError{Query: true, Index: firstBad, Err: badErr}
		}
		if fn == nil {
			return out, nil
		}
		held := 0
		for k := range hi - lo {
			if err := fn(lo+k, out[k]); err != nil {
				return nil, err
			}
			held += len(out[k])
			if cap(out[k]) > searchChunkHits/64 {
				out[k] = nil // a large answer is not kept for the next chunk
			}
		}
		// The next chunk: as many queries as held about searchChunkHits
		// hits in this one, from one a worker to 64.
		chunk = min(max(searchChunkHits*(hi-lo)/max(held, 1), workers), 64*workers)
		lo = hi
	}
	return nil, nil
}

// checkQueries tokenizes every query, on the index's workers, and returns a
// *RecordError for the first that does not tokenize.
func (ix *Index) checkQueries(ctx context.Context, queries [][]byte) error {
	var mu sync.Mutex
	first := len(queries)
	var firstErr error
	err := parallel.For(ctx, len(queries), 256, ix.workers, func(_, lo, hi int) {
		var buf []uint64
		for i := lo; i < hi; i++ {
			var err error
			if buf, err = ix.cfg.Tokens.AppendSet(buf[:0], unsafeString(queries[i])); err != nil {
				mu.Lock()
				if i < first {
					first, firstErr = i, err
				}
				mu.Unlock()
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if firstErr != nil {
		return &RecordError{Query: true, Index: first, Err: firstErr}
	}
	return nil
}

// unsafeString views b as a string, for the tokenizer that only reads it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// tokenize prepares one record in sc's buffers (valid until the next call
// with sc): its sorted distinct keys and, for LSH, its signature.
func (ix *Index) tokenize(sc *scratch, rec []byte) (*query, error) {
	var err error
	sc.keys, err = ix.cfg.Tokens.AppendSet(sc.keys[:0], unsafeString(rec))
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

// checkSearchFields checks what a search asks of the index: Estimate only
// of LSH; OnlyKeys and ExcludeKeys only on an index with keys, keys of its
// kind; Fields only on an index that stores text. Its errors are
// *OptionError.
func (ix *Index) checkSearchFields(opt *SearchOptions) error {
	if opt.Estimate && ix.cfg.Method != LSH {
		return &OptionError{"Estimate", errors.New("an exact index has no estimates")}
	}
	if opt.Fields != 0 && !ix.cfg.StoreText {
		return &OptionError{"Fields", errors.New("the index stores no text (create it with stored text)")}
	}
	if opt.Fields&^(FieldText|FieldPayload) != 0 {
		return &OptionError{"Fields", fmt.Errorf("unknown fields %#x", opt.Fields)}
	}
	for _, l := range []struct {
		name string
		keys []Key
	}{{"OnlyKeys", opt.OnlyKeys}, {"ExcludeKeys", opt.ExcludeKeys}} {
		for _, k := range l.keys {
			if _, err := ParseKey(ix.cfg.Keys, string(k)); err != nil {
				return &OptionError{l.name, err}
			}
		}
	}
	return nil
}

// resolveKeys adds to opt's Only and Exclude the ids of the live records of
// st holding its OnlyKeys and ExcludeKeys (copies: the caller's lists are
// not changed).
func (st *state) resolveKeys(opt *SearchOptions) {
	resolve := func(ids []ID, keys []Key) []ID {
		if keys == nil {
			return ids
		}
		out := append(make([]ID, 0, len(ids)+len(keys)), ids...)
		var b []byte
		for _, k := range keys {
			b = appendKeyBytes(b[:0], st.cfg.Keys, k)
			if id, live := st.lookupKey(b); live {
				out = append(out, id.id())
			}
		}
		return out
	}
	opt.Only = resolve(opt.Only, opt.OnlyKeys)
	opt.Exclude = resolve(opt.Exclude, opt.ExcludeKeys)
}

// fill sets the key (an index with keys) and the stored fields asked of
// each hit, from the records of st.
func (st *state) fill(hits []Hit, fields Fields) {
	for i := range hits {
		h := &hits[i]
		part, row, ok := st.locate(seq(h.ID - 1))
		if !ok {
			continue
		}
		if st.cfg.Keys != NoKeys {
			h.Key = keyFromBytes(st.cfg.Keys, st.keyBytes(part, row))
		}
		if fields&FieldText != 0 {
			h.Text = string(st.textOf(part, row))
		}
		if fields&FieldPayload != 0 {
			h.Payload = string(st.payloadOf(part, row))
		}
	}
}
