package planner

import (
	"math"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
)

func TestCollect(t *testing.T) {
	sets := [][]uint32{
		{1, 2, 3},
		{},
		{1, 2},
		{1},
		{1, 4, 5, 6, 7},
		nil,
	}
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	st := Collect(c)
	want := Stats{Records: 6, Empty: 2, Sets: 4, Tokens: 11, Distinct: 7}
	if st.Records != want.Records || st.Empty != want.Empty || st.Sets != want.Sets || st.Tokens != want.Tokens || st.Distinct != want.Distinct {
		t.Errorf("counts %+v, want %+v", st, want)
	}
	// Sizes 1, 2, 3, 5: nearest-rank quantiles at ⌊q·3⌋.
	wantSize := SizeDist{Min: 1, P10: 1, P25: 1, P50: 2, P75: 3, P90: 3, P99: 3, Max: 5, Mean: 2.75}
	if st.Size != wantSize {
		t.Errorf("sizes %+v, want %+v", st.Size, wantSize)
	}
	// Frequencies: token 1 in 4 sets, 2 in 2, the other five in 1.
	f := st.Freq
	if f.Max != 4 || math.Abs(f.Mean-11.0/7) > 1e-12 || math.Abs(f.Once-5.0/7) > 1e-12 || math.Abs(f.Top1-4.0/11) > 1e-12 {
		t.Errorf("frequencies %+v", f)
	}
}

func TestCollectEmpty(t *testing.T) {
	c, err := order.New(jointest.Input([][]uint32{nil, {}}))
	if err != nil {
		t.Fatal(err)
	}
	st := Collect(c)
	if st.Records != 2 || st.Empty != 2 || st.Sets != 0 || st.Distinct != 0 || st.Size != (SizeDist{}) {
		t.Errorf("%+v", st)
	}
}

// TestCollectSkew checks that the frequency skew tells Zipf-distributed tokens
// from uniform ones.
func TestCollectSkew(t *testing.T) {
	for _, tc := range []struct {
		zipf     float64
		lo, hi   float64 // expected range of the fitted exponent
		top1Less float64 // the top 1% of tokens hold less than this share
		top1More float64 // and more than this
	}{
		{0, 0, 0.15, 0.05, 0},
		{1, 0.7, 1.3, 1, 0.3},
	} {
		sets := synth.Sets(synth.SetsConfig{N: 5000, MinSize: 10, MaxSize: 30, Universe: 20000, Zipf: tc.zipf, Seed: 3})
		c, err := order.New(jointest.Input(sets))
		if err != nil {
			t.Fatal(err)
		}
		f := Collect(c).Freq
		if f.Zipf < tc.lo || f.Zipf > tc.hi || f.Top1 >= tc.top1Less || f.Top1 <= tc.top1More {
			t.Errorf("zipf %v: fitted %+v", tc.zipf, f)
		}
	}
}
