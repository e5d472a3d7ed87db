package main

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

type indexSearchFlags struct {
	threshold     string
	topK, refineK int
	only, exclude string
	fields        string
	estimate      bool
	inMemory      bool
	format        formatFlag
	output        string
	workers       int
	fs            *pflag.FlagSet // to tell a flag given as 0 or "" from one not given
}

func newIndexSearchCmd(e *env) *cobra.Command {
	var f indexSearchFlags
	cmd := &cobra.Command{
		Use:   "search DIR (-t T | --top-k K [--refine-k R]) QUERIES",
		Short: "Find the held records similar to each line of QUERIES",
		Long:  help("index search"),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIndexSearch(cmd.Context(), e, &f, args[0], args[1])
		},
	}
	fs := cmd.Flags()
	f.fs = fs
	fs.StringVarP(&f.threshold, "threshold", "t", "", "report every record at or above this similarity")
	fs.IntVar(&f.topK, "top-k", 0, "report the `K` most similar records instead")
	fs.IntVar(&f.refineK, "refine-k", 0, "with --top-k: verify `R` candidates chosen by estimate (default: the index's choice)")
	fs.StringVar(&f.only, "only", "", "search only these `IDS` (comma-separated ids, or keys on an index with keys)")
	fs.StringVar(&f.exclude, "exclude", "", "skip these `IDS` (comma-separated ids, or keys)")
	fs.BoolVar(&f.estimate, "estimate", false, "answer from the signatures' estimates, without verifying candidates against their sets (LSH with --raw-sets; faster)")
	fs.StringVar(&f.fields, "fields", "", "print these stored `FIELDS` with each hit: text, payload or text,payload (an index created with --store text)")
	f.format.add(fs)
	fs.StringVarP(&f.output, "output", "o", "", "write the results to `FILE` (written whole or not at all) instead of stdout")
	addWorkersFlag(fs, &f.workers, "worker goroutines (0: one per core); results do not depend on it")
	fs.BoolVar(&f.inMemory, "in-memory", false, "read the index's segments into memory instead of mapping them")
	return cmd
}

// options reads the search flags for an index of configuration cfg, by the
// rules the HTTP API reads a search's JSON: --top-k or --refine-k given as 0
// is refused as any value below 1 (not taken for "not given"), and --only
// given must hold an id (--exclude ” excludes nothing).
func (f *indexSearchFlags) options(cfg index.Config) (index.SearchOptions, error) {
	opt := index.SearchOptions{TopK: f.topK, RefineK: f.refineK, Estimate: f.estimate}
	if f.fs.Changed("top-k") {
		opt.TopK = given(f.topK)
	}
	if f.fs.Changed("refine-k") {
		opt.RefineK = given(f.refineK)
	}
	var err error
	if f.fs.Changed("only") && f.fs.Changed("exclude") {
		return opt, usagef("give --only or --exclude, not both")
	}
	if f.fs.Changed("only") && strings.TrimSpace(f.only) == "" {
		return opt, usagef("--only: want at least one id (for no restriction, leave it out)")
	}
	if f.threshold != "" {
		if opt.Threshold, err = prefix.ParseThreshold(cfg.Measure, f.threshold); err != nil {
			return opt, usageError{err}
		}
	}
	if f.fs.Changed("only") {
		r, err := parseRefList(cfg.Keys, "only", f.only)
		if err != nil {
			return opt, err
		}
		opt.Only, opt.OnlyKeys = r.ids, r.keys
		if opt.Only == nil && cfg.Keys == index.NoKeys {
			opt.Only = []index.ID{}
		}
		if opt.OnlyKeys == nil && cfg.Keys != index.NoKeys {
			opt.OnlyKeys = []index.Key{}
		}
	}
	if f.exclude != "" && (cfg.Keys != index.NoKeys || strings.TrimSpace(f.exclude) != "") {
		r, err := parseRefList(cfg.Keys, "exclude", f.exclude)
		if err != nil {
			return opt, err
		}
		opt.Exclude, opt.ExcludeKeys = r.ids, r.keys
	}
	if f.fields != "" {
		if opt.Fields, err = parseFields(f.fields); err != nil {
			return opt, err
		}
		if !cfg.StoreText {
			return opt, usagef("--fields: the index stores no text (create it with --store text)")
		}
	}
	return opt, nil
}

// searchError words the index's refusal of opt as the search flags': the
// rule an *index.OptionError names, or indexError's threshold.
func (f *indexSearchFlags) searchError(err error, opt index.SearchOptions) error {
	var oe *index.OptionError
	switch {
	case !errors.As(err, &oe):
		return indexError(err, "-t")
	case oe.Option == "Estimate":
		return usagef("--estimate: the index is exact, it has no estimates")
	case oe.Option == "Threshold":
		return usagef("missing -t/--threshold or --top-k")
	case oe.Option == "TopK" && opt.Threshold.Den != 0:
		return usagef("give -t or --top-k, not both")
	case oe.Option == "TopK":
		return usagef("--top-k %d: want >= 1", f.topK)
	case opt.TopK == 0:
		return usagef("--refine-k needs --top-k")
	}
	if f.refineK > index.MaxRefine*f.topK {
		return usagef("--refine-k %d: want --top-k (%d) to %d (%d × --top-k)", f.refineK, f.topK, index.MaxRefine*f.topK, index.MaxRefine)
	}
	return usagef("--refine-k %d: want at least --top-k (%d)", f.refineK, f.topK)
}

func runIndexSearch(ctx context.Context, e *env, f *indexSearchFlags, dir, queries string) error {
	outFmt, err := f.format.parse()
	if err != nil {
		return err
	}
	e.outs.Protect(queries)
	e.outs.ProtectDir(dir)
	out, err := e.create(f.output)
	if err != nil {
		return err
	}
	return withIndex(e, dir, index.OpenOptions{Workers: f.workers, ReadOnly: true, InMemory: f.inMemory}, func(ix *index.Index) error {
		cfg := ix.Config()
		opt, err := f.options(cfg)
		if err != nil {
			return err
		}
		if err := ix.ValidateSearch(opt); err != nil {
			return f.searchError(err, opt)
		}
		in, err := e.open(queries, nil)
		if err != nil {
			return err
		}
		defer in.Close()
		hw := rows.NewHits(out, outFmt, cfg, "query", opt.Fields)
		err = ix.SearchLines(ctx, in, records.BatchOptions{Name: in.Name}, opt, func(first int, _ [][]byte, res [][]index.Hit) error {
			return hw.WriteBatch(first, res)
		})
		if err != nil {
			return indexError(err, "-t")
		}
		return hw.Flush()
	})
}
