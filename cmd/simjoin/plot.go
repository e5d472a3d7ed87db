package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/plotting"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

func init() { register(newPlotCmd) }

// plotFlags are the flags of simjoin plot beyond the join flags.
type plotFlags struct {
	scurve []string
	circle string
	shapes string
	truth  float64
	sample int
	seeds  int
}

func newPlotCmd(e *env) *cobra.Command {
	var cfg joinConfig
	var pf plotFlags
	cmd := joinCommand(&cobra.Command{
		Use:   "plot [flags] INPUT",
		Short: "Measure LSH against the exact join and draw the S-curve and the circle of pairs",
		Long:  help("plot"),
	}, &cfg, nil, func(ctx context.Context) error { return runPlot(ctx, e, &cfg, &pf) })
	dropFlags(cmd, "plot measures a self-join and writes a table of counts", "against", "format", "sort", "verify", "check-recall")
	fs := cmd.Flags()
	fs.StringArrayVar(&pf.scurve, "scurve", nil, "draw the S-curves with the measured shares to `FILE` (.png or .svg; repeatable)")
	fs.StringVar(&pf.circle, "circle", "", "draw the circle of records and pairs found to `FILE` (.svg)")
	fs.StringVar(&pf.shapes, "shapes", "", "LSH bandings to measure, such as 12x4,16x3 (default: the one --method lsh would use)")
	fs.Float64Var(&pf.truth, "truth", 0.1, "find the true pairs at or above this Jaccard similarity exactly; estimate those below from a sample")
	fs.IntVar(&pf.sample, "sample", 100000, "pairs of distinct sets sampled below --truth")
	fs.IntVar(&pf.seeds, "seeds", 1, "run each banding with `N` seeds from --seed on and average the shares found (the circle shows the first)")
	return cmd
}

// runPlot is the plot command: flags -> Input.MeasureLSH (planner.MeasureLSH) -> table,
// figures and report.
func runPlot(ctx context.Context, e *env, cfg *joinConfig, pf *plotFlags) error {
	var shapes []approx.Shape
	if pf.shapes != "" {
		var err error
		if shapes, err = approx.ParseShapes(pf.shapes); err != nil {
			return usageError{rpt.FlagValueError("--shapes", err)}
		}
	}
	lsh := cfg.lsh.opt
	lsh.Measure, lsh.Threshold = cfg.m, cfg.t
	var exact rpt.Counter // the exact pairs at -t, counted for the report
	opt := planner.CheckOptions{LSH: lsh, Shapes: shapes, Seeds: given(pf.seeds), Seed: lsh.Seed, Floor: given(pf.truth), PairSample: pf.sample, Exact: exact.Add}
	if err := opt.Validate(); err != nil {
		return pf.error(err, cfg)
	}
	for _, f := range pf.scurve {
		if _, err := plotting.FormatOf(f); err != nil {
			return usagef("--scurve %s: want a .png or .svg file", f)
		}
	}
	if format, _ := plotting.FormatOf(pf.circle); pf.circle != "" && format != "svg" {
		return usagef("--circle %s: want an .svg file", pf.circle)
	}
	out, l, err := start(ctx, e, cfg)
	if err != nil {
		return err
	}
	// The figures are outputs of the run like -o: created now (an
	// unwritable path fails before the work) and committed with it.
	fig := plotting.CheckFigures{SCurves: pf.scurve, Circle: pf.circle, LSH: cfg.method == planner.LSH}
	figs := map[string]*outfile.File{}
	for _, f := range fig.Files() {
		if figs[f], err = e.create(f); err != nil {
			return err
		}
	}
	rep := l.rep
	rep.Method = cfg.method.String()
	fig.Collect(&opt)
	cc, err := l.in.MeasureLSH(ctx, opt)
	if err != nil {
		return err
	}
	rep.AddSteps(cc.Steps)

	k, st := cfg.lsh.opt.K, l.in.Stats()
	if err := rep.Phase("plot", func() error {
		if err := rpt.WritePlotTable(out, st.Records, st.Records-st.Skipped, cfg.t, k, cc); err != nil {
			return err
		}
		return fig.Write(func(f string) io.Writer { return figs[f] }, cc, st.Records, l.names, cfg.t, k, pf.seeds)
	}); err != nil {
		return err
	}
	rep.AddPlot(cc, k, pf.seeds)
	rep.SetResults(exact.N, &exact.Hist, cfg.m)
	return cfg.emit(e, rep)
}

// error words a refusal of planner.CheckOptions.Validate as plot's flags.
func (pf *plotFlags) error(err error, cfg *joinConfig) error {
	var oe *planner.OptionError
	errors.As(err, &oe)
	switch {
	case errors.Is(err, planner.ErrNoLSH) || oe != nil && oe.Option == "Floor" && cfg.m != prefix.Jaccard:
		return usagef("plot draws the S-curve of Jaccard similarity: use --measure jaccard")
	case oe == nil:
		return usageError{err}
	case oe.Option == "PairSample":
		return usagef("--sample must be >= 0")
	case oe.Option == "Seeds":
		return usagef("--seeds must be >= 1")
	case oe.Option == "Floor":
		return usagef("--truth %v: want a similarity in (0, 1]", pf.truth)
	case oe.Option == "Shapes":
		return usagef("--shapes %s with --perm %d: %v", oe.Value, cfg.lsh.opt.K, errors.Unwrap(oe.Err))
	}
	return usageError{oe.Err}
}
