package main

import (
	"io"
	"strconv"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
)

// rowWriter writes the rows of the passwords and index commands
// (fieldenc.Writer) in the chosen format, with similarities formatted as
// join writes them.
type rowWriter struct {
	*fieldenc.Writer
	format  format
	integer bool // similarities are integers (the overlap measure)
}

// newRowWriter writes rows of cols; integer says the similarities are
// integers (the overlap measure).
func newRowWriter(w io.Writer, f format, integer bool, cols ...fieldenc.Column) *rowWriter {
	enc := map[format]fieldenc.Format{formatTSV: fieldenc.TSV, formatCSV: fieldenc.CSV, formatJSONL: fieldenc.JSONL}[f]
	return &rowWriter{Writer: fieldenc.NewWriter(w, enc, cols...), format: f, integer: integer}
}

// appendSimilarity formats a similarity: integers as they are (integer:
// the overlap measure), fractions with up to six decimals and no trailing
// zeros (prefix.Measure.AppendSim).
func appendSimilarity(b []byte, v float64, integer bool) []byte {
	if integer {
		return prefix.Overlap.AppendSim(b, v)
	}
	return prefix.Jaccard.AppendSim(b, v)
}

// similarity appends a similarity field.
func (rw *rowWriter) similarity(b []byte, v float64) []byte {
	return appendSimilarity(rw.Field(b), v, rw.integer)
}

// simColumn is the similarity's column: "similarity" (JSONL "sim"), or for
// an LSH index without raw sets "estimate" ("est"), as join writes them.
func simColumn(cfg index.Config) fieldenc.Column {
	if cfg.Method == index.LSH && !cfg.RawSets {
		return fieldenc.Column{Name: "estimate", Key: "est"}
	}
	return fieldenc.Column{Name: "similarity", Key: "sim"}
}

// newPairRows writes the pairs of simjoin passwords:
// line_a, line_b, similarity, password_a, password_b.
func newPairRows(w io.Writer, f format, integer bool) *rowWriter {
	return newRowWriter(w, f, integer, fieldenc.Column{Name: "line_a", Key: "a"}, fieldenc.Column{Name: "line_b", Key: "b"},
		fieldenc.Column{Name: "similarity", Key: "sim"}, fieldenc.Column{Name: "password_a"}, fieldenc.Column{Name: "password_b"})
}

// pair writes one similar pair of l.
func (rw *rowWriter) pair(l *passwords.List, p passwords.Pair) error {
	b := rw.Line()
	b = rw.Int(b, int64(l.Line(p.A)))
	b = rw.Int(b, int64(l.Line(p.B)))
	b = rw.similarity(b, p.Sim)
	b = rw.Text(b, l.Password(p.A))
	b = rw.Text(b, l.Password(p.B))
	return rw.WriteRow(b)
}

// newFamilyRows writes the families of simjoin passwords --families: TSV
// size, count, most frequent, members...; CSV one member a row; JSONL one
// object a family with its members.
func newFamilyRows(w io.Writer, f format) *rowWriter {
	return newRowWriter(w, f, false, fieldenc.Column{Name: "family"}, fieldenc.Column{Name: "size"}, fieldenc.Column{Name: "count"},
		fieldenc.Column{Name: "line"}, fieldenc.Column{Name: "password_count"}, fieldenc.Column{Name: "password"})
}

// family writes family number n (from 1).
func (rw *rowWriter) family(n int, l *passwords.List, f passwords.Family) error {
	switch rw.format {
	case formatCSV:
		for _, m := range f.Members {
			b := rw.Line()
			b = rw.Int(b, int64(n))
			b = rw.Int(b, int64(len(f.Members)))
			b = rw.Uint(b, f.Count)
			b = rw.Int(b, int64(l.Line(m)))
			b = rw.Uint(b, l.Count(m))
			b = rw.Text(b, l.Password(m))
			if rw.WriteRow(b) != nil {
				break
			}
		}
		return rw.Err()
	case formatJSONL:
		b := strconv.AppendInt(append([]byte(nil), `{"size":`...), int64(len(f.Members)), 10)
		b = strconv.AppendUint(append(b, `,"count":`...), f.Count, 10)
		b = fieldenc.AppendJSONField(append(b, ','), "top", l.Password(f.Members[0]))
		b = append(b, `,"members":[`...)
		for k, m := range f.Members {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, `{"line":`...), int64(l.Line(m)), 10)
			b = strconv.AppendUint(append(b, `,"count":`...), l.Count(m), 10)
			b = append(fieldenc.AppendJSONField(append(b, ','), "password", l.Password(m)), '}')
		}
		return rw.WriteLine(append(b, "]}\n"...))
	}
	b := rw.Line()
	b = rw.Int(b, int64(len(f.Members)))
	b = rw.Uint(b, f.Count)
	b = rw.Text(b, l.Password(f.Members[0]))
	for _, m := range f.Members {
		b = rw.Text(b, l.Password(m))
	}
	return rw.WriteRow(b)
}

// newMatchRows writes what passwords check found against a list:
// candidate, line, similarity, known_password.
func newMatchRows(w io.Writer, f format, integer bool) *rowWriter {
	return newRowWriter(w, f, integer, fieldenc.Column{Name: "candidate"}, fieldenc.Column{Name: "line"},
		fieldenc.Column{Name: "similarity", Key: "sim"}, fieldenc.Column{Name: "known_password"})
}

// match writes one known password close to candidate number cand.
func (rw *rowWriter) match(cand int, known *passwords.List, m passwords.Match) error {
	b := rw.Line()
	b = rw.Int(b, int64(cand))
	b = rw.Int(b, int64(known.Line(m.Index)))
	b = rw.similarity(b, m.Sim)
	b = rw.Text(b, known.Password(m.Index))
	return rw.WriteRow(b)
}

// newHitRows writes what searches of an index found, one record a line:
// QKEY, id, similarity; the CSV header is written even for no hit.
func newHitRows(w io.Writer, f format, cfg index.Config, qkey string) *rowWriter {
	rw := newRowWriter(w, f, cfg.Measure == prefix.Overlap, fieldenc.Column{Name: qkey}, fieldenc.Column{Name: "id"}, simColumn(cfg))
	rw.EagerHeader = true
	return rw
}

// hit writes that query number q found h.
func (rw *rowWriter) hit(q int, h index.Hit) error {
	b := rw.Line()
	b = rw.Int(b, int64(q))
	b = rw.Uint(b, uint64(h.ID))
	b = rw.similarity(b, h.Sim)
	return rw.WriteRow(b)
}

// newOutcomeRows writes the outcome of each input record of index add: line,
// status (inserted or duplicate), id, and a duplicate's similarity; the CSV
// header is written even for no record.
func newOutcomeRows(w io.Writer, f format, cfg index.Config) *rowWriter {
	rw := newRowWriter(w, f, cfg.Measure == prefix.Overlap, fieldenc.Column{Name: "line"}, fieldenc.Column{Name: "status"},
		fieldenc.Column{Name: "id"}, simColumn(cfg))
	rw.EagerHeader = true
	return rw
}

// outcome writes the outcome of input line line.
func (rw *rowWriter) outcome(line int, o index.Outcome) error {
	b := rw.Line()
	b = rw.Int(b, int64(line))
	if o.Inserted {
		b = rw.Word(b, "inserted")
		b = rw.Uint(b, uint64(o.ID))
		b = rw.Skip(b)
	} else {
		b = rw.Word(b, "duplicate")
		b = rw.Uint(b, uint64(o.ID))
		b = rw.similarity(b, o.Sim)
	}
	return rw.WriteRow(b)
}
