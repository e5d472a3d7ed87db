// Package prefix holds the similarity measures, their filter bounds and the
// inverted index over set prefixes that the exact joins probe.
//
// # Measures and bounds
//
// For sets x and y with overlap o = |x ∩ y| and threshold t = p/q (an exact
// fraction, see Threshold):
//
//	measure  similarity          least overlap α(x, y)     sizes y for x
//	Jaccard  o / (x + y - o)     ⌈t(x+y)/(1+t)⌉            ⌈t·x⌉ .. ⌊x/t⌋
//	Cosine   o / √(x·y)          ⌈t·√(x·y)⌉                ⌈t²·x⌉ .. ⌊x/t²⌋
//	Dice     2o / (x + y)        ⌈t(x+y)/2⌉                ⌈t·x/(2-t)⌉ .. ⌊(2-t)·x/t⌋
//	Overlap  o                   t (an integer)            t .. ∞
//
// Every entry is computed in integer arithmetic from p and q (Cosine through
// 128-bit products), so "similarity >= t" is decided exactly: a pair whose
// similarity equals t is never lost to rounding. α grows with y, so the least
// overlap with any admissible partner is α(x, lo(x)).
//
// # Why the prefix filter never loses a pair
//
// Order all tokens one way and write every set in that order. If
// |x ∩ y| >= α then x's first |x| - α + 1 tokens contain a shared token:
// otherwise all α shared tokens would fit in the remaining α - 1 places. The
// same holds for y, and the earliest shared token lies in both prefixes
// (Chaudhuri, Ganti and Kaushik 2006). So a join need only index prefixes
// and take as candidates the pairs whose prefixes meet. ProbePrefix uses the
// least α over all admissible partners; IndexPrefix, for a set that will only
// meet partners at least as large, uses α(x, x), which is shorter (Bayardo,
// Ma and Srikant 2007).
//
// The package does not run joins; package join does.
package prefix
