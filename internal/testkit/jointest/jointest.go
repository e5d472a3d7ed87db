// Package jointest holds the brute-force oracle and the fixture table that
// every join test runs against: the nested-loop join over raw sets, deciding
// "similarity >= t" with exact integer arithmetic (128-bit products),
// independent of the bounds the fast joins use. The overlaps of a collection
// are computed once (Overlaps) and serve every measure and threshold.
package jointest

import (
	"cmp"
	"flag"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

var long = flag.Bool("long", false, "run the long seed sweeps of the join tests")

// Long reports whether the test binary runs with -long: the seed sweeps then
// cover every seed they list, not a few. Continuous integration runs them
// (.ci/run).
func Long() bool { return *long }

// Seeds returns the seeds a sweep runs: the first few (short of them under
// -short), or all n with -long.
func Seeds(n, few int) []uint64 {
	switch {
	case *long:
	case testing.Short():
		n = min(n, max(few/2, 1))
	default:
		n = min(n, few)
	}
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)
	}
	return s
}

// Pair is an oracle result: record indices (A < B in a self-join; A in R and B
// in S in an R-S join) and the exact overlap.
type Pair struct {
	A, B    int
	Overlap int
}

// Overlap returns |a ∩ b| for sets given in any order with distinct elements.
func Overlap(a, b []uint32) int { return overlapSorted(dedup(a), dedup(b)) }

// overlapSorted returns |x ∩ y| for sorted sets without repeats, by a merge.
func overlapSorted(x, y []uint32) int {
	o, i, j := 0, 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] < y[j]:
			i++
		case x[i] > y[j]:
			j++
		default:
			o++
			i++
			j++
		}
	}
	return o
}

// Reaches reports whether sets of sizes x and y with overlap o reach t under
// m, in exact integer arithmetic: every product is formed in 128 bits
// (math/bits), which holds them whenever t's numerator and denominator and
// the sizes are below 2^32 (ParseThreshold's denominators are at most 10^9);
// larger values are decided with math/big. Empty sets never reach t.
func Reaches(m prefix.Measure, t prefix.Threshold, o, x, y int) bool {
	if x == 0 || y == 0 {
		return false
	}
	const lim = 1 << 32
	if t.Num >= lim || t.Den >= lim || o < 0 || x >= lim || y >= lim || o > x+y {
		return reachesBig(m, t, o, x, y)
	}
	p, q := t.Num, t.Den
	uo, ux, uy := uint64(o), uint64(x), uint64(y)
	switch m {
	case prefix.Jaccard: // o/(x+y-o) >= p/q  <=>  o·q >= (x+y-o)·p
		return geq128(uo, q, ux+uy-uo, p)
	case prefix.Cosine: // o/sqrt(xy) >= p/q  <=>  (o·q)² >= (p·x)·(p·y)
		return geq128(uo*q, uo*q, p*ux, p*uy)
	case prefix.Dice: // 2o/(x+y) >= p/q  <=>  2o·q >= (x+y)·p
		return geq128(2*uo, q, ux+uy, p)
	default:
		return uo >= p
	}
}

// geq128 reports a·b >= c·d for 64-bit factors, comparing 128-bit products.
func geq128(a, b, c, d uint64) bool {
	lh, ll := bits.Mul64(a, b)
	rh, rl := bits.Mul64(c, d)
	return lh > rh || (lh == rh && ll >= rl)
}

// reachesBig is Reaches in math/big, for values too large for geq128.
func reachesBig(m prefix.Measure, t prefix.Threshold, o, x, y int) bool {
	bi := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
	p, q := bi(t.Num), bi(t.Den)
	bo, bx, by := big.NewInt(int64(o)), big.NewInt(int64(x)), big.NewInt(int64(y))
	mul := func(a ...*big.Int) *big.Int {
		r := big.NewInt(1)
		for _, v := range a {
			r.Mul(r, v)
		}
		return r
	}
	switch m {
	case prefix.Jaccard:
		union := new(big.Int).Sub(new(big.Int).Add(bx, by), bo)
		return mul(bo, q).Cmp(mul(union, p)) >= 0
	case prefix.Cosine:
		return mul(bo, bo, q, q).Cmp(mul(p, p, bx, by)) >= 0
	case prefix.Dice:
		return mul(big.NewInt(2), bo, q).Cmp(mul(new(big.Int).Add(bx, by), p)) >= 0
	default:
		return bo.Cmp(p) >= 0
	}
}

func dedup(s []uint32) []uint32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// Overlaps is what the oracle needs of a join's input, computed once: the
// distinct size of every set and the overlap of every pair of sets that
// share a token. Each (measure, threshold) is then decided by one pass over
// those pairs (Join), instead of an O(n²) nested loop of merges per
// threshold. A pair sharing no token reaches no threshold (every threshold
// is positive), so leaving it out loses nothing.
type Overlaps struct {
	sizeA, sizeB []int  // distinct sizes of the A side and the B side
	pairs        []Pair // every pair with Overlap > 0, sorted by (A, B)
}

// SelfOverlaps computes the overlaps of every pair i < j of sets. The pairs
// that share a token are found through lists of the sets holding each token
// (a pair sharing none has overlap 0); each overlap is then the merge of the
// two sets, checked against the number of lists that met the pair.
// Cost: the merges of the pairs met, O(Σ list²) steps to meet them.
func SelfOverlaps(sets [][]uint32) *Overlaps {
	ds := make([][]uint32, len(sets))
	sizes := make([]int, len(sets))
	holders := map[uint32][]int{}
	for i, s := range sets {
		ds[i] = dedup(s)
		sizes[i] = len(ds[i])
		for _, w := range ds[i] {
			holders[w] = append(holders[w], i)
		}
	}
	ov := &Overlaps{sizeA: sizes, sizeB: sizes}
	shared := make([]int, len(ds))
	var met []int
	for i := range ds {
		for _, w := range ds[i] {
			for _, j := range holders[w] {
				if j > i {
					if shared[j] == 0 {
						met = append(met, j)
					}
					shared[j]++
				}
			}
		}
		slices.Sort(met)
		for _, j := range met {
			o := overlapSorted(ds[i], ds[j])
			if o != shared[j] {
				panic(fmt.Sprintf("jointest: sets %d and %d: merge finds %d shared tokens, token lists %d", i, j, o, shared[j]))
			}
			ov.pairs = append(ov.pairs, Pair{i, j, o})
			shared[j] = 0
		}
		met = met[:0]
	}
	return ov
}

// RSOverlaps computes the overlaps of every pair (i, j), i in r and j in s.
// Cost: |r|·|s| merges.
func RSOverlaps(r, s [][]uint32) *Overlaps {
	dr, ds := make([][]uint32, len(r)), make([][]uint32, len(s))
	ov := &Overlaps{sizeA: make([]int, len(r)), sizeB: make([]int, len(s))}
	for i := range r {
		dr[i] = dedup(r[i])
		ov.sizeA[i] = len(dr[i])
	}
	for j := range s {
		ds[j] = dedup(s[j])
		ov.sizeB[j] = len(ds[j])
	}
	for i := range dr {
		for j := range ds {
			if o := overlapSorted(dr[i], ds[j]); o > 0 {
				ov.pairs = append(ov.pairs, Pair{i, j, o})
			}
		}
	}
	return ov
}

// Join returns the pairs that reach t under m, sorted by (A, B). t must be
// positive (as every threshold from ParseThreshold is).
func (ov *Overlaps) Join(m prefix.Measure, t prefix.Threshold) []Pair {
	if t.Num == 0 || t.Den == 0 {
		panic("jointest: threshold must be positive")
	}
	var out []Pair
	for _, p := range ov.pairs {
		if Reaches(m, t, p.Overlap, ov.sizeA[p.A], ov.sizeB[p.B]) {
			out = append(out, p)
		}
	}
	return out
}

// SelfJoin is the nested-loop self-join: every pair i < j of non-empty sets
// that reaches t, sorted by (A, B). To test one collection at several
// thresholds, compute SelfOverlaps once and call its Join.
func SelfJoin(sets [][]uint32, m prefix.Measure, t prefix.Threshold) []Pair {
	return SelfOverlaps(sets).Join(m, t)
}

// RSJoin is the nested-loop R-S join, sorted by (A, B).
func RSJoin(r, s [][]uint32, m prefix.Measure, t prefix.Threshold) []Pair {
	return RSOverlaps(r, s).Join(m, t)
}

// Sort orders pairs by (A, B).
func Sort(p []Pair) {
	slices.SortFunc(p, func(a, b Pair) int {
		if c := cmp.Compare(a.A, b.A); c != 0 {
			return c
		}
		return cmp.Compare(a.B, b.B)
	})
}

// Diff fails t, naming every lost and every extra or duplicate pair, unless
// got (sorted by Sort first) equals want.
func Diff(t testing.TB, what string, got, want []Pair) {
	t.Helper()
	Sort(got)
	if slices.Equal(got, want) {
		return
	}
	g := map[Pair]int{}
	for _, p := range got {
		g[p]++
	}
	w := map[Pair]bool{}
	for _, p := range want {
		w[p] = true
		if g[p] == 0 {
			t.Errorf("%s: lost %+v", what, p)
		}
	}
	for p, n := range g {
		if !w[p] || n > 1 {
			t.Errorf("%s: extra or duplicate %+v", what, p)
		}
	}
	t.FailNow()
}

// Input returns the sets as an order.Input (tokens widened to keys).
func Input(sets [][]uint32) *order.Input {
	in := new(order.Input)
	var buf []uint64
	for _, s := range sets {
		buf = buf[:0]
		for _, w := range s {
			buf = append(buf, uint64(w))
		}
		in.Add(buf)
	}
	return in
}

// Fixture is a named collection for the join tests.
type Fixture struct {
	Name string
	Sets [][]uint32
}

// Fixtures returns the fixture table for one seed: hand-made adversarial
// shapes plus random collections of every kind. Sizes stay small enough for
// the nested-loop oracle.
func Fixtures(seed uint64) []Fixture {
	r := rand.New(rand.NewPCG(seed, 1))
	same := make([][]uint32, 12)
	for i := range same {
		same[i] = []uint32{3, 1, 4, 5, 9, 2, 6}
	}
	huge := synth.Sets(synth.SetsConfig{N: 60, MinSize: 2, MaxSize: 8, Universe: 40, Seed: seed})
	big := make([]uint32, 400)
	for i := range big {
		big[i] = uint32(i)
	}
	huge = append(huge, big)
	withEmpty := synth.Sets(synth.SetsConfig{N: 50, MinSize: 0, MaxSize: 4, Universe: 12, Seed: seed + 1})
	withEmpty = append(withEmpty, nil, []uint32{}, nil)
	fx := []Fixture{
		{"empty-collection", nil},
		{"one-set", [][]uint32{{1, 2, 3}}},
		{"all-empty", [][]uint32{nil, {}, nil}},
		{"all-identical", same},
		{"singletons", [][]uint32{{1}, {1}, {2}, {1}, {3}, {2}}},
		{"nested", [][]uint32{{1}, {1, 2}, {1, 2, 3}, {1, 2, 3, 4}, {1, 2, 3, 4, 5}, {2, 3, 4, 5}}},
		{"one-huge", huge},
		{"with-empty", withEmpty},
		{"dups", synth.Sets(synth.SetsConfig{N: 120, MinSize: 1, MaxSize: 6, Universe: 15, DupFraction: 0.5, Seed: seed + 2})},
	}
	for k := 0; k < 6; k++ {
		n := 20 + r.IntN(150)
		lo := 1 + r.IntN(10)
		hi := lo + r.IntN(30)
		u := 10 + r.IntN(300)
		z := []float64{0, 1, 1.5}[r.IntN(3)]
		fx = append(fx, Fixture{
			Name: fmt.Sprintf("random-%d(n=%d,size=%d..%d,u=%d,zipf=%v)", k, n, lo, hi, u, z),
			Sets: synth.Sets(synth.SetsConfig{N: n, MinSize: lo, MaxSize: hi, Universe: u, Zipf: z,
				DupFraction: r.Float64() * 0.5, Replace: r.Float64() * 0.3, Seed: r.Uint64()}),
		})
	}
	return fx
}

// Thresholds returns the thresholds to test m at on sets: fixed ones plus
// values that some pair of sets reaches exactly.
func Thresholds(m prefix.Measure, sets [][]uint32, r *rand.Rand) []prefix.Threshold {
	var out []prefix.Threshold
	if m == prefix.Overlap {
		for _, k := range []uint64{1, 2, 3, 5} {
			out = append(out, prefix.Threshold{Num: k, Den: 1})
		}
		return out
	}
	for _, s := range []string{"0.5", "0.8", "1", "0.3", "0.95", "1/3", "0.001"} {
		t, err := prefix.ParseThreshold(m, s)
		if err != nil {
			panic(err)
		}
		out = append(out, t)
	}
	// Similarities that some pair sits on exactly.
	for k := 0; k < 4 && len(sets) > 1; k++ {
		a, b := dedup(sets[r.IntN(len(sets))]), dedup(sets[r.IntN(len(sets))])
		o := Overlap(a, b)
		if o == 0 {
			continue
		}
		x, y := len(a), len(b)
		var num, den int64
		switch m {
		case prefix.Jaccard:
			num, den = int64(o), int64(x+y-o)
		case prefix.Dice:
			num, den = int64(2*o), int64(x+y)
		case prefix.Cosine:
			// Exact only where x·y is a square; otherwise the nearest
			// fraction just below, which the pair still reaches.
			num, den = int64(o)*1000, 0
			den = isqrtCeil(int64(x) * int64(y) * 1_000_000)
		}
		rat := big.NewRat(num, den)
		t := prefix.Threshold{Num: rat.Num().Uint64(), Den: rat.Denom().Uint64()}
		if t.Num == 0 || t.Num > t.Den {
			continue
		}
		out = append(out, t)
	}
	return out
}

func isqrtCeil(v int64) int64 {
	r := new(big.Int).Sqrt(big.NewInt(v)).Int64()
	if r*r < v {
		r++
	}
	return r
}
