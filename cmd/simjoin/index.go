package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

func init() { register(newIndexCmd) }

// indexBatch is the number of records `index add` inserts, and the number
// of queries `index search` answers, at a time: each batch is synced (add)
// and its lines written before the next is read, so output streams.
const indexBatch = 1024

// indexBatchBytes caps the text of one batch, so long records stream too.
const indexBatchBytes = 4 << 20

const indexLong = `A living index: a directory that holds a growing collection of records,
created once with its tokenizer and method, then taking inserts, deletes and
searches; it survives restarts and crashes, and simjoin serve serves it over
HTTP. Record ids are assigned by the index: 0, 1, 2, ... in insertion order,
never reused.

  simjoin index create DIR --tokens words --method exact --min-threshold 0.5
  simjoin index add DIR [--dedup -t T] INPUT
  simjoin index search DIR (-t T | --top-k K [--refine-k R]) QUERIES
  simjoin index delete DIR ID...
  simjoin index compact DIR
  simjoin index stats DIR
  simjoin index verify DIR

Exit status: 0 success, 1 runtime error (not an index, a corrupt file, which
the message names), 2 usage error.`

func newIndexCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Create, fill, search and maintain a persistent similarity index",
		Long:  indexLong,
	}
	cmd.AddCommand(newIndexCreateCmd(e), newIndexAddCmd(e), newIndexSearchCmd(e),
		newIndexDeleteCmd(e), newIndexCompactCmd(e), newIndexStatsCmd(e), newIndexVerifyCmd(e))
	return cmd
}

// openIndex opens the index in dir, mapping the library's errors to the
// command line's: not an index or corrupt, exit status 1 with the file named.
func openIndex(dir string, workers int) (*index.Index, error) {
	ix, err := index.Open(dir, index.OpenOptions{Workers: workers})
	if errors.Is(err, index.ErrNotIndex) {
		return nil, fmt.Errorf("%s is not an index (create one with simjoin index create): %w", dir, err)
	}
	if errors.Is(err, index.ErrLocked) {
		return nil, fmt.Errorf("%s: %w (by another process, such as simjoin serve: stop it, or use its HTTP API)", dir, err)
	}
	return ix, err
}

// closeIndex closes ix, keeping the first error.
func closeIndex(ix *index.Index, err *error) {
	if cerr := ix.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// indexError maps an error of an index operation: a threshold below the
// index's minimum is the user's (exit status 2).
func indexError(err error, flag string) error {
	if errors.Is(err, index.ErrThresholdBelowMin) || errors.Is(err, index.ErrOptions) {
		return usageError{fmt.Errorf("%s: %w", flag, err)}
	}
	return err
}

// --- create -----------------------------------------------------------------

type indexCreateFlags struct {
	tokens, measure, method, minThreshold string
	lsh                                   string
	perm, bands, bits                     int
	recall                                float64
	seed                                  string
	rawSets                               bool
}

func newIndexCreateCmd(e *env) *cobra.Command {
	var f indexCreateFlags
	cmd := &cobra.Command{
		Use:   "create DIR --min-threshold T [flags]",
		Short: "Create an empty index in DIR",
		Long: `Create an empty index in DIR (made if missing; an index already there is an
error). The tokenizer, the measure, the method and the minimum threshold are
fixed here: every record and query is tokenized with --tokens, and every
search and dedup threshold must be at least --min-threshold.

--method exact indexes the prefixes of the records' sets for that minimum
threshold and answers exactly. --method lsh keeps MinHash signatures of --perm
values of --bits bits in --lsh BxR bands (or --bands B of perm/B rows; by
default the cheapest banding whose probability of finding a pair at the
minimum threshold reaches --recall); with --raw-sets it also keeps the sets and
verifies candidates exactly, without them similarities are estimates and the
index is smaller. LSH estimates Jaccard similarity.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config(cmd.Flags())
			if err != nil {
				return err
			}
			ix, err := index.Create(args[0], cfg)
			if errors.Is(err, index.ErrExists) {
				return fmt.Errorf("%s already holds an index: %w", args[0], err)
			}
			if err != nil {
				return err
			}
			if err := ix.Close(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "created %s: %s\n", args[0], describeConfig(cfg))
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.tokens, "tokens", "set", "how a record becomes a set: set, words, qgram:N, shingle:N or go:N")
	fs.StringVar(&f.measure, "measure", "jaccard", "similarity measure: jaccard, cosine, dice or overlap (lsh: jaccard)")
	fs.StringVar(&f.method, "method", "exact", "exact (prefix index) or lsh (MinHash bands)")
	fs.StringVar(&f.minThreshold, "min-threshold", "", "the smallest threshold a search or dedup may ask, such as 0.5 or 1/2 (required)")
	fs.StringVar(&f.lsh, "lsh", "", "lsh: banding `BxR`, B bands of R rows (sets --perm to B·R)")
	fs.IntVar(&f.bands, "bands", 0, "lsh: `B` bands of perm/B rows")
	fs.IntVar(&f.perm, "perm", approx.DefaultK, "lsh: MinHash signature length `K`, 1.."+strconv.Itoa(approx.MaxK))
	fs.IntVar(&f.bits, "bits", approx.DefaultBits, "lsh: bits stored of each MinHash value: 8, 16, 32 or 64")
	fs.Float64Var(&f.recall, "recall", approx.DefaultRecall, "lsh: the banding's least chance of finding a pair at --min-threshold, when --lsh and --bands are not given")
	fs.StringVar(&f.seed, "seed", "0", "lsh: seed of the MinHash functions, an integer in [0, 2^64)")
	fs.BoolVar(&f.rawSets, "raw-sets", false, "lsh: keep the token sets and verify candidates exactly (similarities exact, index larger)")
	return cmd
}

// config checks the flags of create and returns the index's configuration.
func (f *indexCreateFlags) config(fs *pflag.FlagSet) (index.Config, error) {
	var cfg index.Config
	var err error
	if cfg.Tokens, err = shingle.Parse(f.tokens); err != nil {
		return cfg, usageError{err}
	}
	if cfg.Measure, err = prefix.ParseMeasure(f.measure); err != nil {
		return cfg, usageError{err}
	}
	if f.minThreshold == "" {
		return cfg, usagef("missing --min-threshold")
	}
	if cfg.MinThreshold, err = prefix.ParseThreshold(cfg.Measure, f.minThreshold); err != nil {
		return cfg, usagef("--min-threshold: %v", err)
	}
	lshOnly := []string{"lsh", "bands", "perm", "bits", "recall", "seed", "raw-sets"}
	switch f.method {
	case "exact":
		cfg.Method = index.Exact
		for _, name := range lshOnly {
			if fs.Changed(name) {
				return cfg, usagef("--%s applies to --method lsh", name)
			}
		}
		return cfg, nil
	case "lsh":
		cfg.Method = index.LSH
	default:
		return cfg, usagef("unknown --method %q: want exact or lsh", f.method)
	}
	if cfg.Measure != prefix.Jaccard {
		return cfg, usagef("--method lsh estimates Jaccard similarity: use --measure jaccard, or --method exact for %s", cfg.Measure)
	}
	if !approx.ValidBits(f.bits) {
		return cfg, usagef("--bits %d: want 8, 16, 32 or 64", f.bits)
	}
	if f.perm < 1 || f.perm > approx.MaxK {
		return cfg, usagef("--perm %d: want a signature length in 1..%d", f.perm, approx.MaxK)
	}
	if cfg.Seed, err = strconv.ParseUint(f.seed, 10, 64); err != nil {
		return cfg, usagef("--seed %q: want an integer in [0, 2^64)", f.seed)
	}
	cfg.Bits, cfg.RawSets = f.bits, f.rawSets
	switch {
	case f.lsh != "" && fs.Changed("bands"):
		return cfg, usagef("give --lsh BxR or --bands B, not both")
	case f.lsh != "":
		sh, err := approx.ParseShape(f.lsh)
		if err != nil {
			return cfg, usagef("--lsh: %v", err)
		}
		if fs.Changed("perm") && sh.B*sh.R != f.perm {
			return cfg, usagef("--lsh %s uses %d signature values but --perm is %d: drop --perm or make it B·R", sh, sh.B*sh.R, f.perm)
		}
		if sh.B*sh.R > approx.MaxK {
			return cfg, usagef("--lsh %s needs %d signature values, at most %d", sh, sh.B*sh.R, approx.MaxK)
		}
		cfg.Perm, cfg.Bands = sh.B*sh.R, sh.B
	case fs.Changed("bands"):
		if f.bands < 1 || f.bands > f.perm {
			return cfg, usagef("--bands %d: want 1 to --perm (%d)", f.bands, f.perm)
		}
		cfg.Perm, cfg.Bands = f.perm, f.bands
	default:
		o, err := approx.Options{Measure: cfg.Measure, Threshold: cfg.MinThreshold, K: f.perm, Bits: f.bits, Recall: f.recall}.Resolve()
		if err != nil {
			return cfg, usageError{err}
		}
		cfg.Perm, cfg.Bands = o.Shape.B*o.Shape.R, o.Shape.B
	}
	return cfg, nil
}

// describeConfig is the one-line description of an index's configuration.
func describeConfig(c index.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tokens %s, %s >= %s, ", c.Tokens, c.Measure, c.MinThreshold)
	switch c.Method {
	case index.Exact:
		b.WriteString("exact")
	case index.LSH:
		fmt.Fprintf(&b, "lsh %dx%d, %d-bit signatures of %d values, seed %d", c.Bands, c.Perm/max(c.Bands, 1), c.Bits, c.Perm, c.Seed)
		if c.RawSets {
			b.WriteString(", raw sets (exact similarities)")
		} else {
			b.WriteString(", no raw sets (estimated similarities)")
		}
	default:
		fmt.Fprintf(&b, "method %d", c.Method)
	}
	return b.String()
}

// --- add --------------------------------------------------------------------

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

Records go in batches of --batch lines; a batch's lines are printed only once
the batch is durable (synced to the write-ahead log), so whatever was printed
before a crash is in the index after it. On SIGINT, SIGTERM or SIGHUP the
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
	fs.IntVar(&batch, "batch", indexBatch, "records inserted, synced and printed at a time")
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
		if err := checkMin(cfg, t, "-t"); err != nil {
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
// (1-based). The lines are copies that f may keep.
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
		if len(lines) >= maxRecs || size >= indexBatchBytes {
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

// checkMin rejects a threshold below an Exact index's minimum before any
// work.
func checkMin(cfg index.Config, t prefix.Threshold, flag string) error {
	m := cfg.MinThreshold
	if cfg.Method == index.Exact && t.Den != 0 && m.Den != 0 && t.Num*m.Den < m.Num*t.Den {
		return usagef("%s %s is below the index's minimum threshold %s (fixed at index create)", flag, t, m)
	}
	return nil
}

// recordError names the file and line of a record the tokenizer rejected
// (found by tokenizing the batch again, only on this failure path), and
// maps the other errors of the index.
func recordError(err error, cfg index.Config, recs [][]byte, name string, first int, flag string) error {
	var se *shingle.ScanError
	if errors.Is(err, shingle.ErrUTF8) || errors.As(err, &se) {
		var keys []uint64
		for k, r := range recs {
			if _, terr := cfg.Tokens.AppendBytes(keys[:0], r); terr != nil {
				return &inputError{file: name, line: first + k, err: terr}
			}
		}
		return &inputError{file: name, err: err}
	}
	return indexError(err, flag)
}

// outcomeWriter writes the outcome of each input record of `index add`.
type outcomeWriter struct {
	pw  *pairWriter // its buffer, CSV writer and similarity format
	est bool        // similarities are MinHash estimates
	err error
}

func newOutcomeWriter(w io.Writer, f format, cfg index.Config) *outcomeWriter {
	pw := &pairWriter{format: f, integer: cfg.Measure == prefix.Overlap, simKey: "sim"}
	pw.w = bufio.NewWriterSize(w, 1<<16)
	ow := &outcomeWriter{pw: pw, est: cfg.Method == index.LSH && !cfg.RawSets}
	if ow.est {
		pw.simKey = "est"
	}
	if f == formatCSV {
		pw.csv = csv.NewWriter(pw.w)
		ow.err = pw.csv.Write([]string{"line", "status", "id", pw.simKey})
	}
	return ow
}

func (ow *outcomeWriter) outcome(line int, o index.Outcome) {
	if ow.err != nil {
		return
	}
	pw := ow.pw
	status := "inserted"
	if !o.Inserted {
		status = "duplicate"
	}
	switch pw.format {
	case formatCSV:
		rec := []string{strconv.Itoa(line), status, strconv.FormatUint(uint64(o.ID), 10), ""}
		if !o.Inserted {
			rec[3] = string(pw.appendSim(nil, o.Sim))
		}
		ow.err = pw.csv.Write(rec)
		return
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

// --- search -----------------------------------------------------------------

type indexSearchFlags struct {
	threshold     string
	topK, refineK int
	only, exclude string
	format        string
	output        string
	workers       int
}

func newIndexSearchCmd(e *env) *cobra.Command {
	var f indexSearchFlags
	cmd := &cobra.Command{
		Use:   "search DIR (-t T | --top-k K [--refine-k R]) QUERIES",
		Short: "Find the held records similar to each line of QUERIES",
		Long: `Search the index for each line of QUERIES ("-" for stdin) and print the
records found, best first per query (ties by id), one a line:

  QUERY_LINE<TAB>ID<TAB>SIM

By threshold (-t T, at least the index's minimum threshold): every live
record whose similarity reaches T (for LSH, up to the banding's recall). By
rank (--top-k K): the K most similar; --refine-k R fetches R candidates by
their estimate and verifies them exactly before keeping the best K. --only
and --exclude restrict the search to, or keep it off, a comma-separated list
of ids. Queries are answered in batches, which share the work.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIndexSearch(cmd.Context(), e, &f, args[0], args[1])
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.threshold, "threshold", "t", "", "report every record at or above this similarity")
	fs.IntVar(&f.topK, "top-k", 0, "report the `K` most similar records instead")
	fs.IntVar(&f.refineK, "refine-k", 0, "with --top-k: verify `R` candidates chosen by estimate (default: the index's choice)")
	fs.StringVar(&f.only, "only", "", "search only these `IDS` (comma-separated)")
	fs.StringVar(&f.exclude, "exclude", "", "skip these `IDS` (comma-separated)")
	fs.StringVar(&f.format, "format", "tsv", "output format: tsv, csv or jsonl")
	fs.StringVarP(&f.output, "output", "o", "", "write the results to `FILE` (written whole or not at all) instead of stdout")
	fs.IntVarP(&f.workers, "workers", "j", 0, "worker goroutines (0: one per core); results do not depend on it")
	return cmd
}

// parseIDs reads a comma-separated id list.
func parseIDs(flag, s string) ([]index.ID, error) {
	var out []index.ID
	for _, f := range strings.Split(s, ",") {
		id, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, usagef("--%s: %q is not a record id (an integer >= 0)", flag, f)
		}
		out = append(out, index.ID(id))
	}
	return out, nil
}

// options checks the search flags against the index's configuration.
func (f *indexSearchFlags) options(cfg index.Config) (index.SearchOptions, error) {
	var opt index.SearchOptions
	switch {
	case f.threshold != "" && f.topK != 0:
		return opt, usagef("give -t or --top-k, not both")
	case f.threshold == "" && f.topK == 0:
		return opt, usagef("missing -t/--threshold or --top-k")
	case f.refineK != 0 && f.topK == 0:
		return opt, usagef("--refine-k needs --top-k")
	case f.topK < 0:
		return opt, usagef("--top-k %d: want >= 1", f.topK)
	case f.refineK != 0 && f.refineK < f.topK:
		return opt, usagef("--refine-k %d: want at least --top-k (%d)", f.refineK, f.topK)
	case f.only != "" && f.exclude != "":
		return opt, usagef("give --only or --exclude, not both")
	}
	if f.threshold != "" {
		t, err := prefix.ParseThreshold(cfg.Measure, f.threshold)
		if err != nil {
			return opt, usageError{err}
		}
		if err := checkMin(cfg, t, "-t"); err != nil {
			return opt, err
		}
		opt.Threshold = t
	}
	opt.TopK, opt.RefineK = f.topK, f.refineK
	var err error
	if f.only != "" {
		if opt.Only, err = parseIDs("only", f.only); err != nil {
			return opt, err
		}
	}
	if f.exclude != "" {
		if opt.Exclude, err = parseIDs("exclude", f.exclude); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

func runIndexSearch(ctx context.Context, e *env, f *indexSearchFlags, dir, queries string) (err error) {
	outFmt, err := parseFormat(f.format)
	if err != nil {
		return err
	}
	e.outs.Protect(queries)
	out, err := e.create(f.output)
	if err != nil {
		return err
	}
	ix, err := openIndex(dir, f.workers)
	if err != nil {
		return err
	}
	defer closeIndex(ix, &err)
	cfg := ix.Config()
	opt, err := f.options(cfg)
	if err != nil {
		return err
	}
	in, err := openInput(queries, e.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	name := in.name
	pw := newPairWriter(out, outFmt, cfg.Measure == prefix.Overlap)
	simCol := "similarity"
	if cfg.Method == index.LSH && !cfg.RawSets {
		pw.simKey, simCol = "est", "estimate"
	}
	csvHeader(pw, out, "query", "id", simCol)
	var abuf, bbuf []byte
	err = lineBatches(in, name, indexBatch, func(first int, qs [][]byte) error {
		res, err := ix.Search(ctx, qs, opt)
		if err != nil {
			return recordError(err, cfg, qs, name, first, "-t")
		}
		for k, hits := range res {
			abuf = strconv.AppendInt(abuf[:0], int64(first+k), 10)
			for _, h := range hits {
				bbuf = strconv.AppendUint(bbuf[:0], uint64(h.ID), 10)
				if err := pw.write(abuf, bbuf, true, h.Sim); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return pw.flush()
}

// csvHeader replaces the CSV header pw has buffered (join's id_a, id_b,
// similarity) with cols; other formats have none.
func csvHeader(pw *pairWriter, w io.Writer, cols ...string) {
	if pw.format == formatCSV {
		pw.w.Reset(w)
		pw.csv = csv.NewWriter(pw.w)
		pw.csv.Write(cols)
	}
}

// --- delete, compact, stats, verify ----------------------------------------

func newIndexDeleteCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete DIR ID...",
		Short: "Delete records by id (\"-\": ids one a line on stdin)",
		Long: `Delete the records with the given ids; "-" reads the ids one a line from
stdin. The deletion is durable when the command returns. Ids that are not
live (never assigned, or already deleted) are not an error; the command
prints how many records it deleted.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var ids []index.ID
			for _, a := range args[1:] {
				if a == "-" {
					lr := newLineReader(e.stdin)
					for {
						line, err := lr.next()
						if err == io.EOF {
							break
						}
						if err != nil {
							return &inputError{file: "<stdin>", err: err}
						}
						id, err := strconv.ParseUint(strings.TrimSpace(string(line)), 10, 64)
						if err != nil {
							return &inputError{file: "<stdin>", line: lr.line, err: fmt.Errorf("not a record id (an integer >= 0)")}
						}
						ids = append(ids, index.ID(id))
					}
					continue
				}
				id, err := strconv.ParseUint(a, 10, 64)
				if err != nil {
					return usagef("%q is not a record id (an integer >= 0)", a)
				}
				ids = append(ids, index.ID(id))
			}
			ix, err := openIndex(args[0], 0)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			n, err := ix.Delete(ids)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "deleted %d of %d ids\n", n, len(ids))
			return err
		},
	}
	return cmd
}

func newIndexCompactCmd(e *env) *cobra.Command {
	var workers int
	cmd := &cobra.Command{
		Use:   "compact DIR",
		Short: "Merge the segments, drop deleted records and re-order tokens rare-first",
		Long: `Merge the index's segments and its recent inserts into one, drop deleted
records and order the tokens rare-first again (tokens first seen after the
last build are appended to the order, which keeps every answer right but
costs speed until compaction). Searches give the same answers before and
after. simjoin index stats shows the segments, tokens and bytes on disk.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ix, err := openIndex(args[0], workers)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			before := ix.Stats()
			if err := ix.Compact(cmd.Context()); err != nil {
				return err
			}
			after := ix.Stats()
			_, err = fmt.Fprintf(e.stdout, "compacted %s: %d live records of %d, %d deleted dropped\n",
				args[0], after.Live, after.Records, before.Deleted-after.Deleted)
			return err
		},
	}
	cmd.Flags().IntVarP(&workers, "workers", "j", 0, "worker goroutines (0: one per core)")
	return cmd
}

func newIndexStatsCmd(e *env) *cobra.Command {
	var formatName string
	cmd := &cobra.Command{
		Use:   "stats DIR",
		Short: "Print the index's configuration and statistics",
		Long: `Print the index's statistics, one key<TAB>value a line (--format jsonl: one
JSON object, the same that simjoin serve answers on GET /v1/stats).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			switch formatName {
			case "tsv", "jsonl":
			default:
				return usagef("unknown --format %q: want tsv or jsonl", formatName)
			}
			ix, err := openIndex(args[0], 0)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			st := ix.Stats()
			if formatName == "jsonl" {
				b, err := httpapi.MarshalStats(st)
				if err != nil {
					return err
				}
				_, err = e.stdout.Write(append(b, '\n'))
				return err
			}
			rows := append([][2]string{{"config", describeConfig(ix.Config())}}, statsRows(st)...)
			return writeRows(e.stdout, rows)
		},
	}
	cmd.Flags().StringVar(&formatName, "format", "tsv", "output format: tsv or jsonl")
	return cmd
}

// statsRows lists the index's statistics as (key, value) rows.
func statsRows(st index.Stats) [][2]string {
	var rows [][2]string
	for _, f := range httpapi.StatsFields(st) {
		b, err := json.Marshal(f.Value)
		if err != nil {
			continue
		}
		rows = append(rows, [2]string{f.Key, strings.Trim(string(b), `"`)})
	}
	return rows
}

func writeRows(w io.Writer, rows [][2]string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, r := range rows {
		bw.WriteString(r[0])
		bw.WriteByte('\t')
		bw.WriteString(r[1])
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func newIndexVerifyCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "verify DIR",
		Short: "Check every checksum of the index; exit status 1 naming the corrupt file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ix, err := openIndex(args[0], 0)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			if err := ix.Verify(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%s: ok\n", args[0])
			return err
		},
	}
}
