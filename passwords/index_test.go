package passwords

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/race"
	"github.com/simjoin/simjoin/prefix"
)

// candidates returns n candidate passwords for a known list: variants of
// known ones (a character appended, removed, changed or upper-cased), exact
// copies, and unrelated ones, some with grams the known list lacks.
func candidates(known *List, n int, r *rand.Rand) [][]byte {
	var out [][]byte
	for range n {
		pw := slices.Clone(known.Password(r.IntN(known.Len())))
		switch r.IntN(7) {
		case 0:
			pw = append(pw, byte('0'+r.IntN(10)))
		case 1:
			if len(pw) > 1 {
				pw = pw[:len(pw)-1]
			}
		case 2:
			pw[r.IntN(len(pw))] = byte('a' + r.IntN(26))
		case 3:
			pw[0] &^= 0x20
		case 4: // an exact copy
		case 5:
			pw = []byte(fmt.Sprintf("zq%dxj", r.IntN(1000)))
		case 6:
			pw = append(pw, "€ü"...)
		}
		out = append(out, pw)
	}
	out = append(out, nil, []byte("x"))
	return out
}

// checkOracle lists, for each candidate, the oracle's matches in the known
// list, most similar first.
func checkOracle(known *List, cands [][]byte, opt Options) [][]Match {
	// One id space for both sides, as the oracle compares raw sets.
	var both List
	for i := range known.Len() {
		both.Add(known.Password(i), 1, i+1)
	}
	candIdx := make([]int, len(cands))
	for k, c := range cands {
		if len(c) == 0 {
			candIdx[k] = -1
			continue
		}
		candIdx[k], _, _ = both.Add(c, 1, known.Len()+k+1)
	}
	sets := setsOf(&both, opt.Grams)
	var cs [][]uint32
	for _, i := range candIdx {
		if i < 0 {
			cs = append(cs, nil)
		} else {
			cs = append(cs, sets[i])
		}
	}
	ks := sets[:known.Len()]
	pairs := jointest.RSJoin(cs, ks, opt.Measure, opt.Threshold)
	b := prefix.NewBounds(opt.Measure, opt.Threshold)
	out := make([][]Match, len(cands))
	for _, p := range pairs {
		x := len(slices.Compact(slices.Sorted(slices.Values(cs[p.A]))))
		y := len(slices.Compact(slices.Sorted(slices.Values(ks[p.B]))))
		out[p.A] = append(out[p.A], Match{Index: p.B, Overlap: p.Overlap, Sim: b.Similarity(p.Overlap, x, y)})
	}
	for _, ms := range out {
		slices.SortStableFunc(ms, func(a, b Match) int {
			switch {
			case a.Sim > b.Sim:
				return -1
			case a.Sim < b.Sim:
				return 1
			}
			return a.Index - b.Index
		})
	}
	return out
}

// TestCheckAgainstOracle checks candidates against generated known lists
// with every measure, q and normalisation, and compares each answer (and its
// order) with the brute-force R-S join.
func TestCheckAgainstOracle(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		known := testList(200+r.IntN(400), seed+100)
		cands := candidates(known, 150, r)
		m := allMeasures[seed%4]
		th := []prefix.Threshold{DefaultThreshold(), {Num: 1, Den: 2}, {Num: 2, Den: 3}, {Num: 9, Den: 10}}[r.IntN(4)]
		if m == prefix.Overlap {
			th = prefix.Threshold{Num: uint64(1 + r.IntN(5)), Den: 1}
		}
		opt := Options{Grams: Grams{Q: 1 + int(seed%3), Norm: norms[r.IntN(len(norms))]}, Measure: m, Threshold: th}
		want := checkOracle(known, cands, opt)
		for _, keys := range []bool{false, true} {
			ix := newTestIndex(t, known, opt, keys)
			found := 0
			var got []Match
			for k, c := range cands {
				got = ix.Lookup(got[:0], c)
				if !slices.Equal(got, want[k]) && !(len(got) == 0 && len(want[k]) == 0) {
					t.Fatalf("seed %d (%v >= %v, q=%d, %v, ℓ = %d): candidate %d: got %+v, want %+v",
						seed, m, th, opt.Q, opt.Norm, ix.Stats().Exact.Ell, k, got, want[k])
				}
				found += len(got)
			}
			if found == 0 {
				t.Fatalf("seed %d: no match at all: the test says nothing", seed)
			}
		}
	}
}

// newTestIndex builds an index with the query index of token pairs on or
// off.
func newTestIndex(t *testing.T, known *List, opt Options, keys bool) *Index {
	t.Helper()
	opt.Ell = 1
	if keys {
		opt.Ell = 2
	}
	ix, err := NewIndex(known, opt)
	if err != nil {
		t.Fatal(err)
	}
	if ell := ix.Stats().Exact.Ell; ell != opt.Ell {
		t.Fatalf("index keys of %d tokens, want %d", ell, opt.Ell)
	}
	return ix
}

// TestCheckJohn checks variants of john's passwords against john's list.
func TestCheckJohn(t *testing.T) {
	known := johnList(t)
	if known == nil {
		t.Skipf("%s is absent (Debian package john-data): skipping", johnPath)
	}
	r := rand.New(rand.NewPCG(1, 2))
	cands := candidates(known, 300, r)
	for _, opt := range []Options{{Threshold: DefaultThreshold()}, {Grams: Grams{Norm: allNorms}, Threshold: prefix.Threshold{Num: 7, Den: 10}}} {
		var want [][]Match
		for _, keys := range []bool{false, true} {
			ix := newTestIndex(t, known, opt, keys)
			if want == nil {
				want = checkOracle(known, cands, ix.Options())
			}
			for k, c := range cands {
				got := ix.Lookup(nil, c)
				if !slices.Equal(got, want[k]) && !(len(got) == 0 && len(want[k]) == 0) {
					t.Fatalf("%v, ℓ = %d: candidate %d: got %+v, want %+v", opt.Norm, ix.Stats().Exact.Ell, k, got, want[k])
				}
			}
		}
	}
}

// TestCheckConcurrent runs checks from several goroutines on one index and
// compares with sequential answers.
func TestCheckConcurrent(t *testing.T) {
	known := testList(2000, 8)
	ix := newTestIndex(t, known, Options{Threshold: DefaultThreshold()}, true)
	r := rand.New(rand.NewPCG(8, 8))
	cands := candidates(known, 400, r)
	want := make([][]Match, len(cands))
	for k, c := range cands {
		want[k] = ix.Lookup(nil, c)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			var got []Match
			for k := w; k < len(cands); k += 2 {
				got = ix.Lookup(got[:0], cands[k])
				if !slices.Equal(got, want[k]) {
					t.Errorf("candidate %d: concurrent answer differs", k)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCheckAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	known := testList(2000, 9)
	pw := slices.Clone(known.Password(10))
	pw = append(pw, '1')
	for _, keys := range []bool{false, true} {
		ix := newTestIndex(t, known, Options{Threshold: DefaultThreshold()}, keys)
		dst := make([]Match, 0, 64)
		ix.Lookup(dst, pw) // warm up
		if n := testing.AllocsPerRun(100, func() { dst = ix.Lookup(dst[:0], pw) }); n > 0 {
			t.Errorf("ℓ = %d: Check allocates %v times", ix.Stats().Exact.Ell, n)
		}
	}
}

// FuzzCheck checks candidates (lines of one input) against a known list
// (lines of the other) with both query indexes, and compares with the
// oracle.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("password\nmonkey\n123456\nab\n"), []byte("password1\nmonke\nb\n1234567\n"), uint8(2), uint8(80), uint8(0))
	f.Add([]byte("caf\xe9\ncafe\nxyz\n"), []byte("caf\xe9s\nCAFE\n\n"), uint8(1), uint8(60), uint8(7))
	f.Fuzz(func(t *testing.T, knownText, candText []byte, q8, t8, norm8 uint8) {
		known, _, err := Read(bytes.NewReader(knownText), ReadOptions{})
		if err != nil || known.Len() == 0 || known.Len() > 100 {
			return
		}
		cands := bytes.Split(candText, []byte("\n"))
		if len(cands) > 50 {
			return
		}
		th, _ := prefix.ThresholdOf(prefix.Jaccard, float64(1+t8%100)/100)
		opt := Options{Grams: Grams{Q: 1 + int(q8%3), Norm: Norm(norm8) & allNorms}, Threshold: th}
		want := checkOracle(known, cands, opt)
		for _, keys := range []bool{false, true} {
			ix := newTestIndex(t, known, opt, keys)
			for k, c := range cands {
				got := ix.Lookup(nil, c)
				if !slices.Equal(got, want[k]) && !(len(got) == 0 && len(want[k]) == 0) {
					t.Fatalf("ℓ = %d: candidate %q: got %+v, want %+v", ix.Stats().Exact.Ell, c, got, want[k])
				}
			}
		}
	})
}
