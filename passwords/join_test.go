package passwords

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/prefix"
)

var allMeasures = []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap}

// norms are the normalisations the tests run: none, each on its own, all.
var norms = []Norm{0, FoldCase, FoldLeet, StripSuffix, allNorms}

// testList generates a list of about n passwords with seed: the generator's
// passwords (popular ones repeated), some made Latin-1 or UTF-8 with an
// accented letter, so that both readings meet in one list.
func testList(n int, seed uint64) *List {
	r := rand.New(rand.NewPCG(seed, 7))
	l := new(List)
	line := 0
	for pw := range synth.Passwords(synth.PasswordsConfig{N: n, Seed: seed}) {
		line++
		switch r.IntN(20) {
		case 0:
			pw = append(pw, 0xe9) // Latin-1 é
		case 1:
			pw = append(pw, "é"...)
		case 2:
			pw = append([]byte("\xc4"), pw...) // Latin-1 Ä
		case 3:
			pw = append([]byte("Ä"), pw...)
		case 4: // short ones: tiny sets, or none at all
			pw = pw[:min(len(pw), 1+r.IntN(3))]
		}
		l.Add(pw, uint64(1+r.IntN(3)), line)
	}
	return l
}

// setsOf returns the q-gram sets of l's passwords with keys renumbered to
// uint32, as the oracle takes them.
func setsOf(l *List, g Grams) [][]uint32 {
	ids := map[uint64]uint32{}
	sets := make([][]uint32, l.Len())
	for i := range sets {
		for _, k := range g.Append(nil, l.Password(i)) {
			id, ok := ids[k]
			if !ok {
				id = uint32(len(ids))
				ids[k] = id
			}
			sets[i] = append(sets[i], id)
		}
	}
	return sets
}

// joinPairs runs Join and returns its pairs sorted, checking each pair's
// order and similarity on the way.
func joinPairs(t *testing.T, l *List, opt Options) ([]jointest.Pair, Stats) {
	t.Helper()
	var got []jointest.Pair
	st, err := Join(context.Background(), l, opt, func(p Pair) bool {
		if p.A >= p.B {
			t.Errorf("pair (%d, %d) not ordered", p.A, p.B)
		}
		got = append(got, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	jointest.Sort(got)
	return got, st
}

// TestJoinAgainstOracle joins generated lists at every q from 1 to 4, every
// normalisation, every measure and many thresholds (fixed ones and ones that
// some pair sits on exactly), and compares with the brute-force oracle.
func TestJoinAgainstOracle(t *testing.T) {
	for _, seed := range jointest.Seeds(16, 6) {
		r := rand.New(rand.NewPCG(seed, 42))
		l := testList(150+r.IntN(300), seed)
		q := 1 + int(seed%4)
		norm := norms[int(seed)%len(norms)]
		g := Grams{Q: q, Norm: norm}
		sets := setsOf(l, g)
		ov := jointest.SelfOverlaps(sets)
		for _, m := range allMeasures {
			for _, th := range jointest.Thresholds(m, sets, r) {
				name := fmt.Sprintf("seed=%d/n=%d/q=%d/norm=%v/%v>=%v", seed, l.Len(), q, norm, m, th)
				want := ov.Join(m, th)
				var st Stats
				for _, ell := range []int{2, 3, 1, 0} {
					var got []jointest.Pair
					got, st = joinPairs(t, l, Options{Grams: g, Measure: m, Threshold: th, Workers: 1 + int(seed%3), Ell: ell})
					jointest.Diff(t, fmt.Sprintf("%s/ell=%d", name, ell), got, want)
				}
				short := 0
				for _, s := range sets {
					if len(s) == 0 {
						short++
					}
				}
				if st.Passwords != l.Len() || st.TooShort != short || st.Joined != l.Len()-short {
					t.Fatalf("%s: stats %+v, want %d passwords, %d too short", name, st, l.Len(), short)
				}
			}
		}
	}
}

// TestJoinDefaults checks the zero Options but for the threshold, which
// has no default: bigrams, Jaccard; and that the zero threshold is
// prefix.ErrNoThreshold for Join, Families and NewIndex alike.
func TestJoinDefaults(t *testing.T) {
	l := testList(400, 99)
	got, _ := joinPairs(t, l, Options{Threshold: DefaultThreshold()})
	want := jointest.SelfJoin(setsOf(l, Grams{Q: 2}), prefix.Jaccard, prefix.Threshold{Num: 4, Den: 5})
	jointest.Diff(t, "defaults", got, want)
	if len(want) == 0 {
		t.Fatal("no pair at the defaults: the test says nothing")
	}
	for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Overlap} {
		opt := Options{Measure: m}
		_, err1 := Join(context.Background(), l, opt, func(Pair) bool { return true })
		_, _, err2 := Families(context.Background(), l, opt)
		_, err3 := NewIndex(l, opt)
		for _, err := range []error{err1, err2, err3} {
			if !errors.Is(err, prefix.ErrNoThreshold) {
				t.Errorf("%s, no threshold: %v, want ErrNoThreshold", m, err)
			}
		}
	}
}

func TestJoinOptionErrors(t *testing.T) {
	l := testList(10, 1)
	for _, opt := range []Options{
		{Grams: Grams{Q: -1}},
		{Grams: Grams{Q: MaxQ + 1}},
		{Grams: Grams{Norm: 1 << 6}},
		{Measure: prefix.Overlap},
	} {
		if _, err := Join(context.Background(), l, opt, func(Pair) bool { return true }); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}

// TestJoinJohn joins Debian's john-data list, comment lines skipped, and
// compares with the oracle: the published setting (q = 2, t = 0.8) through
// the oracle's own nested loop, then every normalisation and other q and
// thresholds.
func TestJoinJohn(t *testing.T) {
	l := johnList(t)
	if l == nil {
		t.Skipf("%s is absent (Debian package john-data): skipping", johnPath)
	}
	sets := setsOf(l, Grams{Q: 2})
	want := jointest.SelfJoin(sets, prefix.Jaccard, DefaultThreshold())
	got, st := joinPairs(t, l, Options{Threshold: DefaultThreshold()})
	jointest.Diff(t, "john q=2 t=0.8", got, want)
	for _, ell := range []int{2, 3, 1} {
		other, _ := joinPairs(t, l, Options{Ell: ell, Threshold: DefaultThreshold()})
		jointest.Diff(t, fmt.Sprintf("john q=2 t=0.8 ell=%d", ell), other, want)
	}
	t.Logf("john: %d passwords, %d too short, %d pairs at q=2, t=0.8", st.Passwords, st.TooShort, len(got))
	if len(want) == 0 {
		t.Fatal("no pair: the test says nothing")
	}
	if testing.Short() {
		return
	}
	for _, tc := range []struct {
		q    int
		norm Norm
		ts   []string
	}{
		{2, FoldCase, []string{"0.8"}},
		{2, FoldLeet, []string{"0.8"}},
		{2, StripSuffix, []string{"0.8", "0.6"}},
		{2, allNorms, []string{"0.8", "0.5"}},
		{3, 0, []string{"0.8", "0.6"}},
	} {
		g := Grams{Q: tc.q, Norm: tc.norm}
		ov := jointest.SelfOverlaps(setsOf(l, g))
		for _, ts := range tc.ts {
			th, _ := prefix.ParseThreshold(prefix.Jaccard, ts)
			name := fmt.Sprintf("john q=%d norm=%v t=%s", tc.q, tc.norm, ts)
			got, _ := joinPairs(t, l, Options{Grams: g, Threshold: th})
			want := ov.Join(prefix.Jaccard, th)
			jointest.Diff(t, name, got, want)
			t.Logf("%s: %d pairs", name, len(got))
		}
	}
}

// TestNormalisationsFindMore checks that each normalisation, on its own,
// pairs passwords that the raw join does not: the generator makes case, leet
// and suffix variants of its words, so each must find some.
func TestNormalisationsFindMore(t *testing.T) {
	l := testList(3000, 5)
	raw, _ := joinPairs(t, l, Options{Threshold: DefaultThreshold()})
	for _, n := range []Norm{FoldCase, FoldLeet, StripSuffix} {
		got, _ := joinPairs(t, l, Options{Grams: Grams{Norm: n}, Threshold: DefaultThreshold()})
		extra := 0
		rawSet := map[jointest.Pair]bool{}
		for _, p := range raw {
			rawSet[jointest.Pair{A: p.A, B: p.B}] = true
		}
		for _, p := range got {
			if !rawSet[jointest.Pair{A: p.A, B: p.B}] {
				extra++
			}
		}
		t.Logf("%v: %d pairs, %d not found raw (raw: %d)", n, len(got), extra, len(raw))
		if extra == 0 {
			t.Errorf("%v pairs no password the raw join missed", n)
		}
	}
}

// TestFamiliesAgainstOracle compares Families with the connected components
// of the oracle's pairs, found by flood fill.
func TestFamiliesAgainstOracle(t *testing.T) {
	for seed := uint64(0); seed < 6; seed++ {
		l := testList(800, seed)
		g := Grams{Norm: norms[int(seed)%len(norms)]}
		th := []prefix.Threshold{DefaultThreshold(), {Num: 1, Den: 2}, {Num: 2, Den: 3}}[seed%3]
		pairs := jointest.SelfOverlaps(setsOf(l, g)).Join(prefix.Jaccard, th)
		adj := make([][]int, l.Len())
		for _, p := range pairs {
			adj[p.A] = append(adj[p.A], p.B)
			adj[p.B] = append(adj[p.B], p.A)
		}
		comp := make([]int, l.Len())
		for i := range comp {
			comp[i] = -1
		}
		var want [][]int
		for i := range comp {
			if comp[i] >= 0 || len(adj[i]) == 0 {
				continue
			}
			c := []int{i}
			comp[i] = len(want)
			for k := 0; k < len(c); k++ {
				for _, u := range adj[c[k]] {
					if comp[u] < 0 {
						comp[u] = len(want)
						c = append(c, u)
					}
				}
			}
			slices.Sort(c)
			want = append(want, c)
		}
		fams, _, err := Families(context.Background(), l, Options{Grams: g, Threshold: th})
		if err != nil {
			t.Fatal(err)
		}
		if len(fams) != len(want) {
			t.Fatalf("seed %d: %d families, want %d", seed, len(fams), len(want))
		}
		var got [][]int
		for k, f := range fams {
			var count uint64
			for j, m := range f.Members {
				count += l.Count(m)
				if j > 0 && (l.Count(m) > l.Count(f.Members[j-1]) ||
					l.Count(m) == l.Count(f.Members[j-1]) && m < f.Members[j-1]) {
					t.Fatalf("seed %d: family %d members not most frequent first", seed, k)
				}
			}
			if count != f.Count {
				t.Fatalf("seed %d: family %d counts %d, members sum to %d", seed, k, f.Count, count)
			}
			if k > 0 {
				p := fams[k-1]
				if len(p.Members) < len(f.Members) || len(p.Members) == len(f.Members) && p.Count < f.Count {
					t.Fatalf("seed %d: family %d out of order", seed, k)
				}
			}
			got = append(got, slices.Sorted(slices.Values(f.Members)))
		}
		cmpFam := func(a, b []int) int { return a[0] - b[0] }
		slices.SortFunc(got, cmpFam)
		slices.SortFunc(want, cmpFam)
		for k := range want {
			if !slices.Equal(got[k], want[k]) {
				t.Fatalf("seed %d: family %v, want %v", seed, got[k], want[k])
			}
		}
		if len(want) == 0 {
			t.Fatalf("seed %d: no family: the test says nothing", seed)
		}
	}
}

// TestJoinStopsEarly checks that yield returning false stops the join, on
// both paths, in the tiny sets' part and after it.
func TestJoinStopsEarly(t *testing.T) {
	l := testList(3000, 2)
	for _, ell := range []int{2, 3, 1} {
		all, _ := joinPairs(t, l, Options{Ell: ell, Threshold: DefaultThreshold()})
		for _, stop := range []int{1, 5, len(all) - 1} {
			n := 0
			_, err := Join(context.Background(), l, Options{Ell: ell, Threshold: DefaultThreshold()}, func(Pair) bool {
				n++
				return n < stop
			})
			if err != nil || n != stop {
				t.Fatalf("ℓ = %d: stopped after %d pairs, want %d; err %v", ell, n, stop, err)
			}
		}
	}
}

// TestJoinPathsSameOutput checks that the ℓ-prefix joins give the same
// sequence of pairs for every number of workers and the same pairs as the
// prefix filter, that they scan fewer postings on passwords (the saving
// they exist for), and that Join chooses the ℓ-prefix for passwords at the
// defaults and the prefix filter at a low threshold.
func TestJoinPathsSameOutput(t *testing.T) {
	l := testList(20000, 3)
	seq := func(ell, workers int, th prefix.Threshold) ([]Pair, Stats) {
		var out []Pair
		st, err := Join(context.Background(), l, Options{Workers: workers, Ell: ell, Threshold: th}, func(p Pair) bool {
			out = append(out, p)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return out, st
	}
	keys := func(ps []Pair) [][2]int {
		var out [][2]int
		for _, p := range ps {
			out = append(out, [2]int{p.A, p.B})
		}
		slices.SortFunc(out, func(x, y [2]int) int { return x[0]*1e9 + x[1] - y[0]*1e9 - y[1] })
		return out
	}
	base, sst := seq(1, 2, DefaultThreshold())
	if len(base) == 0 || sst.Exact.Ell != 1 {
		t.Fatalf("prefix filter: %d pairs, ℓ = %d", len(base), sst.Exact.Ell)
	}
	postings := map[int]int64{1: sst.Exact.Postings}
	for _, ell := range []int{2, 3} {
		ref, st := seq(ell, 1, DefaultThreshold())
		if st.Exact.Ell != ell {
			t.Fatalf("ℓ = %d forced, %d used", ell, st.Exact.Ell)
		}
		for _, w := range []int{2, 3, 7} {
			if got, _ := seq(ell, w, DefaultThreshold()); !slices.Equal(got, ref) {
				t.Fatalf("ℓ = %d, workers=%d: output differs from workers=1", ell, w)
			}
		}
		if !slices.Equal(keys(ref), keys(base)) {
			t.Fatalf("ℓ = %d: %d pairs, the prefix filter %d", ell, len(ref), len(base))
		}
		postings[ell] = st.Exact.Postings
	}
	t.Logf("%d passwords, %d pairs; postings scanned by ℓ: %v", l.Len(), len(base), postings)
	if postings[2]*2 > postings[1] || postings[3] > postings[2] {
		t.Errorf("postings scanned by ℓ %v: the ℓ-prefix joins do not save what they exist for", postings)
	}
	if _, st := seq(0, 2, DefaultThreshold()); st.Exact.Ell != 2 {
		t.Errorf("Join chose ℓ = %d for %d passwords", st.Exact.Ell, l.Len())
	}
	if _, st := seq(0, 2, prefix.Threshold{Num: 1, Den: 5}); st.Exact.Ell != 1 {
		t.Errorf("Join chose ℓ = %d at t = 0.2", st.Exact.Ell)
	}
}

// FuzzJoin joins any small list (lines of the input) on every path and
// compares with the oracle, at a q, normalisation and threshold drawn from
// the input.
func FuzzJoin(f *testing.F) {
	f.Add([]byte("password\npassword1\nPassw0rd\n12\n1\n123456\n1234567\naa\naaaa\n"), uint8(2), uint8(0), uint8(80))
	f.Add([]byte("caf\xe9\ncafe\ncaf\xe9s\nab\nabc\nabcd\nb\n"), uint8(1), uint8(7), uint8(50))
	f.Add([]byte("x\nxy\nxyz\nxyzw\nwxyz\nzyxw\n"), uint8(3), uint8(1), uint8(30))
	f.Fuzz(func(t *testing.T, in []byte, q8, norm8, t8 uint8) {
		l, _, err := Read(bytes.NewReader(in), ReadOptions{})
		if err != nil || l.Len() > 200 {
			return
		}
		g := Grams{Q: 1 + int(q8%4), Norm: Norm(norm8) & allNorms}
		th := prefix.Threshold{Num: uint64(1 + t8%100), Den: 100}
		if th.Num > th.Den {
			th.Num = th.Den
		}
		th, _ = prefix.ThresholdOf(prefix.Jaccard, th.Float())
		want := jointest.SelfOverlaps(setsOf(l, g)).Join(prefix.Jaccard, th)
		for _, ell := range []int{2, 3, 1} {
			got, _ := joinPairs(t, l, Options{Grams: g, Threshold: th, Workers: 2, Ell: ell})
			jointest.Diff(t, fmt.Sprintf("ell=%d q=%d norm=%v t=%v", ell, g.Q, g.Norm, th), got, want)
		}
	})
}

// TestJoinCancelled checks that a cancelled context ends every path with its
// error and no pair.
func TestJoinCancelled(t *testing.T) {
	l := testList(5000, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ell := range []int{2, 3, 1} {
		n := 0
		_, err := Join(ctx, l, Options{Ell: ell, Threshold: DefaultThreshold()}, func(Pair) bool { n++; return true })
		if err == nil || n > 0 {
			t.Errorf("ℓ = %d: err %v after %d pairs, want the context's error and none", ell, err, n)
		}
	}
}

// TestWorkersClamped: Workers far beyond the machine is lowered to
// 4·GOMAXPROCS instead of exhausting memory; the pairs do not change.
func TestWorkersClamped(t *testing.T) {
	l := testList(300, 5)
	want, _ := joinPairs(t, l, Options{Workers: 1, Threshold: DefaultThreshold()})
	got, st := joinPairs(t, l, Options{Workers: 1 << 40, Threshold: DefaultThreshold()})
	if st.Exact.Workers > 4*runtime.GOMAXPROCS(0) {
		t.Errorf("Stats.Exact.Workers = %d, want at most %d", st.Exact.Workers, 4*runtime.GOMAXPROCS(0))
	}
	jointest.Diff(t, "Workers 1<<40", got, want)
	if _, err := NewIndex(l, Options{Workers: 1 << 40, Threshold: DefaultThreshold()}); err != nil {
		t.Fatal(err)
	}
}
