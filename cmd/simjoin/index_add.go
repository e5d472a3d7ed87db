package main

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

func newIndexAddCmd(e *env) *cobra.Command {
	var dedup bool
	var threshold, formatName string
	var batch, workers int
	cmd := &cobra.Command{
		Use:   "add DIR [--dedup -t T] INPUT",
		Short: "Insert the records of INPUT, or with --dedup only those not already held",
		Long: `Insert each line of INPUT ("-" for stdin) as a record, and print one line
per input record:

  LINE<TAB>inserted<TAB>ID
  LINE<TAB>duplicate<TAB>ID<TAB>SIM

LINE is the 1-based line of INPUT. With --dedup -t T, search before insert: a
record is inserted only when no record already held, nor an earlier record of
this input, reaches T; otherwise it is reported as a duplicate of the held
record it matches best (ID) at similarity SIM. T must be at least the index's
minimum threshold. For an exact index the records kept are exactly those of a
sequential greedy dedup; for LSH, up to the banding's recall.

Records go in batches of at most --batch lines, fewer when the input has no
more lines ready (a batch never waits for input that has not arrived); a
batch's lines are printed only once it is durable (synced to the write-ahead
log), so whatever was printed before a crash is in the index after it. On SIGINT, SIGTERM or SIGHUP the
command stops before the next batch (a batch is held whole or not at all) and
exits with status 128 plus the signal's number.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFormat(formatName)
			if err != nil {
				return err
			}
			if batch < 1 {
				return usagef("--batch %d: want >= 1", batch)
			}
			if threshold != "" && !dedup {
				return usagef("-t applies to --dedup")
			}
			if dedup && threshold == "" {
				return usagef("--dedup needs -t/--threshold")
			}
			return runIndexAdd(cmd.Context(), e, args[0], args[1], dedup, threshold, f, batch, workers)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&dedup, "dedup", false, "search before insert: skip records that reach -t against a held record")
	fs.StringVarP(&threshold, "threshold", "t", "", "--dedup threshold, at least the index's minimum, such as 0.8 or 4/5")
	fs.StringVar(&formatName, "format", "tsv", "output format: tsv, csv or jsonl")
	fs.IntVar(&batch, "batch", addBatch, "most records inserted, synced and printed at a time")
	fs.IntVarP(&workers, "workers", "j", 0, "worker goroutines (0: one per core); results do not depend on it")
	return cmd
}

func runIndexAdd(ctx context.Context, e *env, dir, input string, dedup bool, threshold string, f format, batch, workers int) (err error) {
	ix, err := openIndex(dir, workers)
	if err != nil {
		return err
	}
	defer closeIndex(ix, &err)
	cfg := ix.Config()
	var t prefix.Threshold
	if dedup {
		if t, err = prefix.ParseThreshold(cfg.Measure, threshold); err != nil {
			return usageError{err}
		}
		if err := checkOptions(ctx, ix, index.SearchOptions{Threshold: t}); err != nil {
			return err
		}
	}
	in, err := openInput(input, e.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	name := in.name
	w := newOutcomeWriter(e.stdout, f, cfg)
	return lineBatches(in, name, batch, func(first int, recs [][]byte) error {
		outs, err := ix.Insert(ctx, recs, t)
		if err != nil {
			return recordError(err, cfg, recs, name, first, "-t")
		}
		for k, o := range outs {
			w.outcome(first+k, o)
		}
		// The batch is durable: its lines go out now.
		return w.flush()
	})
}

// lineBatches reads the lines of r and calls f with each batch of up to
// maxRecs lines (and about indexBatchBytes of text), numbered from first
// (1-based). A batch also ends when the reader has no more bytes buffered,
// that is when the next line may have to wait for the input: a file goes
// in batches of about the reader's buffer (1 MiB), a pipe in what its
// writer has written, and an interactive stream line by line, each answered
// before the next arrives. The lines are copies that f may keep.
func lineBatches(r io.Reader, name string, maxRecs int, f func(first int, lines [][]byte) error) error {
	lr := newLineReader(r)
	var lines [][]byte
	size, first := 0, 1
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return &inputError{file: name, err: err}
		}
		if len(lines) == 0 {
			first = lr.line
		}
		lines = append(lines, slices.Clone(line))
		size += len(line)
		if len(lines) >= maxRecs || size >= indexBatchBytes || lr.Buffered() == 0 {
			if err := f(first, lines); err != nil {
				return err
			}
			lines, size = lines[:0], 0
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return f(first, lines)
}

// recordError names the file and line of a record the tokenizer rejected
// (found by tokenizing the batch again, only on this failure path), and
// maps the other errors of the index.
func recordError(err error, cfg index.Config, recs [][]byte, name string, first int, flag string) error {
	var se *shingle.ScanError
	if errors.Is(err, shingle.ErrUTF8) || errors.As(err, &se) {
		var keys []uint64
		for k, r := range recs {
			var terr error
			if keys, terr = cfg.Tokens.AppendBytes(keys[:0], r); terr != nil {
				return &inputError{file: name, line: first + k, err: terr}
			}
		}
		return &inputError{file: name, err: err}
	}
	return indexError(err, flag)
}

// outcomeWriter writes the outcome of each input record of `index add`:
// TSV as documented, CSV with the header line,status,id,similarity
// ("estimate" for MinHash estimates), JSONL {"line":1,"status":"inserted",
// "id":0} with "sim" (or "est") for a duplicate.
type outcomeWriter struct {
	pw  *pairWriter // its buffer, CSV header and similarity format
	err error
}

func newOutcomeWriter(w io.Writer, f format, cfg index.Config) *outcomeWriter {
	pw := newPairWriter(w, f, cfg.Measure == prefix.Overlap)
	simCol := "similarity"
	if cfg.Method == index.LSH && !cfg.RawSets {
		pw.simKey, simCol = "est", "estimate"
	}
	pw.header = "line,status,id," + simCol
	return &outcomeWriter{pw: pw}
}

func (ow *outcomeWriter) outcome(line int, o index.Outcome) {
	if ow.err != nil {
		return
	}
	pw := ow.pw
	pw.start()
	status := "inserted"
	if !o.Inserted {
		status = "duplicate"
	}
	switch pw.format {
	case formatCSV:
		b := strconv.AppendInt(pw.buf[:0], int64(line), 10)
		b = append(append(b, ','), status...)
		b = strconv.AppendUint(append(b, ','), uint64(o.ID), 10)
		b = append(b, ',')
		if !o.Inserted {
			b = pw.appendSim(b, o.Sim)
		}
		pw.buf = append(b, '\n')
	case formatJSONL:
		b := strconv.AppendInt(append(pw.buf[:0], `{"line":`...), int64(line), 10)
		b = append(b, `,"status":"`...)
		b = append(b, status...)
		b = strconv.AppendUint(append(b, `","id":`...), uint64(o.ID), 10)
		if !o.Inserted {
			b = append(b, `,"`...)
			b = append(b, pw.simKey...)
			b = pw.appendSim(append(b, `":`...), o.Sim)
		}
		pw.buf = append(b, "}\n"...)
	default:
		b := strconv.AppendInt(pw.buf[:0], int64(line), 10)
		b = append(append(b, '\t'), status...)
		b = strconv.AppendUint(append(b, '\t'), uint64(o.ID), 10)
		if !o.Inserted {
			b = pw.appendSim(append(b, '\t'), o.Sim)
		}
		pw.buf = append(b, '\n')
	}
	_, ow.err = pw.w.Write(pw.buf)
}

func (ow *outcomeWriter) flush() error {
	if ow.err != nil {
		return ow.err
	}
	return ow.pw.flush()
}
