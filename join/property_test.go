package join_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/prefix"
)

// The property matrix (STYLE.md item 17): every fixture of jointest against
// every invariant, as t.Run("fixture/property"), each over every measure and
// the fixture's thresholds. The oracle tests check the answers; these check
// that the answers relate to each other as they must.

// propSelf runs the self-join and returns the pairs in output order.
func propSelf(t *testing.T, sets [][]uint32, m prefix.Measure, th prefix.Threshold, workers int) []jointest.Pair {
	t.Helper()
	pairs, _ := selfJoin(t, sets, m, th, workers)
	return pairs
}

func sortedPairs(p []jointest.Pair) []jointest.Pair {
	p = slices.Clone(p)
	jointest.Sort(p)
	return p
}

// distinctSize is the size of a set once duplicates are dropped.
func distinctSize(s []uint32) int { return len(slices.Compact(slices.Sorted(slices.Values(s)))) }

// propCase is one cell of the matrix: a fixture, a measure and a threshold.
type propCase struct {
	sets [][]uint32
	m    prefix.Measure
	th   prefix.Threshold
}

func (c propCase) String() string { return fmt.Sprintf("%s/t=%s", c.m, c.th) }

var properties = []struct {
	name  string
	check func(t *testing.T, c propCase, r *rand.Rand)
}{
	{"symmetry", checkSymmetry},
	{"monotone", nil}, // over all thresholds of a measure at once; see checkMonotone
	{"input-order", checkInputOrder},
	{"workers", checkWorkers},
}

// checkSymmetry: the R-S join of C with itself holds exactly every
// self-join pair both ways, plus (i, i) for every non-empty set that reaches
// t with itself (all of them, except under Overlap for sets smaller than t).
func checkSymmetry(t *testing.T, c propCase, _ *rand.Rand) {
	self := propSelf(t, c.sets, c.m, c.th, 2)
	var want []jointest.Pair
	for _, p := range self {
		want = append(want, p, jointest.Pair{A: p.B, B: p.A, Overlap: p.Overlap})
	}
	for i, s := range c.sets {
		n := distinctSize(s)
		if jointest.Reaches(c.m, c.th, n, n, n) {
			want = append(want, jointest.Pair{A: i, B: i, Overlap: n})
		}
	}
	jointest.Sort(want)
	got := sortedPairs(rsJoin(t, c.sets, c.sets, c.m, c.th, 2))
	if !slices.Equal(got, want) {
		t.Fatalf("%s: R-S join of C with C has %d pairs, self-join both ways plus diagonal %d\n%s", c, len(got), len(want), pairDiff(got, want))
	}
}

// checkInputOrder: shuffling the records (with a logged seed) changes the
// ids and nothing else, in the self-join and on both sides of the R-S join.
func checkInputOrder(t *testing.T, c propCase, r *rand.Rand) {
	n := len(c.sets)
	perm := r.Perm(n)
	shuffled := make([][]uint32, n)
	for i, p := range perm {
		shuffled[i] = c.sets[p]
	}
	want := sortedPairs(propSelf(t, c.sets, c.m, c.th, 1))
	var back []jointest.Pair
	for _, p := range propSelf(t, shuffled, c.m, c.th, 1) {
		a, b := perm[p.A], perm[p.B]
		back = append(back, jointest.Pair{A: min(a, b), B: max(a, b), Overlap: p.Overlap})
	}
	jointest.Sort(back)
	if !slices.Equal(back, want) {
		t.Fatalf("%s: self-join of the shuffled records maps back to %d pairs, want %d\n%s", c, len(back), len(want), pairDiff(back, want))
	}

	half := n / 2
	rs, ss := c.sets[:half], c.sets[half:]
	pr, ps := r.Perm(len(rs)), r.Perm(len(ss))
	rs2, ss2 := make([][]uint32, len(rs)), make([][]uint32, len(ss))
	for i, p := range pr {
		rs2[i] = rs[p]
	}
	for i, p := range ps {
		ss2[i] = ss[p]
	}
	want = sortedPairs(rsJoin(t, rs, ss, c.m, c.th, 1))
	back = back[:0]
	for _, p := range rsJoin(t, rs2, ss2, c.m, c.th, 1) {
		back = append(back, jointest.Pair{A: pr[p.A], B: ps[p.B], Overlap: p.Overlap})
	}
	jointest.Sort(back)
	if !slices.Equal(back, want) {
		t.Fatalf("%s: R-S join of shuffled sides maps back to %d pairs, want %d\n%s", c, len(back), len(want), pairDiff(back, want))
	}
}

// checkWorkers: the output sequence, not only the set, is the same for 1, 2,
// 3 and 7 workers, in both joins.
func checkWorkers(t *testing.T, c propCase, _ *rand.Rand) {
	half := len(c.sets) / 2
	refSelf := propSelf(t, c.sets, c.m, c.th, 1)
	refRS := rsJoin(t, c.sets[:half], c.sets[half:], c.m, c.th, 1)
	for _, w := range []int{2, 3, 7} {
		if got := propSelf(t, c.sets, c.m, c.th, w); !slices.Equal(got, refSelf) {
			t.Fatalf("%s: self-join with %d workers differs from 1 worker (%d vs %d pairs)", c, w, len(got), len(refSelf))
		}
		if got := rsJoin(t, c.sets[:half], c.sets[half:], c.m, c.th, w); !slices.Equal(got, refRS) {
			t.Fatalf("%s: R-S join with %d workers differs from 1 worker (%d vs %d pairs)", c, w, len(got), len(refRS))
		}
	}
}

// checkMonotone: for thresholds t1 < t2 of one measure, the pairs at t2 are
// a subset of those at t1, with the same overlaps.
func checkMonotone(t *testing.T, sets [][]uint32, m prefix.Measure, ths []prefix.Threshold) {
	ths = slices.Clone(ths)
	slices.SortFunc(ths, func(a, b prefix.Threshold) int {
		// a.Num/a.Den vs b.Num/b.Den, exactly (both below 2^32).
		return cmp.Compare(a.Num*b.Den, b.Num*a.Den)
	})
	ths = slices.Compact(ths)
	var prev []jointest.Pair
	var prevT prefix.Threshold
	half := len(sets) / 2
	var prevRS []jointest.Pair
	for k, th := range ths {
		cur := sortedPairs(propSelf(t, sets, m, th, 2))
		curRS := sortedPairs(rsJoin(t, sets[:half], sets[half:], m, th, 2))
		if k > 0 {
			if p, ok := notSubset(cur, prev); !ok {
				t.Fatalf("%s: self-join pair %+v at t=%s is missing at lower t=%s", m, p, th, prevT)
			}
			if p, ok := notSubset(curRS, prevRS); !ok {
				t.Fatalf("%s: R-S pair %+v at t=%s is missing at lower t=%s", m, p, th, prevT)
			}
		}
		prev, prevRS, prevT = cur, curRS, th
	}
}

// notSubset reports whether every pair of a (sorted) is in b (sorted), and
// the first one that is not.
func notSubset(a, b []jointest.Pair) (jointest.Pair, bool) {
	for _, p := range a {
		i, found := slices.BinarySearchFunc(b, p, func(x, y jointest.Pair) int {
			if c := cmp.Compare(x.A, y.A); c != 0 {
				return c
			}
			return cmp.Compare(x.B, y.B)
		})
		if !found || b[i] != p {
			return p, false
		}
	}
	return jointest.Pair{}, true
}

// pairDiff describes the first few differences between two sorted pair lists.
func pairDiff(got, want []jointest.Pair) string {
	in := func(p jointest.Pair, s []jointest.Pair) bool { return slices.Contains(s, p) }
	out := ""
	n := 0
	for _, p := range want {
		if !in(p, got) && n < 5 {
			out += fmt.Sprintf("  missing %+v\n", p)
			n++
		}
	}
	for _, p := range got {
		if !in(p, want) && n < 10 {
			out += fmt.Sprintf("  extra   %+v\n", p)
			n++
		}
	}
	return out
}

// TestProperties runs the matrix for one fixture seed (three with -long).
func TestProperties(t *testing.T) {
	seeds := []uint64{11, 12, 13}
	if !jointest.Long() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Logf("Using rng seed %d.", seed)
		for _, fx := range jointest.Fixtures(seed) {
			r := rand.New(rand.NewPCG(seed, 17))
			byMeasure := map[prefix.Measure][]prefix.Threshold{}
			for _, m := range measures {
				byMeasure[m] = jointest.Thresholds(m, fx.Sets, r)
			}
			for _, prop := range properties {
				t.Run(fmt.Sprintf("seed=%d/%s/%s", seed, fx.Name, prop.name), func(t *testing.T) {
					pr := rand.New(rand.NewPCG(seed, 23))
					for _, m := range measures {
						if prop.check == nil {
							checkMonotone(t, fx.Sets, m, byMeasure[m])
							continue
						}
						for _, th := range byMeasure[m] {
							prop.check(t, propCase{fx.Sets, m, th}, pr)
						}
					}
				})
			}
		}
	}
}
