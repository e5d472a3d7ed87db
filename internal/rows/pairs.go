package rows

import (
	"io"
	"slices"
	"strconv"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/join"
)

// PairWriter writes the pairs of simjoin join: id_a, id_b and the
// similarity, one a line. Ids are strings (line numbers or paths) given by
// the caller; numeric ids are written bare in JSONL. The CSV header is
// written even for no pair.
type PairWriter struct{ *Writer }

// NewPairWriter returns the writer of pairs in format f to w. integer says
// the similarities are integers (the overlap measure); estimates says they
// are MinHash estimates, written under the CSV header "estimate" and the
// JSONL key "est" instead of "similarity" and "sim".
func NewPairWriter(w io.Writer, f fieldenc.Format, integer, estimates bool) PairWriter {
	sim := fieldenc.Column{Name: "similarity", Key: "sim"}
	if estimates {
		sim = fieldenc.Column{Name: "estimate", Key: "est"}
	}
	rw := NewWriter(w, f, integer, fieldenc.Column{Name: "id_a", Key: "a"}, fieldenc.Column{Name: "id_b", Key: "b"}, sim)
	rw.EagerHeader = true
	return PairWriter{rw}
}

// Write writes one pair: ids a and b, numbers when numeric (written bare),
// otherwise text (escaped as fieldenc does).
func (pw PairWriter) Write(a, b []byte, numeric bool, sim float64) error {
	line := pw.Line()
	if numeric {
		line = append(pw.Field(append(pw.Field(line), a...)), b...)
	} else {
		line = pw.Text(pw.Text(line, a), b)
	}
	return pw.WriteRow(pw.Similarity(line, sim))
}

// PairSink takes the pairs of a join as they stream out (Add, the join's
// yield function) and writes them with their records' ids, at once, or, when
// sorted, held in memory and written by Close in (id_a, id_b) order.
type PairSink struct {
	pw     PairWriter
	sorted bool
	held   []join.Pair
	err    error
	ida    []byte
	idb    []byte
	// names, snames are the ids of --files records (nil: line numbers).
	names, snames []string
}

// NewPairSink returns a sink that writes with pw. names are the ids of the
// join's first collection and snames those of the second: nil for line
// input, whose ids are 1-based line numbers; snames nil with names set is a
// self-join, whose second ids are names too.
func NewPairSink(pw PairWriter, sorted bool, names, snames []string) *PairSink {
	if snames == nil {
		snames = names
	}
	return &PairSink{pw: pw, sorted: sorted, names: names, snames: snames}
}

// Add takes one pair; it returns false once writing has failed (Err).
func (s *PairSink) Add(p join.Pair) bool {
	if s.sorted {
		s.held = append(s.held, p)
		return true
	}
	return s.write(p)
}

// Err returns the first write error.
func (s *PairSink) Err() error { return s.err }

func (s *PairSink) write(p join.Pair) bool {
	numeric := s.names == nil
	if numeric {
		s.ida = strconv.AppendInt(s.ida[:0], int64(p.A+1), 10)
		s.idb = strconv.AppendInt(s.idb[:0], int64(p.B+1), 10)
	} else {
		s.ida = append(s.ida[:0], s.names[p.A]...)
		s.idb = append(s.idb[:0], s.snames[p.B]...)
	}
	if err := s.pw.Write(s.ida, s.idb, numeric, p.Sim); err != nil {
		s.err = err
		return false
	}
	return true
}

// Close writes the held pairs in (id_a, id_b) order (join.ComparePairs)
// and flushes; it returns the first write error.
func (s *PairSink) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.sorted {
		slices.SortFunc(s.held, join.ComparePairs)
		for _, p := range s.held {
			if !s.write(p) {
				return s.err
			}
		}
		s.held = nil
	}
	return s.pw.Flush()
}

// WriteClusters writes the clusters of dedup in format f to w, in input
// order: the id of the first record of each cluster (all false), or every
// id with its cluster number from 1 (all true). names are the ids of
// --files records; nil means 1-based line numbers. The CSV header is written
// even for no record.
func WriteClusters(w io.Writer, f fieldenc.Format, forest *cluster.Forest, names []string, all bool) error {
	cols := []fieldenc.Column{{Name: "id"}}
	if all {
		cols = append(cols, fieldenc.Column{Name: "cluster"})
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
