package fieldenc

import (
	"bufio"
	"io"
	"strconv"
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

// Column names a field of a row: Name in the CSV header, Key in JSONL (Name
// when Key is empty).
type Column struct{ Name, Key string }

// Row encodes one row at a time as a line of its format: Begin, then one call
// per column in order (Int, Uint, Text, Word, Number or Skip), then End,
// which returns the line. A field's kind decides its encoding: numbers are
// bare in every format, Text as AppendTSV, AppendCSV or AppendJSONField
// write it, Word (a name the caller knows to be plain ASCII) as it is or as
// a JSON string. The line is valid until the next Begin. A Row is not safe
// for concurrent use; it allocates only as its buffer grows.
type Row struct {
	format Format
	cols   []Column
	buf    []byte
	col    int // the next column
}

// NewRow returns a Row of format f over the columns cols.
func NewRow(f Format, cols ...Column) *Row {
	return &Row{format: f, cols: cols}
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

// Begin starts a row.
func (r *Row) Begin() {
	r.buf, r.col = r.buf[:0], 0
	if r.format == JSONL {
		r.buf = append(r.buf, '{')
	}
}

// next appends what goes before the next column's value: the separator,
// and in JSONL the column's key when key is set.
func (r *Row) next(key bool) {
	switch {
	case r.format == JSONL:
		if r.buf[len(r.buf)-1] != '{' {
			r.buf = append(r.buf, ',')
		}
		if key {
			r.buf = append(append(append(r.buf, '"'), r.key()...), `":`...)
		}
	case r.col == 0:
	case r.format == CSV:
		r.buf = append(r.buf, ',')
	default:
		r.buf = append(r.buf, '\t')
	}
	r.col++
}

func (r *Row) key() string {
	c := r.cols[min(r.col, len(r.cols)-1)]
	if c.Key != "" {
		return c.Key
	}
	return c.Name
}

// Int appends an integer field.
func (r *Row) Int(v int64) {
	r.next(true)
	r.buf = strconv.AppendInt(r.buf, v, 10)
}

// Uint appends an unsigned integer field.
func (r *Row) Uint(v uint64) {
	r.next(true)
	r.buf = strconv.AppendUint(r.buf, v, 10)
}

// Number appends a field that appendNum formats as a bare number, such as a
// similarity.
func (r *Row) Number(appendNum func([]byte, float64) []byte, v float64) {
	r.next(true)
	r.buf = appendNum(r.buf, v)
}

// Word appends a plain ASCII word (no separator, quote, backslash or control
// byte): as it is in TSV and CSV, as a JSON string in JSONL.
func (r *Row) Word(w string) {
	r.next(true)
	if r.format == JSONL {
		r.buf = append(append(append(r.buf, '"'), w...), '"')
	} else {
		r.buf = append(r.buf, w...)
	}
}

// Text appends any bytes: escaped (AppendTSV), quoted (AppendCSV), or as a
// JSON string under the column's key, or under key_base64 when they are not
// UTF-8 (AppendJSONField).
func (r *Row) Text(v []byte) {
	switch r.format {
	case JSONL:
		key := r.key()
		r.next(false)
		r.buf = AppendJSONField(r.buf, key, v)
	case CSV:
		r.next(false)
		r.buf = AppendCSV(r.buf, v)
	default:
		r.next(false)
		r.buf = AppendTSV(r.buf, v)
	}
}

// Skip passes over an absent field: an empty CSV field; nothing in TSV (so
// it may only end a row there) and JSONL.
func (r *Row) Skip() {
	if r.format == CSV {
		r.next(false)
	} else {
		r.col++
	}
}

// End ends the row and returns its line, newline included.
func (r *Row) End() []byte {
	if r.format == JSONL {
		r.buf = append(r.buf, '}')
	}
	r.buf = append(r.buf, '\n')
	return r.buf
}

// Writer writes rows (its Row) to an io.Writer through a 64 KiB buffer,
// the CSV header first, and keeps the first write error: once a write has
// failed, the others do nothing and return it. It is not safe for
// concurrent use.
type Writer struct {
	*Row
	w       *bufio.Writer
	started bool // the CSV header is written
	err     error
	// EagerHeader writes the CSV header at Flush even when no row was
	// written (otherwise an output of no row is empty).
	EagerHeader bool
}

// NewWriter returns a Writer of rows of cols in format f to w.
func NewWriter(w io.Writer, f Format, cols ...Column) *Writer {
	return &Writer{Row: NewRow(f, cols...), w: bufio.NewWriterSize(w, 1<<16)}
}

func (w *Writer) start() {
	if !w.started && w.format == CSV && w.err == nil {
		_, w.err = w.w.Write(w.Header())
	}
	w.started = true
}

// WriteRow ends the row begun (Row.End) and writes it.
func (w *Writer) WriteRow() error { return w.WriteLine(w.End()) }

// WriteLine writes a line the caller encoded (newline included), as a row.
func (w *Writer) WriteLine(line []byte) error {
	w.start()
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
	if w.EagerHeader {
		w.start()
	}
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}
