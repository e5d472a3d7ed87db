package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/internal/plotting"
	rpt "github.com/simjoin/simjoin/internal/report"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
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
	cmd := &cobra.Command{
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
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.command = "plot"
			if err := cfg.parse(); err != nil {
				return err
			}
			if err := cfg.docs.checkArgs(args); err != nil {
				return err
			}
			return runPlot(cmd.Context(), e, &cfg, &pf)
		},
	}
	cfg.addFlags(cmd.Flags())
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

// plotShape is one banding in the report's JSON: means over the seeds.
type plotShape struct {
	Shape               string    `json:"shape"`
	K                   int       `json:"k"`
	Seeds               int       `json:"seeds"`
	Candidates          float64   `json:"candidates"`
	PredictedCandidates float64   `json:"predicted_candidates"`
	Found               float64   `json:"found"` // pairs at or above -t found
	Exact               int64     `json:"exact"` // pairs at or above -t
	Recall              float64   `json:"recall"`
	RecallMin           float64   `json:"recall_min"`
	RecallMax           float64   `json:"recall_max"`
	PredictedRecall     float64   `json:"predicted_recall"`
	Seconds             float64   `json:"lsh_s"` // LSH time of one run
	Bins                []plotBin `json:"bins"`
}

// plotBin is one similarity bin of a banding in the report.
type plotBin struct {
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	Pairs     float64 `json:"pairs"` // estimated when sampled
	Share     float64 `json:"share"`
	Predicted float64 `json:"predicted"` // mean P over the bin's pairs
	Sampled   bool    `json:"sampled"`
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
	// The exact pairs at -t, counted for the report.
	var results int64
	var hist rpt.Histogram
	count := func(p join.Pair) bool {
		results++
		hist.Add(p.Sim)
		return true
	}
	opt := planner.CheckOptions{Shapes: shapes, Seeds: pf.seeds, Seed: cfg.lsh.opt.Seed, Floor: pf.truth, PairSample: pf.sample, Exact: count}
	// The circle: the first banding's candidates with --method lsh, the
	// exact pairs otherwise.
	var chords []plotting.Chord
	chord := func(p join.Pair) bool {
		chords = append(chords, plotting.Chord{A: p.A, B: p.B, Sim: p.Sim})
		return true
	}
	if pf.circle != "" && cfg.method == "lsh" {
		opt.Found = chord
	} else if pf.circle != "" {
		opt.Exact = func(p join.Pair) bool { return chord(p) && count(p) }
	}
	cc, err := l.in.Check(ctx, opt)
	if err != nil {
		return err
	}
	for _, st := range cc.Steps {
		rep.Phases = append(rep.Phases, rpt.Phase{Name: st.Name, Seconds: st.Seconds, CPU: st.CPU})
	}

	tm := rep.Start("plot")
	if err := writePlotTable(out, l.r, cfg, cc); err != nil {
		return err
	}
	for _, f := range pf.scurve {
		fig := &plotting.SCurveFigure{
			Title:     fmt.Sprintf("LSH S-curves, K = %d: predicted and found", cfg.lsh.opt.K),
			Threshold: cfg.t.Float(),
			MinPairs:  5,
		}
		for _, b := range cc.Bandings {
			c := plotting.Curve{Label: b.Shape.String(), P: b.Shape.P}
			for _, bn := range b.Bins {
				c.Bins = append(c.Bins, plotting.Bin{From: bn.From, To: bn.To, Pairs: bn.Pairs * int64(pf.seeds), Found: bn.Found, Sampled: bn.Sampled})
			}
			fig.Curves = append(fig.Curves, c)
		}
		if pf.seeds > 1 {
			fig.Title += fmt.Sprintf(" (%d seeds)", pf.seeds)
		}
		ext := strings.ToLower(filepath.Ext(f))[1:]
		if err := writeFigure(figs[f], func(w io.Writer) error { return fig.Write(w, ext) }); err != nil {
			return err
		}
	}
	if pf.circle != "" {
		slices.SortFunc(chords, func(x, y plotting.Chord) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
		what := fmt.Sprintf("%s pairs at J ≥ %s (exact)", numfmt.Group(cc.Pairs), cfg.t)
		if cfg.method == "lsh" {
			what = fmt.Sprintf("%s candidate pairs of LSH %s, K = %d", numfmt.Group(int64(len(chords))), shapes[0], cfg.lsh.opt.K)
		}
		fig := &plotting.CircleFigure{N: l.r.Records(), Names: l.names, Chords: chords,
			Title: fmt.Sprintf("%s records, %s", numfmt.Group(int64(l.r.Records())), what)}
		if err := writeFigure(figs[pf.circle], fig.WriteSVG); err != nil {
			return err
		}
	}
	tm.Done()
	var rows [][2]string
	var sec []plotShape
	for _, b := range cc.Bandings {
		s := plotShape{Shape: b.Shape.String(), K: cfg.lsh.opt.K, Seeds: pf.seeds, Candidates: b.Candidates, PredictedCandidates: b.PredictedCandidates,
			Found: b.Found, Exact: cc.Pairs, Recall: b.Recall, RecallMin: b.RecallMin, RecallMax: b.RecallMax, PredictedRecall: b.Predicted, Seconds: b.Seconds}
		for _, bn := range b.Bins {
			s.Bins = append(s.Bins, plotBin{bn.From, bn.To, bn.Estimate, bn.Recall.Estimate, bn.Predicted, bn.Sampled})
		}
		sec = append(sec, s)
		rows = append(rows, [2]string{s.Shape, fmt.Sprintf("%s candidates (predicted %s), recall %.3f (predicted %.3f; %s: %.3f to %.3f), %.3f s a run",
			rpt.Count(s.Candidates), rpt.Count(s.PredictedCandidates), s.Recall, s.PredictedRecall, rpt.Plural(int64(s.Seeds), "seed", "seeds"), s.RecallMin, s.RecallMax, s.Seconds)})
	}
	rep.AddSection("plot", fmt.Sprintf("LSH against the exact join (truth at J >= %.2f, %s pairs sampled below)", cc.Floor, numfmt.Group(int64(cc.Sampled))), sec, rows)
	rep.SetResults(results, &hist, cfg.m)
	return e.emit(rep, cfg.stats, cfg.statsOut)
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
	var out []approx.Shape
	for _, text := range strings.Split(list, ",") {
		s, err := approx.ParseShape(text)
		if err != nil {
			return nil, usagef("--shapes: %v", err)
		}
		if err := s.Check(cfg.lsh.opt.K); err != nil {
			return nil, usagef("--shapes %s with --perm %d: %v", s, cfg.lsh.opt.K, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// writePlotTable prints the summary per banding and the bins.
func writePlotTable(w io.Writer, c *order.Collection, cfg *joinConfig, cc *planner.CrossCheck) error {
	n := int64(c.Len())
	how := "sampled"
	if cc.AllBelow {
		how = "all"
	}
	fmt.Fprintf(w, "%s records (%s non-empty), %s pairs; %s pairs at J >= %s; truth: exact at J >= %.2f (%s pairs), below it %s %s pairs of distinct sets\n\n",
		numfmt.Group(int64(c.Records())), numfmt.Group(n), numfmt.Group(n*(n-1)/2), numfmt.Group(cc.Pairs), cfg.t, cc.Floor, numfmt.Group(cc.AboveFloor), how, numfmt.Group(int64(cc.Sampled)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "banding\tK\tseeds\tcandidates\tpredicted\tfound\tof\trecall\t(min-max)\tpredicted\t\n")
	seeds := len(cc.Bandings[0].Runs)
	for _, b := range cc.Bandings {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.3f\t%.3f-%.3f\t%.3f\t\n", b.Shape, cfg.lsh.opt.K, seeds, numfmt.Group(int64(math.Round(b.Candidates))),
			rpt.Count(b.PredictedCandidates), numfmt.Group(int64(math.Round(b.Found))), numfmt.Group(cc.Pairs), b.Recall, b.RecallMin, b.RecallMax, b.Predicted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var head bytes.Buffer
	head.WriteString("similarity\tpairs\t")
	for _, b := range cc.Bandings {
		fmt.Fprintf(&head, "%s found\tshare\tP(s)\t", b.Shape)
	}
	fmt.Fprintln(tw, head.String())
	for k, b := range cc.Bandings[0].Bins {
		pairs := numfmt.Group(int64(math.Round(b.Estimate)))
		if b.Sampled {
			pairs = "~" + pairs
		}
		line := fmt.Sprintf("%s\t%s\t", rpt.BinLabel(b.From, b.To), pairs)
		for _, s := range cc.Bandings {
			bn := s.Bins[k]
			found := numfmt.Group(bn.Found)
			if seeds > 1 {
				found = fmt.Sprintf("%.1f", float64(bn.Found)/float64(seeds))
			}
			if bn.Sampled {
				found += "/" + numfmt.Group(bn.Pairs)
			}
			line += fmt.Sprintf("%s\t%.3f\t%.3f\t", found, bn.Recall.Estimate, bn.Predicted)
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// writeFigure draws a figure into out.
func writeFigure(out *outfile.File, draw func(io.Writer) error) error {
	if err := draw(out); err != nil {
		return fmt.Errorf("%s: %w", out.Path(), err)
	}
	return nil
}
