package plotting

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// NewSCurves returns the S-curve figure of a cross-check (planner.Check) of
// LSH bandings of signatures of k values, each run with seeds seeds: a curve
// per banding with its bins' pairs (counted once per seed, as the bins'
// found pairs are) and the threshold t marked.
func NewSCurves(cc *planner.CrossCheck, k, seeds int, t float64) *SCurveFigure {
	fig := &SCurveFigure{
		Title:     fmt.Sprintf("LSH S-curves, K = %d: predicted and found", k),
		Threshold: t,
		MinPairs:  5,
	}
	for _, b := range cc.Bandings {
		c := Curve{Label: b.Shape.String(), P: b.Shape.P}
		for _, bn := range b.Bins {
			c.Bins = append(c.Bins, Bin{From: bn.From, To: bn.To, Pairs: bn.Pairs * int64(seeds), Found: bn.Found, Sampled: bn.Sampled})
		}
		fig.Curves = append(fig.Curves, c)
	}
	if seeds > 1 {
		fig.Title += fmt.Sprintf(" (%d seeds)", seeds)
	}
	return fig
}

// Chords collects the pairs found for a circle (Add is a join's yield
// function).
type Chords []Chord

// Add appends p as a chord; it returns true, so that the join goes on.
func (c *Chords) Add(p join.Pair) bool {
	*c = append(*c, Chord{A: p.A, B: p.B, Sim: p.Sim})
	return true
}

// NewCheckCircle returns the circle of a cross-check (planner.Check) of n
// records (names: their ids, or nil) whose chords are the candidates of its
// first banding, of signatures of k values, when lsh is true, and its exact
// pairs at the threshold t otherwise; its title says which. It takes chords
// over.
func NewCheckCircle(cc *planner.CrossCheck, n int, names []string, chords []Chord, t prefix.Threshold, k int, lsh bool) *CircleFigure {
	what := fmt.Sprintf("%s pairs at J ≥ %s (exact)", numfmt.Group(cc.Pairs), t)
	if lsh {
		what = fmt.Sprintf("%s candidate pairs of LSH %s, K = %d", numfmt.Group(int64(len(chords))), cc.Bandings[0].Shape, k)
	}
	return NewCircle(n, names, chords, what)
}

// NewCircle returns the circle of n records (names: their ids, or nil) and
// the pairs found, sorted here by (A, B) so that the drawing does not depend
// on the order they were found in; what says in the title what the pairs
// are. It takes chords over.
func NewCircle(n int, names []string, chords []Chord, what string) *CircleFigure {
	slices.SortFunc(chords, func(x, y Chord) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	return &CircleFigure{N: n, Names: names, Chords: chords,
		Title: fmt.Sprintf("%s records, %s", numfmt.Group(int64(n)), what)}
}
