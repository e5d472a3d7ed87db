package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strconv"

	"github.com/simjoin/simjoin/internal/outfile"
)

// format is an output format for pairs.
type format int

const (
	formatTSV format = iota
	formatCSV
	formatJSONL
)

func parseFormat(s string) (format, error) {
	switch s {
	case "tsv":
		return formatTSV, nil
	case "csv":
		return formatCSV, nil
	case "jsonl":
		return formatJSONL, nil
	}
	return 0, usagef("unknown --format %q: want tsv, csv or jsonl", s)
}

// pairWriter writes pairs: id_a, id_b and the similarity, one a line.
// Ids are strings (line numbers or paths) given by the caller.
type pairWriter struct {
	w       *bufio.Writer
	csv     *csv.Writer
	format  format
	integer bool   // similarities are integers (the overlap measure)
	simKey  string // JSONL key of the similarity ("sim", or "est" for estimates)
	buf     []byte
}

func newPairWriter(w io.Writer, f format, integer bool) *pairWriter {
	pw := &pairWriter{w: bufio.NewWriterSize(w, 1<<16), format: f, integer: integer, simKey: "sim"}
	if f == formatCSV {
		pw.csv = csv.NewWriter(pw.w)
		pw.csv.Write([]string{"id_a", "id_b", "similarity"})
	}
	return pw
}

// appendSim formats a similarity: integers as they are, fractions with up to
// six decimals and no trailing zeros.
func (pw *pairWriter) appendSim(b []byte, sim float64) []byte {
	if pw.integer {
		return strconv.AppendInt(b, int64(sim), 10)
	}
	start := len(b)
	b = strconv.AppendFloat(b, sim, 'f', 6, 64)
	for len(b) > start+1 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}

// write writes one pair; numeric ids are written bare in JSONL.
func (pw *pairWriter) write(a, b []byte, numeric bool, sim float64) error {
	switch pw.format {
	case formatCSV:
		return pw.csv.Write([]string{string(a), string(b), string(pw.appendSim(pw.buf[:0], sim))})
	case formatJSONL:
		buf := append(pw.buf[:0], `{"a":`...)
		buf = appendJSONID(buf, a, numeric)
		buf = append(buf, `,"b":`...)
		buf = appendJSONID(buf, b, numeric)
		buf = append(buf, `,"`...)
		buf = append(buf, pw.simKey...)
		buf = append(buf, `":`...)
		buf = pw.appendSim(buf, sim)
		buf = append(buf, "}\n"...)
		pw.buf = buf
		_, err := pw.w.Write(buf)
		return err
	default:
		buf := append(pw.buf[:0], a...)
		buf = append(buf, '\t')
		buf = append(buf, b...)
		buf = append(buf, '\t')
		buf = pw.appendSim(buf, sim)
		buf = append(buf, '\n')
		pw.buf = buf
		_, err := pw.w.Write(buf)
		return err
	}
}

func appendJSONID(b []byte, id []byte, numeric bool) []byte {
	if numeric {
		return append(b, id...)
	}
	return strconv.AppendQuote(b, string(id))
}

func (pw *pairWriter) flush() error {
	if pw.csv != nil {
		pw.csv.Flush()
		if err := pw.csv.Error(); err != nil {
			return err
		}
	}
	return pw.w.Flush()
}

// create opens path as an output of the run (see internal/outfile: "-" and
// "" are standard output, a regular file is replaced only when the run
// succeeds, devices and pipes are written straight). The run commits every
// output together when the command succeeds and removes them otherwise.
// Asking for standard output twice, or for an input, is a usage error.
func (e *env) create(path string) (*outfile.File, error) {
	f, err := e.outs.Create(path)
	if errors.Is(err, outfile.ErrStdoutTaken) || errors.Is(err, outfile.ErrInput) || errors.Is(err, outfile.ErrDuplicate) {
		return nil, usageError{err}
	}
	return f, err
}
