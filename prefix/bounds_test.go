package prefix_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/prefix"
)

var boundMeasures = []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap}

// boundThresholds returns the thresholds the bound tests run m at: round
// decimals, exact fractions that are not decimals, the extremes of the
// precision, and (for Overlap) integers.
func boundThresholds(t *testing.T, m prefix.Measure) []prefix.Threshold {
	t.Helper()
	texts := []string{"1", "0.9", "0.8", "4/5", "0.75", "0.7", "2/3", "0.5", "1/3", "0.3", "0.25", "1/7", "0.1",
		"0.05", "0.001", "0.999999999", "0.000000001", "0.123456789", "999999937/1000000000", "7/9", "11/13"}
	if m == prefix.Overlap {
		texts = []string{"1", "2", "3", "5", "17", "60", "61", "4294967295"}
	}
	var out []prefix.Threshold
	for _, s := range texts {
		th, err := prefix.ParseThreshold(m, s)
		if err != nil {
			t.Fatalf("ParseThreshold(%s, %q): %v", m, s, err)
		}
		out = append(out, th)
	}
	return out
}

const maxBoundSize = 60

// TestMinOverlap checks, for every measure, threshold and pair of sizes up
// to 60, that MinOverlap is the least overlap that reaches t in exact
// arithmetic, and that Passes agrees with the oracle for every overlap.
func TestMinOverlap(t *testing.T) {
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			b := prefix.NewBounds(m, th)
			for x := 1; x <= maxBoundSize; x++ {
				for y := 1; y <= maxBoundSize; y++ {
					least := -1
					for o := 0; o <= min(x, y); o++ {
						if jointest.Reaches(m, th, o, x, y) {
							least = o
							break
						}
					}
					got := b.MinOverlap(x, y)
					if least >= 0 && got != least || least < 0 && got <= min(x, y) {
						t.Fatalf("%s t=%s: MinOverlap(%d, %d) = %d, least reaching overlap %d (-1: none)", m, th, x, y, got, least)
					}
					if b.MinOverlap(y, x) != got {
						t.Fatalf("%s t=%s: MinOverlap not symmetric at (%d, %d)", m, th, x, y)
					}
					for o := 0; o <= min(x, y); o++ {
						if b.Passes(o, x, y) != (least >= 0 && o >= least) {
							t.Fatalf("%s t=%s: Passes(%d, %d, %d) = %v", m, th, o, x, y, b.Passes(o, x, y))
						}
					}
				}
			}
		}
	}
}

// TestReachesMonotone checks the premise of the least-overlap tests: the
// oracle's verdict only improves as the overlap grows.
func TestReachesMonotone(t *testing.T) {
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			for x := 1; x <= 12; x++ {
				for y := 1; y <= 12; y++ {
					for o := 1; o <= min(x, y); o++ {
						if jointest.Reaches(m, th, o-1, x, y) && !jointest.Reaches(m, th, o, x, y) {
							t.Fatalf("%s t=%s: oracle not monotone at o=%d, sizes %d, %d", m, th, o, x, y)
						}
					}
				}
			}
		}
	}
}

// reachable reports whether sets of sizes x and y can reach t at all: with
// the largest possible overlap.
func reachable(m prefix.Measure, th prefix.Threshold, x, y int) bool {
	return jointest.Reaches(m, th, min(x, y), x, y)
}

// TestSizeRange checks that SizeRange(x) holds exactly the sizes y that can
// reach t with a set of size x, for sizes up to 60 (and up to 4x past 60
// for the upper end).
func TestSizeRange(t *testing.T) {
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			b := prefix.NewBounds(m, th)
			for x := 1; x <= maxBoundSize; x++ {
				lo, hi := b.SizeRange(x)
				if m == prefix.Overlap && !reachable(m, th, x, math.MaxInt32) {
					// No partner reaches t, however large; the range is
					// not empty, but the prefixes are (TestPrefixes).
					continue
				}
				for y := 1; y <= 4*maxBoundSize; y++ {
					in := lo <= y && y <= hi
					if in != reachable(m, th, x, y) {
						t.Fatalf("%s t=%s: SizeRange(%d) = [%d, %d], but size %d reachable = %v", m, th, x, lo, hi, y, !in)
					}
				}
			}
		}
	}
}

// TestPrefixes checks the prefix lengths against the prefix-filter
// principle: a set of size x that reaches t with a partner of size y shares
// a token with the partner within its first x - MinOverlap(x, y) + 1 tokens,
// so ProbePrefix(x) must be at least that for every admissible y, and
// IndexPrefix(x) for every admissible y >= x. Both must also be no longer
// than needed: equal to the largest such requirement (0 when no partner can
// reach t).
func TestPrefixes(t *testing.T) {
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			b := prefix.NewBounds(m, th)
			for x := 1; x <= maxBoundSize; x++ {
				needProbe, needIndex := 0, 0
				for y := 1; y <= 4*maxBoundSize; y++ {
					if !reachable(m, th, x, y) {
						continue
					}
					need := x - b.MinOverlap(x, y) + 1
					needProbe = max(needProbe, need)
					if y >= x {
						needIndex = max(needIndex, need)
					}
				}
				probe, index := b.ProbePrefix(x), b.IndexPrefix(x)
				if probe != needProbe {
					t.Fatalf("%s t=%s: ProbePrefix(%d) = %d, the principle needs %d", m, th, x, probe, needProbe)
				}
				if index != needIndex {
					t.Fatalf("%s t=%s: IndexPrefix(%d) = %d, the principle needs %d", m, th, x, index, needIndex)
				}
				if index > probe || probe > x || index < 0 {
					t.Fatalf("%s t=%s: x=%d IndexPrefix %d, ProbePrefix %d out of order", m, th, x, index, probe)
				}
			}
		}
	}
}

// TestPrefixFilterOnSets checks the principle on actual sets: for random
// sets over a small ordered universe, every pair that reaches t shares a
// token between the probe prefix of the larger set and the index prefix of
// the smaller one (the self-join), and between the two probe prefixes (the
// R-S join).
func TestPrefixFilterOnSets(t *testing.T) {
	seed := uint64(1130)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	sets := make([][]uint32, 300)
	for i := range sets {
		n := 1 + r.IntN(14)
		s := make([]uint32, 0, n)
		for range n {
			s = append(s, uint32(r.IntN(24)))
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	meets := func(a, b []uint32) bool { return jointest.Overlap(a, b) > 0 }
	overlap := make([][]int, len(sets))
	for i := range sets {
		overlap[i] = make([]int, i)
		for j := range i {
			overlap[i][j] = jointest.Overlap(sets[i], sets[j])
		}
	}
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			b := prefix.NewBounds(m, th)
			for i, x := range sets {
				for j, y := range sets[:i] {
					if !jointest.Reaches(m, th, overlap[i][j], len(x), len(y)) {
						continue
					}
					big, small := x, y
					if len(big) < len(small) {
						big, small = small, big
					}
					if !meets(big[:b.ProbePrefix(len(big))], small[:b.IndexPrefix(len(small))]) {
						t.Fatalf("%s t=%s: self-join prefixes of %v and %v do not meet", m, th, big, small)
					}
					if !meets(x[:b.ProbePrefix(len(x))], y[:b.ProbePrefix(len(y))]) {
						t.Fatalf("%s t=%s: probe prefixes of %v and %v do not meet", m, th, x, y)
					}
				}
			}
		}
	}
}

// TestBoundsLargeSizes samples sizes up to ten million, where the products
// in the bounds approach 64 bits, and checks MinOverlap and SizeRange at
// their edges against the oracle.
func TestBoundsLargeSizes(t *testing.T) {
	seed := uint64(42)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			b := prefix.NewBounds(m, th)
			for range 200 {
				x := 1 + r.IntN(10_000_000)
				y := 1 + r.IntN(10_000_000)
				if r.IntN(2) == 0 {
					y = x + r.IntN(100) - 50
					y = max(y, 1)
				}
				o := b.MinOverlap(x, y)
				if o <= min(x, y) {
					if !jointest.Reaches(m, th, o, x, y) || (o > 0 && jointest.Reaches(m, th, o-1, x, y)) {
						t.Fatalf("%s t=%s: MinOverlap(%d, %d) = %d is not the least reaching overlap", m, th, x, y, o)
					}
				} else if reachable(m, th, x, y) {
					t.Fatalf("%s t=%s: MinOverlap(%d, %d) = %d > min, but the pair can reach t", m, th, x, y, o)
				}
				if m == prefix.Overlap {
					continue
				}
				lo, hi := b.SizeRange(x)
				if lo > 1 && reachable(m, th, x, lo-1) || !reachable(m, th, x, lo) {
					t.Fatalf("%s t=%s: SizeRange(%d) lower end %d is not exact", m, th, x, lo)
				}
				if hi < math.MaxInt32 && (reachable(m, th, x, hi+1) || !reachable(m, th, x, hi)) {
					t.Fatalf("%s t=%s: SizeRange(%d) upper end %d is not exact", m, th, x, hi)
				}
			}
		}
	}
}

// TestSimilarity checks the float similarity against the definitions.
func TestSimilarity(t *testing.T) {
	for _, c := range []struct {
		m       prefix.Measure
		o, x, y int
		want    float64
	}{
		{prefix.Jaccard, 4, 4, 5, 0.8},
		{prefix.Jaccard, 0, 3, 3, 0},
		{prefix.Cosine, 2, 4, 1, 1},
		{prefix.Cosine, 3, 4, 9, 0.5},
		{prefix.Dice, 3, 4, 4, 0.75},
		{prefix.Overlap, 7, 9, 10, 7},
	} {
		th := prefix.Threshold{Num: 1, Den: 2}
		if c.m == prefix.Overlap {
			th = prefix.Threshold{Num: 1, Den: 1}
		}
		if got := prefix.NewBounds(c.m, th).Similarity(c.o, c.x, c.y); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s Similarity(%d, %d, %d) = %v, want %v", c.m, c.o, c.x, c.y, got, c.want)
		}
	}
}

// TestParseThreshold covers the accepted forms and the edges of the range
// and precision.
func TestParseThreshold(t *testing.T) {
	ok := []struct {
		m        prefix.Measure
		in       string
		num, den uint64
	}{
		{prefix.Jaccard, "0.8", 4, 5},
		{prefix.Jaccard, "4/5", 4, 5},
		{prefix.Jaccard, "8/10", 4, 5},
		{prefix.Jaccard, " 0.8 ", 4, 5},
		{prefix.Jaccard, ".8", 4, 5},
		{prefix.Jaccard, "0.80000", 4, 5},
		{prefix.Jaccard, "1", 1, 1},
		{prefix.Jaccard, "1.0", 1, 1},
		{prefix.Jaccard, "2/2", 1, 1},
		{prefix.Cosine, "2/3", 2, 3},
		{prefix.Dice, "0.000000001", 1, 1_000_000_000},
		{prefix.Dice, "0.999999999", 999_999_999, 1_000_000_000},
		{prefix.Jaccard, "0.1234567890", 123456789, 1_000_000_000}, // ten decimals, nine significant
		{prefix.Jaccard, "1/1000000000", 1, 1_000_000_000},
		{prefix.Overlap, "1", 1, 1},
		{prefix.Overlap, "17", 17, 1},
		{prefix.Overlap, " 3 ", 3, 1},
		{prefix.Overlap, "4294967295", 4294967295, 1},
	}
	for _, c := range ok {
		th, err := prefix.ParseThreshold(c.m, c.in)
		if err != nil || th.Num != c.num || th.Den != c.den {
			t.Errorf("ParseThreshold(%s, %q) = %v/%v, %v; want %d/%d", c.m, c.in, th.Num, th.Den, err, c.num, c.den)
		}
	}
	bad := []struct {
		m  prefix.Measure
		in string
	}{
		{prefix.Jaccard, ""},
		{prefix.Jaccard, "0"},
		{prefix.Jaccard, "0.0"},
		{prefix.Jaccard, "0/5"},
		{prefix.Jaccard, "-0.5"},
		{prefix.Jaccard, "-1/2"},
		{prefix.Jaccard, "1.5"},
		{prefix.Jaccard, "1.000000001"},
		{prefix.Jaccard, "3/2"},
		{prefix.Jaccard, "1/0"},
		{prefix.Jaccard, "abc"},
		{prefix.Jaccard, "0.8x"},
		{prefix.Jaccard, "0.8."},
		{prefix.Jaccard, "1e-1"},
		{prefix.Jaccard, "8E-1"},
		{prefix.Jaccard, "NaN"},
		{prefix.Jaccard, "Inf"},
		{prefix.Jaccard, "0.1234567891"}, // ten significant decimals
		{prefix.Jaccard, "0.0000000005"},
		{prefix.Jaccard, "1/1000000001"},
		{prefix.Cosine, "1/3000000000"},
		{prefix.Overlap, "0"},
		{prefix.Overlap, "-1"},
		{prefix.Overlap, "0.5"},
		{prefix.Overlap, "2.0"},
		{prefix.Overlap, "2/1"},
		{prefix.Overlap, "4294967296"},
		{prefix.Overlap, "abc"},
		{prefix.Overlap, ""},
	}
	for _, c := range bad {
		th, err := prefix.ParseThreshold(c.m, c.in)
		if !errors.Is(err, prefix.ErrThreshold) {
			t.Errorf("ParseThreshold(%s, %q) = %v/%v, %v; want ErrThreshold", c.m, c.in, th.Num, th.Den, err)
		}
	}
}

// TestThresholdOf covers the float conversion: the shortest decimal that
// reads back as the float, rounded to nine places.
func TestThresholdOf(t *testing.T) {
	ok := []struct {
		m        prefix.Measure
		in       float64
		num, den uint64
	}{
		{prefix.Jaccard, 0.8, 4, 5},
		{prefix.Jaccard, 0.1 + 0.2, 3, 10}, // 0.30000000000000004 rounds to 0.3
		{prefix.Jaccard, 1, 1, 1},
		{prefix.Dice, 0.5, 1, 2},
		{prefix.Cosine, 0.123456789, 123456789, 1_000_000_000},
		{prefix.Jaccard, 2.0 / 3, 666666667, 1_000_000_000},
		{prefix.Jaccard, 1e-9, 1, 1_000_000_000},
		{prefix.Overlap, 1, 1, 1},
		{prefix.Overlap, 3, 3, 1},
		{prefix.Overlap, math.MaxUint32, math.MaxUint32, 1},
	}
	for _, c := range ok {
		th, err := prefix.ThresholdOf(c.m, c.in)
		if err != nil || th.Num != c.num || th.Den != c.den {
			t.Errorf("ThresholdOf(%s, %v) = %v/%v, %v; want %d/%d", c.m, c.in, th.Num, th.Den, err, c.num, c.den)
		}
	}
	bad := []struct {
		m  prefix.Measure
		in float64
	}{
		{prefix.Jaccard, 0},
		{prefix.Jaccard, math.Copysign(0, -1)},
		{prefix.Jaccard, -0.5},
		{prefix.Jaccard, 1.5},
		{prefix.Jaccard, 1e-10}, // rounds to 0
		{prefix.Jaccard, math.NaN()},
		{prefix.Jaccard, math.Inf(1)},
		{prefix.Jaccard, math.Inf(-1)},
		{prefix.Cosine, 2},
		{prefix.Overlap, 0},
		{prefix.Overlap, 0.5},
		{prefix.Overlap, 2.5},
		{prefix.Overlap, -3},
		{prefix.Overlap, math.MaxUint32 + 1},
		{prefix.Overlap, math.NaN()},
	}
	for _, c := range bad {
		th, err := prefix.ThresholdOf(c.m, c.in)
		if !errors.Is(err, prefix.ErrThreshold) {
			t.Errorf("ThresholdOf(%s, %v) = %v/%v, %v; want ErrThreshold", c.m, c.in, th.Num, th.Den, err)
		}
	}
	// Every decimal with up to three places converts to the same threshold
	// as its text.
	for k := 1; k <= 1000; k++ {
		text := fmt.Sprintf("%d.%03d", k/1000, k%1000)
		want, err := prefix.ParseThreshold(prefix.Jaccard, text)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := prefix.ThresholdOf(prefix.Jaccard, float64(k)/1000); err != nil || got != want {
			t.Fatalf("ThresholdOf(%v) = %v, %v; ParseThreshold(%q) = %v", float64(k)/1000, got, err, text, want)
		}
	}
}

// TestThresholdString checks that String reads back as the same threshold.
func TestThresholdString(t *testing.T) {
	for _, m := range boundMeasures {
		for _, th := range boundThresholds(t, m) {
			back, err := prefix.ParseThreshold(m, th.String())
			if err != nil || back != th {
				t.Errorf("%s: %v prints as %q, which reads back as %v, %v", m, th, th.String(), back, err)
			}
		}
	}
}

// TestParseMeasure covers the names and their case.
func TestParseMeasure(t *testing.T) {
	for _, m := range boundMeasures {
		got, err := prefix.ParseMeasure(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMeasure(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, err := prefix.ParseMeasure("Cosine"); err != nil || got != prefix.Cosine {
		t.Errorf("ParseMeasure(Cosine) = %v, %v", got, err)
	}
	for _, s := range []string{"", "jacard", "hamming", "overlap2"} {
		if _, err := prefix.ParseMeasure(s); !errors.Is(err, prefix.ErrMeasure) {
			t.Errorf("ParseMeasure(%q): err = %v, want ErrMeasure", s, err)
		}
	}
}
