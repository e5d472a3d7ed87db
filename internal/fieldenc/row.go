package fieldenc

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Format is a line format of rows.
type Format uint8

const (
	// TSV: fields separated by tabs, escaped by AppendTSV.
	TSV Format = iota
	// CSV: fields separated by commas, encoded by AppendCSV, after a header
	// line of the columns' names (Row.Header).
	CSV
	// JSONL: one JSON object a line, a field under its column's key.
	JSONL
)

var formatNames = [...]string{TSV: "tsv", CSV: "csv", JSONL: "jsonl"}

// String returns the format's name: "tsv", "csv" or "jsonl".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat reads a format by its name, as String writes it; ok is false
// for any other text.
func ParseFormat(name string) (_ Format, ok bool) {
	for f, n := range formatNames {
		if n == name {
			return Format(f), true
		}
	}
	return 0, false
}

// FormatNames names the formats fs (at least one) as a message lists them,
// such as "tsv, csv or jsonl".
func FormatNames(fs []Format) string {
	names := make([]string, len(fs))
	for k, f := range fs {
		names[k] = f.String()
	}
	if n := len(names) - 1; n > 0 {
		return strings.Join(names[:n], ", ") + " or " + names[n]
	}
	return names[0]
}

// Column names a field of a row: Name in the CSV header, Key in JSONL (Name
// when Key is empty).
type Column struct{ Name, Key string }

// Row encodes rows of its columns as lines of its format, appending to the
// caller's buffer as strconv's Append functions do: b = r.Begin(b), then one
// call per column in order (Int, Uint, Number, Field, Word, Text or Skip), then b
// = r.End(b), which ends the line. A field's kind decides its encoding:
// numbers are bare in every format, Text as AppendTSV, AppendCSV or
// AppendJSONField write it, Word (a name the caller knows to be plain
// ASCII) as it is or as a JSON string. A Row keeps the position in the row
// being encoded: it is not safe for concurrent use, and allocates nothing
// beyond the growth of b.
type Row struct {
	format Format
	cols   []Column
	// pre[i] is what goes before column i's value: [0] when it is the
	// first field written in the row, [1] otherwise; the separator and, in
	// JSONL, `"key":`. Fields past the last column take the last's.
	pre  [][2][]byte
	col  int  // the next column
	some bool // a field (or CSV's empty field) is written in this row
}

// NewRow returns a Row of format f over the columns cols (at least one).
func NewRow(f Format, cols ...Column) *Row {
	r := &Row{}
	r.init(f, cols)
	return r
}

func (r *Row) init(f Format, cols []Column) {
	*r = Row{format: f, cols: cols, pre: make([][2][]byte, len(cols))}
	for i, c := range cols {
		switch f {
		case JSONL:
			k := c.Key
			if k == "" {
				k = c.Name
			}
			r.pre[i] = [2][]byte{[]byte(`"` + k + `":`), []byte(`,"` + k + `":`)}
		case CSV:
			r.pre[i] = [2][]byte{nil, []byte(",")}
		default:
			r.pre[i] = [2][]byte{nil, []byte("\t")}
		}
	}
}

// Header returns the CSV header line, the columns' names separated by commas
// and ended by a newline. It is the caller's to write (once, before the
// first row, or also for no row at all); the other formats have none.
func (r *Row) Header() []byte {
	var b []byte
	for i, c := range r.cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c.Name...)
	}
	return append(b, '\n')
}

// Begin starts a row at the end of b.
func (r *Row) Begin(b []byte) []byte {
	r.col, r.some = 0, false
	if r.format == JSONL {
		b = append(b, '{')
	}
	return b
}

// next appends what goes before the next column's value (pre).
func (r *Row) next(b []byte) []byte {
	p := &r.pre[min(r.col, len(r.pre)-1)]
	r.col++
	if r.some {
		return append(b, p[1]...)
	}
	r.some = true
	return append(b, p[0]...)
}

func (r *Row) key() string {
	c := r.cols[min(r.col, len(r.cols)-1)]
	if c.Key != "" {
		return c.Key
	}
	return c.Name
}

// Int appends an integer field.
func (r *Row) Int(b []byte, v int64) []byte {
	return strconv.AppendInt(r.next(b), v, 10)
}

// Uint appends an unsigned integer field.
func (r *Row) Uint(b []byte, v uint64) []byte {
	return strconv.AppendUint(r.next(b), v, 10)
}

// Number appends a field that appendNum formats as a bare number, such as a
// similarity.
func (r *Row) Number(b []byte, appendNum func([]byte, float64) []byte, v float64) []byte {
	return appendNum(r.next(b), v)
}

// Field appends what goes before the next field's value (the separator,
// and in JSONL its key), for a value the caller appends itself that needs
// no escaping in any format and is a JSON value as it is, such as a number.
func (r *Row) Field(b []byte) []byte { return r.next(b) }

// Word appends a plain ASCII word (no separator, quote, backslash or control
// byte): as it is in TSV and CSV, as a JSON string in JSONL.
func (r *Row) Word(b []byte, w string) []byte {
	b = r.next(b)
	if r.format == JSONL {
		return append(append(append(b, '"'), w...), '"')
	}
	return append(b, w...)
}

// Text appends any bytes: escaped (AppendTSV), quoted (AppendCSV), or as a
// JSON string under the column's key, or under key_base64 when they are not
// UTF-8 (AppendJSONField).
func (r *Row) Text(b []byte, v []byte) []byte {
	switch r.format {
	case JSONL:
		if r.some {
			b = append(b, ',')
		}
		b = AppendJSONField(b, r.key(), v)
		r.col++
		r.some = true
		return b
	case CSV:
		return AppendCSV(r.next(b), v)
	}
	return AppendTSV(r.next(b), v)
}

// Skip passes over an absent field: an empty CSV field; nothing in TSV (so
// it may only end a row there) and JSONL.
func (r *Row) Skip(b []byte) []byte {
	if r.format == CSV {
		return r.next(b)
	}
	r.col++
	return b
}

// End ends the row: it appends the JSONL object's end and the newline.
func (r *Row) End(b []byte) []byte {
	if r.format == JSONL {
		b = append(b, '}')
	}
	return append(b, '\n')
}

// Writer writes rows (its Row) to an io.Writer through a 64 KiB buffer,
// the CSV header first, and keeps the first write error: once a write has
// failed, the others do nothing and return it. It is not safe for
// concurrent use.
type Writer struct {
	Row
	w       *bufio.Writer
	line    []byte // the buffer of Line and WriteRow
	started bool   // the CSV header is written
	err     error
	// EagerHeader writes the CSV header at Flush even when no row was
	// written (otherwise an output of no row is empty).
	EagerHeader bool
}

// NewWriter returns a Writer of rows of cols in format f to w.
func NewWriter(w io.Writer, f Format, cols ...Column) *Writer {
	wr := &Writer{w: bufio.NewWriterSize(w, 1<<16)}
	wr.init(f, cols)
	return wr
}

func (w *Writer) start() {
	if w.format == CSV && w.err == nil {
		_, w.err = w.w.Write(w.Header())
	}
	w.started = true
}

// Line starts a row (Row.Begin) in the Writer's own line buffer, for
// WriteRow.
func (w *Writer) Line() []byte { return w.Begin(w.line[:0]) }

// WriteRow ends the row b (Row.End) and writes it; b's buffer is the
// Writer's again for the next Line.
func (w *Writer) WriteRow(b []byte) error {
	w.line = w.End(b)
	return w.WriteLine(w.line)
}

// WriteLine writes a line the caller encoded (newline included), as a row.
func (w *Writer) WriteLine(line []byte) error {
	if !w.started {
		w.start()
	}
	if w.err == nil {
		_, w.err = w.w.Write(line)
	}
	return w.err
}

// Err returns the first write error.
func (w *Writer) Err() error { return w.err }

// Flush writes what is buffered (and with EagerHeader the CSV header), and
// returns the first write error.
func (w *Writer) Flush() error {
	if w.EagerHeader && !w.started {
		w.start()
	}
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}
