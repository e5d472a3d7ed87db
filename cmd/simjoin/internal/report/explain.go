package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// ReasonText words why plan p chose its method (p.Reason), with the figures
// the choice compared and how far inside or outside the margin they fell:
// "exact: whole run predicted at 6.04 ms of CPU against 30.1 ms for LSH
// (0.20x, inside the 1.25x margin by 6.2x); exact is kept within the
// margin, since it loses no pair".
func ReasonText(p *planner.Plan) string {
	r := p.Reason
	switch r.Code {
	case planner.ReasonAsked:
		return fmt.Sprintf("%s was asked for", p.Method)
	case planner.ReasonNoLSH:
		return fmt.Sprintf("exact: LSH is not available here (%s)", Plain(p.LSH.Why))
	case planner.ReasonNoPairs:
		return "exact: there are no pairs to join"
	case planner.ReasonExactWithin:
		return fmt.Sprintf("exact: whole run predicted at %s of CPU against %s for LSH (%.2fx, inside the %gx margin by %.2fx); exact is kept within the margin, since it loses no pair",
			numfmt.Secs(r.ExactCPU), numfmt.Secs(r.LSHCPU), r.ExactCPU/r.LSHCPU, r.Prefer, r.Prefer*r.LSHCPU/r.ExactCPU)
	case planner.ReasonLSHCheaper:
		return fmt.Sprintf("lsh: whole run predicted at %s of CPU against %s for exact (%.2fx less, outside the %gx margin by %.2fx), expected recall %.3f (at least %.3f for every pair at the threshold)",
			numfmt.Secs(r.LSHCPU), numfmt.Secs(r.ExactCPU), r.ExactCPU/r.LSHCPU, r.Prefer, r.ExactCPU/r.LSHCPU/r.Prefer, r.Recall, r.AtThreshold)
	case planner.ReasonBeforeOrder:
		return fmt.Sprintf("lsh: whole run predicted at %s of CPU against at least %s for exact, whose reading and token order alone cost that (%.2fx, outside the %gx margin by %.2fx), so the order is not built; expected recall %.3f (at least %.3f for every pair at the threshold)",
			numfmt.Secs(r.LSHCPU), numfmt.Secs(r.ExactLeast), r.ExactLeast/r.LSHCPU, r.Prefer, r.ExactLeast/r.LSHCPU/r.Prefer, r.Recall, r.AtThreshold)
	case planner.ReasonPending:
		return fmt.Sprintf("exact, pending the token order: at least %s of CPU against %s for LSH (%.2fx, inside the %gx margin)",
			numfmt.Secs(r.ExactLeast), numfmt.Secs(r.LSHCPU), r.ExactLeast/r.LSHCPU, r.Prefer)
	}
	return fmt.Sprintf("%s (%s)", p.Method, r.Code)
}

// PlanJSON is plan P in the report's JSON (the "plan" section of
// --stats-json, and explain --json's "plan"): planner.Plan's JSON with its
// reason in words (ReasonText) under "reason".
type PlanJSON struct{ P *planner.Plan }

// MarshalJSON writes the plan's fields in their order, the reason's text in
// the place of planner.Reason.
func (j PlanJSON) MarshalJSON() ([]byte, error) {
	type fields planner.Plan // without planner's reason
	p := j.P
	// The fields up to the reason are written here, in Plan's order; the
	// embedded plan's fields of the same JSON names are hidden by them, and
	// its others (figures on) follow in its order.
	return json.Marshal(struct {
		Method    planner.Method   `json:"method"`
		Forced    bool             `json:"forced,omitempty"`
		Measure   prefix.Measure   `json:"measure"`
		Threshold prefix.Threshold `json:"threshold"`
		Prefer    float64          `json:"prefer"`
		Recall    float64          `json:"recall"`
		Reason    string           `json:"reason"`
		*fields
	}{p.Method, p.Forced, p.Measure, p.Threshold, p.Prefer, p.Recall, ReasonText(p), (*fields)(p)})
}

// ExplainJSON is the JSON of simjoin explain --json: res (from
// simjoin.Input.Explain) with its plan as PlanJSON.
func ExplainJSON(res *simjoin.Explanation) any {
	return struct {
		Plan       PlanJSON              `json:"plan"`
		Analyze    []*planner.Analysis   `json:"analyze,omitempty"`
		CrossCheck *planner.CheckSummary `json:"cross_check,omitempty"`
	}{PlanJSON{res.Plan}, res.Analyze, res.CrossCheck}
}

// WriteExplanation writes res as simjoin explain prints it to w, in one
// write whose error it returns: as indented JSON (ExplainJSON, its floats
// rounded as the statistics report's: roundFloats) when asJSON,
// else as text (WriteExplain, with rs and crossSeed).
func WriteExplanation(w io.Writer, res *simjoin.Explanation, asJSON, rs bool, crossSeed uint64) error {
	var b bytes.Buffer
	if asJSON {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ExplainJSON(res)); err != nil {
			return err
		}
		rounded := roundFloats(b.Bytes())
		b.Reset()
		b.Write(rounded)
	} else {
		WriteExplain(&b, res, rs, crossSeed)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// PlanRows is the plan's section of the statistics report.
func PlanRows(p *planner.Plan) [][2]string {
	rows := [][2]string{
		{"method", p.Method.String()},
		{"why", ReasonText(p)},
		{"exact predicted", fmt.Sprintf("%s (CPU %s), %s candidates", Seconds(p.Exact.Cost.Seconds), Seconds(p.Exact.Cost.CPU), Count(p.Exact.Candidates))},
	}
	if p.LSH.Available {
		rows = append(rows, [2]string{"lsh predicted", fmt.Sprintf("%s (CPU %s), %s candidates, recall %.3f (%s)",
			Seconds(p.LSH.Cost.Seconds), Seconds(p.LSH.Cost.CPU), Count(p.LSH.Candidates), p.LSH.Recall, lshParams(p))})
	}
	rows = append(rows,
		[2]string{"predicted recall", Ratio(p.Recall)},
		[2]string{"planning", planningText(p)},
	)
	return rows
}

// planningText words what planning took: its wall time, and its CPU time
// as a share of the chosen path's predicted CPU time.
func planningText(p *planner.Plan) string {
	chosen := p.Exact.Cost.CPU
	if p.Method == planner.LSH {
		chosen = p.LSH.Cost.CPU
	}
	if chosen <= 0 {
		return Seconds(p.Seconds)
	}
	return fmt.Sprintf("%s (CPU %s, %.1f%% of %s's predicted)", Seconds(p.Seconds), Seconds(p.CPU), 100*p.CPU/chosen, p.Method)
}

// WriteExplain writes the explanation of simjoin explain for people:
// aligned, with units. rs says the join is an R-S join; crossSeed is the
// cross-check's seed.
func WriteExplain(w io.Writer, res *simjoin.Explanation, rs bool, crossSeed uint64) {
	p := res.Plan
	kv := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(kv, "%s\t%s\n", k, v) }
	line("plan", p.Method.String())
	line("why", ReasonText(p))
	what := "self-join"
	if rs {
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
		distinct := numfmt.Group(int64(st.Distinct)) + " distinct"
		if st.Sampled < 1 {
			distinct = fmt.Sprintf("about %s distinct (the order is not built: frequencies from %s of the distinct tokens, hash-sampled)",
				numfmt.Group(int64(st.Distinct)), share(st.Sampled))
		}
		line("  tokens"+side, fmt.Sprintf("%s in sets, %s", numfmt.Group(st.Tokens), distinct))
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
	exactParams := fmt.Sprintf("%s prefix postings", Count(float64(ew.Postings)))
	if ew.Ell > 1 {
		exactParams = fmt.Sprintf("ℓ = %d: %s key postings", ew.Ell, Count(float64(ew.Postings)))
	}
	if !p.Ordered {
		exactParams = "estimated before the order: " + exactParams
	}
	row("  parameters", exactParams, lshCol(lshParams(p)))
	// The whole run's CPU time phase by phase, then in all.
	for _, ph := range wholePhases(p) {
		row("  "+ph.String(), phaseCPU(p.Exact.Cost, ph), lshCol(phaseCPU(p.LSH.Cost, ph)))
	}
	least := ""
	if !p.Ordered {
		least = fmt.Sprintf(" (at least %s)", Seconds(p.Exact.Least))
	}
	row("  predicted CPU", Seconds(p.Exact.Cost.CPU)+least, lshCol(Seconds(p.LSH.Cost.CPU)))
	row("  predicted time", Seconds(p.Exact.Cost.Seconds), lshCol(Seconds(p.LSH.Cost.Seconds)))
	row("  candidates", Count(p.Exact.Candidates), lshCol(fmt.Sprintf("%s (S-curve: %s)", Count(p.LSH.Candidates), Count(p.LSH.CurveCandidates))))
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
			recordList(s.ExactRecords), share(s.ExactFraction), numfmt.Group(s.Postings), numfmt.Group(s.Examined), numfmt.Group(s.Candidates), numfmt.Group(s.Verified), numfmt.Group(s.Results)))
	} else {
		line("  exact join", "none: candidates bounded by the prefix postings")
	}
	if len(s.LSHRecords) > 0 {
		line("  lsh join", fmt.Sprintf("%s records (%s of the pairs): %s collisions, %s candidates, %s results",
			recordList(s.LSHRecords), share(s.LSHFraction), numfmt.Group(s.LSHCollisions), numfmt.Group(s.LSHCandidates), numfmt.Group(s.LSHResults)))
	}
	if s.Pairs > 0 {
		line("  random pairs", numfmt.Group(int64(s.Pairs))+" measured for the similarity distribution")
	}
	line("  expected results", Count(s.Predicted))
	line("  planning took", planningText(p))
	kv.Flush()

	for _, a := range res.Analyze {
		writeAnalysis(w, a)
	}
	if cc := res.CrossCheck; cc != nil {
		what := fmt.Sprintf("a sample of %s records (seed %d)", recordList(cc.Records), crossSeed)
		if cc.Whole {
			what = "the whole input"
		}
		fmt.Fprintf(w, "\ncross-check: exact and lsh on %s\n", what)
		kv = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		pct := fmt.Sprintf("%g%% Clopper-Pearson", 100*cc.Confidence)
		line("  exact", fmt.Sprintf("%s pairs in %s", numfmt.Group(cc.Exact.Results), Seconds(cc.Exact.Seconds)))
		line("  lsh", fmt.Sprintf("%s pairs in %s, %s candidates", numfmt.Group(cc.LSH.Results), Seconds(cc.LSH.Seconds), numfmt.Group(cc.LSH.Candidates)))
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

// writeAnalysis writes a run beside its prediction: the CPU time phase by
// phase, then each term's count, with the ratios of predicted to measured
// and "!" where one is off by more than planner.OffBy.
func writeAnalysis(w io.Writer, a *planner.Analysis) {
	fmt.Fprintf(w, "\nanalyze: ran %s whole (CPU time: predicted, model on the run's counts, measured)\n", a.Method)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  phase\tpredicted\tcounted\tmeasured\tratio\twall\t")
	for _, ph := range a.Phases {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t\n", ph.Name, Seconds(ph.Predicted), Seconds(ph.Counted), Seconds(ph.Measured), ratioText(ph.Ratio, ph.Off), Seconds(ph.Wall))
	}
	fmt.Fprintf(tw, "  total\t%s\t%s\t%s\t%s\t%s\t\n", Seconds(a.Predicted), Seconds(a.Counted), Seconds(a.Measured), ratioText(a.Ratio, a.Off), Seconds(a.Run.Seconds))
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  term\tphase\tpredicted\tmeasured\tratio\t")
	off := a.Off
	for _, t := range a.Terms {
		if t.Predicted == 0 && t.Measured == 0 {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\n", t.Name, t.Phase, Count(t.Predicted), Count(t.Measured), ratioText(t.Ratio, t.Off))
		off = off || t.Off
	}
	tw.Flush()
	for _, ph := range a.Phases {
		off = off || ph.Off
	}
	if off {
		fmt.Fprintf(w, "  ! predicted and measured differ by more than %gx\n", planner.OffBy)
	}
}

// ratioText writes a ratio of predicted to measured as "1.27x", "-" when
// nothing was measured, with "!" when it is off.
func ratioText(r float64, off bool) string {
	if r == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.2fx", r)
	if off {
		s += "!"
	}
	return s
}

// wholePhases returns the phases either path's whole run is priced in, in
// the order of a run.
func wholePhases(p *planner.Plan) []planner.PhaseName {
	ps := p.Exact.Cost.Phases()
	if p.LSH.Available {
		for _, ph := range p.LSH.Cost.Phases() {
			if !slices.Contains(ps, ph) {
				ps = append(ps, ph)
			}
		}
	}
	slices.Sort(ps)
	return ps
}

// phaseCPU is a path's predicted CPU time in phase, or "" when the path
// has none there.
func phaseCPU(c planner.Cost, ph planner.PhaseName) string {
	if !slices.Contains(c.Phases(), ph) {
		return ""
	}
	return Seconds(c.PhaseCPU(ph))
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
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.3g\t%s\t\n", t.Name, t.Phase, Count(t.Count), t.Nanos, Seconds(t.CPU))
	}
	fmt.Fprintf(tw, "  total\t\t\t\t%s\t\n", Seconds(c.CPU))
	fmt.Fprintf(tw, "  on %s\t\t\t\t%s\t\n", Plural(int64(c.Parallel), "core", "cores"), Seconds(c.Seconds))
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
