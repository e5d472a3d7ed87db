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
// query's number, id (the record's key on an index with keys), similarity
// (an estimate for an LSH index without raw sets), and the stored fields
// asked for (text, payload: in JSONL the payload object itself, null when
// none); the CSV header is written even for no hit.
type Hits struct {
	*sink.Writer
	keys   index.KeyKind
	fields index.Fields
}

// NewHits returns the writer of the hits of searches of an index of
// configuration cfg, in format f to w; qkey names the query's column and
// fields are the stored fields each hit carries.
func NewHits(w io.Writer, f fieldenc.Format, cfg index.Config, qkey string, fields index.Fields) Hits {
	cols := []fieldenc.Column{{Name: qkey}, {Name: "id"}, simColumn(cfg)}
	if fields&index.FieldText != 0 {
		cols = append(cols, fieldenc.Column{Name: "text"})
	}
	if fields&index.FieldPayload != 0 {
		cols = append(cols, fieldenc.Column{Name: "payload"})
	}
	rw := sink.NewWriter(w, f, cfg.Measure == prefix.Overlap, cols...)
	rw.EagerHeader = true
	return Hits{rw, cfg.Keys, fields}
}

// Write writes that query number q found h.
func (rw Hits) Write(q int, h index.Hit) error {
	b := rw.Line()
	b = rw.Int(b, int64(q))
	b = appendID(rw.Writer, b, rw.keys, h.ID, h.Key)
	b = rw.Similarity(b, h.Sim)
	if rw.fields&index.FieldText != 0 {
		b = rw.Text(b, []byte(h.Text))
	}
	if rw.fields&index.FieldPayload != 0 {
		b = appendPayload(rw.Writer, b, []byte(h.Payload))
	}
	return rw.WriteRow(b)
}

// appendID appends a record's name: its key on an index with keys (an integer
// bare, a string as text), else its id.
func appendID(rw *sink.Writer, b []byte, keys index.KeyKind, id index.ID, key index.Key) []byte {
	switch keys {
	case index.IntKeys:
		return append(rw.Field(b), key...)
	case index.StringKeys:
		return rw.Text(b, []byte(key))
	}
	return rw.Uint(b, uint64(id))
}

// appendPayload appends a stored payload, a JSON object (none: empty): in JSONL
// the object itself (null for none), otherwise as text.
func appendPayload(rw *sink.Writer, b, p []byte) []byte {
	if rw.Format() != fieldenc.JSONL {
		return rw.Text(b, p)
	}
	if len(p) == 0 {
		p = []byte("null")
	}
	return append(rw.Field(b), p...)
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
// status (inserted, replaced, duplicate or exists), id (the record's key on
// an index with keys: the new record's, or the held record's it
// duplicates or that holds its key), and a duplicate's similarity; the CSV
// header is written even for no record.
type Outcomes struct {
	*sink.Writer
	keys index.KeyKind
}

// NewOutcomes returns the writer of the outcomes of inserts into an index
// of configuration cfg, in format f to w.
func NewOutcomes(w io.Writer, f fieldenc.Format, cfg index.Config) Outcomes {
	rw := sink.NewWriter(w, f, cfg.Measure == prefix.Overlap, fieldenc.Column{Name: "line"}, fieldenc.Column{Name: "status"},
		fieldenc.Column{Name: "id"}, simColumn(cfg))
	rw.EagerHeader = true
	return Outcomes{rw, cfg.Keys}
}

// Write writes the outcome of input line line.
func (rw Outcomes) Write(line int, o index.Outcome) error {
	status := "duplicate"
	switch {
	case o.Inserted && o.Replaced:
		status = "replaced"
	case o.Inserted:
		status = "inserted"
	case o.Exists:
		status = "exists"
	}
	b := rw.Line()
	b = rw.Int(b, int64(line))
	b = rw.Word(b, status)
	b = appendID(rw.Writer, b, rw.keys, o.ID, o.Key)
	if status == "duplicate" {
		b = rw.Similarity(b, o.Sim)
	} else {
		b = rw.Skip(b)
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

// Stored writes records as an index holds them (simjoin index get): id
// (the key on an index with keys), text, payload (in JSONL the object,
// null when none); the CSV header is written even for no record.
type Stored struct {
	*sink.Writer
	keys index.KeyKind
}

// NewStored returns the writer of the stored records of an index of
// configuration cfg, in format f to w.
func NewStored(w io.Writer, f fieldenc.Format, cfg index.Config) Stored {
	rw := sink.NewWriter(w, f, false, fieldenc.Column{Name: "id"}, fieldenc.Column{Name: "text"}, fieldenc.Column{Name: "payload"})
	rw.EagerHeader = true
	return Stored{rw, cfg.Keys}
}

// Write writes one record.
func (rw Stored) Write(s index.Stored) error {
	b := rw.Line()
	b = appendID(rw.Writer, b, rw.keys, s.ID, s.Key)
	b = rw.Text(b, s.Text)
	b = appendPayload(rw.Writer, b, s.Payload)
	return rw.WriteRow(b)
}
