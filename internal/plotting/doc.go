// Package plotting draws the figures of simjoin: the LSH S-curve with the
// share of real pairs found per similarity bin (gonum.org/v1/plot, PNG or
// SVG), and the circle of records with a chord for every pair found,
// coloured by its true similarity (SVG written directly, so that thousands
// of chords stay small).
//
// The package only draws: planner.Check measures the pairs, NewSCurves and
// NewCircle lay its bandings and the pairs found out as figures, and the
// plot command of cmd/simjoin writes them. Figures are
// deterministic: the same data gives the same bytes, except for the PNG
// encoder's choices, which are fixed in Go.
package plotting
