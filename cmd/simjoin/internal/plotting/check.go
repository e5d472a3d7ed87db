package plotting

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// NewSCurves returns the S-curve figure of a cross-check (planner.MeasureLSH) of
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

// NewCheckCircle returns the circle of a cross-check (planner.MeasureLSH) of n
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

// CheckFigures are the figures simjoin plot draws of a cross-check
// (planner.MeasureLSH): the S-curves (NewSCurves) to each file of SCurves (.png
// or .svg, by FormatOf) and the circle (NewCheckCircle) to the file Circle
// (SVG; "" for none), whose chords are the candidates of the first banding
// when LSH is true and the exact pairs otherwise. Collect gathers the
// chords while the check runs, and Write draws; it is not safe for
// concurrent use.
type CheckFigures struct {
	SCurves []string
	Circle  string
	LSH     bool
	chords  Chords
}

// Files returns the files of the figures: SCurves, then Circle if any.
func (f *CheckFigures) Files() []string {
	files := slices.Clone(f.SCurves)
	if f.Circle != "" {
		files = append(files, f.Circle)
	}
	return files
}

// Collect makes the check of opt gather the circle's chords, when there is
// a circle: LSH's candidates through opt.Found, or else the exact pairs
// through opt.Exact, which still passes each pair to the function it held.
func (f *CheckFigures) Collect(opt *planner.CheckOptions) {
	switch exact := opt.Exact; {
	case f.Circle == "":
	case f.LSH:
		opt.Found = f.chords.Add
	case exact != nil:
		opt.Exact = func(p join.Pair) bool { return f.chords.Add(p) && exact(p) }
	default:
		opt.Exact = f.chords.Add
	}
}

// Write draws the figures of cc, a cross-check of n records (names: their
// ids, or nil) at threshold t with signatures of k values and seeds seeds
// per banding, to out(file) for each of Files. An error names the file. It
// takes the chords collected over.
func (f *CheckFigures) Write(out func(file string) io.Writer, cc *planner.CrossCheck, n int, names []string, t prefix.Threshold, k, seeds int) error {
	for _, file := range f.SCurves {
		format, err := FormatOf(file)
		if err == nil {
			err = NewSCurves(cc, k, seeds, t.Float()).Write(out(file), format)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	if f.Circle == "" {
		return nil
	}
	if err := NewCheckCircle(cc, n, names, f.chords, t, k, f.LSH).WriteSVG(out(f.Circle)); err != nil {
		return fmt.Errorf("%s: %w", f.Circle, err)
	}
	return nil
}
