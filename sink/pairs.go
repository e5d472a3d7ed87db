package sink

import (
	"io"
	"slices"
	"strconv"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/join"
)

// PairWriter writes the pairs of simjoin join: id_a, id_b and the
// similarity, one a line, the ids those of the records of both sides (line
// numbers, written bare in JSONL, or names such as paths). The CSV header
// is written even for no pair.
type PairWriter struct {
	*Writer
	ida, idb []byte
	// names, snames are the ids of the two sides (nil: line numbers).
	names, snames []string
}

// NewPairWriter returns the writer of pairs in format f to w. integer says
// the similarities are integers (the overlap measure); estimates says they
// are MinHash estimates, written under the CSV header "estimate" and the
// JSONL key "est" instead of "similarity" and "sim". names are the ids of
// the join's first collection and snames those of the second: nil for line
// input, whose ids are 1-based line numbers; snames nil with names set is a
// self-join, whose second ids are names too.
func NewPairWriter(w io.Writer, f Format, integer, estimates bool, names, snames []string) *PairWriter {
	sim := Column{Name: "similarity", Key: "sim"}
	if estimates {
		sim = Column{Name: "estimate", Key: "est"}
	}
	rw := NewWriter(w, f, integer, Column{Name: "id_a", Key: "a"}, Column{Name: "id_b", Key: "b"}, sim)
	rw.EagerHeader = true
	if snames == nil {
		snames = names
	}
	return &PairWriter{Writer: rw, names: names, snames: snames}
}

// Write writes one pair: ids a and b, numbers when numeric (written bare),
// otherwise text (escaped as fieldenc does).
func (pw *PairWriter) Write(a, b []byte, numeric bool, sim float64) error {
	line := pw.Line()
	if numeric {
		line = append(pw.Field(append(pw.Field(line), a...)), b...)
	} else {
		line = pw.Text(pw.Text(line, a), b)
	}
	return pw.WriteRow(pw.Similarity(line, sim))
}

// WritePair writes the pair p of records of the two sides, by their ids.
func (pw *PairWriter) WritePair(p join.Pair) error {
	numeric := pw.names == nil
	if numeric {
		pw.ida = strconv.AppendInt(pw.ida[:0], int64(p.A+1), 10)
		pw.idb = strconv.AppendInt(pw.idb[:0], int64(p.B+1), 10)
	} else {
		pw.ida = append(pw.ida[:0], pw.names[p.A]...)
		pw.idb = append(pw.idb[:0], pw.snames[p.B]...)
	}
	return pw.Write(pw.ida, pw.idb, numeric, p.Sim)
}

// Stream takes the pairs of a join as they stream out (Add, the join's yield
// function) and writes each with its write function at once or, when
// sorted, holds them in memory and writes them at Close in (A, B) order
// (join.ComparePairs): for simjoin join and simjoin passwords, whose --sort
// asks for that order.
type Stream struct {
	write  func(join.Pair) error
	flush  func() error // after the held pairs, at Close; nil: none
	sorted bool
	held   []join.Pair
	err    error
}

// NewStream returns a stream that writes pairs with write and, at Close, calls
// flush (when not nil) to flush the writer write writes to.
func NewStream(sorted bool, write func(join.Pair) error, flush func() error) *Stream {
	return &Stream{write: write, flush: flush, sorted: sorted}
}

// Add takes one pair; it returns false once writing has failed (Err).
func (s *Stream) Add(p join.Pair) bool {
	switch {
	case s.err != nil:
		return false
	case s.sorted:
		s.held = append(s.held, p)
		return true
	}
	s.err = s.write(p)
	return s.err == nil
}

// Err returns the first write error.
func (s *Stream) Err() error { return s.err }

// Close writes the held pairs in (A, B) order, then flushes (the flush
// function given to NewStream), and returns the first write error.
func (s *Stream) Close() error {
	if s.err != nil {
		return s.err
	}
	slices.SortFunc(s.held, join.ComparePairs)
	for _, p := range s.held {
		if s.err = s.write(p); s.err != nil {
			return s.err
		}
	}
	s.held = nil
	if s.flush != nil {
		s.err = s.flush()
	}
	return s.err
}

// WriteClusters writes the clusters of dedup in format f to w, in input
// order: the id of the first record of each cluster (all false), or every
// id with its cluster number from 1 (all true). names are the ids of
// --files records; nil means 1-based line numbers. The CSV header is written
// even for no record.
func WriteClusters(w io.Writer, f Format, forest *cluster.Forest, names []string, all bool) error {
	cols := []Column{{Name: "id"}}
	if all {
		cols = append(cols, Column{Name: "cluster"})
	}
	rw := NewWriter(w, f, false, cols...)
	rw.EagerHeader = true
	var id []byte
	line := func(i, label int) error {
		b := rw.Line()
		if names == nil {
			b = rw.Int(b, int64(i+1))
		} else {
			id = append(id[:0], names[i]...)
			b = rw.Text(b, id)
		}
		if all {
			b = rw.Int(b, int64(label))
		}
		return rw.WriteRow(b)
	}
	if all {
		for i, l := range forest.Labels() {
			if err := line(i, l+1); err != nil {
				return err
			}
		}
	} else {
		for _, i := range forest.Firsts() {
			if err := line(i, 0); err != nil {
				return err
			}
		}
	}
	return rw.Flush()
}
