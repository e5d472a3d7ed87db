package planner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// Interval is a proportion K/N with a Clopper–Pearson confidence interval
// [Lo, Hi]. With N = 0 the proportion is undefined: Estimate is 0 and the
// interval [0, 1].
type Interval struct {
	K        int64   `json:"k"`
	N        int64   `json:"n"`
	Estimate float64 `json:"estimate"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
}

// ClopperPearson returns the exact (Clopper–Pearson) two-sided interval for a
// binomial proportion with k successes in n trials at the given confidence
// level (such as 0.95): the α/2 quantile of Beta(k, n-k+1) and the 1-α/2
// quantile of Beta(k+1, n-k), with the ends at 0 and 1 when k = 0 or k = n.
// Its coverage is at least the confidence level for every true proportion.
// It panics if k < 0, k > n or confidence is outside (0, 1).
func ClopperPearson(k, n int64, confidence float64) Interval {
	if k < 0 || k > n || !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("planner: ClopperPearson(%d, %d, %v)", k, n, confidence))
	}
	iv := Interval{K: k, N: n, Lo: 0, Hi: 1}
	if n == 0 {
		return iv
	}
	alpha := 1 - confidence
	iv.Estimate = float64(k) / float64(n)
	if k > 0 {
		iv.Lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha / 2)
	}
	if k < n {
		iv.Hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha/2)
	}
	return iv
}

// CheckOptions configures CrossCheck. The zero value checks the whole input
// at 95% confidence.
type CheckOptions struct {
	// Records is the number of records per side to sample; 0, or at least
	// the records of a side, means the whole side.
	Records int
	// Seed seeds the sample (not the LSH hashes: those are the plan's, so
	// that the sample's signatures are the ones the whole run computes).
	Seed uint64
	// Confidence is the level of the intervals, in (0, 1); 0 means 0.95.
	Confidence float64
	// BinWidth is the width of the similarity bins of the per-bin recall;
	// 0 means 0.05.
	BinWidth float64
}

// RecallBin is the recall of LSH among the true pairs whose Jaccard
// similarity lies in [From, To), beside what the S-curve predicts for them:
// the mean of P(s) over their similarities.
type RecallBin struct {
	From      float64  `json:"from"`
	To        float64  `json:"to"`
	Recall    Interval `json:"recall"`
	Predicted float64  `json:"predicted"`
}

// CrossCheck is LSH measured against the exact join on the same records.
type CrossCheck struct {
	Records    []int    `json:"records"` // records per side checked
	Whole      bool     `json:"whole"`   // the whole input, not a sample
	Confidence float64  `json:"confidence"`
	Exact      Measured `json:"exact"`
	LSH        Measured `json:"lsh"`
	// Recall is the share of the exact join's pairs that LSH reported;
	// Precision the share of LSH's pairs that the exact join reported (1
	// with exact verification; below 1 only with estimated similarities).
	Recall    Interval `json:"recall"`
	Precision Interval `json:"precision"`
	// CandidatePrecision is the share of LSH's candidates that were true
	// pairs: how much of its verification work paid.
	CandidatePrecision Interval `json:"candidate_precision"`
	// Predicted is the S-curve's expected recall over the true pairs found
	// here (the mean of P over their Jaccard similarities); AtThreshold is
	// P at the threshold, the least any true pair gets.
	Predicted   float64     `json:"predicted_recall"`
	AtThreshold float64     `json:"recall_at_threshold"`
	Bins        []RecallBin `json:"bins"`
}

// ErrNoLSH is returned by CrossCheck when the plan has no LSH path (the
// Overlap measure).
var ErrNoLSH = errors.New("planner: no LSH path to check")

// CrossCheck runs both paths, exact and LSH with the plan's parameters, on a
// seeded sample of opt.Records records per side of c (and s, for an R-S
// join), or on the whole input, and measures LSH against the exact answer:
// recall and precision with Clopper–Pearson intervals, and recall per
// similarity bin beside the S-curve's prediction.
//
// The sample is a sub-collection over the input's dictionary, so its
// signatures are those a run over the whole input computes: the recall
// measured on the sample estimates the recall of that run. The intervals treat the sample's true pairs as
// independent trials; pairs of a sample of records share records, so on
// inputs where a few records carry many pairs (large clusters of
// near-duplicates) the intervals are narrower than they should be.
//
// Cost: both joins on the sample, and a hash set of the exact pairs (about
// 50 bytes each). ctx cancels the joins.
func (p *Plan) CrossCheck(ctx context.Context, c, s *order.Collection, opt CheckOptions) (*CrossCheck, error) {
	if !p.LSH.Available {
		return nil, ErrNoLSH
	}
	if opt.Confidence == 0 {
		opt.Confidence = 0.95
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		return nil, fmt.Errorf("planner: confidence %v: want a level in (0, 1)", opt.Confidence)
	}
	if opt.BinWidth == 0 {
		opt.BinWidth = 0.05
	}
	if !(opt.BinWidth > 0 && opt.BinWidth <= 1) {
		return nil, fmt.Errorf("planner: bin width %v: want (0, 1]", opt.BinWidth)
	}
	sides := []*order.Collection{c}
	if s != nil {
		sides = append(sides, s)
	}
	cc := &CrossCheck{Confidence: opt.Confidence, Whole: true}
	for _, x := range sides {
		if opt.Records > 0 && opt.Records < x.Len() {
			cc.Whole = false
		}
	}
	if !cc.Whole {
		m := opt.Records
		ss := newSamples(sides, m, opt.Seed)
		for k := range sides {
			sides[k] = ss[k].C
		}
	}
	for _, x := range sides {
		cc.Records = append(cc.Records, x.Len())
	}
	var r, t *order.Collection = sides[0], nil
	if len(sides) > 1 {
		t = sides[1]
	}

	// The exact answer, with each pair's Jaccard similarity.
	sizeA := sizesByID(r)
	sizeB := sizeA
	if t != nil {
		sizeB = sizesByID(t)
	}
	truth := make(map[[2]int]float64)
	var err error
	cc.Exact, err = p.RunMethod(ctx, Exact, r, t, func(pr join.Pair) bool {
		truth[[2]int{pr.A, pr.B}] = jaccard(pr.Overlap, sizeA[pr.A], sizeB[pr.B])
		return true
	})
	if err != nil {
		return nil, err
	}
	found := make(map[[2]int]bool, len(truth))
	var reported, correct int64
	cc.LSH, err = p.RunMethod(ctx, LSH, r, t, func(pr join.Pair) bool {
		reported++
		key := [2]int{pr.A, pr.B}
		if _, ok := truth[key]; ok && !found[key] {
			found[key] = true
			correct++
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	n := int64(len(truth))
	cc.Recall = ClopperPearson(correct, n, opt.Confidence)
	cc.Precision = ClopperPearson(correct, reported, opt.Confidence)
	cand := max(cc.LSH.Candidates, correct)
	cc.CandidatePrecision = ClopperPearson(min(correct, cand), cand, opt.Confidence)

	// Per bin, from the least similarity a true pair can have.
	shape := p.LSH.opt.Shape
	nb := int(math.Ceil(1/opt.BinWidth - 1e-9))
	type acc struct {
		n, k int64
		p    float64
	}
	bins := make([]acc, nb)
	var psum float64
	// Sum in pair order, not the map's: float sums depend on their order,
	// and the report must be the same on every run.
	keys := make([][2]int, 0, len(truth))
	for key := range truth {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(x, y [2]int) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	for _, key := range keys {
		j := truth[key]
		b := min(int(j/opt.BinWidth+1e-9), nb-1) // 0.6/0.05 is 11.999…
		pj := shape.P(j)
		bins[b].n++
		bins[b].p += pj
		psum += pj
		if found[key] {
			bins[b].k++
		}
	}
	cc.AtThreshold = p.LSH.AtThreshold
	if n > 0 {
		cc.Predicted = psum / float64(n)
	}
	for b, a := range bins {
		if a.n == 0 {
			continue
		}
		cc.Bins = append(cc.Bins, RecallBin{
			From:      float64(b) * opt.BinWidth,
			To:        min(1, float64(b+1)*opt.BinWidth),
			Recall:    ClopperPearson(a.k, a.n, opt.Confidence),
			Predicted: a.p / float64(a.n),
		})
	}
	return cc, nil
}
