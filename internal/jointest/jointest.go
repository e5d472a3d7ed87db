// Package jointest holds the brute-force oracle and the fixture table that
// every join test runs against: the nested-loop join over raw sets, deciding
// "similarity >= t" with exact rational arithmetic (math/big), independent of
// the bounds the fast joins use.
package jointest

import (
	"cmp"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// Pair is an oracle result: record indices (A < B in a self-join; A in R and B
// in S in an R-S join) and the exact overlap.
type Pair struct {
	A, B    int
	Overlap int
}

// Overlap returns |a ∩ b| for sets given in any order with distinct elements.
func Overlap(a, b []uint32) int {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	x, y = slices.Compact(x), slices.Compact(y)
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
// m, in exact arithmetic. Empty sets never do.
func Reaches(m prefix.Measure, t prefix.Threshold, o, x, y int) bool {
	if x == 0 || y == 0 {
		return false
	}
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
	case prefix.Jaccard: // o/(x+y-o) >= p/q
		union := new(big.Int).Sub(new(big.Int).Add(bx, by), bo)
		return mul(bo, q).Cmp(mul(union, p)) >= 0
	case prefix.Cosine: // o/sqrt(xy) >= p/q
		return mul(bo, bo, q, q).Cmp(mul(p, p, bx, by)) >= 0
	case prefix.Dice: // 2o/(x+y) >= p/q
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

// SelfJoin is the nested-loop self-join: every pair i < j of non-empty sets
// that reaches t, sorted by (A, B).
func SelfJoin(sets [][]uint32, m prefix.Measure, t prefix.Threshold) []Pair {
	ds := make([][]uint32, len(sets))
	for i, s := range sets {
		ds[i] = dedup(s)
	}
	var out []Pair
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			o := Overlap(ds[i], ds[j])
			if Reaches(m, t, o, len(ds[i]), len(ds[j])) {
				out = append(out, Pair{i, j, o})
			}
		}
	}
	return out
}

// RSJoin is the nested-loop R-S join, sorted by (A, B).
func RSJoin(r, s [][]uint32, m prefix.Measure, t prefix.Threshold) []Pair {
	var out []Pair
	for i := range r {
		a := dedup(r[i])
		for j := range s {
			b := dedup(s[j])
			o := Overlap(a, b)
			if Reaches(m, t, o, len(a), len(b)) {
				out = append(out, Pair{i, j, o})
			}
		}
	}
	return out
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
