package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/internal/plotting"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
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

// binCount is the number of similarity bins of the S-curve's dots.
const binCount = 20

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

// plotShape is one banding's measurement.
type plotShape struct {
	Shape               string    `json:"shape"`
	K                   int       `json:"k"`
	Seeds               int       `json:"seeds"`
	Candidates          float64   `json:"candidates"` // mean over seeds
	PredictedCandidates float64   `json:"predicted_candidates"`
	Found               float64   `json:"found"`  // pairs at or above -t found, mean over seeds
	Exact               int64     `json:"exact"`  // pairs at or above -t
	Recall              float64   `json:"recall"` // mean over seeds
	RecallMin           float64   `json:"recall_min"`
	RecallMax           float64   `json:"recall_max"`
	PredictedRecall     float64   `json:"predicted_recall"`
	Seconds             float64   `json:"lsh_s"` // LSH time of one run, mean over seeds
	Bins                []plotBin `json:"bins"`

	shape approx.Shape
	runs  []map[uint64]float64 // per seed: record pairs reported, key a<<32|b, with their similarity
	bins  []plotting.Bin       // Pairs and Found summed over seeds
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

// simPair is a pair of records (original ids) or of units with its exact
// similarity.
type simPair struct {
	a, b int32
	sim  float64
	atT  bool // reaches the threshold -t (decided exactly)
}

func pairKey(a, b int) uint64 { return uint64(min(a, b))<<32 | uint64(max(a, b)) }

// runPlot is the plot command.
func runPlot(ctx context.Context, e *env, cfg *joinConfig, pf *plotFlags) error {
	if cfg.against != "" {
		return usagef("plot measures a self-join: --against is not allowed")
	}
	if cfg.m != prefix.Jaccard {
		return usagef("plot draws the S-curve of Jaccard similarity: use --measure jaccard")
	}
	if pf.sample < 0 {
		return usagef("--sample must be >= 0")
	}
	if pf.seeds < 1 {
		return usagef("--seeds must be >= 1")
	}
	if !(pf.truth > 0 && pf.truth <= 1) {
		return usagef("--truth %v: want a similarity in (0, 1]", pf.truth)
	}
	truth := math.Floor(min(pf.truth, cfg.t.Float())*binCount+1e-9) / binCount
	if truth == 0 {
		truth = 1.0 / binCount
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
	c := l.r
	units := unitsOf(c)

	// The truth: every pair at or above the truth threshold, exactly.
	tm := rep.phase("exact")
	tTruth, err := prefix.ThresholdOf(prefix.Jaccard, truth)
	if err != nil {
		return err
	}
	var truePairs []simPair
	var exactAtT int64
	sink := newPairSink(newPairWriter(io.Discard, formatTSV, false), cfg, l)
	atT := prefix.NewBounds(prefix.Jaccard, cfg.t)
	_, err = join.SelfJoin(ctx, c, join.Options{Threshold: tTruth, Workers: cfg.workers}, func(p join.Pair) bool {
		sp := simPair{int32(p.A), int32(p.B), p.Sim, false}
		if atT.Passes(p.Overlap, c.Size(int(units.pos[p.A])), c.Size(int(units.pos[p.B]))) {
			sp.atT = true
			exactAtT++
			sink.add(p)
		}
		truePairs = append(truePairs, sp)
		return true
	})
	if err != nil {
		return err
	}
	tm.done("exact")

	// Below it: a uniform sample of pairs of distinct sets.
	tm = rep.phase("sample")
	seed := cfg.lsh.opt.Seed
	below, belowPop, sampled := sampleBelow(c, units, truePairs, truth, pf.sample, seed, cfg.workers)
	tm.done("sample")

	// Every banding: its candidates.
	for _, s := range shapes {
		tm = rep.phase("lsh " + s.Shape)
		if err := runPlotShape(ctx, cfg, l, s, pf.seeds); err != nil {
			return err
		}
		tm.done("lsh " + s.Shape)
		s.measure(truePairs, below, belowPop, sampled, units, c, truth)
	}

	// Figures and the table.
	tm = rep.phase("plot")
	if err := writePlotTable(out, c, truePairs, truth, belowPop, len(below), exactAtT, cfg, shapes); err != nil {
		return err
	}
	for _, f := range pf.scurve {
		fig := &plotting.SCurveFigure{
			Title:     fmt.Sprintf("LSH S-curves, K = %d: predicted and found", cfg.lsh.opt.K),
			Threshold: cfg.t.Float(),
			MinPairs:  5,
		}
		for _, s := range shapes {
			fig.Curves = append(fig.Curves, plotting.Curve{Label: s.Shape, P: s.shape.P, Bins: s.bins})
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
		fig := &plotting.CircleFigure{N: c.Records(), Names: l.names}
		what := fmt.Sprintf("%s pairs at J ≥ %s (exact)", numfmt.Group(exactAtT), cfg.t)
		if cfg.method == "lsh" {
			s := shapes[0]
			for k, sim := range s.runs[0] {
				fig.Chords = append(fig.Chords, plotting.Chord{A: int(k >> 32), B: int(k & (1<<32 - 1)), Sim: sim})
			}
			what = fmt.Sprintf("%s candidate pairs of LSH %s, K = %d", numfmt.Group(int64(len(s.runs[0]))), s.Shape, s.K)
		} else {
			for _, p := range truePairs {
				if p.atT {
					fig.Chords = append(fig.Chords, plotting.Chord{A: int(p.a), B: int(p.b), Sim: p.sim})
				}
			}
		}
		slices.SortFunc(fig.Chords, func(x, y plotting.Chord) int {
			if x.A != y.A {
				return x.A - y.A
			}
			return x.B - y.B
		})
		fig.Title = fmt.Sprintf("%s records, %s", numfmt.Group(int64(c.Records())), what)
		if err := writeFigure(figs[pf.circle], fig.WriteSVG); err != nil {
			return err
		}
	}
	tm.done("plot")
	var rows [][2]string
	for _, s := range shapes {
		rows = append(rows, [2]string{s.Shape, fmt.Sprintf("%s candidates (predicted %s), recall %.3f (predicted %.3f; %s: %.3f to %.3f), %.3f s a run",
			count(s.Candidates), count(s.PredictedCandidates), s.Recall, s.PredictedRecall, plural(int64(s.Seeds), "seed", "seeds"), s.RecallMin, s.RecallMax, s.Seconds)})
	}
	rep.addSection("plot", fmt.Sprintf("LSH against the exact join (truth at J >= %.2f, %s pairs sampled below)", truth, numfmt.Group(int64(len(below)))), shapes, rows)
	return finishReport(e, cfg, rep, sink)
}

// plotShapes parses --shapes, or takes the banding --method lsh would use.
func plotShapes(cfg *joinConfig, list string) ([]*plotShape, error) {
	if cfg.lsh.opt.Threshold.Den == 0 {
		if err := cfg.lsh.resolve(cfg); err != nil {
			return nil, err
		}
	}
	var out []*plotShape
	if list == "" {
		s := cfg.lsh.opt.Shape
		return []*plotShape{{Shape: s.String(), K: cfg.lsh.opt.K, shape: s}}, nil
	}
	for _, text := range strings.Split(list, ",") {
		s, err := approx.ParseShape(text)
		if err != nil {
			return nil, usagef("--shapes: %v", err)
		}
		if err := s.Check(cfg.lsh.opt.K); err != nil {
			return nil, usagef("--shapes %s with --perm %d: %v", s, cfg.lsh.opt.K, err)
		}
		out = append(out, &plotShape{Shape: s.String(), K: cfg.lsh.opt.K, shape: s})
	}
	return out, nil
}

// runPlotShape runs the LSH self-join with the banding s and a threshold
// just above 0, so that every candidate sharing a token is reported with its
// exact similarity, once for each of seeds seeds from --seed on.
func runPlotShape(ctx context.Context, cfg *joinConfig, l *loaded, s *plotShape, seeds int) error {
	opt := cfg.lsh.opt
	opt.Shape = s.shape
	opt.Threshold = prefix.Threshold{Num: 1, Den: 1 << 40}
	opt.Verify = approx.VerifyExact
	s.Seeds = seeds
	for k := range seeds {
		opt.Seed = cfg.lsh.opt.Seed + uint64(k)
		bar := l.prog.count("lsh " + s.Shape)
		opt.Progress = bar.setOf
		found := map[uint64]float64{}
		st, err := approx.SelfJoin(ctx, l.r, opt, func(p join.Pair) bool {
			found[pairKey(p.A, p.B)] = p.Sim
			return true
		})
		bar.finish()
		if err != nil {
			return err
		}
		s.runs = append(s.runs, found)
		s.Candidates += float64(st.Candidates) / float64(seeds)
		s.Seconds += (st.SignTime + st.BandTime + st.JoinTime).Seconds() / float64(seeds)
	}
	return nil
}

// setUnits maps the collection's positions to distinct sets: unit[i] is the
// unit of position i, first[u] the first position of unit u; pos[id] is the
// position of original record id (-1 for an empty record).
type setUnits struct {
	unit  []int32
	first []int32
	pos   []int32
}

func unitsOf(c *order.Collection) *setUnits {
	u := &setUnits{unit: make([]int32, c.Len()), pos: make([]int32, c.Records())}
	for i := range u.pos {
		u.pos[i] = -1
	}
	for g := range c.Groups() {
		lo, hi := c.Group(g)
		u.first = append(u.first, int32(lo))
		for i := lo; i < hi; i++ {
			u.unit[i] = int32(g)
			u.pos[c.ID(i)] = int32(i)
		}
	}
	return u
}

// unitPair returns the key of the unit pair of two original records, and
// false when they have the same set.
func (u *setUnits) unitPair(a, b int32) (uint64, bool) {
	ua, ub := u.unit[u.pos[a]], u.unit[u.pos[b]]
	if ua == ub {
		return 0, false
	}
	return pairKey(int(ua), int(ub)), true
}

// sampleBelow draws n pairs of distinct sets uniformly (with replacement) and
// keeps those below the truth threshold, each with its similarity; it also
// returns the number of unit pairs below the threshold (the population the
// sample stands for). Deterministic for a seed, on any number of workers.
func sampleBelow(c *order.Collection, u *setUnits, truePairs []simPair, truth float64, n int, seed uint64, workers int) (below []simPair, pop float64, sampled bool) {
	nu := len(u.first)
	seen := map[uint64]bool{}
	for _, p := range truePairs {
		if k, ok := u.unitPair(p.a, p.b); ok {
			seen[k] = true
		}
	}
	all := float64(nu) * float64(nu-1) / 2
	pop = all - float64(len(seen))
	if nu < 2 || n == 0 || pop <= 0 {
		return nil, max(pop, 0), true
	}
	var draws []simPair
	if all <= float64(n) {
		// Few enough to take them all: the bins below are exact.
		for a := range nu {
			for b := a + 1; b < nu; b++ {
				draws = append(draws, simPair{a: int32(a), b: int32(b)})
			}
		}
	} else {
		sampled = true
		r := rand.New(rand.NewPCG(seed, 0x706c6f74))
		draws = make([]simPair, n)
		for i := range draws {
			a := r.IntN(nu)
			b := r.IntN(nu - 1)
			if b >= a {
				b++
			}
			draws[i] = simPair{a: int32(a), b: int32(b)}
		}
	}
	n = len(draws)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / max(workers, 1)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				x, y := c.Set(int(u.first[draws[i].a])), c.Set(int(u.first[draws[i].b]))
				o := join.Overlap(x, y)
				draws[i].sim = float64(o) / float64(len(x)+len(y)-o)
			}
		})
	}
	wg.Wait()
	out := draws[:0]
	for _, d := range draws {
		if d.sim < truth && !seen[pairKey(int(d.a), int(d.b))] {
			out = append(out, d)
		}
	}
	return out, pop, sampled
}

// measure fills the recall, the predictions and the bins of s.
func (s *plotShape) measure(truePairs, below []simPair, belowPop float64, sampled bool, u *setUnits, c *order.Collection, truth float64) {
	p := s.shape.P
	bins := make([]plotting.Bin, binCount)
	pred := make([]float64, binCount)
	for k := range bins {
		bins[k].From, bins[k].To = float64(k)/binCount, float64(k+1)/binCount
		bins[k].Sampled = sampled && bins[k].To <= truth+1e-9
	}
	binOf := func(sim float64) int { return min(int(sim*binCount+1e-9), binCount-1) }
	var sumP float64
	seen := map[uint64]bool{}
	runs := float64(len(s.runs))
	foundAtT := make([]int64, len(s.runs))
	for _, tp := range truePairs {
		k := binOf(tp.sim)
		bins[k].Pairs += int64(len(s.runs))
		pred[k] += p(tp.sim)
		for r, found := range s.runs {
			if _, ok := found[pairKey(int(tp.a), int(tp.b))]; ok {
				bins[k].Found++
				if tp.atT {
					foundAtT[r]++
				}
			}
		}
		if tp.atT {
			s.Exact++
			sumP += p(tp.sim)
		}
		if key, ok := u.unitPair(tp.a, tp.b); ok && !seen[key] {
			seen[key] = true
			s.PredictedCandidates += p(tp.sim)
		}
	}
	s.RecallMin, s.RecallMax = 1, 0
	for _, f := range foundAtT {
		s.Found += float64(f) / runs
		recall := 1.0
		if s.Exact > 0 {
			recall = float64(f) / float64(s.Exact)
		}
		s.Recall += recall / runs
		s.RecallMin, s.RecallMax = min(s.RecallMin, recall), max(s.RecallMax, recall)
	}
	if s.Exact > 0 {
		s.PredictedRecall = sumP / float64(s.Exact)
	}
	// The sample: is each drawn unit pair a candidate? The LSH run reports
	// record pairs; a unit pair is found when its first records' pair is.
	var sampleP float64
	for _, d := range below {
		a, b := c.ID(int(u.first[d.a])), c.ID(int(u.first[d.b]))
		k := binOf(d.sim)
		bins[k].Pairs += int64(len(s.runs))
		pred[k] += p(d.sim)
		sampleP += p(d.sim)
		for _, found := range s.runs {
			if _, ok := found[pairKey(a, b)]; ok {
				bins[k].Found++
			}
		}
	}
	if len(below) > 0 {
		s.PredictedCandidates += belowPop * sampleP / float64(len(below))
	}
	scale := 0.0
	if len(below) > 0 {
		scale = belowPop / float64(len(below))
	}
	s.bins = bins
	for k, b := range bins {
		pb := plotBin{From: b.From, To: b.To, Pairs: float64(b.Pairs) / runs, Share: b.Share(), Sampled: b.Sampled}
		if b.Pairs > 0 {
			pb.Predicted = pred[k] / pb.Pairs
		}
		if b.Sampled {
			pb.Pairs *= scale
		}
		s.Bins = append(s.Bins, pb)
	}
}

// writePlotTable prints the summary per banding and the bins.
func writePlotTable(w io.Writer, c *order.Collection, truePairs []simPair, truth, belowPop float64, sampled int, exactAtT int64, cfg *joinConfig, shapes []*plotShape) error {
	n := int64(c.Len())
	how := "sampled"
	if !shapes[0].bins[0].Sampled {
		how = "all"
	}
	fmt.Fprintf(w, "%s records (%s non-empty), %s pairs; %s pairs at J >= %s; truth: exact at J >= %.2f (%s pairs), below it %s %s pairs of distinct sets\n\n",
		numfmt.Group(int64(c.Records())), numfmt.Group(n), numfmt.Group(n*(n-1)/2), numfmt.Group(exactAtT), cfg.t, truth, numfmt.Group(int64(len(truePairs))), how, numfmt.Group(int64(sampled)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "banding\tK\tseeds\tcandidates\tpredicted\tfound\tof\trecall\t(min-max)\tpredicted\t\n")
	for _, s := range shapes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.3f\t%.3f-%.3f\t%.3f\t\n", s.Shape, s.K, s.Seeds, numfmt.Group(int64(math.Round(s.Candidates))),
			count(s.PredictedCandidates), numfmt.Group(int64(math.Round(s.Found))), numfmt.Group(s.Exact), s.Recall, s.RecallMin, s.RecallMax, s.PredictedRecall)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var head bytes.Buffer
	head.WriteString("similarity\tpairs\t")
	for _, s := range shapes {
		fmt.Fprintf(&head, "%s found\tshare\tP(s)\t", s.Shape)
	}
	fmt.Fprintln(tw, head.String())
	for k := range binCount {
		b := shapes[0].Bins[k]
		pairs := numfmt.Group(int64(math.Round(b.Pairs)))
		if b.Sampled {
			pairs = "~" + pairs
		}
		line := fmt.Sprintf("%s\t%s\t", binLabel(b.From, b.To), pairs)
		for _, s := range shapes {
			sb, raw := s.Bins[k], s.bins[k]
			found := numfmt.Group(raw.Found)
			if s.Seeds > 1 {
				found = fmt.Sprintf("%.1f", float64(raw.Found)/float64(s.Seeds))
			}
			if raw.Sampled {
				found += "/" + numfmt.Group(raw.Pairs/int64(s.Seeds))
			}
			line += fmt.Sprintf("%s\t%.3f\t%.3f\t", found, sb.Share, sb.Predicted)
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
