package main

import (
	"cmp"
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/infile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/progress"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/pwcheck"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/sink"
)

func init() { register(newPasswordsCmd) }

// exitTooClose is the exit status of `passwords check` when a candidate is
// too close to a known password.
const exitTooClose = pwcheck.ExitTooClose

// pwConfig holds the flags of `passwords` and `passwords check`.
type pwConfig struct {
	q        int
	counts   string
	comments bool
	maxLine  int
	runFlags // --measure, -t, -o, --format, --stats, --stats-json, -j, --memory-limit (output.go)

	// passwords only
	families bool
	sort     bool
	// check only
	against string
	index   string // --index DIR: a persisted index instead of a list (pwindex.go)
	silent  bool

	// Parsed by parse.
	opt  passwords.Options
	read passwords.ReadOptions
}

func (c *pwConfig) addFlags(fs *pflag.FlagSet) {
	fs.IntVarP(&c.q, "qgram", "q", passwords.DefaultQ, "q-gram length, 1 to 64")
	fs.StringVarP(&c.threshold, "threshold", "t", passwords.DefaultThreshold().String(), "similarity threshold in (0, 1], such as 0.8 or 4/5 (an integer >= 1 for --measure overlap)")
	// --fold-case, --fold-leet and --strip-suffix are named as passwords.Norm
	// names the normalisations (parse reads them by name).
	fs.Bool("fold-case", false, "fold letters to lower case")
	fs.Bool("fold-leet", false, "read leet-speak as letters (@ 4 as a, 3 as e, 0 as o, 1 ! | as i, $ 5 as s, 7 + as t, ...)")
	fs.Bool("strip-suffix", false, "strip a trailing run of digits, symbols and spaces (unless that is the whole password)")
	fs.StringVar(&c.counts, "counts", "", "the list has counts: \"first\" (count<TAB>password) or \"last\" (password<TAB>count); bare --counts means first")
	fs.Lookup("counts").NoOptDefVal = "first"
	fs.BoolVar(&c.comments, "skip-comments", false, "skip lines starting with #!comment: (John the Ripper word lists)")
	fs.IntVar(&c.maxLine, "max-line", passwords.DefaultMaxLine, "a list line longer than `N` bytes is an error (0: no limit)")
	c.runFlags.addFlags(fs, "write the output to `FILE` (written whole or not at all) instead of stdout")
}

// parse checks the flags before any work starts.
func (c *pwConfig) parse(fs *pflag.FlagSet) error {
	if err := c.runFlags.parse(func(m prefix.Measure) error {
		if m == prefix.Overlap && !fs.Changed("threshold") {
			return usagef("--measure overlap needs -t/--threshold (an integer >= 1)")
		}
		return nil
	}); err != nil {
		return err
	}
	var norms []string
	for _, name := range []string{"fold-case", "fold-leet", "strip-suffix"} {
		if on, _ := fs.GetBool(name); on {
			norms = append(norms, name)
		}
	}
	norm, _ := passwords.ParseNorm(strings.Join(norms, "+")) // names it knows
	c.opt = passwords.Options{Grams: passwords.Grams{Q: given(c.q), Norm: norm}, Measure: c.m, Threshold: c.t, Workers: c.workers}
	if err := c.opt.Grams.Validate(); err != nil {
		return usagef("-q/--qgram must be from 1 to %d", passwords.MaxQ)
	}
	var err error
	if c.read.Counts, err = passwords.ParseCounts(c.counts); err != nil || c.counts == "none" {
		return usagef("unknown --counts %q: want first (count<TAB>password) or last (password<TAB>count)", c.counts)
	}
	c.read.SkipComments = c.comments
	var ok bool
	if c.read.MaxLine, ok = zeroIsNone(c.maxLine); !ok {
		return usagef("--max-line must be >= 0")
	}
	return nil
}

func newPasswordsCmd(e *env) *cobra.Command {
	var cfg pwConfig
	cmd := &cobra.Command{
		Use:   "passwords [flags] LIST",
		Short: "Find the near-copies in a password list, or check new passwords against one",
		Long:  help("passwords"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cfg.parse(cmd.Flags()); err != nil {
				return err
			}
			ctx, stop := cfg.mem.Watch(cmd.Context())
			defer stop()
			return runPasswords(ctx, e, &cfg, args[0])
		},
	}
	cfg.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&cfg.families, "families", false, "print the families of similar passwords instead of the pairs")
	cmd.Flags().BoolVar(&cfg.sort, "sort", false, "sort pairs by line (holds them in memory); otherwise they come in an order that is the same on every run")
	cmd.AddCommand(newCheckCmd(e))
	return cmd
}

func newCheckCmd(e *env) *cobra.Command {
	var cfg pwConfig
	cmd := &cobra.Command{
		Use:   "check --against LIST [flags] [PASSWORD...]",
		Short: "Check candidate passwords against a list of known ones; exit status 3 when one is too close",
		Long:  help("passwords check"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cfg.parse(cmd.Flags()); err != nil {
				return err
			}
			ctx, stop := cfg.mem.Watch(cmd.Context())
			defer stop()
			cmd.SetContext(ctx)
			if cfg.silent && cfg.output != "" {
				return usagef("--silent writes nothing: drop -o/--output")
			}
			if cfg.index != "" {
				if cfg.against != "" {
					return usagef("give --against LIST or --index DIR, not both")
				}
				return runCheckIndex(cmd.Context(), e, &cfg, cmd.Flags(), args)
			}
			if cfg.against == "" {
				return usagef("missing --against LIST (or --index DIR)")
			}
			if len(args) == 0 && infile.OneStream(cfg.against, "-", e.stdin) {
				return usagef("--against %s reads the known list from standard input, where the candidates would be read: give the candidates as arguments", cfg.against)
			}
			return runCheck(cmd.Context(), e, &cfg, args)
		},
	}
	cfg.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&cfg.against, "against", "", "the known passwords: `LIST` (one a line, \"-\" for stdin)")
	cmd.Flags().StringVar(&cfg.index, "index", "", "check against the persisted index in `DIR` (simjoin index create, add) instead of a list; prints candidate<TAB>id<TAB>similarity")
	cmd.Flags().BoolVar(&cfg.silent, "silent", false, "write no output: the exit status says whether a candidate is too close")
	return cmd
}

// start creates the outputs (createOutputs), then reads the password list
// name with a progress bar, as the report's phase "read".
func (cfg *pwConfig) start(e *env, rep *rpt.Report, prog *progress.Bars, name string, out bool) (*outfile.File, *passwords.List, passwords.ReadStats, error) {
	o, err := cfg.createOutputs(e, out, name)
	if err != nil {
		return nil, nil, passwords.ReadStats{}, err
	}
	tm := rep.Start("read")
	f, err := e.open(name, rep)
	if err != nil {
		return nil, nil, passwords.ReadStats{}, err
	}
	defer f.Close()
	bar := prog.Bytes(f.Size, "reading "+f.Name)
	defer bar.Finish()
	opt := cfg.read
	opt.Progress, opt.Name, opt.SizeHint = bar.Set, f.Name, f.Size
	l, st, err := passwords.Read(f, opt)
	if err != nil {
		return nil, nil, st, err
	}
	if err := cfg.checkMemory(passwords.EstimateMemory(l), l.Len(), "passwords", numfmt.Bytes(int64(l.Bytes()), 2)); err != nil {
		return nil, nil, st, err
	}
	tm.Done()
	return o, l, st, nil
}

// runPasswords runs `simjoin passwords`: read, join (or families), write,
// report.
func runPasswords(ctx context.Context, e *env, cfg *pwConfig, input string) error {
	rep := rpt.NewPasswords("passwords", []string{input}, cfg.opt)
	prog := progress.New(e.stderr)
	out, l, rs, err := cfg.start(e, rep, prog, input, true)
	if err != nil {
		return err
	}

	bar := prog.Count("joining")
	opt := cfg.opt
	opt.Progress = bar.SetOf
	var st passwords.Stats
	var write func() error // the output and the report's section, as the phase "write"
	if cfg.families {
		var fams []passwords.Family
		fams, st, err = passwords.Families(ctx, l, opt)
		write = func() error {
			rep.AddPasswordFamilies(rpt.NewPasswordList(rs, &st, cfg.opt.Norm, cfg.read.Counts), cfg.comments, fams, st.Exact.Results)
			return rows.WriteFamilies(out, cfg.outFmt, l, fams)
		}
	} else {
		w := rows.NewPasswordPairs(out, cfg.outFmt, cfg.opt.Measure == prefix.Overlap)
		sink := sink.NewStream(cfg.sort, func(p passwords.Pair) error { return w.Write(l, p) }, w.Flush)
		var found rpt.Counter
		st, err = passwords.Join(ctx, l, opt, func(p passwords.Pair) bool { return found.Add(p) && sink.Add(p) })
		err = cmp.Or(err, sink.Err())
		write = func() error {
			rep.AddPasswordPairs(rpt.NewPasswordList(rs, &st, cfg.opt.Norm, cfg.read.Counts), cfg.comments, &found, cfg.opt.Measure)
			return sink.Close()
		}
	}
	bar.Finish()
	if err != nil {
		return err
	}
	rep.AddPasswordJoin(&st)
	if err := rep.Phase("write", write); err != nil {
		return err
	}
	return cfg.emit(e, rep)
}

// runCheck runs `simjoin passwords check`.
func runCheck(ctx context.Context, e *env, cfg *pwConfig, args []string) error {
	rep := rpt.NewPasswords("passwords check", []string{"--against", cfg.against}, cfg.opt)
	out, known, rs, err := cfg.start(e, rep, progress.New(e.stderr), cfg.against, !cfg.silent)
	if err != nil {
		return err
	}
	ix, err := passwords.NewIndex(known, cfg.opt)
	if err != nil {
		return err
	}
	st := ix.Stats()
	rep.AddPasswordIndex(&st, rpt.NewPasswordList(rs, &st, cfg.opt.Norm, cfg.read.Counts), cfg.comments)

	cs, err := pwcheck.List(ctx, rep, pwcheck.Candidates{Args: args, Stdin: e.stdin, Tty: e.stderr}, pwcheck.Output(out), cfg.outFmt, known, ix)
	if err != nil {
		return err
	}
	return finishCheck(e, cfg, rep, cs)
}

// finishCheck adds the "check" section to the report (after the rows first,
// if any: pwcheck.Finish), writes the report, and returns the command's exit
// status.
func finishCheck(e *env, cfg *pwConfig, rep *rpt.Report, cs *passwords.CheckStats, first ...[2]string) error {
	status := pwcheck.Finish(rep, cs, first...)
	if err := cfg.emit(e, rep); err != nil {
		return err
	}
	if status != exitOK {
		return exitError{code: status}
	}
	return nil
}
