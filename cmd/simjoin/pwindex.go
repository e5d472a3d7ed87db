package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/pwcheck"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/numfmt"
)

// pwIndexFixed are the flags of passwords check that an index fixes at
// create (its tokenizer and measure) or that describe a list it does not
// read.
var pwIndexFixed = []string{"qgram", "measure", "fold-case", "fold-leet", "strip-suffix", "counts", "skip-comments"}

// runCheckIndex runs `simjoin passwords check --index DIR`: the candidates
// are searched in a persisted index (built with simjoin index create and
// add) instead of an index built from a list on every call. Matches are
// written as candidate<TAB>id<TAB>similarity, the id being the index's
// record id (from 1: the line of a list added in order); the exit status is
// that of passwords check.
func runCheckIndex(ctx context.Context, e *env, cfg *pwConfig, fs *pflag.FlagSet, args []string) error {
	if err := refuseGiven(fs, pwIndexFixed, "--%s: with --index the index's own tokenizer and measure apply (fixed at simjoin index create)"); err != nil {
		return err
	}
	e.outs.ProtectDir(cfg.index)
	var stdin []string
	if len(args) == 0 { // the candidates are read from stdin
		stdin = []string{"-"}
	}
	out, err := cfg.createOutputs(e, !cfg.silent, stdin...)
	if err != nil {
		return err
	}
	return withIndex(e, cfg.index, index.OpenOptions{Workers: cfg.workers, ReadOnly: true}, func(ix *index.Index) error {
		t, err := searchThreshold(ix, cfg.threshold)
		if err != nil {
			return err
		}
		rep := rpt.NewIndexSearch("passwords check", cfg.index, ix.Config(), t, cfg.workers)
		cs, err := pwcheck.Index(ctx, rep, pwcheck.Candidates{Args: args, Stdin: e.stdin, Tty: e.stderr}, pwcheck.Output(out), cfg.outFmt, ix, t)
		if err != nil {
			return indexError(err, "-t")
		}
		st := ix.Stats()
		rep.Records = int(st.Live)
		// The schema's "check" section has no field for the known count: it is
		// the report's records.
		return finishCheck(e, cfg, rep, cs, [2]string{"known (live in the index)", numfmt.Group(int64(st.Live))})
	})
}
