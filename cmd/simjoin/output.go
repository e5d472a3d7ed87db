package main

import (
	"bufio"
	"errors"
	"io"

	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/prefix"
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
// Ids are strings (line numbers or paths) given by the caller, encoded by
// package fieldenc.
type pairWriter struct {
	w       *bufio.Writer
	format  format
	integer bool   // similarities are integers (the overlap measure)
	simKey  string // JSONL key of the similarity ("sim", or "est" for estimates)
	started bool   // the CSV header is written (before the first pair, or at flush)
	header  string // the CSV header line without its newline; "" for id_a,id_b,similarity (or estimate)
	buf     []byte
}

func newPairWriter(w io.Writer, f format, integer bool) *pairWriter {
	return &pairWriter{w: bufio.NewWriterSize(w, 1<<16), format: f, integer: integer, simKey: "sim"}
}

// start writes the CSV header once: "similarity", or "estimate" when the
// similarities are estimates.
func (pw *pairWriter) start() {
	if pw.started {
		return
	}
	pw.started = true
	if pw.format == formatCSV {
		if pw.header != "" {
			pw.w.WriteString(pw.header + "\n")
		} else if pw.simKey == "est" {
			pw.w.WriteString("id_a,id_b,estimate\n")
		} else {
			pw.w.WriteString("id_a,id_b,similarity\n")
		}
	}
}

// appendSim formats a similarity: integers as they are, fractions with up to
// six decimals and no trailing zeros (prefix.Measure.AppendSim).
func (pw *pairWriter) appendSim(b []byte, sim float64) []byte {
	if pw.integer {
		return prefix.Overlap.AppendSim(b, sim)
	}
	return prefix.Jaccard.AppendSim(b, sim)
}

// write writes one pair; numeric ids are written bare in JSONL.
func (pw *pairWriter) write(a, b []byte, numeric bool, sim float64) error {
	pw.start()
	var buf []byte
	switch pw.format {
	case formatCSV:
		buf = fieldenc.AppendCSV(pw.buf[:0], a)
		buf = append(buf, ',')
		buf = fieldenc.AppendCSV(buf, b)
		buf = append(buf, ',')
		buf = pw.appendSim(buf, sim)
		buf = append(buf, '\n')
	case formatJSONL:
		buf = append(pw.buf[:0], '{')
		buf = appendJSONID(buf, "a", a, numeric)
		buf = append(buf, ',')
		buf = appendJSONID(buf, "b", b, numeric)
		buf = append(buf, `,"`...)
		buf = append(buf, pw.simKey...)
		buf = append(buf, `":`...)
		buf = pw.appendSim(buf, sim)
		buf = append(buf, "}\n"...)
	default:
		buf = fieldenc.AppendTSV(pw.buf[:0], a)
		buf = append(buf, '\t')
		buf = fieldenc.AppendTSV(buf, b)
		buf = append(buf, '\t')
		buf = pw.appendSim(buf, sim)
		buf = append(buf, '\n')
	}
	pw.buf = buf
	_, err := pw.w.Write(buf)
	return err
}

// appendJSONID appends `"key":id`: a numeric id bare, any other as
// fieldenc.AppendJSONField writes it (key_base64 when it is not UTF-8).
func appendJSONID(b []byte, key string, id []byte, numeric bool) []byte {
	if numeric {
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":`...)
		return append(b, id...)
	}
	return fieldenc.AppendJSONField(b, key, id)
}

func (pw *pairWriter) flush() error {
	pw.start()
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
