package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/beam/pipeline"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// globs is a repeatable flag of file globs.
type globs []string

func (g *globs) String() string { return strings.Join(*g, ",") }
func (g *globs) Set(v string) error {
	*g = append(*g, v)
	return nil
}

// config holds the flags; parse fills in the typed fields.
type config struct {
	command                 string
	inputs, against         globs
	output                  string
	shards                  int
	tokens, caseMode, punct string
	files                   bool
	include, exclude        globs
	minTokens               int
	keepGoing               bool
	threshold, measure      string
	method                  string
	stats, clusters         bool
	blockSize, rounds       int
	spanBytes               int64
	lshShape, seed, minhash string
	perm, bits              int
	recall                  float64
	maxBucket, minSize      int
	logLevel, cpuProfile    string
	verbose                 bool
	jsonlField, jsonlID     string
	keep                    string
	outputRecords           bool
	set                     map[string]bool // the flags given on the command line

	submitted *jobID // the job id the SDK logs when it submits
	spec      shingle.Spec
	filter    *fileset.Filter // with --files: the --include and --exclude globs
	listing   fileset.Stats   // with --files: the local listing, R's and S's
	join      pipeline.Join
	lsh       pipeline.LSH
	dedup     pipeline.Dedup
}

func (c *config) addFlags(fs *flag.FlagSet) {
	fs.Var(&c.inputs, "input", "input `GLOB` (repeatable): one record a line (or a file, with --files); gzip and zstd files are decompressed")
	fs.Var(&c.against, "against", "R-S join: pair each record of --input with the records of `GLOB`")
	fs.StringVar(&c.output, "output", "", "output `PREFIX`: files PREFIX-00000-of-0000N, written only when the run succeeds")
	fs.IntVar(&c.shards, "shards", 1, "number of output files")
	fs.StringVar(&c.tokens, "tokens", "set", "how a record becomes a set: set, words, qgram:N, shingle:N or go:N")
	fs.StringVar(&c.caseMode, "case", "fold", "words and shingle:N: fold or keep letter case")
	fs.StringVar(&c.punct, "punct", "drop", "words and shingle:N: drop punctuation or keep it as tokens")
	fs.BoolVar(&c.files, "files", false, "every input file is one record, its id the path; local directories are walked as simjoin join --files walks them")
	fs.Var(&c.include, "include", "with --files: take only local files matching `GLOB` (repeatable; '*' matches '/' too; a glob without '/' matches the file name)")
	fs.Var(&c.exclude, "exclude", "with --files: leave out local files matching `GLOB` (repeatable), such as '*_test.go' or '*/testdata/*'")
	fs.IntVar(&c.minTokens, "min-tokens", 0, "with --files: drop files with fewer than `N` distinct tokens")
	fs.BoolVar(&c.keepGoing, "keep-going", false, "with --files: count and skip what cannot be read (FIFOs, links to nothing, link loops, unreadable files) instead of stopping")
	fs.StringVar(&c.threshold, "t", "", "similarity threshold (short for --threshold)")
	fs.StringVar(&c.threshold, "threshold", "", "similarity threshold: in (0, 1] such as 0.8 or 4/5; an integer >= 1 for overlap (required)")
	fs.StringVar(&c.measure, "measure", "jaccard", "similarity measure: jaccard, cosine, dice or overlap")
	fs.StringVar(&c.method, "method", "", "exact or lsh (default: exact for join, lsh for dedup)")
	fs.BoolVar(&c.stats, "stats", false, "print the summary of the run's metrics on stderr")
	fs.BoolVar(&c.clusters, "clusters", false, "dedup: write ID<TAB>KEPT for every record (KEPT: the record kept of its cluster)")
	fs.StringVar(&c.keep, "keep", "first", "dedup: the record kept of a cluster: first (in input order), longest or shortest (text, in bytes; the first of equals)")
	fs.BoolVar(&c.outputRecords, "output-records", false, "dedup: write the kept records' input lines (JSON objects with --jsonl-field) instead of their ids")
	fs.StringVar(&c.jsonlField, "jsonl-field", "", "read every line as a JSON object whose string field `NAME` is the record's text")
	fs.StringVar(&c.jsonlID, "jsonl-id", "", "with --jsonl-field: the record's id, in every output, is its field `NAME` (a string or a number, one record each)")
	fs.IntVar(&c.blockSize, "block-size", pipeline.DefaultBlockSize, "exact: cut the group of a token held by more records into blocks of about this many indexed records, by set size")
	fs.IntVar(&c.rounds, "rounds", pipeline.DefaultRounds, "dedup: star operations (one shuffle each) of the connected components")
	fs.Int64Var(&c.spanBytes, "span-bytes", pipeline.DefaultSpanBytes, "bytes of input one worker reads at a time")
	fs.StringVar(&c.lshShape, "lsh", "", "lsh: `BxR` bands of rows (default: the cheapest banding whose P(t) reaches --recall)")
	fs.IntVar(&c.perm, "perm", approx.DefaultK, "lsh: MinHash signature length K")
	fs.IntVar(&c.bits, "bits", approx.DefaultBits, "lsh: bits kept of each minimum: 8, 16, 32 or 64")
	fs.Float64Var(&c.recall, "recall", approx.DefaultRecall, "lsh: target recall of the banding choice")
	fs.StringVar(&c.seed, "seed", "0", "lsh: seed of the MinHash functions, in [0, 2^64)")
	fs.StringVar(&c.minhash, "minhash", "oneperm", "lsh: oneperm or classic")
	fs.IntVar(&c.maxBucket, "max-bucket", approx.DefaultMaxBucket, "lsh: a band bucket of more units pairs none (0: no cap)")
	fs.StringVar(&c.logLevel, "log-level", "warn", "with --verbose: level of the runner's and SDK's logs: debug, info, warn or error")
	fs.BoolVar(&c.verbose, "verbose", false, "print the runner's and SDK's logs on stderr (errors are one line without it)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the run (Prism runs in this process) to `FILE`")
	fs.IntVar(&c.minSize, "min-size", 0, "lsh: drop sets of fewer tokens before banding")
}

// parse checks the flags before any work.
func (c *config) parse() error {
	var err error
	if len(c.inputs) == 0 {
		return usagef("missing --input")
	}
	if c.output == "" {
		return usagef("missing --output")
	}
	if c.shards < 1 {
		return usagef("--shards must be >= 1")
	}
	if c.spec, err = shingle.Parse(c.tokens); err != nil {
		return usageError{err}
	}
	switch c.caseMode {
	case "fold":
	case "keep":
		c.spec.Norm |= shingle.KeepCase
	default:
		return usagef("unknown --case %q: want fold or keep", c.caseMode)
	}
	switch c.punct {
	case "drop":
	case "keep":
		c.spec.Norm |= shingle.KeepPunct
	default:
		return usagef("unknown --punct %q: want drop or keep", c.punct)
	}
	if err := c.parseFiles(); err != nil {
		return err
	}
	if c.join.Measure, err = prefix.ParseMeasure(c.measure); err != nil {
		return usageError{err}
	}
	if c.threshold == "" {
		return usagef("missing -t/--threshold")
	}
	if c.join.Threshold, err = prefix.ParseThreshold(c.join.Measure, c.threshold); err != nil {
		return usageError{err}
	}
	if c.method == "" {
		c.method = map[string]string{"join": "exact", "dedup": "lsh"}[c.command]
	}
	if c.method != "exact" && c.method != "lsh" {
		return usagef("unknown --method %q: want exact or lsh", c.method)
	}
	if c.command == "dedup" && len(c.against) > 0 {
		return usagef("dedup clusters one collection: --against is not allowed")
	}
	if err := c.parseFormats(); err != nil {
		return err
	}
	if c.blockSize < 2 {
		return usagef("--block-size must be >= 2")
	}
	if c.rounds < 1 {
		return usagef("--rounds must be >= 1")
	}
	if c.spanBytes < 1 {
		return usagef("--span-bytes must be >= 1")
	}
	c.join.BlockSize = c.blockSize
	if c.method == "lsh" {
		o := approx.Options{Measure: c.join.Measure, Threshold: c.join.Threshold, K: c.perm, Bits: c.bits,
			Recall: c.recall, MaxBucket: c.maxBucket, MinSize: c.minSize}
		if c.maxBucket == 0 {
			o.MaxBucket = -1
		}
		if c.minSize < 0 {
			return usagef("--min-size must be >= 0")
		}
		if o.Scheme, err = approx.ParseScheme(c.minhash); err != nil {
			return usageError{err}
		}
		if o.Seed, err = strconv.ParseUint(c.seed, 10, 64); err != nil {
			return usagef("--seed %q: want an integer in [0, 2^64)", c.seed)
		}
		if c.lshShape != "" {
			if o.Shape, err = approx.ParseShape(c.lshShape); err != nil {
				return usageError{err}
			}
		}
		if c.lsh.Options, err = o.Resolve(); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// parseFormats checks the flags of the input and output formats.
func (c *config) parseFormats() error {
	switch {
	case c.jsonlID != "" && c.jsonlField == "":
		return usagef("--jsonl-id needs --jsonl-field")
	case c.jsonlField != "" && c.jsonlField == c.jsonlID:
		return usagef("--jsonl-field and --jsonl-id name one field %q", c.jsonlField)
	case c.jsonlField != "" && c.files:
		return usagef("--jsonl-field reads records from lines: not with --files")
	}
	if c.command != "dedup" {
		for _, f := range []string{"clusters", "keep", "output-records", "rounds"} {
			if c.set[f] {
				return usagef("--%s applies to dedup", f)
			}
		}
		return nil
	}
	var err error
	if c.dedup.Keep, err = pipeline.ParseKeep(c.keep); err != nil {
		return usagef("--keep: %v", err)
	}
	switch {
	case c.outputRecords && c.clusters:
		return usagef("--output-records writes the kept records, --clusters every record's cluster: choose one")
	case c.outputRecords && c.files:
		return usagef("--output-records writes input lines: not with --files")
	}
	c.dedup.Clusters, c.dedup.Records = c.clusters, c.outputRecords
	return nil
}

// info returns the parts of the records' Info the outputs need.
func (c *config) info() pipeline.InfoParts {
	var p pipeline.InfoParts
	if c.dedup.Keep != pipeline.KeepFirst {
		p |= pipeline.InfoLen
	}
	if c.dedup.Records {
		p |= pipeline.InfoText
	}
	return p
}

// parseFiles checks the selection flags of --files, as the CLI does
// (fileset.Flags).
func (c *config) parseFiles() error {
	f, err := fileset.Flags{Files: c.files, Include: c.include, Exclude: c.exclude, MinTokens: c.minTokens, KeepGoing: c.keepGoing}.Filter()
	if err != nil {
		return usageError{err}
	}
	c.filter = f
	return nil
}

// input lists the input files (R's, then S's for an R-S join); with
// --keep-going what the listing skips is told to stderr.
func (c *config) input(ctx context.Context, stderr io.Writer) (pipeline.Input, error) {
	sel := &pipeline.Selection{Filter: c.filter, MinTokens: c.minTokens, KeepGoing: c.keepGoing, Stats: &c.listing,
		Warn: func(err error) { fmt.Fprintf(stderr, "simjoin-beam: warning: %v (skipped)\n", err) }}
	list := func(globs []string) (pipeline.Input, error) {
		in, err := pipeline.ListInput(ctx, globs, c.files, c.spec, sel)
		var se *fileset.SelectionError
		if errors.As(err, &se) {
			return in, usageError{err}
		}
		return in, err
	}
	in, err := list(c.inputs)
	if err != nil {
		return in, err
	}
	in.SpanBytes = c.spanBytes
	in.JSONL = pipeline.JSONL{Field: c.jsonlField, ID: c.jsonlID}
	in.Info = c.info()
	if len(c.against) > 0 {
		s, err := list(c.against)
		if err != nil {
			return in, err
		}
		in.SFrom = len(in.Paths)
		c.join.SFrom = pipeline.MakeID(in.SFrom, 0)
		c.lsh.SFrom = c.join.SFrom
		in.Paths = append(in.Paths, s.Paths...)
		in.Sizes = append(in.Sizes, s.Sizes...)
		in.Compressed = append(in.Compressed, s.Compressed...)
	}
	return in, nil
}

// methodText names the method and, for LSH, its shape.
func (c *config) methodText() string {
	if c.method != "lsh" {
		return c.method
	}
	o := c.lsh.Options
	return fmt.Sprintf("lsh (%s K=%d, %s bands, seed %d, max bucket %d)", o.Scheme, o.K, o.Shape, o.Seed, o.MaxBucket)
}
