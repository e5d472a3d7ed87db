package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/outfile"
	rpt "github.com/simjoin/simjoin/internal/report"
)

// parseFormat reads --format: tsv, csv or jsonl.
func parseFormat(s string) (fieldenc.Format, error) {
	switch s {
	case "tsv":
		return fieldenc.TSV, nil
	case "csv":
		return fieldenc.CSV, nil
	case "jsonl":
		return fieldenc.JSONL, nil
	}
	return 0, usagef("unknown --format %q: want tsv, csv or jsonl", s)
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
