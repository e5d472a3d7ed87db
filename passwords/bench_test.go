package passwords

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/internal/synth"
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
	// go run ./passwords/internal/pwgen).
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
				g := newGroups(c)
				for _, path := range []string{"pair", "triple", "prefix"} {
					b.Run(fmt.Sprintf("list=%s/n=%d/q=%d/t=%s/path=%s", in.name, in.l.Len(), q, t, path), func(b *testing.B) {
						b.ReportAllocs()
						var pairs int64
						count := func(join.Pair) bool { pairs++; return true }
						cpu := cpuTime()
						for b.Loop() {
							pairs = 0
							var err error
							switch path {
							case "pair":
								_, err = ellSelfJoin(context.Background(), c, g, 2, &opt, count)
							case "triple":
								_, err = ellSelfJoin(context.Background(), c, g, 3, &opt, count)
							default:
								_, err = join.SelfJoin(context.Background(), c, join.Options{Measure: opt.Measure, Threshold: opt.Threshold}, count)
							}
							if err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(pairs), "pairs")
						b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
					})
				}
			}
		}
	}
}
