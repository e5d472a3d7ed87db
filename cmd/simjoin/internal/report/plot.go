package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// PlotShape is one banding of simjoin plot in the report (JSON key "plot",
// a list of them): means over the seeds.
type PlotShape struct {
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
	Bins                []PlotBin `json:"bins"`
}

// PlotBin is one similarity bin of a banding in the report.
type PlotBin struct {
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	Pairs     float64 `json:"pairs"` // estimated when sampled
	Share     float64 `json:"share"`
	Predicted float64 `json:"predicted"` // mean P over the bin's pairs
	Sampled   bool    `json:"sampled"`
}

// AddPlot adds the "plot" section: each banding of cc (planner.MeasureLSH, with
// signatures of k values and seeds runs a banding) as a PlotShape, with one
// text row a banding.
func (r *Report) AddPlot(cc *planner.CrossCheck, k, seeds int) {
	var rows [][2]string
	var sec []PlotShape
	for _, b := range cc.Bandings {
		s := PlotShape{Shape: b.Shape.String(), K: k, Seeds: seeds, Candidates: b.Candidates, PredictedCandidates: b.PredictedCandidates,
			Found: b.Found, Exact: cc.Pairs, Recall: b.Recall, RecallMin: b.RecallMin, RecallMax: b.RecallMax, PredictedRecall: b.Predicted, Seconds: b.Seconds}
		for _, bn := range b.Bins {
			s.Bins = append(s.Bins, PlotBin{bn.From, bn.To, bn.Estimate, bn.Recall.Estimate, bn.Predicted, bn.Sampled})
		}
		sec = append(sec, s)
		rows = append(rows, [2]string{s.Shape, fmt.Sprintf("%s candidates (predicted %s), recall %.3f (predicted %.3f; %s: %.3f to %.3f), %.3f s a run",
			Count(s.Candidates), Count(s.PredictedCandidates), s.Recall, s.PredictedRecall, Plural(int64(s.Seeds), "seed", "seeds"), s.RecallMin, s.RecallMax, s.Seconds)})
	}
	r.AddSection("plot", fmt.Sprintf("LSH against the exact join (truth at J >= %.2f, %s pairs sampled below)", cc.Floor, numfmt.Group(int64(cc.Sampled))), sec, rows)
}

// WritePlotTable writes simjoin plot's table to w: a summary line of the
// collection (records, of which nonEmpty have a set) and of the truth, a
// line per banding of cc (signatures of k values) with its candidates,
// pairs found at the threshold t and recall beside the S-curve's
// predictions, then a line per similarity bin with each banding's share
// found and P(s).
func WritePlotTable(w io.Writer, records, nonEmpty int, t prefix.Threshold, k int, cc *planner.CrossCheck) error {
	n := int64(nonEmpty)
	how := "sampled"
	if cc.AllBelow {
		how = "all"
	}
	fmt.Fprintf(w, "%s records (%s non-empty), %s pairs; %s pairs at J >= %s; truth: exact at J >= %.2f (%s pairs), below it %s %s pairs of distinct sets\n\n",
		numfmt.Group(int64(records)), numfmt.Group(n), numfmt.Group(n*(n-1)/2), numfmt.Group(cc.Pairs), t, cc.Floor, numfmt.Group(cc.AboveFloor), how, numfmt.Group(int64(cc.Sampled)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "banding\tK\tseeds\tcandidates\tpredicted\tfound\tof\trecall\t(min-max)\tpredicted\t\n")
	seeds := len(cc.Bandings[0].Runs)
	for _, b := range cc.Bandings {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.3f\t%.3f-%.3f\t%.3f\t\n", b.Shape, k, seeds, numfmt.Group(int64(math.Round(b.Candidates))),
			Count(b.PredictedCandidates), numfmt.Group(int64(math.Round(b.Found))), numfmt.Group(cc.Pairs), b.Recall, b.RecallMin, b.RecallMax, b.Predicted)
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
		line := fmt.Sprintf("%s\t%s\t", BinLabel(b.From, b.To), pairs)
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
