package approx_test

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// plantedPair returns two sets of random keys, sizes x and y, sharing o keys.
func plantedPair(r *rand.Rand, x, y, o int) (a, b []uint64) {
	a = make([]uint64, 0, x)
	b = make([]uint64, 0, y)
	for i := 0; i < o; i++ {
		k := r.Uint64()
		a, b = append(a, k), append(b, k)
	}
	for len(a) < x {
		a = append(a, r.Uint64())
	}
	for len(b) < y {
		b = append(b, r.Uint64())
	}
	return a, b
}

// overlapFor returns the overlap giving Jaccard nearest to j for sizes x, y.
func overlapFor(j float64, x, y int) int {
	return min(int(math.Round(j*float64(x+y)/(1+j))), x, y)
}

var schemes = []approx.Scheme{approx.Classic, approx.OnePerm}

// TestEstimateError: on pairs planted at known J, every estimate lies within
// 4.5 binomial deviations sqrt(J(1-J)/K) of J (plus 1/K for the granularity;
// a pair fails by chance with probability 7·10⁻⁶), no more than twice the
// expected 4.6% lie beyond 2 deviations, and the mean error lies within 4
// deviations of the mean.
func TestEstimateError(t *testing.T) {
	const seed, k, pairs = 11, 128, 600
	t.Logf("seed %d", seed)
	for _, sc := range schemes {
		t.Run(sc.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0))
			h, err := approx.NewHasher(sc, k, seed)
			if err != nil {
				t.Fatal(err)
			}
			sigs, _ := approx.NewSignatures(2, k, 64)
			var sumErr, sumVar float64
			var sa, sb []uint64
			beyond2 := 0
			for i := 0; i < pairs; i++ {
				x, y := 200+r.IntN(200), 200+r.IntN(200)
				o := overlapFor(0.05+0.9*r.Float64(), x, y)
				a, b := plantedPair(r, x, y, o)
				j := float64(o) / float64(x+y-o)
				sa, sb = h.Sign(sa, a), h.Sign(sb, b)
				sigs.Put(0, sa)
				sigs.Put(1, sb)
				est := sigs.Estimate(0, sigs, 1)
				sd := math.Sqrt(j * (1 - j) / k)
				if math.Abs(est-j) > 2*sd+1.0/k {
					beyond2++
				}
				if math.Abs(est-j) > 4.5*sd+1.0/k {
					t.Errorf("pair %d: J = %.4f, estimate %.4f, off by %.1f sd", i, j, est, math.Abs(est-j)/sd)
				}
				sumErr += est - j
				sumVar += j * (1 - j) / k
			}
			mean, sdMean := sumErr/pairs, math.Sqrt(sumVar)/pairs
			t.Logf("mean error %.5f (sd of the mean %.5f); %d of %d beyond 2 sd", mean, sdMean, beyond2, pairs)
			if beyond2 > pairs*2*455/10000 {
				t.Errorf("%d of %d estimates beyond 2 sd; want about %d", beyond2, pairs, pairs*455/10000)
			}
			if math.Abs(mean) > 4*sdMean {
				t.Errorf("mean error %.5f is %.1f sd of the mean", mean, math.Abs(mean)/sdMean)
			}
		})
	}
}

// TestBBitCorrection: keeping w low bits adds chance matches of 2^-w; the raw
// match rate shows that bias and EstimateJaccard removes it.
func TestBBitCorrection(t *testing.T) {
	const seed, k, pairs, jt = 12, 128, 3000, 0.2
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	h, _ := approx.NewHasher(approx.OnePerm, k, seed)
	sigs := map[int]*approx.Signatures{}
	for _, w := range []int{8, 16, 64} {
		sigs[w], _ = approx.NewSignatures(2*pairs, k, w)
	}
	var sumJ, sumVar float64
	var sa, sb []uint64
	for i := 0; i < pairs; i++ {
		o := overlapFor(jt, 150, 150)
		a, b := plantedPair(r, 150, 150, o)
		j := float64(o) / float64(300-o)
		sumJ += j
		sumVar += j * (1 - j) / k
		sa, sb = h.Sign(sa, a), h.Sign(sb, b)
		for _, s := range sigs {
			s.Put(2*i, sa)
			s.Put(2*i+1, sb)
		}
	}
	meanJ, sd := sumJ/pairs, math.Sqrt(sumVar)/pairs
	for _, w := range []int{8, 16, 64} {
		m := 0
		for i := 0; i < pairs; i++ {
			m += sigs[w].Match(2*i, sigs[w], 2*i+1)
		}
		raw := float64(m) / float64(k*pairs)
		c := math.Ldexp(1, -w)
		corrected := (raw - c) / (1 - c) // unclamped: the clamp would bias the mean
		want := meanJ + (1-meanJ)*c
		t.Logf("w=%d: raw %.5f (expected %.5f), corrected %.5f, J %.5f, sd %.5f", w, raw, want, corrected, meanJ, sd)
		if math.Abs(raw-want) > 4*sd {
			t.Errorf("w=%d: raw match rate %.5f, want %.5f ± %.5f", w, raw, want, 4*sd)
		}
		if math.Abs(corrected-meanJ) > 4*sd {
			t.Errorf("w=%d: corrected estimate %.5f, want J %.5f ± %.5f", w, corrected, meanJ, 4*sd)
		}
		if w == 8 && math.Abs(raw-meanJ) < 4*sd {
			t.Errorf("w=8: the uncorrected rate %.5f shows no bias against J %.5f; the test has no power", raw, meanJ)
		}
	}
}

// TestCandidateProbability: the share of planted pairs that become candidates
// in each similarity bin matches P(s) within its binomial sampling error, for
// both schemes.
func TestCandidateProbability(t *testing.T) {
	const seed, perBin = 13, 250
	t.Logf("seed %d", seed)
	sims := []float64{0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9}
	shape := approx.Shape{B: 12, R: 4}
	for _, sc := range schemes {
		t.Run(sc.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.01")
			b, err := approx.NewBuilder(approx.Options{Threshold: th, Scheme: sc, K: 48, Shape: shape, Seed: seed, Bits: 16})
			if err != nil {
				t.Fatal(err)
			}
			type planted struct {
				bin int
				j   float64
			}
			byPair := map[[2]int]planted{}
			for bin, s := range sims {
				for i := 0; i < perBin; i++ {
					x, y := 150+r.IntN(100), 150+r.IntN(100)
					o := overlapFor(s, x, y)
					a, c := plantedPair(r, x, y, o)
					ia, ic := b.Add(a), b.Add(c)
					byPair[[2]int{ia, ic}] = planted{bin, float64(o) / float64(x+y-o)}
				}
			}
			ix, err := b.Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			found := make([]int, len(sims))
			_, err = ix.SelfJoin(context.Background(), func(p join.Pair) bool {
				if pl, ok := byPair[[2]int{p.A, p.B}]; ok {
					found[pl.bin]++
				} else {
					t.Errorf("unplanted pair %+v", p)
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(sims))
			for _, pl := range byPair {
				want[pl.bin] += shape.P(pl.j)
			}
			for bin, s := range sims {
				p := want[bin] / perBin
				got := float64(found[bin]) / perBin
				sd := math.Sqrt(p * (1 - p) / perBin)
				t.Logf("s=%.2f: candidate rate %.3f, P(s) %.3f ± %.3f", s, got, p, sd)
				if math.Abs(got-p) > 4*sd+1.0/perBin {
					t.Errorf("s=%.2f: candidate rate %.3f, S-curve says %.3f (sd %.3f)", s, got, p, sd)
				}
			}
		})
	}
}

// TestFold32: the fold is CRC-32 (IEEE) of the key's little-endian bytes.
func TestFold32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b [8]byte
	for i := 0; i < 1000; i++ {
		k := r.Uint64()
		binary.LittleEndian.PutUint64(b[:], k)
		if got, want := approx.Fold32(k), crc32.ChecksumIEEE(b[:]); got != want {
			t.Fatalf("Fold32(%#x) = %#x, want %#x", k, got, want)
		}
	}
}

// TestSCurve checks the S-curve and the choosers against known values.
func TestSCurve(t *testing.T) {
	// The article: 12 bands of 4 rows; 0.8 -> 0.998, 0.2 -> 0.019.
	s := approx.Shape{B: 12, R: 4}
	if p := s.P(0.8); math.Abs(p-0.998) > 0.0005 {
		t.Errorf("P(0.8) for 12x4 = %.4f, want 0.998", p)
	}
	if p := s.P(0.2); math.Abs(p-0.019) > 0.0005 {
		t.Errorf("P(0.2) for 12x4 = %.4f, want 0.019", p)
	}
	// Areas against a fine midpoint rule.
	fp, fn := 0.0, 0.0
	const n = 200000
	for i := 0; i < n; i++ {
		x := (float64(i) + 0.5) / n
		if x < 0.5 {
			fp += s.P(x) / n
		} else {
			fn += (1 - s.P(x)) / n
		}
	}
	if math.Abs(fp-s.FalsePositiveArea(0.5)) > 1e-6 || math.Abs(fn-s.FalseNegativeArea(0.5)) > 1e-6 {
		t.Errorf("areas %.7f, %.7f; midpoint rule %.7f, %.7f", s.FalsePositiveArea(0.5), s.FalseNegativeArea(0.5), fp, fn)
	}
	// The peers' equal weights at t = 0.8, K = 128.
	if got, _ := approx.ChooseWeighted(0.8, 128, 0.5, 0.5); got != (approx.Shape{B: 9, R: 13}) {
		t.Errorf("ChooseWeighted(0.8, 128) = %s, want 9x13", got)
	}
	for _, tc := range []struct {
		t      float64
		k      int
		recall float64
	}{{0.8, 128, 0.95}, {0.5, 48, 0.99}, {0.9, 256, 0.9}, {0.3, 128, 0.95}} {
		got, err := approx.ChooseRecall(tc.t, tc.k, tc.recall)
		if err != nil {
			t.Fatal(err)
		}
		if got.P(tc.t) < tc.recall || got.B*got.R > tc.k {
			t.Errorf("ChooseRecall(%v, %d, %v) = %s with P(t) = %.4f", tc.t, tc.k, tc.recall, got, got.P(tc.t))
		}
		// No cheaper shape reaches the recall.
		for r := 1; r <= tc.k; r++ {
			for b := 1; b*r <= tc.k; b++ {
				o := approx.Shape{B: b, R: r}
				if o.P(tc.t) >= tc.recall && o.FalsePositiveArea(tc.t) < got.FalsePositiveArea(tc.t)-1e-12 {
					t.Errorf("ChooseRecall(%v, %d, %v) = %s, but %s is cheaper", tc.t, tc.k, tc.recall, got, o)
				}
			}
		}
	}
	if _, err := approx.ChooseRecall(0.05, 8, 0.999); err == nil {
		t.Error("ChooseRecall accepted an unreachable recall")
	}
}
