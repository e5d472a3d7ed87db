package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/simjoin/simjoin/records"
)

// InsertLines inserts each line of r as a record read in format in
// (InsertRecords, with opt), batch by batch as records.ReadBatches cuts
// them (bopt names the input and bounds a batch), and calls f with each
// batch's outcomes once the batch is durable: f may acknowledge them. f is
// called for every durable batch, also for one that InsertRecords returns
// with an error (a checkpoint after it failed), before that error is
// returned: a caller that acknowledges in f never leaves a durable record
// unacknowledged, and never acknowledges one that is not durable. A line
// that is not a record of the format, breaks the index's rules or does not
// tokenize is a *records.LineError naming bopt.Name and the line, returned
// before its batch is written; so is a key held under ConflictError (the
// error wraps the *KeyError). The other errors of InsertRecords (ctx done,
// a threshold the index refuses, a failed write) come back as it returns
// them, and so do f's.
//
// Cost: InsertRecords' per batch; memory one batch of lines. Safe for
// concurrent use as InsertRecords is: the batches of concurrent calls
// interleave.
func (ix *Index) InsertLines(ctx context.Context, r io.Reader, bopt records.BatchOptions, in LineFormat, opt InsertOptions, f func(first int, outs []Outcome) error) error {
	var recs []Record
	return records.ReadBatches(r, bopt, func(first int, lines [][]byte) error {
		recs = recs[:0]
		for k, line := range lines {
			rec, err := decodeLine(in, ix.cfg.Keys, line)
			if err != nil {
				return lineError(&RecordError{Index: k, Err: err}, bopt.Name, first)
			}
			recs = append(recs, rec)
		}
		outs, err := ix.InsertRecords(ctx, recs, opt)
		if outs != nil {
			if ferr := f(first, outs); err == nil {
				err = ferr
			}
		}
		if err != nil {
			return lineError(err, bopt.Name, first)
		}
		return nil
	})
}

// SearchLines searches each line of r as a query (Search, with sopt), batch
// by batch as records.ReadBatches cuts them, and calls f with the queries
// and their hits piece by piece, in order (hits[k] answers queries[k], line
// first+k): one call a batch, or more when a batch's hits pass about 64Ki,
// so that memory holds one piece of the answer, not a batch's (SearchEach).
// Errors as InsertLines has them; a line that does not tokenize fails its
// batch before f sees any of it. A search of no lines calls nothing and
// returns nil: check the options first with ValidateSearch.
//
// Cost: Search's per batch, whose queries share the work on the index's
// workers; memory one batch of lines and a piece of its hits.
func (ix *Index) SearchLines(ctx context.Context, r io.Reader, opt records.BatchOptions, sopt SearchOptions, f func(first int, queries [][]byte, hits [][]Hit) error) error {
	return records.ReadBatches(r, opt, func(first int, qs [][]byte) error {
		var hits [][]Hit
		start, held := 0, 0
		err := ix.SearchEach(ctx, qs, sopt, func(i int, h []Hit) error {
			hits = append(hits, slices.Clone(h))
			if held += len(h); held < searchChunkHits {
				return nil
			}
			err := f(first+start, qs[start:i+1], hits)
			start, held, hits = i+1, 0, nil
			return err
		})
		if err != nil {
			return lineError(err, opt.Name, first)
		}
		if start < len(qs) {
			return f(first+start, qs[start:], hits)
		}
		return nil
	})
}

// lineError turns a *RecordError or *KeyError of the batch starting at
// line first into a *records.LineError naming the line.
func lineError(err error, name string, first int) error {
	if name == "" {
		name = "<input>"
	}
	var re *RecordError
	var ke *KeyError
	switch {
	case errors.As(err, &re):
		return &records.LineError{Name: name, Line: first + re.Index, Err: re.Err}
	case errors.As(err, &ke):
		return &records.LineError{Name: name, Line: first + ke.Index, Err: keyLineError{ke}}
	}
	return err
}

// keyLineError is a *KeyError worded for the line it names.
type keyLineError struct{ *KeyError }

func (e keyLineError) Error() string {
	if e.ID == 0 {
		return fmt.Sprintf("key %q given twice in one batch", e.Key)
	}
	return fmt.Sprintf("key %q is held by a live record", e.Key)
}

func (e keyLineError) Unwrap() error { return e.KeyError }

// ValidateSearch reports whether Search would take opt (ErrThresholdBelowMin,
// ErrOptions), without reading or searching anything: callers check before
// they read their queries.
func (ix *Index) ValidateSearch(opt SearchOptions) error {
	_, err := ix.Search(context.Background(), nil, opt)
	return err
}

// ErrNotID is the error of text that is not a record id.
var ErrNotID = errors.New("not a record id (a decimal integer >= 1, no leading zeros)")

// ParseID reads a record id: a decimal integer >= 1 written as the index
// writes it (digits only, no sign, no leading zero), so that one id has one
// spelling ("01" is not 1). The error quotes s and wraps ErrNotID.
func ParseID(s string) (ID, error) {
	v, ok := decimal(s)
	if !ok || v == 0 {
		return 0, fmt.Errorf("%q is %w", s, ErrNotID)
	}
	return ID(v), nil
}

// ParseIDs reads a comma-separated list of record ids (ParseID), spaces
// around each allowed.
func ParseIDs(s string) ([]ID, error) {
	var out []ID
	for _, f := range strings.Split(s, ",") {
		id, err := ParseID(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// ReadIDs reads record ids one a line (spaces around each allowed) from r. A
// line that is not an id is a *records.LineError naming name and the line
// (ErrNotID; the line is not quoted).
func ReadIDs(r io.Reader, name string) ([]ID, error) {
	lr := records.NewLineReader(r)
	var ids []ID
	for {
		line, err := lr.Next()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, &records.LineError{Name: name, Err: err}
		}
		id, err := ParseID(strings.TrimSpace(string(line)))
		if err != nil {
			return nil, &records.LineError{Name: name, Line: lr.Line(), Err: ErrNotID}
		}
		ids = append(ids, id)
	}
}
