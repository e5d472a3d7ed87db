package jointest

import (
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// TestReaches128 checks the 128-bit decision against math/big on random
// values up to the limits of the fast path and on values at the threshold
// exactly, for every measure.
func TestReaches128(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	measures := []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap}
	for k := 0; k < 50_000; k++ {
		lim := uint64(1) << (1 + r.IntN(32))
		den := 1 + r.Uint64N(lim-1)
		th := prefix.Threshold{Num: 1 + r.Uint64N(den), Den: den}
		x, y := 1+r.IntN(int(lim-1)), 1+r.IntN(int(lim-1))
		o := r.IntN(min(x, y) + 1)
		if k%3 == 0 && x+y < 1<<32 {
			// On the threshold exactly for Jaccard and Dice.
			th = prefix.Threshold{Num: uint64(o), Den: uint64(x + y - o)}
			if k%2 == 0 {
				th = prefix.Threshold{Num: uint64(2 * o), Den: uint64(x + y)}
			}
			if th.Num == 0 {
				continue
			}
		}
		for _, m := range measures {
			if got, want := Reaches(m, th, o, x, y), reachesBig(m, th, o, x, y); got != want {
				t.Fatalf("%s t=%d/%d o=%d x=%d y=%d: 128-bit says %v, math/big %v", m, th.Num, th.Den, o, x, y, got, want)
			}
		}
	}
}

// TestOverlapsJoin checks that the pairs of Overlaps.Join are those of the
// plain nested loop over every pair (zero overlaps included), on the fixture
// table.
func TestOverlapsJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, fx := range Fixtures(3) {
		n := len(fx.Sets)
		ds := make([][]uint32, n)
		for i, s := range fx.Sets {
			ds[i] = dedup(s)
		}
		o := make([][]int, n)
		for i := range o {
			o[i] = make([]int, n)
			for j := range o[i] {
				o[i][j] = Overlap(fx.Sets[i], fx.Sets[j])
			}
		}
		self := SelfOverlaps(fx.Sets)
		half := n / 2
		rs := RSOverlaps(fx.Sets[:half], fx.Sets[half:])
		for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap} {
			for _, th := range Thresholds(m, fx.Sets, r) {
				var want []Pair
				for i := range n {
					for j := i + 1; j < n; j++ {
						if Reaches(m, th, o[i][j], len(ds[i]), len(ds[j])) {
							want = append(want, Pair{i, j, o[i][j]})
						}
					}
				}
				Diff(t, fx.Name+"/self", self.Join(m, th), want)
				want = want[:0]
				for i := range half {
					for j := half; j < n; j++ {
						if Reaches(m, th, o[i][j], len(ds[i]), len(ds[j])) {
							want = append(want, Pair{i, j - half, o[i][j]})
						}
					}
				}
				Diff(t, fx.Name+"/rs", rs.Join(m, th), want)
			}
		}
	}
}
