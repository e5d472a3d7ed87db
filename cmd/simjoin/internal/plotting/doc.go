// Package plotting draws the figures of simjoin: the LSH S-curve with the
// share of real pairs found per similarity bin (gonum.org/v1/plot, PNG or
// SVG), and the circle of records with a chord for every pair found,
// coloured by its true similarity (SVG written directly, so that thousands
// of chords stay small).
//
// The package only draws: planner.MeasureLSH measures the pairs, NewSCurves and
// NewCircle lay its bandings and the pairs found out as figures, and
// CheckFigures collects the circle's pairs during the check and draws the
// figures the plot command of cmd/simjoin asks for into its files. Figures are
// deterministic: the same data gives the same bytes, except for the PNG
// encoder's choices, which are fixed in Go.
package plotting
