package approx

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/integrate/quad"
)

// ErrShape is returned (wrapped) for a signature or banding shape that does
// not fit together: K, B, R or Bits out of range, or B·R > K.
var ErrShape = errors.New("approx: bad LSH shape")

// ErrRecall is returned (wrapped) for a target recall outside (0, 1), or one
// that no banding with B·R <= K reaches at the threshold.
var ErrRecall = errors.New("approx: bad target recall")

// Shape is an LSH banding: B bands of R rows each, using the first B·R of the
// K signature values. A pair whose signatures agree on all R rows of at least
// one band becomes a candidate. The zero Shape means "choose one"
// (ChooseRecall with DefaultRecall).
type Shape struct {
	B, R int
}

// String returns the shape as "BxR", the form ParseShape reads.
func (s Shape) String() string { return strconv.Itoa(s.B) + "x" + strconv.Itoa(s.R) }

// ParseShape reads "BxR", such as "9x13" (bands x rows).
func ParseShape(text string) (Shape, error) {
	b, r, ok := strings.Cut(strings.ToLower(strings.TrimSpace(text)), "x")
	if ok {
		nb, err1 := strconv.Atoi(b)
		nr, err2 := strconv.Atoi(r)
		if err1 == nil && err2 == nil && nb >= 1 && nr >= 1 {
			return Shape{nb, nr}, nil
		}
	}
	return Shape{}, fmt.Errorf("%w %q: want BxR with B, R >= 1, such as 9x13", ErrShape, text)
}

// ParseShapes reads a comma-separated list of bandings, each as ParseShape
// reads it, such as "12x4,16x3"; the error names the first that is not one.
// Whether each fits a signature length is Shape.Validate's (or Options.Validate's)
// to say.
func ParseShapes(list string) ([]Shape, error) {
	var out []Shape
	for _, text := range strings.Split(list, ",") {
		s, err := ParseShape(text)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Validate reports whether s fits signatures of k values: B, R >= 1 and B·R <= k.
func (s Shape) Validate(k int) error {
	if s.B < 1 || s.R < 1 {
		return fmt.Errorf("%w: %s: bands and rows must be >= 1", ErrShape, s)
	}
	if s.B*s.R > k {
		return fmt.Errorf("%w: %s needs %d signature values, but K = %d", ErrShape, s, s.B*s.R, k)
	}
	return nil
}

// SCurve is the probability that a pair of Jaccard similarity sim becomes a
// candidate under b bands of r rows: P(s) = 1 - (1 - s^r)^b. O(1).
func SCurve(sim float64, b, r int) float64 {
	if sim <= 0 {
		return 0
	}
	if sim >= 1 {
		return 1
	}
	band := math.Pow(sim, float64(r))
	// 1 - (1-x)^b computed as -expm1(b·log1p(-x)) to keep tiny values exact.
	return -math.Expm1(float64(b) * math.Log1p(-band))
}

// P returns SCurve(sim, s.B, s.R).
func (s Shape) P(sim float64) float64 { return SCurve(sim, s.B, s.R) }

// Midpoint returns (1/B)^(1/R), about where the S-curve rises most steeply.
func (s Shape) Midpoint() float64 { return math.Pow(1/float64(s.B), 1/float64(s.R)) }

// integrate returns ∫ f over [lo, hi] by Gauss–Legendre quadrature with
// enough nodes to be exact for polynomials of degree s.B·s.R (P is one). At
// least 27 nodes are used: gonum v0.17.0's tabulated 26-node rule is wrong
// (it gives 0.328 for ∫₀¹ x²), and no other count up to 600 is.
func (s Shape) integrate(f func(float64) float64, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return quad.Fixed(f, lo, hi, max(s.B*s.R/2+2, 27), quad.Legendre{}, 0)
}

// FalsePositiveArea returns ∫₀ᵗ P(s) ds: the expected share of candidates
// among pairs below t when similarities are uniform.
func (s Shape) FalsePositiveArea(t float64) float64 { return s.integrate(s.P, 0, t) }

// FalseNegativeArea returns ∫ₜ¹ (1 - P(s)) ds: the expected share of pairs
// at or above t lost, when similarities are uniform on [t, 1].
func (s Shape) FalseNegativeArea(t float64) float64 {
	return s.integrate(func(x float64) float64 { return 1 - s.P(x) }, t, 1)
}

// MeanRecall returns the expected recall over pairs whose similarity is
// uniform on [t, 1]: 1/(1-t)·∫ₜ¹ P(s) ds. It lies between P(t), the recall
// guaranteed to every pair at or above t, and 1.
func (s Shape) MeanRecall(t float64) float64 {
	if t >= 1 {
		return s.P(1)
	}
	return 1 - s.FalseNegativeArea(t)/(1-t)
}

// MeanP returns the mean of P over [lo, hi] (P(lo) when lo == hi).
func (s Shape) MeanP(lo, hi float64) float64 {
	if hi <= lo {
		return s.P(lo)
	}
	return s.integrate(s.P, lo, hi) / (hi - lo)
}

// ExpectedCandidates returns the expected number of candidate pairs under s
// for pairs counted by similarity in len(counts) equal bins over [0, 1]
// (counts[i] pairs in [i/n, (i+1)/n)), taking P's mean over each bin. It is
// what a planner multiplies by the cost of a verification. O(len(counts)·B·R).
func ExpectedCandidates(s Shape, counts []float64) float64 {
	n := float64(len(counts))
	sum := 0.0
	for i, c := range counts {
		if c != 0 {
			sum += c * s.MeanP(float64(i)/n, float64(i+1)/n)
		}
	}
	return sum
}

// shapes calls f for every shape with B·R <= k, by rows then bands.
func shapes(k int, f func(Shape)) {
	for r := 1; r <= k; r++ {
		for b := 1; b*r <= k; b++ {
			f(Shape{b, r})
		}
	}
}

func checkChoice(t float64, k int) error {
	if k < 1 || k > MaxK {
		return fmt.Errorf("%w: K = %d, want 1..%d", ErrShape, k, MaxK)
	}
	if !(t > 0 && t <= 1) {
		return fmt.Errorf("approx: threshold %v outside (0, 1]", t)
	}
	return nil
}

// ChooseWeighted returns the shape with B·R <= k that minimises
// wFP·FalsePositiveArea(t) + wFN·FalseNegativeArea(t), ties going to the
// first in order of rows, then bands. With wFP = wFN this is the choice of
// datasketch and ekzhu/minhash-lsh, whose S-curve midpoint lies above t: at
// t = 0.8 and K = 128 it picks 9x13, which finds a pair at exactly 0.8 with
// probability 0.399 and pairs uniform on [0.8, 1] with 0.83 on average.
// Cost: O(k log k) shapes, each integrated in O(k) steps.
func ChooseWeighted(t float64, k int, wFP, wFN float64) (Shape, error) {
	if err := checkChoice(t, k); err != nil {
		return Shape{}, err
	}
	if !(wFP >= 0 && wFN >= 0 && wFP+wFN > 0) {
		return Shape{}, fmt.Errorf("approx: weights %v, %v: want >= 0, not both 0", wFP, wFN)
	}
	best, bestCost := Shape{}, math.Inf(1)
	shapes(k, func(s Shape) {
		c := wFP*s.FalsePositiveArea(t) + wFN*s.FalseNegativeArea(t)
		if c < bestCost {
			best, bestCost = s, c
		}
	})
	return best, nil
}

// DefaultRecall is the target recall when none is given: every pair at or
// above the threshold becomes a candidate with probability at least 0.95.
const DefaultRecall = 0.95

// ChooseRecall returns the cheapest shape with B·R <= k whose P(t) reaches
// recall: the one with the least FalsePositiveArea(t) (fewest candidates
// below t), ties going to fewer bands. Since P rises with similarity, every
// pair at or above t is then found with probability at least recall. It
// fails with ErrRecall when recall is outside (0, 1) or no shape reaches it
// (raise k). Cost: as ChooseWeighted.
func ChooseRecall(t float64, k int, recall float64) (Shape, error) {
	if err := checkChoice(t, k); err != nil {
		return Shape{}, err
	}
	if !(recall > 0 && recall < 1) {
		return Shape{}, fmt.Errorf("%w %v: want a number in (0, 1) such as 0.95", ErrRecall, recall)
	}
	best, bestCost := Shape{}, math.Inf(1)
	bestP, bestPShape := -1.0, Shape{}
	shapes(k, func(s Shape) {
		p := s.P(t)
		if p > bestP {
			bestP, bestPShape = p, s
		}
		if p < recall {
			return
		}
		c := s.FalsePositiveArea(t)
		if c < bestCost || (c == bestCost && s.B < best.B) {
			best, bestCost = s, c
		}
	})
	if best.B == 0 {
		return Shape{}, fmt.Errorf("%w: no banding of K = %d values reaches recall %v at threshold %v (best: %s with %.3f); raise K",
			ErrRecall, k, recall, t, bestPShape, bestP)
	}
	return best, nil
}
