package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/planner"
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
	cmd := &cobra.Command{
		Use:   "explain [flags] INPUT",
		Short: "Print the plan of a join without joining: the method, why, and the predicted cost of each path",
		Long: `Print how simjoin would join INPUT (with the same flags as join): the method
the planner chooses, the figures that decided it, the predicted cost of the
exact join and of MinHash-LSH term by term, and the predicted recall.

--analyze runs the chosen method and prints measured figures beside the
predicted ones (time per phase, candidates, results); --method exact or lsh
chooses the method to analyze. --cross-check N runs both methods on a seeded
sample of N records (or "all") and reports LSH's recall and precision against
the exact answer with 95% Clopper-Pearson intervals, and its recall per
similarity bin beside the S-curve's prediction. --json prints all of it as
JSON.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.command = "explain"
			if err := cfg.parse(); err != nil {
				return err
			}
			if err := ex.parse(); err != nil {
				return err
			}
			if err := cfg.docs.checkArgs(args); err != nil {
				return err
			}
			return runExplain(cmd.Context(), e, &cfg, &ex, args[0])
		},
	}
	cfg.addFlags(cmd.Flags())
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

// planRows is the plan's section of the statistics report.
func planRows(p *planner.Plan) [][2]string {
	rows := [][2]string{
		{"method", p.Method.String()},
		{"why", p.Reason},
		{"exact predicted", fmt.Sprintf("%s (CPU %s), %s candidates", seconds(p.Exact.Cost.Seconds), seconds(p.Exact.Cost.CPU), count(p.Exact.Candidates))},
	}
	if p.LSH.Available {
		rows = append(rows, [2]string{"lsh predicted", fmt.Sprintf("%s (CPU %s), %s candidates, recall %.3f (%s)",
			seconds(p.LSH.Cost.Seconds), seconds(p.LSH.Cost.CPU), count(p.LSH.Candidates), p.LSH.Recall, lshParams(p))})
	}
	rows = append(rows,
		[2]string{"predicted recall", ratio(p.Recall)},
		[2]string{"planning", seconds(p.Seconds)},
	)
	return rows
}

// runExplain loads the input, plans, optionally runs and cross-checks, and
// prints.
func runExplain(ctx context.Context, e *env, cfg *joinConfig, ex *explainFlags, input string) error {
	ctx, out, l, err := start(ctx, e, cfg, input)
	if err != nil {
		return err
	}
	res, err := l.in.Explain(ctx, simjoin.ExplainOptions{Analyze: ex.analyze, CrossCheck: ex.records, CrossSeed: ex.crossSeed})
	if errors.Is(err, simjoin.ErrNoLSH) {
		return usagef("--cross-check compares LSH with the exact join, and LSH is not available here: %s", res.Plan.LSH.Why)
	}
	if err != nil {
		return err
	}
	if ex.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	var b bytes.Buffer
	writeExplain(&b, l, res, ex)
	_, err = out.Write(b.Bytes())
	return err
}

// writeExplain writes the explanation for people: aligned, with units.
func writeExplain(w io.Writer, l *loaded, res *simjoin.Explanation, ex *explainFlags) {
	p := res.Plan
	kv := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(kv, "%s\t%s\n", k, v) }
	line("plan", p.Method.String())
	line("why", p.Reason)
	what := "self-join"
	if l.s != nil {
		what = "R-S join"
	}
	line("join", fmt.Sprintf("%s >= %s, %s", p.Measure, p.Threshold, what))
	line("predicted recall", recallText(p))
	kv.Flush()

	fmt.Fprintln(w, "\ninput")
	kv = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, st := range p.Stats {
		side := ""
		if len(p.Stats) > 1 {
			side = []string{" (R)", " (S)"}[i]
		}
		line("  records"+side, fmt.Sprintf("%s (%s empty)", numfmt.Group(int64(st.Records)), numfmt.Group(int64(st.Empty))))
		line("  tokens"+side, fmt.Sprintf("%s in sets, %s distinct", numfmt.Group(st.Tokens), numfmt.Group(int64(st.Distinct))))
		z := st.Size
		line("  set size"+side, fmt.Sprintf("min %d, p25 %d, median %d, p75 %d, p90 %d, p99 %d, max %d, mean %.1f",
			z.Min, z.P25, z.P50, z.P75, z.P90, z.P99, z.Max, z.Mean))
		f := st.Freq
		line("  token frequency"+side, fmt.Sprintf("max %s sets, mean %.2f; %.1f%% of tokens in one set; the top 1%% of tokens hold %.1f%% of occurrences; zipf s = %.2f",
			numfmt.Group(int64(f.Max)), f.Mean, 100*f.Once, 100*f.Top1, f.Zipf))
	}
	kv.Flush()

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Left-aligned rows end without a tab (no trailing blanks);
	// right-aligned ones need it.
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	rrow := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	ew := p.Exact.Work
	lshCol := func(s string) string {
		if !p.LSH.Available {
			return "not available"
		}
		return s
	}
	row("", "exact", "lsh")
	exactParams := fmt.Sprintf("%s prefix postings", count(float64(ew.Postings)))
	if ew.Ell > 1 {
		exactParams = fmt.Sprintf("ℓ = %d: %s key postings", ew.Ell, count(float64(ew.Postings)))
	}
	row("  parameters", exactParams, lshCol(lshParams(p)))
	row("  predicted time", seconds(p.Exact.Cost.Seconds), lshCol(seconds(p.LSH.Cost.Seconds)))
	row("  predicted CPU", seconds(p.Exact.Cost.CPU), lshCol(seconds(p.LSH.Cost.CPU)))
	row("  candidates", count(p.Exact.Candidates), lshCol(fmt.Sprintf("%s (S-curve: %s)", count(p.LSH.Candidates), count(p.LSH.CurveCandidates))))
	row("  recall", "1", lshCol(fmt.Sprintf("%.3f (>= %.3f at the threshold)", p.LSH.Recall, p.LSH.AtThreshold)))
	tw.Flush()

	costTable(w, "exact cost", p.Exact.Cost)
	if p.LSH.Available {
		costTable(w, "lsh cost", p.LSH.Cost)
	}

	fmt.Fprintln(w, "\nsample")
	kv = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	s := p.Sample
	if len(s.ExactRecords) > 0 {
		line("  exact join", fmt.Sprintf("%s records (%s of the pairs): %s postings, %s examined, %s candidates, %s verified, %s results",
			records(s.ExactRecords), share(s.ExactFraction), numfmt.Group(s.Postings), numfmt.Group(s.Examined), numfmt.Group(s.Candidates), numfmt.Group(s.Verified), numfmt.Group(s.Results)))
	} else {
		line("  exact join", "none: candidates bounded by the prefix postings")
	}
	if len(s.LSHRecords) > 0 {
		line("  lsh join", fmt.Sprintf("%s records (%s of the pairs): %s collisions, %s candidates, %s results",
			records(s.LSHRecords), share(s.LSHFraction), numfmt.Group(s.LSHCollisions), numfmt.Group(s.LSHCandidates), numfmt.Group(s.LSHResults)))
	}
	if s.Pairs > 0 {
		line("  random pairs", numfmt.Group(int64(s.Pairs))+" measured for the similarity distribution")
	}
	line("  expected results", count(s.Predicted))
	line("  planning took", seconds(p.Seconds))
	kv.Flush()

	if a := res.Analyze; a != nil {
		fmt.Fprintf(w, "\nanalyze: ran %s\n", a.Method)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		row("", "predicted", "measured")
		for i, ph := range a.Measured.Phases {
			row("  "+ph.Name, seconds(a.Predicted.Phases[i].Seconds), seconds(ph.Seconds))
		}
		row("  total", seconds(a.Predicted.Seconds), seconds(a.Measured.Seconds))
		if a.Measured.CPU > 0 {
			row("  CPU", seconds(a.Predicted.CPU), seconds(a.Measured.CPU))
		}
		if a.Method == planner.LSH {
			row("  band collisions", count(a.Predicted.Collisions), numfmt.Group(a.Measured.Collisions))
		}
		row("  candidates", count(a.Predicted.Candidates), numfmt.Group(a.Measured.Candidates))
		row("  results", count(a.Predicted.Results), numfmt.Group(a.Measured.Results))
		tw.Flush()
	}
	if cc := res.CrossCheck; cc != nil {
		what := fmt.Sprintf("a sample of %s records (seed %d)", records(cc.Records), ex.crossSeed)
		if cc.Whole {
			what = "the whole input"
		}
		fmt.Fprintf(w, "\ncross-check: exact and lsh on %s\n", what)
		kv = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		pct := fmt.Sprintf("%g%% Clopper-Pearson", 100*cc.Confidence)
		line("  exact", fmt.Sprintf("%s pairs in %s", numfmt.Group(cc.Exact.Results), seconds(cc.Exact.Seconds)))
		line("  lsh", fmt.Sprintf("%s pairs in %s, %s candidates", numfmt.Group(cc.LSH.Results), seconds(cc.LSH.Seconds), numfmt.Group(cc.LSH.Candidates)))
		line("  recall", interval(cc.Recall)+" "+pct)
		line("  precision", interval(cc.Precision))
		line("  candidate precision", interval(cc.CandidatePrecision))
		line("  predicted recall", fmt.Sprintf("%.3f over these pairs (S-curve), >= %.3f at the threshold", cc.Predicted, cc.AtThreshold))
		kv.Flush()
		if len(cc.Bins) > 0 {
			fmt.Fprintln(w, "  recall by jaccard similarity:")
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			rrow("    bin", "pairs", "found", "recall", "interval", "S-curve")
			for _, b := range cc.Bins {
				rrow(fmt.Sprintf("    [%.2f, %.2f)", b.From, b.To), numfmt.Group(b.Recall.N), numfmt.Group(b.Recall.K),
					fmt.Sprintf("%.3f", b.Recall.Estimate), fmt.Sprintf("[%.3f, %.3f]", b.Recall.Lo, b.Recall.Hi), fmt.Sprintf("%.3f", b.Predicted))
			}
			tw.Flush()
		}
	}
}

// costTable writes a path's predicted cost term by term.
func costTable(w io.Writer, title string, c planner.Cost) {
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  term\tphase\tcount\tCPU ns each\tCPU\t")
	for _, t := range c.Terms {
		if t.Count == 0 {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.3g\t%s\t\n", t.Name, t.Phase, count(t.Count), t.Nanos, seconds(t.CPU))
	}
	fmt.Fprintf(tw, "  total\t\t\t\t%s\t\n", seconds(c.CPU))
	fmt.Fprintf(tw, "  on %s\t\t\t\t%s\t\n", plural(int64(c.Parallel), "core", "cores"), seconds(c.Seconds))
	tw.Flush()
}

func lshParams(p *planner.Plan) string {
	l := p.LSH
	return fmt.Sprintf("%s K=%d, %dx%d bands, seed %d", l.Scheme, l.K, l.Bands, l.Rows, l.Seed)
}

func recallText(p *planner.Plan) string {
	if p.Method == planner.Exact {
		return "1 (exact)"
	}
	return fmt.Sprintf("%.3f expected, >= %.3f for every pair at the threshold", p.LSH.Recall, p.LSH.AtThreshold)
}

// seconds formats a duration in seconds with a unit people read at a glance.
func seconds(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	case s > 0:
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
	return "0 s"
}

// count formats a predicted count: grouped digits, rounded.
func count(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?"
	}
	return numfmt.Group(int64(math.Round(x)))
}

func records(n []int) string {
	parts := make([]string, len(n))
	for i, v := range n {
		parts[i] = numfmt.Group(int64(v))
	}
	return strings.Join(parts, " x ")
}

func share(f float64) string {
	switch {
	case f >= 0.01:
		return fmt.Sprintf("%.1f%%", 100*f)
	default:
		return fmt.Sprintf("%.2g%%", 100*f)
	}
}

func interval(iv planner.Interval) string {
	if iv.N == 0 {
		return "- (no pairs)"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f] (%s of %s)", iv.Estimate, iv.Lo, iv.Hi, numfmt.Group(iv.K), numfmt.Group(iv.N))
}
