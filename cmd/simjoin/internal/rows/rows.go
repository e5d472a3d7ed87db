package rows

import (
	"io"
	"strconv"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/sink"
)

// simColumn is the similarity's column: "similarity" (JSONL "sim"), or for
// an LSH index without raw sets "estimate" ("est"), as join writes them.
func simColumn(cfg index.Config) fieldenc.Column {
	if cfg.Method == index.LSH && !cfg.RawSets {
		return fieldenc.Column{Name: "estimate", Key: "est"}
	}
	return fieldenc.Column{Name: "similarity", Key: "sim"}
}

// PasswordPairs writes the pairs of simjoin passwords: line_a, line_b,
// similarity, password_a, password_b.
type PasswordPairs struct{ *sink.Writer }

// NewPasswordPairs returns the writer of password pairs in format f to w;
// integer says the similarities are integers (the overlap measure).
func NewPasswordPairs(w io.Writer, f fieldenc.Format, integer bool) PasswordPairs {
	return PasswordPairs{sink.NewWriter(w, f, integer, fieldenc.Column{Name: "line_a", Key: "a"}, fieldenc.Column{Name: "line_b", Key: "b"},
		fieldenc.Column{Name: "similarity", Key: "sim"}, fieldenc.Column{Name: "password_a"}, fieldenc.Column{Name: "password_b"})}
}

// Write writes one similar pair of l.
func (rw PasswordPairs) Write(l *passwords.List, p passwords.Pair) error {
	b := rw.Line()
	b = rw.Int(b, int64(l.Line(p.A)))
	b = rw.Int(b, int64(l.Line(p.B)))
	b = rw.Similarity(b, p.Sim)
	b = rw.Text(b, l.Password(p.A))
	b = rw.Text(b, l.Password(p.B))
	return rw.WriteRow(b)
}

// Families writes the families of simjoin passwords --families: in TSV
// size, count, most frequent, members...; in CSV one member a row (family,
// size, count, line, password_count, password); in JSONL one object a
// family with its members.
type Families struct{ *sink.Writer }

// NewFamilies returns the writer of families in format f to w.
func NewFamilies(w io.Writer, f fieldenc.Format) Families {
	return Families{sink.NewWriter(w, f, false, fieldenc.Column{Name: "family"}, fieldenc.Column{Name: "size"}, fieldenc.Column{Name: "count"},
		fieldenc.Column{Name: "line"}, fieldenc.Column{Name: "password_count"}, fieldenc.Column{Name: "password"})}
}

// WriteFamilies writes fams, the families of l numbered from 1 in their
// order, in format f to w, and flushes.
func WriteFamilies(w io.Writer, f fieldenc.Format, l *passwords.List, fams []passwords.Family) error {
	rw := NewFamilies(w, f)
	for n, fam := range fams {
		rw.Write(n+1, l, fam)
	}
	return rw.Flush()
}

// Write writes family number n (from 1) of l.
func (rw Families) Write(n int, l *passwords.List, f passwords.Family) error {
	switch rw.Format() {
	case fieldenc.CSV:
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
	case fieldenc.JSONL:
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

// Matches writes what passwords check found against a list: candidate,
// line, similarity, known_password.
type Matches struct{ *sink.Writer }

// NewMatches returns the writer of matches in format f to w; integer says
// the similarities are integers (the overlap measure).
func NewMatches(w io.Writer, f fieldenc.Format, integer bool) Matches {
	return Matches{sink.NewWriter(w, f, integer, fieldenc.Column{Name: "candidate"}, fieldenc.Column{Name: "line"},
		fieldenc.Column{Name: "similarity", Key: "sim"}, fieldenc.Column{Name: "known_password"})}
}

// Write writes one known password close to candidate number cand.
func (rw Matches) Write(cand int, known *passwords.List, m passwords.Match) error {
	b := rw.Line()
	b = rw.Int(b, int64(cand))
	b = rw.Int(b, int64(known.Line(m.Index)))
	b = rw.Similarity(b, m.Sim)
	b = rw.Text(b, known.Password(m.Index))
	return rw.WriteRow(b)
}

// Hits writes what searches of an index found, one record a line: the
// query's number, id, similarity (an estimate for an LSH index without raw
// sets); the CSV header is written even for no hit.
type Hits struct{ *sink.Writer }

// NewHits returns the writer of the hits of searches of an index of
// configuration cfg, in format f to w; qkey names the query's column.
func NewHits(w io.Writer, f fieldenc.Format, cfg index.Config, qkey string) Hits {
	rw := sink.NewWriter(w, f, cfg.Measure == prefix.Overlap, fieldenc.Column{Name: qkey}, fieldenc.Column{Name: "id"}, simColumn(cfg))
	rw.EagerHeader = true
	return Hits{rw}
}

// Write writes that query number q found h.
func (rw Hits) Write(q int, h index.Hit) error {
	b := rw.Line()
	b = rw.Int(b, int64(q))
	b = rw.Uint(b, uint64(h.ID))
	b = rw.Similarity(b, h.Sim)
	return rw.WriteRow(b)
}

// WriteBatch writes the hits of a batch of queries numbered from first:
// res[k] holds query first+k's. It returns the first write error.
func (rw Hits) WriteBatch(first int, res [][]index.Hit) error {
	for k, hits := range res {
		for _, h := range hits {
			rw.Write(first+k, h)
		}
	}
	return rw.Err()
}

// Outcomes writes the outcome of each input record of index add: line,
// status (inserted or duplicate), id, and a duplicate's similarity; the CSV
// header is written even for no record.
type Outcomes struct{ *sink.Writer }

// NewOutcomes returns the writer of the outcomes of inserts into an index
// of configuration cfg, in format f to w.
func NewOutcomes(w io.Writer, f fieldenc.Format, cfg index.Config) Outcomes {
	rw := sink.NewWriter(w, f, cfg.Measure == prefix.Overlap, fieldenc.Column{Name: "line"}, fieldenc.Column{Name: "status"},
		fieldenc.Column{Name: "id"}, simColumn(cfg))
	rw.EagerHeader = true
	return Outcomes{rw}
}

// Write writes the outcome of input line line.
func (rw Outcomes) Write(line int, o index.Outcome) error {
	b := rw.Line()
	b = rw.Int(b, int64(line))
	if o.Inserted {
		b = rw.Word(b, "inserted")
		b = rw.Uint(b, uint64(o.ID))
		b = rw.Skip(b)
	} else {
		b = rw.Word(b, "duplicate")
		b = rw.Uint(b, uint64(o.ID))
		b = rw.Similarity(b, o.Sim)
	}
	return rw.WriteRow(b)
}

// WriteBatch writes the outcomes of a batch of input lines numbered from
// first (outs[k]: line first+k's) and flushes: the batch is durable, and
// its lines go out now.
func (rw Outcomes) WriteBatch(first int, outs []index.Outcome) error {
	for k, o := range outs {
		rw.Write(first+k, o)
	}
	return rw.Flush()
}
