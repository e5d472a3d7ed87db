package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/internal/plotting"
	rpt "github.com/simjoin/simjoin/internal/report"
	"github.com/simjoin/simjoin/join"
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
		Long: `Measure how MinHash-LSH bandings find the real pairs of INPUT and draw it.

For each banding (--shapes, default the one --method lsh would use), run the
LSH self-join and keep every candidate pair with its exact similarity; find
the true pairs with the exact join at --truth (rounded down to a multiple of
0.05), and estimate the pairs below it from a uniform sample of --sample
pairs of distinct sets. Then print, per banding, the candidates, the pairs
found at the threshold -t, the recall, and what the S-curve
P(s) = 1 - (1 - s^r)^b predicts for both; and per similarity bin of 0.05,
the share of pairs found beside P.

--scurve FILE (repeatable; .png or .svg) draws P(s) of each banding with the
measured shares as dots. --circle FILE (.svg) draws the records as points on
a circle in input order with a chord for each pair found, coloured by its
true similarity: the candidates of the first banding with --method lsh, the
exact pairs at -t otherwise.`,
	}, &cfg, nil, func(ctx context.Context, _ string) error { return runPlot(ctx, e, &cfg, &pf) })
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

// runPlot is the plot command: flags -> Input.Check (planner.Check) -> table,
// figures and report.
func runPlot(ctx context.Context, e *env, cfg *joinConfig, pf *plotFlags) error {
	switch {
	case cfg.against != "":
		return usagef("plot measures a self-join: --against is not allowed")
	case cfg.m != prefix.Jaccard:
		return usagef("plot draws the S-curve of Jaccard similarity: use --measure jaccard")
	case pf.sample < 0:
		return usagef("--sample must be >= 0")
	case pf.seeds < 1:
		return usagef("--seeds must be >= 1")
	case !(pf.truth > 0 && pf.truth <= 1):
		return usagef("--truth %v: want a similarity in (0, 1]", pf.truth)
	}
	for _, f := range pf.scurve {
		if ext := strings.ToLower(filepath.Ext(f)); ext != ".png" && ext != ".svg" {
			return usagef("--scurve %s: want a .png or .svg file", f)
		}
	}
	if pf.circle != "" && strings.ToLower(filepath.Ext(pf.circle)) != ".svg" {
		return usagef("--circle %s: want an .svg file", pf.circle)
	}
	shapes, err := plotShapes(cfg, pf.shapes)
	if err != nil {
		return err
	}
	ctx, out, l, err := start(ctx, e, cfg, cfg.docs.args[0])
	if err != nil {
		return err
	}
	// The figures are outputs of the run like -o: created now (an
	// unwritable path fails before the work) and committed with it.
	figs := map[string]*outfile.File{}
	for _, f := range append(slices.Clone(pf.scurve), pf.circle) {
		if f == "" {
			continue
		}
		if figs[f], err = e.create(f); err != nil {
			return err
		}
	}
	rep := l.rep
	rep.Method = cfg.method
	var exact rpt.Counter // the exact pairs at -t, counted for the report
	opt := planner.CheckOptions{Shapes: shapes, Seeds: pf.seeds, Seed: cfg.lsh.opt.Seed, Floor: pf.truth, PairSample: pf.sample, Exact: exact.Add}
	// The circle: the first banding's candidates with --method lsh, the
	// exact pairs otherwise.
	var chords plotting.Chords
	if pf.circle != "" && cfg.method == "lsh" {
		opt.Found = chords.Add
	} else if pf.circle != "" {
		opt.Exact = func(p join.Pair) bool { return chords.Add(p) && exact.Add(p) }
	}
	cc, err := l.in.Check(ctx, opt)
	if err != nil {
		return err
	}
	rep.AddSteps(cc.Steps)

	tm := rep.Start("plot")
	k, st := cfg.lsh.opt.K, l.in.Stats()
	if err := rpt.WritePlotTable(out, st.Records, st.Records-st.Skipped, cfg.t, k, cc); err != nil {
		return err
	}
	for _, f := range pf.scurve {
		fig := plotting.NewSCurves(cc, k, pf.seeds, cfg.t.Float())
		ext := strings.ToLower(filepath.Ext(f))[1:]
		if err := writeFigure(figs[f], func(w io.Writer) error { return fig.Write(w, ext) }); err != nil {
			return err
		}
	}
	if pf.circle != "" {
		what := fmt.Sprintf("%s pairs at J ≥ %s (exact)", numfmt.Group(cc.Pairs), cfg.t)
		if cfg.method == "lsh" {
			what = fmt.Sprintf("%s candidate pairs of LSH %s, K = %d", numfmt.Group(int64(len(chords))), shapes[0], k)
		}
		fig := plotting.NewCircle(st.Records, l.names, chords, what)
		if err := writeFigure(figs[pf.circle], fig.WriteSVG); err != nil {
			return err
		}
	}
	tm.Done()
	rep.AddPlot(cc, k, pf.seeds)
	rep.SetResults(exact.N, &exact.Hist, cfg.m)
	return cfg.emit(e, rep)
}

// plotShapes parses --shapes, or takes the banding --method lsh would use.
func plotShapes(cfg *joinConfig, list string) ([]approx.Shape, error) {
	if cfg.lsh.opt.Threshold.Den == 0 {
		if err := cfg.lsh.resolve(cfg); err != nil {
			return nil, err
		}
	}
	if list == "" {
		return []approx.Shape{cfg.lsh.opt.Shape}, nil
	}
	out, err := approx.ParseShapes(list)
	if err != nil {
		return nil, usagef("--shapes: %v", err)
	}
	for _, s := range out {
		if err := s.Check(cfg.lsh.opt.K); err != nil {
			return nil, usagef("--shapes %s with --perm %d: %v", s, cfg.lsh.opt.K, err)
		}
	}
	return out, nil
}

// writeFigure draws a figure into out.
func writeFigure(out *outfile.File, draw func(io.Writer) error) error {
	if err := draw(out); err != nil {
		return fmt.Errorf("%s: %w", out.Path(), err)
	}
	return nil
}
