package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/outfile"
	rpt "github.com/simjoin/simjoin/internal/report"
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

// pairWriter writes pairs: id_a, id_b and the similarity, one a line, as
// a rowWriter made at the first pair or flush (once simKey is settled). Ids
// are strings (line numbers or paths) given by the caller, encoded by
// package fieldenc; numeric ids are written bare in JSONL. The CSV header is
// written even for no pair.
type pairWriter struct {
	w       io.Writer
	format  format
	integer bool   // similarities are integers (the overlap measure)
	simKey  string // JSONL key of the similarity ("sim", or "est" for estimates: CSV "estimate")
	rw      *rowWriter
}

func newPairWriter(w io.Writer, f format, integer bool) *pairWriter {
	return &pairWriter{w: w, format: f, integer: integer, simKey: "sim"}
}

func (pw *pairWriter) rows() *rowWriter {
	if pw.rw == nil {
		sim := fieldenc.Column{Name: "similarity", Key: "sim"}
		if pw.simKey == "est" {
			sim = fieldenc.Column{Name: "estimate", Key: "est"}
		}
		pw.rw = newRowWriter(pw.w, pw.format, pw.integer, fieldenc.Column{Name: "id_a", Key: "a"}, fieldenc.Column{Name: "id_b", Key: "b"}, sim)
		pw.rw.EagerHeader = true
	}
	return pw.rw
}

// write writes one pair.
func (pw *pairWriter) write(a, b []byte, numeric bool, sim float64) error {
	rw := pw.rw
	if rw == nil {
		rw = pw.rows()
	}
	line := rw.Line()
	if numeric {
		line = append(rw.Field(append(rw.Field(line), a...)), b...)
	} else {
		line = rw.Text(rw.Text(line, a), b)
	}
	return rw.WriteRow(rw.similarity(line, sim))
}

func (pw *pairWriter) flush() error { return pw.rows().Flush() }

// appendSim formats a similarity as write does.
func (pw *pairWriter) appendSim(b []byte, sim float64) []byte {
	return appendSimilarity(b, sim, pw.integer)
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

// emit completes the report and writes it where asked: as text on stderr
// (--stats), as JSON to jsonOut (--stats-json's file, nil when not asked).
func (e *env) emit(r *rpt.Report, text bool, jsonOut *outfile.File) error {
	var tw, jw io.Writer
	if text {
		tw = e.stderr
	}
	if jsonOut != nil {
		jw = jsonOut
	}
	if err := r.Emit(tw, jw); err != nil {
		return fmt.Errorf("--stats-json: %w", err)
	}
	return nil
}
