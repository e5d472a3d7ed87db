package passwords

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// generated returns a generated list of n distinct passwords.
func generated(n int, seed uint64) *List {
	l := new(List)
	for pw := range synth.Passwords(synth.PasswordsConfig{N: n, Seed: seed, Distinct: true}) {
		l.Add(pw, 1, l.Len()+1)
	}
	return l
}

// johnList reads Debian's john-data list, or returns nil.
func johnList(tb testing.TB) *List {
	f, err := os.Open(johnPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	l, _, err := Read(f, ReadOptions{SkipComments: true})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

const johnPath = "/usr/share/john/password.lst"

// cpuTime returns the process's user and system CPU time in nanoseconds,
// summed over its threads. Other processes on a busy machine stretch wall
// time but hardly this.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// joinCases are BenchmarkJoin's paths (the ℓ-prefix with pairs or hashed
// triples of tokens, the prefix filter) and workers: one and two for the
// pair path, which Join takes on these lists, one for the others.
var joinCases = []struct {
	path         string
	ell, workers int
}{{"pair", 2, 1}, {"pair", 2, 2}, {"triple", 3, 1}, {"prefix", 1, 1}}

// BenchmarkJoin times the exact join of ready sets (index and probe, as the
// published figures time it), on generated lists and john's list.
func BenchmarkJoin(b *testing.B) {
	type input struct {
		name string
		l    *List
	}
	inputs := []input{{"gen59k", generated(59000, 1)}}
	if l := johnList(b); l != nil {
		inputs = append(inputs, input{"john", l})
	}
	// Big lists are opt-in and stay out of the repository:
	// SIMJOIN_PASSWORD_LISTS=/tmp/pw-1m.txt,/tmp/pw-10m.txt (made with
	// go run ./internal/testkit/cmd/pwgen).
	for _, path := range strings.Split(os.Getenv("SIMJOIN_PASSWORD_LISTS"), ",") {
		if path == "" {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		l, _, err := Read(f, ReadOptions{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, input{filepath.Base(path), l})
	}
	for _, in := range inputs {
		for _, q := range []int{2, 3} {
			for _, t := range []string{"0.8", "0.6"} {
				th, _ := prefix.ParseThreshold(prefix.Jaccard, t)
				opt := Options{Grams: Grams{Q: q}, Threshold: th}
				opt.fill()
				c, _, err := collect(in.l, &opt)
				if err != nil {
					b.Fatal(err)
				}
				for _, bc := range joinCases {
					path, ell, workers := bc.path, bc.ell, bc.workers
					b.Run(fmt.Sprintf("list=%s/n=%d/q=%d/t=%s/path=%s/workers=%d", in.name, in.l.Len(), q, t, path, workers), func(b *testing.B) {
						b.ReportAllocs()
						var pairs int64
						count := func(join.Pair) bool { pairs++; return true }
						cpu := cpuTime()
						var st join.Stats
						for b.Loop() {
							pairs = 0
							var err error
							st, err = join.SelfJoin(context.Background(), c, join.Options{Measure: opt.Measure, Threshold: opt.Threshold, Ell: ell, Workers: workers}, count)
							if err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(pairs), "pairs")
						b.ReportMetric(float64(st.Postings), "postings")
						b.ReportMetric(float64(st.Verified), "verified")
						b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
					})
				}
			}
		}
	}
}

// BenchmarkCheck times one check against an index built once, for
// candidates that are variants of known passwords (half of them too close).
func BenchmarkCheck(b *testing.B) {
	type input struct {
		name string
		l    *List
	}
	inputs := []input{{"gen59k", generated(59000, 1)}, {"gen1m", generated(1_000_000, 1)}}
	if l := johnList(b); l != nil {
		inputs = append(inputs, input{"john", l})
	}
	for _, in := range inputs {
		ix, err := NewIndex(in.l, Options{Threshold: DefaultThreshold()})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 1))
		cands := candidates(in.l, 1000, r)
		b.Run(fmt.Sprintf("known=%s/n=%d/q=2/t=0.8", in.name, in.l.Len()), func(b *testing.B) {
			b.ReportAllocs()
			var ms []Match
			k := 0
			for b.Loop() {
				ms = ix.Lookup(ms[:0], cands[k%len(cands)])
				k++
			}
		})
	}
}

// BenchmarkGrams times turning one password into its q-gram keys.
func BenchmarkGrams(b *testing.B) {
	for _, tc := range []struct {
		name string
		g    Grams
		pw   string
	}{
		{"raw", Grams{}, "Password2024!"},
		{"all-norms", Grams{Norm: allNorms}, "P@$$w0rd2024!"},
		{"latin1", Grams{Norm: FoldCase}, "M\xdcller1985"},
		{"q=3", Grams{Q: 3}, "Password2024!"},
	} {
		b.Run("norm="+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.pw)))
			dst := make([]uint64, 0, 64)
			pw := []byte(tc.pw)
			for b.Loop() {
				dst = tc.g.Append(dst[:0], pw)
			}
		})
	}
}

// BenchmarkBruteForce is the nested-loop join of a list given in
// SIMJOIN_PASSWORD_BRUTE (opt-in: it is quadratic), on all cores, deciding
// Jaccard >= 4/5 in integer arithmetic on the merged overlap, with no filter
// at all. It checks its pair count against Join's.
func BenchmarkBruteForce(b *testing.B) {
	path := os.Getenv("SIMJOIN_PASSWORD_BRUTE")
	if path == "" {
		b.Skip("set SIMJOIN_PASSWORD_BRUTE to a password list to run the brute force")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	l, _, err := Read(f, ReadOptions{})
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	sets := make([][]uint64, l.Len())
	for i := range sets {
		s := (Grams{}).Append(nil, l.Password(i))
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	var want int64
	Join(context.Background(), l, Options{Threshold: DefaultThreshold()}, func(Pair) bool { want++; return true })
	workers := runtime.GOMAXPROCS(0)
	b.Run(fmt.Sprintf("list=%s/n=%d/q=2/t=0.8/workers=%d", filepath.Base(path), l.Len(), workers), func(b *testing.B) {
		cpu := cpuTime()
		var got int64
		for b.Loop() {
			counts := make([]int64, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < len(sets); i += workers {
						for j := i + 1; j < len(sets); j++ {
							x, y := sets[i], sets[j]
							if len(x) == 0 || len(y) == 0 {
								continue
							}
							o := 0
							for a, c := 0, 0; a < len(x) && c < len(y); {
								switch {
								case x[a] < y[c]:
									a++
								case x[a] > y[c]:
									c++
								default:
									o++
									a++
									c++
								}
							}
							if 5*o >= 4*(len(x)+len(y)-o) {
								counts[w]++
							}
						}
					}
				})
			}
			wg.Wait()
			got = 0
			for _, c := range counts {
				got += c
			}
		}
		if got != want {
			b.Fatalf("brute force finds %d pairs, Join %d", got, want)
		}
		b.ReportMetric(float64(got), "pairs")
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
}
