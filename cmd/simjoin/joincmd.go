package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/memlimit"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

func init() { register(newJoinCmd) }

// joinConfig holds the flags shared by join, explain and the commands built
// on them.
type joinConfig struct {
	tokens    string
	threshold string
	measure   string
	method    string
	against   string
	format    string
	output    string
	stats     bool
	statsJSON string
	workers   int
	sort      bool
	memLimit  string // --memory-limit, parsed into mem by parse
	mem       memlimit.Limit
	lsh       lshFlags       // --lsh, --perm, --bits, --recall, --verify, --seed, … (lshcmd.go)
	fs        *pflag.FlagSet // the command's flags, for what was given

	// statsOut is --stats-json's file, created by start before any work so
	// that an unwritable path fails early; written by finishReport.
	statsOut *outfile.File

	// Parsed from the strings above by parse.
	spec    shingle.Spec
	docs    docFlags // --files and word normalisation (files.go)
	m       prefix.Measure
	t       prefix.Threshold
	outFmt  format
	command string
}

// addFlags registers the shared flags on fs.
func (c *joinConfig) addFlags(fs *pflag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.tokens, "tokens", "set", "how a record becomes a set: set, words, qgram:N, shingle:N or go:N")
	fs.StringVarP(&c.threshold, "threshold", "t", "", "similarity threshold: in (0, 1] such as 0.8 or 4/5; an integer >= 1 for overlap (required)")
	fs.StringVar(&c.measure, "measure", "jaccard", "similarity measure: jaccard, cosine, dice or overlap")
	fs.StringVar(&c.method, "method", "auto", "join method: auto, exact or lsh")
	fs.StringVar(&c.against, "against", "", "R-S join: pair each record of INPUT with the records of `FILE`")
	fs.StringVar(&c.format, "format", "tsv", "output format: tsv, csv or jsonl")
	fs.StringVarP(&c.output, "output", "o", "", "write pairs to `FILE` (written whole or not at all) instead of stdout")
	fs.BoolVar(&c.stats, "stats", false, "print the statistics report on stderr")
	fs.StringVar(&c.statsJSON, "stats-json", "", "write the statistics report as JSON to `FILE`")
	fs.IntVarP(&c.workers, "workers", "j", 0, "worker goroutines (0: one per core; at most 4 per core); results do not depend on it")
	fs.BoolVar(&c.sort, "sort", false, "sort pairs by (id_a, id_b) before writing (holds them in memory)")
	addMemoryFlag(fs, &c.memLimit)
	c.lsh.addFlags(fs)
	c.docs.addFlags(fs)
}

// parse checks the flags before any work starts.
func (c *joinConfig) parse() error {
	var err error
	if c.spec, err = shingle.Parse(c.tokens); err != nil {
		return usageError{err}
	}
	if err := c.docs.parse(&c.spec); err != nil {
		return err
	}
	if c.spec.Kind != shingle.Words && c.spec.Kind != shingle.Shingle {
		for _, name := range []string{"case", "punct"} {
			if c.fs != nil && c.fs.Changed(name) {
				return usagef("--%s applies to --tokens words and shingle:N, not %s", name, c.spec)
			}
		}
	}
	if c.m, err = prefix.ParseMeasure(c.measure); err != nil {
		return usageError{err}
	}
	if c.threshold == "" {
		return usagef("missing -t/--threshold")
	}
	if c.t, err = prefix.ParseThreshold(c.m, c.threshold); err != nil {
		return usageError{err}
	}
	if c.outFmt, err = parseFormat(c.format); err != nil {
		return err
	}
	switch c.method {
	case "auto", "exact", "lsh":
	default:
		return usagef("unknown --method %q: want auto, exact or lsh", c.method)
	}
	if c.workers < 0 {
		return usagef("-j/--workers must be >= 0")
	}
	if c.method == "exact" && c.command != "explain" && c.command != "plot" && c.fs != nil {
		if err := checkLSHFlags(c.fs, c.method, false); err != nil {
			return err
		}
	}
	c.workers = parallel.Workers(c.workers) // 0: one per core; at most 4 per core
	if c.mem, err = parseMemoryLimit(c.memLimit); err != nil {
		return err
	}
	return c.lsh.parse(c)
}

func newJoinCmd(e *env) *cobra.Command {
	var cfg joinConfig
	cmd := &cobra.Command{
		Use:   "join [flags] INPUT",
		Short: "Report every pair of records whose similarity reaches the threshold",
		Long: `Report every pair of records of INPUT (one record a line, "-" for stdin;
ids are 1-based line numbers) whose similarity reaches the threshold, as
id_a<TAB>id_b<TAB>similarity with id_a < id_b. With --against FILE, pair each
record of INPUT with each record of FILE instead (ids: INPUT line, FILE line).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.command = "join"
			if err := cfg.parse(); err != nil {
				return err
			}
			if err := cfg.docs.checkArgs(args); err != nil {
				return err
			}
			return runJoin(cmd.Context(), e, &cfg, args[0])
		},
	}
	cfg.addFlags(cmd.Flags())
	return cmd
}

// loaded is the input of a join, ordered and ready.
type loaded struct {
	r, s *order.Collection // s is nil for a self-join
	// rk, sk replace r and s when the join needs no token order (see
	// keysOnly): the token sets as keys; sk is nil for a self-join.
	rk, sk *approx.KeySets
	rep    *report
	// names, snames are the record ids of r and s with --files (paths);
	// nil for line input, whose ids are line numbers.
	names, snames []string
	prog          *progress
}

// load reads INPUT (and --against) and builds the collections.
func load(e *env, cfg *joinConfig, input string) (*loaded, error) {
	rep := &report{
		Command:   cfg.command,
		Input:     []string{input},
		Tokens:    cfg.spec.String(),
		Measure:   cfg.m.String(),
		Threshold: cfg.t.String(),
		Workers:   cfg.workers,
	}
	prog := newProgress(e.stderr)
	if cfg.docs.files {
		if cfg.docs.args == nil {
			cfg.docs.args = []string{input}
		}
		return loadFiles(e, cfg, rep, prog)
	}
	if cfg.keysOnly() {
		return loadKeys(e, cfg, rep, prog, input)
	}
	read := func(name string) (*order.Input, error) {
		return readInput(e, rep, prog, name, func(r io.Reader, name string, progress func(int64)) (*order.Input, error) {
			return readRecords(r, name, cfg.spec, progress)
		})
	}
	tm := rep.phase("read")
	rin, err := read(input)
	if err != nil {
		return nil, err
	}
	var sin *order.Input
	if cfg.against != "" {
		rep.Input = append(rep.Input, "--against", cfg.against)
		if sin, err = read(cfg.against); err != nil {
			return nil, err
		}
	}
	tm.done("read")
	if err := checkMemory(cfg.mem, rin, sin); err != nil {
		return nil, err
	}
	return buildLoaded(rep, prog, rin, sin)
}

// readInput opens the file argument name, notes its compression in rep and
// reads it with read, which reports progress in bytes.
func readInput[T any](e *env, rep *report, prog *progress, name string, read func(r io.Reader, name string, progress func(int64)) (T, error)) (T, error) {
	f, err := openInput(name, e.stdin)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	rep.noteCompressed(f)
	bar := prog.bytes(f.size, "reading "+f.name)
	defer bar.finish()
	return read(f, f.name, bar.set)
}

// buildLoaded orders the inputs read (sin is nil for a self-join) into the
// collections of a join, timing the phase and filling the report's counts.
func buildLoaded(rep *report, prog *progress, rin, sin *order.Input) (*loaded, error) {
	tm := rep.phase("order")
	l := &loaded{rep: rep, prog: prog}
	var err error
	if sin == nil {
		l.r, err = order.New(rin)
	} else {
		var cs []*order.Collection
		cs, err = order.Build(rin, sin)
		if err == nil {
			l.r, l.s = cs[0], cs[1]
		}
	}
	if err != nil {
		return nil, err
	}
	tm.done("order")
	rep.Records, rep.Skipped, rep.SetTokens = l.r.Records(), l.r.Skipped(), l.r.Tokens()
	if l.s != nil {
		rep.Records += l.s.Records()
		rep.Skipped += l.s.Skipped()
		rep.SetTokens += l.s.Tokens()
	}
	rep.Vocabulary = l.r.Dict().Len()
	return l, nil
}

// start begins a command that joins INPUT: it creates the outputs (-o and
// --stats-json, refusing to overwrite an input) and loads the input. The
// run commits the outputs when the command succeeds.
func start(ctx context.Context, e *env, cfg *joinConfig, input string) (_ context.Context, out *outfile.File, l *loaded, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if input == "-" && cfg.against == "-" {
		return nil, nil, nil, usagef("INPUT and --against are both standard input (-): give one of them as a file")
	}
	e.outs.Protect(input, cfg.against)
	if input == "-" || cfg.against == "-" {
		e.outs.ProtectReader(e.stdin)
	}
	e.outs.Protect(cfg.docs.args...)
	if out, err = e.create(cfg.output); err != nil {
		return nil, nil, nil, err
	}
	if cfg.statsJSON != "" {
		if cfg.statsOut, err = e.create(cfg.statsJSON); err != nil {
			return nil, nil, nil, fmt.Errorf("--stats-json: %w", err)
		}
	}
	if l, err = load(e, cfg, input); err != nil {
		return nil, nil, nil, err
	}
	return ctx, out, l, nil
}

// runJoin runs the join command: load, join, write, report.
func runJoin(ctx context.Context, e *env, cfg *joinConfig, input string) error {
	ctx, out, l, err := start(ctx, e, cfg, input)
	if err != nil {
		return err
	}
	rep := l.rep
	pw := newPairWriter(out, cfg.outFmt, cfg.m == prefix.Overlap)
	sink := newPairSink(pw, cfg, l)
	tm := rep.phase("join")
	if err := runMethod(ctx, e, cfg, l, sink, out); err != nil {
		return err
	}
	tm.done("join")
	tm = rep.phase("write")
	if err := sink.close(); err != nil {
		return err
	}
	tm.done("write")
	return finishReport(e, cfg, rep, sink)
}

// runMethod runs the join method cfg asks for on l, feeding every pair to
// sink, and records the method in the report; out is where sink's writer
// writes. join and the commands built on it (dedup, plot) share it.
func runMethod(ctx context.Context, e *env, cfg *joinConfig, l *loaded, sink *pairSink, out io.Writer) error {
	method := cfg.method
	switch {
	case method == "auto":
		var err error
		if method, err = planJoin(ctx, cfg, l); err != nil { // explain.go
			return err
		}
	case cfg.stats || cfg.statsJSON != "":
		// A method given is not planned: planning would cost as much as a
		// fast join. The report says so; explain prices both paths.
		why := "given by --method, not planned (simjoin explain prices both paths)"
		l.rep.addSection("plan", "plan", givenPlan{Method: method, Forced: true, Reason: why},
			[][2]string{{"method", method}, {"why", why}})
	}
	l.rep.Method = method
	if cfg.command != "explain" && cfg.command != "plot" {
		if err := checkLSHFlags(cfg.fs, method, cfg.method == "auto"); err != nil {
			return err
		}
	}
	switch method {
	case "exact":
		return runExact(ctx, cfg, l, sink)
	case "lsh":
		return runLSH(ctx, e, cfg, l, sink, out)
	}
	return usagef("--method %s is not available in this build", method)
}

// givenPlan is the report's plan section when --method names the method: the
// fields of planner.Plan that apply without planning.
type givenPlan struct {
	Method string `json:"method"`
	Forced bool   `json:"forced"`
	Reason string `json:"reason"`
}

// runExact runs the exact join and records its statistics.
func runExact(ctx context.Context, cfg *joinConfig, l *loaded, sink *pairSink) error {
	bar := l.prog.count("joining")
	defer bar.finish()
	opt := join.Options{Measure: cfg.m, Threshold: cfg.t, Workers: cfg.workers, Progress: bar.setOf}
	if l.s == nil && sink.copies != nil {
		sink.sizes = map[int]int64{}
		opt.Copies = sink.addCopies
	}
	st, err := join.Join(ctx, l.r, l.s, opt, sink.add)
	l.rep.Exact = &st
	if err == nil {
		err = sink.err
	}
	return err
}

// finishReport completes the report and writes it where asked.
func finishReport(e *env, cfg *joinConfig, rep *report, sink *pairSink) error {
	rep.Results = sink.n
	if cfg.m != prefix.Overlap {
		rep.Histogram = sink.hist.bins()
	}
	rep.PeakRSS = peakRSS()
	if cfg.stats {
		rep.writeText(e.stderr)
	}
	if cfg.statsOut != nil {
		if err := rep.writeJSON(cfg.statsOut); err != nil {
			return fmt.Errorf("--stats-json: %w", err)
		}
	}
	return nil
}

// pairSink receives pairs from a join, counts them, and writes them (or holds
// them for --sort).
type pairSink struct {
	pw     *pairWriter
	sorted bool
	held   []join.Pair
	rs     bool
	n      int64
	hist   histogram
	err    error
	ida    []byte
	idb    []byte
	// names, snames are the ids of --files records (nil: line numbers).
	names, snames []string
	// consume, if not nil, takes every pair instead of the writer (dedup
	// and plot collect pairs rather than write them).
	consume func(join.Pair) bool
	// copies, if not nil, takes the groups of identical records of an exact
	// self-join (dedup): the join then reports one pair per pair of groups,
	// between their first records (join.Options.Copies), and the sink counts
	// each pair as the record pairs it stands for, sizes holding the size of
	// every group by its first record.
	copies func(ids []int) bool
	sizes  map[int]int64
}

func newPairSink(pw *pairWriter, cfg *joinConfig, l *loaded) *pairSink {
	s := &pairSink{pw: pw, sorted: cfg.sort, rs: l.s != nil || l.sk != nil, names: l.names, snames: l.snames}
	if s.snames == nil && !s.rs {
		s.snames = l.names
	}
	return s
}

// add takes one pair; it returns false once writing has failed.
func (s *pairSink) add(p join.Pair) bool {
	w := int64(1)
	if s.sizes != nil {
		w = s.weight(p.A) * s.weight(p.B)
	}
	s.n += w
	s.hist.addN(p.Sim, w)
	if s.consume != nil {
		return s.consume(p)
	}
	if s.sorted {
		s.held = append(s.held, p)
		return true
	}
	return s.write(p)
}

// addCopies takes a group of identical records (ids ascending), counting
// its pairs (similarity 1) and recording its size for the pairs of groups.
func (s *pairSink) addCopies(ids []int) bool {
	k := int64(len(ids))
	s.n += k * (k - 1) / 2
	s.hist.addN(1, k*(k-1)/2)
	s.sizes[ids[0]] = k
	return s.copies(ids)
}

// weight returns the number of records the group of first record a holds.
func (s *pairSink) weight(a int) int64 {
	if k, ok := s.sizes[a]; ok {
		return k
	}
	return 1
}

func (s *pairSink) write(p join.Pair) bool {
	numeric := s.names == nil
	if numeric {
		s.ida = strconv.AppendInt(s.ida[:0], int64(p.A+1), 10)
		s.idb = strconv.AppendInt(s.idb[:0], int64(p.B+1), 10)
	} else {
		s.ida = append(s.ida[:0], s.names[p.A]...)
		s.idb = append(s.idb[:0], s.snames[p.B]...)
	}
	if err := s.pw.write(s.ida, s.idb, numeric, p.Sim); err != nil {
		s.err = err
		return false
	}
	return true
}

// close writes held pairs in (id_a, id_b) order and flushes.
func (s *pairSink) close() error {
	if s.err != nil {
		return s.err
	}
	if s.sorted {
		slices.SortFunc(s.held, join.ComparePairs)
		for _, p := range s.held {
			if !s.write(p) {
				return s.err
			}
		}
		s.held = nil
	}
	return s.pw.flush()
}

// addMemoryFlag registers --memory-limit.
func addMemoryFlag(fs *pflag.FlagSet, v *string) {
	fs.StringVar(v, "memory-limit", "", "the memory the run may use, such as 2GiB (default: the smallest of the cgroup limit, RLIMIT_AS and the memory available; 0: no check)")
}

// parseMemoryLimit reads --memory-limit, or finds the system's bound, and
// sets the runtime's soft memory limit to it (unless GOMEMLIMIT is set), so
// that the collector works harder before the process runs out.
func parseMemoryLimit(s string) (memlimit.Limit, error) {
	var l memlimit.Limit
	if s == "" {
		l = memlimit.Detect()
	} else {
		n, err := memlimit.ParseSize(s)
		if err != nil {
			return l, usagef("--memory-limit: %v", err)
		}
		l = memlimit.Limit{Bytes: n, Source: "--memory-limit"}
	}
	if l.Bytes > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(l.Bytes)
	}
	return l, nil
}

// checkMemory stops a join whose input, read, would not fit in l once
// ordered, indexed and joined (join.EstimateMemory), before those large
// allocations.
func checkMemory(l memlimit.Limit, ins ...*order.Input) error {
	var records, tokens, vocab int
	for _, in := range ins {
		if in != nil {
			records += in.Len()
			tokens += in.Tokens()
			vocab += in.Vocabulary()
		}
	}
	return memlimit.Check(join.EstimateMemory(records, tokens, vocab), l,
		fmt.Sprintf("joining %s records of %s tokens", numfmt.Group(int64(records)), numfmt.Group(int64(tokens))))
}
