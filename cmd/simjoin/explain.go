package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
)

func init() { register(newExplainCmd) }

// explainFlags are the flags of explain beyond the join's.
type explainFlags struct {
	analyze    bool
	json       bool
	crossCheck string
	crossSeed  uint64

	records int // parsed --cross-check: 0 none, -1 the whole input
}

func newExplainCmd(e *env) *cobra.Command {
	var cfg joinConfig
	var ex explainFlags
	cmd := joinCommand(&cobra.Command{
		Use:   "explain [flags] INPUT",
		Short: "Print the plan of a join without joining: the method, why, and the predicted cost of each path",
		Long:  help("explain"),
	}, &cfg, ex.parse, func(ctx context.Context) error { return runExplain(ctx, e, &cfg, &ex) })
	fs := cmd.Flags()
	dropFlags(cmd, "explain prints the plan", "format", "sort", "stats", "stats-json", "check-recall")
	fs.Lookup("output").Usage = "write the explanation to `FILE` (written whole or not at all) instead of stdout"
	fs.BoolVar(&ex.analyze, "analyze", false, "run the chosen method and print measured figures beside the predicted ones")
	fs.BoolVar(&ex.json, "json", false, "print the plan (and the analysis and cross-check) as JSON")
	fs.StringVar(&ex.crossCheck, "cross-check", "", "run exact and LSH on a seeded sample of `N` records (or \"all\") and measure LSH's recall and precision")
	fs.Uint64Var(&ex.crossSeed, "cross-seed", 1, "seed of the --cross-check sample")
	return cmd
}

func (ex *explainFlags) parse() error {
	switch ex.crossCheck {
	case "":
	case "all":
		ex.records = -1
	default:
		n, err := strconv.Atoi(ex.crossCheck)
		if err != nil || n < 2 {
			return usagef("--cross-check %q: want a number of records >= 2, or all", ex.crossCheck)
		}
		ex.records = n
	}
	return nil
}

// runExplain loads the input, plans, optionally runs and cross-checks, and
// prints.
func runExplain(ctx context.Context, e *env, cfg *joinConfig, ex *explainFlags) error {
	out, l, err := start(ctx, e, cfg)
	if err != nil {
		return err
	}
	res, err := l.in.Explain(ctx, simjoin.ExplainOptions{Analyze: ex.analyze, CrossCheck: ex.records, CrossSeed: ex.crossSeed})
	if errors.Is(err, simjoin.ErrNoLSH) {
		return usagef("--cross-check compares LSH with the exact join, and LSH is not available here: %s", rpt.Plain(res.Plan.LSH.Why))
	}
	if err != nil {
		return err
	}
	return rpt.WriteExplanation(out, res, ex.json, cfg.against != "", ex.crossSeed)
}
