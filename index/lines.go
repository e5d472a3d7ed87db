package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

// InsertLines inserts each line of r as a record (Insert, with dedup as
// there), batch by batch as records.ReadBatches cuts them (opt names the
// input and bounds a batch), and calls f with each batch's outcomes once the
// batch is durable: f may acknowledge them. A line that does not tokenize is
// a *records.LineError naming opt.Name and the line, returned before its
// batch is written; the other errors of Insert (ctx done, a threshold the
// index refuses) come back as Insert returns them, and so do f's.
//
// Cost: Insert's per batch; memory one batch of lines. Safe for concurrent
// use as Insert is: the batches of concurrent calls interleave.
func (ix *Index) InsertLines(ctx context.Context, r io.Reader, opt records.BatchOptions, dedup prefix.Threshold, f func(first int, outs []Outcome) error) error {
	return records.ReadBatches(r, opt, func(first int, recs [][]byte) error {
		outs, err := ix.Insert(ctx, recs, dedup)
		if err != nil {
			return lineError(err, opt.Name, first)
		}
		return f(first, outs)
	})
}

// SearchLines searches each line of r as a query (Search, with sopt), batch
// by batch as records.ReadBatches cuts them, and calls f with each batch's
// queries and their hits (hits[k] answers queries[k], line first+k). Errors
// as InsertLines has them. A search of no lines calls nothing and returns
// nil: check the options first with ValidateSearch.
//
// Cost: Search's per batch, whose queries share the work on the index's
// workers; memory one batch of lines and its hits.
func (ix *Index) SearchLines(ctx context.Context, r io.Reader, opt records.BatchOptions, sopt SearchOptions, f func(first int, queries [][]byte, hits [][]Hit) error) error {
	return records.ReadBatches(r, opt, func(first int, qs [][]byte) error {
		hits, err := ix.Search(ctx, qs, sopt)
		if err != nil {
			return lineError(err, opt.Name, first)
		}
		return f(first, qs, hits)
	})
}

// lineError turns a *RecordError of the batch starting at line first into
// a *records.LineError naming the line.
func lineError(err error, name string, first int) error {
	var re *RecordError
	if !errors.As(err, &re) {
		return err
	}
	if name == "" {
		name = "<input>"
	}
	return &records.LineError{Name: name, Line: first + re.Index, Err: re.Err}
}

// ValidateSearch reports whether Search would take opt (ErrThresholdBelowMin,
// ErrOptions), without reading or searching anything: callers check before
// they read their queries.
func (ix *Index) ValidateSearch(opt SearchOptions) error {
	_, err := ix.Search(context.Background(), nil, opt)
	return err
}

// ErrNotID is the error of text that is not a record id.
var ErrNotID = errors.New("not a record id (an integer >= 0)")

// ParseID reads a record id: a decimal integer >= 0. The error quotes s
// and wraps ErrNotID.
func ParseID(s string) (ID, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is %w", s, ErrNotID)
	}
	return ID(id), nil
}

// ParseIDs reads a comma-separated list of record ids, spaces around each
// allowed.
func ParseIDs(s string) ([]ID, error) {
	var out []ID
	for _, f := range strings.Split(s, ",") {
		id, err := ParseID(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is %w", f, ErrNotID)
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
		id, err := strconv.ParseUint(strings.TrimSpace(string(line)), 10, 64)
		if err != nil {
			return nil, &records.LineError{Name: name, Line: lr.Line(), Err: ErrNotID}
		}
		ids = append(ids, ID(id))
	}
}
