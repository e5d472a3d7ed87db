package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

func init() { register(newIndexCmd) }

// addBatch is --batch's default: records of one insert batch at most. A
// batch is inserted and synced, or answered, and its lines written before
// the next is read (records.ReadBatches: it also ends when the input has
// nothing more ready, so a slow stream goes line by line).
const addBatch = 1 << 16

func newIndexCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Create, fill, search and maintain a persistent similarity index",
		Long:  help("index"),
		// A group runs nothing itself: with no argument it shows its help,
		// with one that names no subcommand it says so (exit status 2), as
		// simjoin does for an unknown command.
		Args:                       cobra.ArbitraryArgs,
		DisableFlagsInUseLine:      true,
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, args[0])
		},
	}
	cmd.AddCommand(newIndexCreateCmd(e), newIndexAddCmd(e), newIndexSearchCmd(e), newIndexGetCmd(e),
		newIndexDeleteCmd(e), newIndexCompactCmd(e), newIndexStatsCmd(e), newIndexVerifyCmd(e),
		newIndexRepairCmd(e), newIndexBackupCmd(e))
	return cmd
}

// unknownCommand is the usage error of a command group given a name that is
// none of its subcommands, worded as cobra words simjoin's own, with the
// subcommands it may be a typo of.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return usageError{errors.New(msg)}
}

// withIndex opens the index in dir with opt, calls f and closes the index,
// returning f's error or else Close's. A partial last batch that opening
// for writing cut off the log is told on stderr. The library's errors of
// Open become the command line's (openError).
func withIndex(e *env, dir string, opt index.OpenOptions, f func(ix *index.Index) error) error {
	ix, err := index.Open(dir, opt)
	if err != nil {
		return openError(dir, err)
	}
	if d := ix.Cut(); d != nil {
		fmt.Fprintf(e.stderr, "simjoin: %s: cut %d bytes off the end of %s, a batch whose write never completed (%s)\n", dir, d.Bytes, filepath.Base(d.File), d.Held())
	}
	err = f(ix)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	return err
}

// openError words an error of opening the index in dir (exit status 1):
// not an index, locked by another process, or a damaged write-ahead log,
// which simjoin index repair cuts.
func openError(dir string, err error) error {
	var wd *index.WALDamage
	switch {
	case errors.Is(err, index.ErrNotIndex):
		return fmt.Errorf("%s is not an index directory (create one with simjoin index create)", dir)
	case errors.Is(err, index.ErrLocked):
		return fmt.Errorf("%s: %w (by another process: when simjoin serve holds it, ask the server instead: POST /v1/records, DELETE /v1/records/{id}, POST /v1/compact)", dir, err)
	case errors.As(err, &wd) && !wd.Torn:
		return fmt.Errorf("%w (simjoin index repair %s cuts it)", err, dir)
	}
	return err
}

// indexError maps an error of an index operation: a threshold below an
// exact index's minimum, or search options it refuses, are the user's (exit
// status 2). The index checks the threshold before it reads or writes
// anything.
func indexError(err error, flag string) error {
	var te *index.ThresholdError
	switch {
	case errors.As(err, &te):
		return usagef("%s %s is below the index's minimum threshold %s", flag, te.Threshold, te.Min)
	case errors.Is(err, index.ErrOptions):
		return usageError{fmt.Errorf("%s: %w", flag, err)}
	}
	return err
}

// searchThreshold reads -t for a search of ix (or a dedup): a threshold of
// its measure, at least its minimum (Index.ValidateSearch).
func searchThreshold(ix *index.Index, s string) (prefix.Threshold, error) {
	t, err := prefix.ParseThreshold(ix.Config().Measure, s)
	if err != nil {
		return t, usageError{err}
	}
	return t, indexError(ix.ValidateSearch(index.SearchOptions{Threshold: t}), "-t")
}

type indexCreateFlags struct {
	tokens, measure, method, minThreshold string
	lsh                                   string
	perm, bands, bits                     int
	recall                                float64
	seed                                  string
	rawSets, force                        bool
	bloomFPP                              float64
	keys, store                           string
}

func newIndexCreateCmd(e *env) *cobra.Command {
	var f indexCreateFlags
	cmd := &cobra.Command{
		Use:   "create DIR --min-threshold T [flags]",
		Short: "Create an empty index in DIR",
		Long:  help("index create"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config(cmd.Flags())
			if err != nil {
				return err
			}
			ix, err := index.Create(args[0], cfg)
			var ce *index.ConfigError
			switch {
			case errors.As(err, &ce):
				return f.createError(cfg, ce.Field, ce.Err)
			case errors.Is(err, index.ErrExists):
				return fmt.Errorf("%s already holds an index", args[0])
			case err != nil:
				return err
			}
			cfg = ix.Config()
			if err := ix.Close(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "created %s: %s\n%s\n", args[0], cfg, recallLine(cfg))
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.tokens, "tokens", "set", "how a record becomes a set: set, words, qgram:N, shingle:N or go:N")
	fs.StringVar(&f.measure, "measure", "jaccard", "similarity measure: jaccard, cosine, dice or overlap (lsh: jaccard)")
	fs.StringVar(&f.method, "method", "exact", "exact (prefix index) or lsh (MinHash bands)")
	fs.StringVar(&f.minThreshold, "min-threshold", "", "the smallest threshold a search or dedup may ask, such as 0.5 or 1/2 (required)")
	fs.StringVar(&f.lsh, "lsh", "", "lsh: banding `BxR`, B bands of R rows (--perm is then B·R unless given)")
	fs.IntVar(&f.bands, "bands", 0, "lsh: `B` bands of perm/B rows")
	fs.IntVar(&f.perm, "perm", approx.DefaultK, "lsh: MinHash values `K` a signature holds, 1.."+strconv.Itoa(approx.MaxK)+" (the bands use the first B·R; with --lsh, B·R unless given)")
	fs.IntVar(&f.bits, "bits", approx.DefaultBits, "lsh: bits stored of each MinHash value: 8, 16, 32 or 64")
	fs.Float64Var(&f.recall, "recall", approx.DefaultRecall, "lsh: the banding's least chance of finding a pair at --min-threshold, when --lsh and --bands are not given")
	fs.StringVar(&f.seed, "seed", "0", "lsh: seed of the MinHash functions, an integer in [0, 2^64)")
	fs.Float64Var(&f.bloomFPP, "bloom-fpp", index.DefaultBloomFPP, "lsh: false-positive probability of the band filters that let a search skip segments, 0.001 to 0.1 (1: none)")
	fs.BoolVar(&f.rawSets, "raw-sets", false, "lsh: keep the token sets and verify candidates exactly (similarities exact, index larger)")
	fs.StringVar(&f.keys, "keys", "none", "how records are named: none (ids the index assigns), int or string (a key with each record, as index add reads it)")
	fs.StringVar(&f.store, "store", "none", "text: keep each record's text and JSON payload, returned by index get and search --fields")
	fs.BoolVar(&f.force, "force", false, "lsh: create the index even when its banding finds a pair at --min-threshold with probability below 0.5")
	return cmd
}

// recallLine says what an index of configuration cfg finds at its minimum
// threshold: for LSH the S-curve of its banding there, for exact every
// record.
func recallLine(cfg index.Config) string {
	t := cfg.MinThreshold
	if cfg.Method == index.Exact {
		return fmt.Sprintf("predicted recall at %s %s: 1 (exact)", cfg.Measure, t)
	}
	return fmt.Sprintf("predicted recall at %s %s: %s (1-(1-s^%d)^%d: %d bands of %d rows)", cfg.Measure, t,
		index.FormatRecall(cfg.PredictedRecall(t.Float())), cfg.Rows, cfg.Bands, cfg.Bands, cfg.Rows)
}

// config reads the flags of create into the index's configuration, which
// index.Create checks (createError words its refusals as the flags').
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
	if cfg.Method, err = index.ParseMethod(f.method); err != nil {
		return cfg, usagef("unknown --method %q: want exact or lsh", f.method)
	}
	if cfg.Keys, err = index.ParseKeyKind(f.keys); err != nil {
		return cfg, usagef("unknown --keys %q: want none, int or string", f.keys)
	}
	switch f.store {
	case "text":
		cfg.StoreText = true
	case "none":
	default:
		return cfg, usagef("unknown --store %q: want none or text", f.store)
	}
	if cfg.Method == index.Exact {
		return cfg, refuseGiven(fs, []string{"lsh", "bands", "perm", "bits", "recall", "seed", "raw-sets", "force", "bloom-fpp"}, "--%s applies to --method lsh")
	}
	var seedErr error
	cfg.Seed, seedErr = approx.ParseSeed(f.seed)
	if err := cmp.Or(approx.Options{K: f.perm, Bits: f.bits, Recall: f.recall}.Validate(), seedErr); err != nil {
		return cfg, lshError(err)
	}
	cfg.Bits, cfg.Recall, cfg.RawSets, cfg.Force, cfg.BloomFPP = f.bits, f.recall, f.rawSets, f.force, f.bloomFPP
	if f.lsh != "" {
		if cfg.Shape, err = approx.ParseShape(f.lsh); err != nil {
			return cfg, usagef("--lsh: %v", err)
		}
	}
	if fs.Changed("perm") { // else the shape's, or the default
		cfg.Perm = f.perm
	}
	if fs.Changed("bands") {
		if cfg.Bands = f.bands; f.bands == 0 { // the library's "choose": not a value of --bands
			return cfg, f.createError(cfg, "Bands", nil)
		}
	}
	return cfg, nil
}

// createError words index.Create's refusal of a field of cfg (an
// *index.ConfigError's Field and Err) as the flags of create.
func (f *indexCreateFlags) createError(cfg index.Config, field string, err error) error {
	sh := cfg.Shape
	var re *index.RecallError
	switch {
	case errors.As(err, &re):
		return usagef("%s finds a pair at --min-threshold %s with probability %s (1-(1-s^%d)^%d), below %v: give more bands or fewer rows, or --force",
			f.banding(re.Shape), re.Threshold, index.FormatRecall(re.P), re.Shape.R, re.Shape.B, index.MinRecall)
	case field == "BloomFPP":
		return usagef("--bloom-fpp %v: want %v to %v, or 1 for no band filters", f.bloomFPP, index.MinBloomFPP, index.MaxBloomFPP)
	case field == "Measure":
		return usagef("--method lsh estimates Jaccard similarity: use --measure jaccard, or --method exact for %s", cfg.Measure)
	case field == "Bands" && f.lsh != "":
		return usagef("give --lsh BxR or --bands B, not both")
	case field == "Bands":
		return usagef("--bands %d: want 1 to --perm (%d)", f.bands, f.perm)
	case field == "Shape" && cfg.Perm != 0:
		return usagef("--lsh %s uses %d signature values but --perm is %d: drop --perm or make it at least B·R", sh, sh.B*sh.R, f.perm)
	case field == "Shape":
		return usagef("--lsh %s needs %d signature values, at most %d", sh, sh.B*sh.R, approx.MaxK)
	}
	return lshError(err)
}

// banding names banding sh by the flag it came from: --lsh, --bands, or
// the choice for --recall.
func (f *indexCreateFlags) banding(sh approx.Shape) string {
	switch {
	case f.lsh != "":
		return "--lsh " + sh.String()
	case f.bands != 0:
		return fmt.Sprintf("--bands %d (%s)", f.bands, sh)
	}
	return fmt.Sprintf("the banding %s chosen for --recall %v", sh, f.recall)
}
