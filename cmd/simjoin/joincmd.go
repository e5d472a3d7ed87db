package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/infile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/progress"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
	"github.com/simjoin/simjoin/sink"
)

func init() { register(newJoinCmd) }

// joinConfig holds the flags shared by join, explain and the commands built
// on them.
type joinConfig struct {
	tokens     string
	methodName string  // --method; parsed into method
	margin     float64 // --lsh-margin
	against    string
	sort       bool
	runFlags                  // --measure, -t, -o, --format, --stats, --stats-json, -j, --memory-limit (output.go)
	lsh        lshFlags       // --lsh, --perm, --bits, --recall, --verify, --seed, … (lshcmd.go)
	fs         *pflag.FlagSet // the command's flags, for what was given

	// Parsed from the strings above by parse.
	spec    shingle.Spec
	method  planner.Method
	docs    docFlags // --files and word normalisation (files.go)
	command string
}

// addFlags registers the shared flags on fs.
func (c *joinConfig) addFlags(fs *pflag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.tokens, "tokens", "set", "how a record becomes a set: set, words, qgram:N, shingle:N or go:N (a byte-order mark that starts a record is dropped)")
	fs.StringVarP(&c.threshold, "threshold", "t", "", "similarity threshold: in (0, 1] such as 0.8 or 4/5; an integer >= 1 for overlap (required)")
	fs.StringVar(&c.methodName, "method", "auto", "join method: auto, exact or lsh")
	fs.Float64Var(&c.margin, "lsh-margin", planner.DefaultPrefer, "auto takes LSH only when its whole run is predicted cheaper than exact's by more than this `factor` (>= 1)")
	fs.StringVar(&c.against, "against", "", "R-S join: pair each record of INPUT with the records of `FILE`")
	fs.BoolVar(&c.sort, "sort", false, "sort pairs by (id_a, id_b) before writing (holds them in memory)")
	c.runFlags.addFlags(fs, "write pairs to `FILE` (written whole or not at all) instead of stdout")
	c.lsh.addFlags(fs)
	c.docs.addFlags(fs)
}

// parse checks the flags before any work starts.
func (c *joinConfig) parse() error {
	var err error
	if c.spec, err = shingle.Parse(c.tokens); err != nil {
		return usageError{rpt.FlagValueError("--tokens", err)}
	}
	if err := c.docs.parse(&c.spec, c.fs); err != nil {
		return err
	}
	if err := c.runFlags.parse(func(prefix.Measure) error {
		if c.threshold == "" {
			return usagef("missing -t/--threshold")
		}
		return nil
	}); err != nil {
		return err
	}
	// Spelled as the method prints: ParseMethod also takes "EXACT".
	if c.method, err = planner.ParseMethod(c.methodName); err != nil || c.method.String() != c.methodName {
		return usagef("unknown --method %q: want auto, exact or lsh", c.methodName)
	}
	if !(c.margin >= 1) || math.IsInf(c.margin, 0) {
		return usagef("--lsh-margin %v: want a factor >= 1", c.margin)
	}
	if c.method != planner.Auto && c.command != "explain" && c.fs != nil && c.fs.Changed("lsh-margin") {
		return usagef("--lsh-margin applies to --method auto, and the method is %s", c.method)
	}
	if c.method == planner.Exact && c.command != "explain" && c.command != "plot" && c.fs != nil {
		if err := checkLSHFlags(c.fs, c.method, false); err != nil {
			return err
		}
	}
	return c.lsh.parse(c)
}

// joinCommand completes cmd, a command that takes the join's flags (cfg,
// registered here) and one or more INPUT arguments: it parses the join's
// flags, then the command's own (parse, unless nil), checks the INPUT
// arguments (kept in cfg.docs.args) and calls run.
func joinCommand(cmd *cobra.Command, cfg *joinConfig, parse func() error, run func(ctx context.Context) error) *cobra.Command {
	name := cmd.Name()
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg.command = name
		if err := cfg.parse(); err != nil {
			return err
		}
		if parse != nil {
			if err := parse(); err != nil {
				return err
			}
		}
		if err := cfg.docs.checkArgs(args); err != nil {
			return err
		}
		ctx, stop := cfg.mem.Watch(cmd.Context())
		defer stop()
		return run(ctx)
	}
	cfg.addFlags(cmd.Flags())
	return cmd
}

func newJoinCmd(e *env) *cobra.Command {
	var cfg joinConfig
	return joinCommand(&cobra.Command{
		Use:   "join [flags] INPUT",
		Short: "Report every pair of records whose similarity reaches the threshold",
		Long:  help("join"),
	}, &cfg, nil, func(ctx context.Context) error { return runJoin(ctx, e, &cfg) })
}

// loaded is the input of a join, read, ordered and ready.
type loaded struct {
	in  *simjoin.Input
	rep *rpt.Report
	// names, snames are the record ids of r and s with --files (paths);
	// nil for line input, whose ids are line numbers.
	names, snames []string
}

// options are the library's options for cfg.
func (c *joinConfig) options(prog *progress.Bars, warn func(error)) simjoin.Options {
	return simjoin.Options{Tokens: c.spec, Measure: c.m, Threshold: c.t, Method: c.method, LSHMargin: c.margin, LSH: c.lsh.opt,
		CheckRecall: c.lsh.checkRecall, Workers: c.workers, Progress: prog.Func(),
		Files: records.FileOptions{Include: c.docs.Include, Exclude: c.docs.Exclude,
			MinTokens: c.docs.MinTokens, KeepGoing: c.docs.KeepGoing, Warn: warn},
		MemoryCheck: func(need int64, records, tokens int) error {
			return c.checkMemory(need, records, "records", numfmt.Group(int64(tokens))+" tokens")
		}}
}

// load reads INPUT (and --against) and builds the collections
// (simjoin.Load), filling the report's input counts and phases.
func load(ctx context.Context, e *env, cfg *joinConfig) (*loaded, error) {
	rep := rpt.NewJoin(cfg.command, rpt.JoinInput(cfg.docs.args, cfg.against), cfg.spec, cfg.m, cfg.t, cfg.workers)
	prog := progress.New(e.stderr)
	var warn func(error)
	if cfg.docs.KeepGoing {
		warn = func(err error) { fmt.Fprintf(e.stderr, "simjoin: warning: %v (skipped)\n", inFlags(err)) }
	}
	r, s, done, err := infile.Sources(cfg.docs.args, cfg.against, cfg.docs.Files, e.stdin, func(f *infile.File) {
		rep.NoteCompressed(f.Name, f.Format)
		prog.SetSize(f.Name, f.Size)
	})
	if err != nil {
		return nil, err
	}
	defer done()
	in, err := simjoin.Load(ctx, r, s, cfg.options(prog, warn))
	var se *fileset.SelectionError
	if errors.As(err, &se) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, err
	}
	l := &loaded{in: in, rep: rep}
	l.names, l.snames = in.IDs()
	var vocabulary func() int
	if cfg.reporting() {
		vocabulary = in.Vocabulary // an LSH input's, counted only for the report
	}
	rep.AddInput(in.Stats(), vocabulary, cfg.docs.KeepGoing, cfg.docs.MinTokens)
	return l, nil
}

// start begins a command that joins INPUT: it creates the outputs (-o and
// --stats-json, refusing to overwrite an input) and loads the input. The
// run commits the outputs when the command succeeds.
func start(ctx context.Context, e *env, cfg *joinConfig) (out *outfile.File, l *loaded, err error) {
	if in := cfg.docs.args[0]; cfg.against != "" && !cfg.docs.Files && infile.OneStream(in, cfg.against, e.stdin) {
		return nil, nil, usagef("INPUT %s and --against %s are one stream (standard input, a pipe or a terminal), which can be read once: give one of them as a file", in, cfg.against)
	}
	if out, err = cfg.createOutputs(e, true, append([]string{cfg.against}, cfg.docs.args...)...); err != nil {
		return nil, nil, err
	}
	if l, err = load(ctx, e, cfg); err != nil {
		return nil, nil, err
	}
	return out, l, nil
}

// runJoin runs the join command: load, join, write, report.
func runJoin(ctx context.Context, e *env, cfg *joinConfig) error {
	return runJoined(ctx, e, cfg, "join", func(ctx context.Context, in *simjoin.Input, out *outfile.File, l *loaded, estimates bool) (simjoin.Stats, func() error, error) {
		pw := sink.NewPairWriter(out, cfg.outFmt, cfg.m == prefix.Overlap, estimates, l.names, l.snames)
		sink := sink.NewStream(cfg.sort, pw.WritePair, pw.Flush)
		st, err := in.Join(ctx, sink.Add)
		return st, sink.Close, cmp.Or(err, sink.Err())
	})
}

// runJoined runs a command that joins INPUT: start (outputs, load), then the
// report's phase that plans (planned) and calls join, which returns what
// the join did and the writing of its output, run as the phase "write"
// after the join's statistics are reported (warning of LSH buckets capped
// by --max-bucket); then the report.
func runJoined(ctx context.Context, e *env, cfg *joinConfig, phase string,
	join func(ctx context.Context, in *simjoin.Input, out *outfile.File, l *loaded, estimates bool) (simjoin.Stats, func() error, error)) error {
	out, l, err := start(ctx, e, cfg)
	if err != nil {
		return err
	}
	tm := l.rep.Start(phase)
	in, estimates, err := planned(ctx, cfg, l)
	if err != nil {
		return err
	}
	st, write, err := join(ctx, in, out, l, estimates)
	if err != nil {
		return err
	}
	if w := l.rep.AddJoin(st, cfg.method.String(), cfg.m, cfg.t); w != "" {
		fmt.Fprintf(e.stderr, "simjoin: warning: %s\n", w)
	}
	tm.Done()
	if err := l.rep.Phase("write", write); err != nil {
		return err
	}
	return cfg.emit(e, l.rep)
}

// planned returns the input to join as cfg asks (Input.Resolve: with
// --method auto, the plan's method), refusing LSH flags when the method is
// exact; estimates says the similarities of the method that runs are
// estimates (--verify estimate).
func planned(ctx context.Context, cfg *joinConfig, l *loaded) (_ *simjoin.Input, estimates bool, _ error) {
	in, method, err := l.in.Resolve(ctx)
	if err == nil {
		err = checkLSHFlags(cfg.fs, method, cfg.method == planner.Auto)
	}
	return in, method == planner.LSH && cfg.lsh.opt.Verify == approx.VerifyEstimate, err
}
