package simjoin_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

var allMeasures = []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap}

// floatThresholds are the thresholds the facade tests use, as floats.
func floatThresholds(m prefix.Measure) []float64 {
	if m == prefix.Overlap {
		return []float64{1, 2, 3}
	}
	return []float64{0.3, 0.5, 2.0 / 3, 0.8, 1}
}

// fromFacade converts facade pairs to oracle pairs, checking Sim on the way.
func fromFacade(t *testing.T, m prefix.Measure, pairs []simjoin.Pair, sizeA, sizeB func(int) int) []jointest.Pair {
	t.Helper()
	out := make([]jointest.Pair, len(pairs))
	for i, p := range pairs {
		out[i] = jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap}
		x, y := sizeA(p.A), sizeB(p.B)
		var want float64
		switch m {
		case prefix.Jaccard:
			want = float64(p.Overlap) / float64(x+y-p.Overlap)
		case prefix.Cosine:
			want = float64(p.Overlap) / math.Sqrt(float64(x)*float64(y))
		case prefix.Dice:
			want = 2 * float64(p.Overlap) / float64(x+y)
		default:
			want = float64(p.Overlap)
		}
		if math.Abs(p.Sim-want) > 1e-12 {
			t.Errorf("pair %+v: Sim %v, want %v", p, p.Sim, want)
		}
	}
	return out
}

func sizeOf(sets [][]uint32) func(int) int {
	return func(i int) int { return len(slices.Compact(slices.Sorted(slices.Values(sets[i])))) }
}

func sameAs(t *testing.T, what string, got, want []jointest.Pair) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %d pairs, want %d\n got %v\nwant %v", what, len(got), len(want), head(got), head(want))
	}
}

func head(p []jointest.Pair) []jointest.Pair { return p[:min(len(p), 8)] }

// TestSetsAgainstOracle runs the fixture table through Run over Sets
// sources, self-joins and R-S joins (collected and streamed), and compares
// with the nested-loop oracle.
func TestSetsAgainstOracle(t *testing.T) {
	ctx := context.Background()
	for _, fx := range jointest.Fixtures(3) {
		half := len(fx.Sets) / 2
		r, s := fx.Sets[:half], fx.Sets[half:]
		self, cross := jointest.SelfOverlaps(fx.Sets), jointest.RSOverlaps(r, s)
		for _, m := range allMeasures {
			for _, tf := range floatThresholds(m) {
				th, err := prefix.ThresholdOf(m, tf)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s/%s/t=%s", fx.Name, m, th)
				opts := simjoin.Options{Measure: m, Threshold: th, Workers: 2, Method: simjoin.Exact}
				pairs, st, err := simjoin.Collect(ctx, records.Sets(fx.Sets), records.Source{}, opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if st.Results != int64(len(pairs)) || st.Records != len(fx.Sets) {
					t.Errorf("%s: stats %+v for %d pairs of %d recs", name, st, len(pairs), len(fx.Sets))
				}
				want := self.Join(m, th)
				sameAs(t, name+"/self", fromFacade(t, m, pairs, sizeOf(fx.Sets), sizeOf(fx.Sets)), want)

				pairs, _, err = simjoin.Collect(ctx, records.Sets(r), records.Sets(s), opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				sameAs(t, name+"/rs", fromFacade(t, m, pairs, sizeOf(r), sizeOf(s)), cross.Join(m, th))

				var streamed []jointest.Pair
				_, err = simjoin.Run(ctx, records.Sets(r), records.Sets(s), opts, func(p simjoin.Pair) bool {
					streamed = append(streamed, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
					return true
				})
				if err != nil {
					t.Fatal(err)
				}
				jointest.Sort(streamed)
				sameAs(t, name+"/rs-streamed", streamed, cross.Join(m, th))
			}
		}
	}
}

// qgramSets tokenizes recs as the oracle sees them: the distinct q-grams,
// numbered.
func qgramSets(recs []string, q int, ids map[string]uint32) [][]uint32 {
	out := make([][]uint32, len(recs))
	for i, rec := range recs {
		runes := []rune(rec)
		for k := 0; k+q <= len(runes); k++ {
			g := string(runes[k : k+q])
			id, ok := ids[g]
			if !ok {
				id = uint32(len(ids))
				ids[g] = id
			}
			out[i] = append(out[i], id)
		}
	}
	return out
}

// mutatedPasswords returns n strings drawn from a few stems with small edits,
// so that many pairs are close.
func mutatedPasswords(r *rand.Rand, n int) []string {
	stems := []string{"password", "dragon", "letmein", "sunshine", "qwerty", "monkey", "Straße", "пароль"}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789!$é"
	out := make([]string, n)
	for i := range out {
		s := []rune(stems[r.IntN(len(stems))])
		for k := r.IntN(4); k > 0; k-- {
			a := []rune(alphabet)
			switch r.IntN(3) {
			case 0:
				s = append(s, a[r.IntN(len(a))])
			case 1:
				if len(s) > 1 {
					at := r.IntN(len(s))
					s = slices.Delete(s, at, at+1)
				}
			default:
				s[r.IntN(len(s))] = a[r.IntN(len(a))]
			}
		}
		out[i] = string(s)
	}
	return out
}

// TestStringsAgainstOracle joins mutated passwords as q-grams through
// SelfJoin and Join and compares with the oracle over the same q-gram sets.
func TestStringsAgainstOracle(t *testing.T) {
	seed := uint64(20261130)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	recs := mutatedPasswords(r, 300)
	other := mutatedPasswords(r, 200)
	ctx := context.Background()
	qs := []int{2, 3, 4}
	if testing.Short() {
		qs = qs[:1]
	}
	for _, q := range qs {
		ids := map[string]uint32{}
		sets, osets := qgramSets(recs, q, ids), qgramSets(other, q, ids)
		self, cross := jointest.SelfOverlaps(sets), jointest.RSOverlaps(sets, osets)
		for _, m := range allMeasures {
			for _, tf := range floatThresholds(m) {
				th, _ := prefix.ThresholdOf(m, tf)
				name := fmt.Sprintf("q=%d/%s/t=%s", q, m, th)
				opts := simjoin.Options{Tokens: shingle.Spec{Kind: shingle.QGram, N: q}, Measure: m, Threshold: th, Method: simjoin.Exact}
				pairs, _, err := simjoin.SelfJoin(ctx, recs, opts)
				if err != nil {
					t.Fatal(err)
				}
				sameAs(t, name+"/self", fromFacade(t, m, pairs, sizeOf(sets), sizeOf(sets)), self.Join(m, th))
				pairs, _, err = simjoin.Collect(ctx, records.Strings(recs), records.Strings(other), opts)
				if err != nil {
					t.Fatal(err)
				}
				sameAs(t, name+"/rs", fromFacade(t, m, pairs, sizeOf(sets), sizeOf(osets)), cross.Join(m, th))
			}
		}
	}
}

// TestCollectedSortedStreamedNot checks that collected pairs are sorted by
// (A, B), that streaming gives the same pairs, and that the streamed order
// does not depend on the number of workers.
func TestCollectedSortedStreamedNot(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	recs := mutatedPasswords(r, 2000)
	ctx := context.Background()
	opts := simjoin.Options{Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Threshold: simjoin.Threshold{Num: 3, Den: 5}}
	pairs, _, err := simjoin.SelfJoin(ctx, recs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) < 100 {
		t.Fatalf("only %d pairs: the test needs a denser collection", len(pairs))
	}
	if !slices.IsSortedFunc(pairs, func(a, b simjoin.Pair) int {
		if a.A != b.A {
			return a.A - b.A
		}
		return a.B - b.B
	}) {
		t.Error("collected pairs are not sorted by (A, B)")
	}
	var ref []simjoin.Pair
	for _, w := range []int{1, 2, 5} {
		opts.Workers = w
		var got []simjoin.Pair
		if _, err := simjoin.Run(ctx, records.Strings(recs), records.Source{}, opts, func(p simjoin.Pair) bool {
			got = append(got, p)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = got
			sorted := slices.Clone(got)
			slices.SortFunc(sorted, func(a, b simjoin.Pair) int {
				if a.A != b.A {
					return a.A - b.A
				}
				return a.B - b.B
			})
			if !slices.Equal(sorted, pairs) {
				t.Fatal("streamed pairs differ from collected ones")
			}
			continue
		}
		if !slices.Equal(got, ref) {
			t.Fatalf("workers=%d: streamed sequence differs from workers=1", w)
		}
	}
}

// TestStopEarly checks that yield returning false stops the stream without
// an error.
func TestStopEarly(t *testing.T) {
	recs := slices.Repeat([]string{"a b c"}, 50) // 1225 identical pairs
	n := 0
	_, err := simjoin.Run(context.Background(), records.Strings(recs), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 1}}, func(simjoin.Pair) bool {
		n++
		return n < 10
	})
	if err != nil || n != 10 {
		t.Fatalf("stopped after %d pairs with %v; want 10 and nil", n, err)
	}
}

// TestCanceled checks that a canceled context ends the join with ctx.Err().
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	recs := slices.Repeat([]string{"a b c", "a b d"}, 200)
	_, _, err := simjoin.SelfJoin(ctx, recs, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	n := 0
	_, err = simjoin.Run(ctx, records.Strings(recs), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Workers: 2}, func(simjoin.Pair) bool {
		if n++; n == 5 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled mid-stream: err = %v, want context.Canceled", err)
	}
}

// TestOptionErrors checks the typed errors for every kind of bad option, and
// that a bad option is reported before any record is read.
func TestOptionErrors(t *testing.T) {
	ctx := context.Background()
	recs := []string{"a b", "a b c"}
	sets := [][]int{{1, 2}, {1, 2, 3}}
	cases := []struct {
		name string
		opts simjoin.Options
		want error
	}{
		{"zero threshold", simjoin.Options{}, simjoin.ErrNoThreshold},
		{"zero numerator", simjoin.Options{Threshold: simjoin.Threshold{Num: 0, Den: 2}}, simjoin.ErrThreshold},
		{"above one", simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 2}}, simjoin.ErrThreshold},
		{"too precise", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 1_000_000_007}}, simjoin.ErrThreshold},
		{"overlap fraction", simjoin.Options{Measure: simjoin.Overlap, Threshold: simjoin.Threshold{Num: 1, Den: 2}}, simjoin.ErrThreshold},
		{"overlap zero", simjoin.Options{Measure: simjoin.Overlap}, simjoin.ErrNoThreshold},
		{"unknown measure", simjoin.Options{Measure: prefix.Overlap + 1, Threshold: simjoin.Threshold{Num: 1, Den: 2}}, simjoin.ErrMeasure},
		{"qgram:0", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.QGram}}, simjoin.ErrTokens},
		{"shingle:65", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Shingle, N: shingle.MaxN + 1}}, simjoin.ErrTokens},
		{"unknown kind", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Go + 1, N: 2}}, simjoin.ErrTokens},
		{"shingle:0", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Shingle}}, simjoin.ErrTokens},
		{"go:0", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Go}}, simjoin.ErrTokens},
		{"unknown norm", simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Words, Norm: 4}}, simjoin.ErrTokens},
	}
	for _, c := range cases {
		_, _, err := simjoin.SelfJoin(ctx, recs, c.opts)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: SelfJoin err = %v, want %v", c.name, err, c.want)
		}
		_, _, err = simjoin.Collect(ctx, records.Strings(recs), records.Strings(recs), c.opts)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Join err = %v, want %v", c.name, err, c.want)
		}
		if c.want == simjoin.ErrTokens {
			continue // the *Sets calls ignore Tokens
		}
		_, _, err = simjoin.Collect(ctx, records.Sets(sets), records.Source{}, c.opts)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: self-join of sets: err = %v, want %v", c.name, err, c.want)
		}
		_, _, err = simjoin.Collect(ctx, records.Sets(sets), records.Sets(sets), c.opts)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: R-S join of sets: err = %v, want %v", c.name, err, c.want)
		}
	}
}

// TestRecordError checks that invalid UTF-8 names the side and record and
// does not quote the record.
func TestRecordError(t *testing.T) {
	ctx := context.Background()
	secret := "hunter2\xff"
	for _, kind := range []shingle.Kind{shingle.Words, shingle.QGram, shingle.Shingle} {
		opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: kind, N: 2}}
		_, _, err := simjoin.Collect(ctx, records.Strings([]string{"fine"}), records.Strings([]string{"ok", "fine", secret}), opts)
		var re *records.RecordError
		if !errors.As(err, &re) || re.Side != records.SideS || re.Index != 2 || !errors.Is(err, simjoin.ErrUTF8) ||
			!strings.HasPrefix(err.Error(), "simjoin: record s[2]: ") {
			t.Errorf("%s: err = %v, want a RecordError for s[2] wrapping ErrUTF8", kind, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter") {
			t.Errorf("%s: error %q quotes the record", kind, err)
		}
	}
	// A self-join's record has no side.
	_, _, err := simjoin.SelfJoin(ctx, []string{"ok", secret}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Words}})
	var re *records.RecordError
	if !errors.As(err, &re) || re.Side != 0 || re.Index != 1 || !strings.HasPrefix(err.Error(), "simjoin: record 1: ") {
		t.Errorf("self-join: err = %v, want a RecordError for record 1", err)
	}
	if records.SideR.String() != "r" || records.Side(0).String() != "" {
		t.Errorf("sides %q, %q", records.SideR, records.Side(0))
	}
	// Set takes bytes as they are: no error.
	pairs, _, err := simjoin.SelfJoin(ctx, []string{secret, secret}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 1}})
	if err != nil || len(pairs) != 1 {
		t.Errorf("set tokens on invalid UTF-8: %v, %v", pairs, err)
	}
}

// TestFloatTokens checks that tokens are equal as cmp.Compare says: NaN is
// one token, -0 and +0 are one.
func TestFloatTokens(t *testing.T) {
	nan := math.NaN()
	sets := [][]float64{
		{nan, 1, 2},
		{math.NaN(), 1, 2},
		{math.Copysign(0, -1), 5},
		{0, 5},
		{nan, nan, 7},
	}
	pairs, _, err := simjoin.Collect(context.Background(), records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []simjoin.Pair{{A: 0, B: 1, Overlap: 3, Sim: 1}, {A: 2, B: 3, Overlap: 2, Sim: 1}}
	if !slices.Equal(pairs, want) {
		t.Fatalf("got %v, want %v", pairs, want)
	}
	pairs, _, err = simjoin.Collect(context.Background(), records.Sets(sets), records.Source{}, simjoin.Options{Measure: prefix.Overlap, Threshold: simjoin.Threshold{Num: 1, Den: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// {nan, 7} shares NaN with the first two sets.
	if !slices.ContainsFunc(pairs, func(p simjoin.Pair) bool { return p.A == 0 && p.B == 4 && p.Overlap == 1 }) {
		t.Fatalf("NaN tokens do not match across sets: %v", pairs)
	}
}

// TestExactThreshold checks that the float threshold is converted exactly:
// a pair at similarity exactly 0.8 is kept, and 0.8 + one ulp drops it.
func TestExactThreshold(t *testing.T) {
	sets := [][]int{{1, 2, 3, 4}, {1, 2, 3, 4, 5}} // Jaccard 4/5
	pairs, _, err := simjoin.Collect(context.Background(), records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 4, Den: 5}})
	if err != nil || len(pairs) != 1 {
		t.Fatalf("at t=0.8: %v, %v; want the pair", pairs, err)
	}
	pairs, _, err = simjoin.Collect(context.Background(), records.Sets(sets), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 8000001, Den: 10000000}})
	if err != nil || len(pairs) != 0 {
		t.Fatalf("at t=0.8000001: %v, %v; want none", pairs, err)
	}
}

// TestEmpty checks empty and all-empty inputs.
func TestEmpty(t *testing.T) {
	ctx := context.Background()
	opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}}
	for _, recs := range [][]string{nil, {}, {"", "  ", "\t"}} {
		pairs, st, err := simjoin.SelfJoin(ctx, recs, opts)
		if err != nil || len(pairs) != 0 || st.Skipped != len(recs) || st.Records != len(recs) {
			t.Errorf("%q: %v %+v %v", recs, pairs, st, err)
		}
		pairs, st, err = simjoin.Collect(ctx, records.Strings(recs), records.Strings([]string{"a"}), opts)
		if err != nil || len(pairs) != 0 || st.Records != len(recs)+1 {
			t.Errorf("%q vs [a]: %v %+v %v", recs, pairs, st, err)
		}
	}
}

// TestTokensNorm checks that Options.Tokens is applied whole, normalisation
// included.
func TestTokensNorm(t *testing.T) {
	recs := []string{"Hello, World", "hello world"}
	for _, c := range []struct {
		norm shingle.Norm
		want int
	}{{0, 1}, {shingle.KeepCase, 0}, {shingle.KeepPunct, 0}} {
		opts := simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 1}, Tokens: shingle.Spec{Kind: shingle.Words, Norm: c.norm}}
		pairs, _, err := simjoin.SelfJoin(context.Background(), recs, opts)
		if err != nil || len(pairs) != c.want {
			t.Errorf("norm %s: %v, %v; want %d pairs", c.norm, pairs, err, c.want)
		}
	}
}

// TestWorkersClamped: a worker count far beyond the machine is lowered to
// 4·GOMAXPROCS (it used to exhaust memory), and the pairs do not change.
func TestWorkersClamped(t *testing.T) {
	recs := []string{"a b c", "a b c d", "x y", "x y z"}
	want, _, err := simjoin.SelfJoin(context.Background(), recs, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := simjoin.SelfJoin(context.Background(), recs, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Workers: 1 << 40, Method: simjoin.Exact})
	if err != nil {
		t.Fatal(err)
	}
	if st.Exact.Workers != 4*runtime.GOMAXPROCS(0) {
		t.Errorf("Stats.Workers = %d, want 4·GOMAXPROCS = %d", st.Exact.Workers, 4*runtime.GOMAXPROCS(0))
	}
	if !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
}
