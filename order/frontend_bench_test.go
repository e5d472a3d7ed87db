package order

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/synth"
)

// cpuNanos returns the process's CPU time (user + system) so far.
func cpuNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// frontData is a collection as the command line's readers hand it to Input:
// every record's 64-bit keys sorted and distinct, in batches of 2,048
// records.
type frontData struct {
	keys   [][]uint64 // by batch
	offs   [][]int
	tokens int
}

func newFrontData(sets func(yield func([]uint64))) *frontData {
	d := &frontData{}
	var keys []uint64
	offs := []int{0}
	flush := func() {
		d.keys = append(d.keys, keys)
		d.offs = append(d.offs, offs)
		keys, offs = nil, []int{0}
	}
	sets(func(set []uint64) {
		slices.Sort(set)
		set = slices.Compact(set)
		keys = append(keys, set...)
		offs = append(offs, len(keys))
		d.tokens += len(set)
		if len(offs) > 2048 {
			flush()
		}
	})
	if len(offs) > 1 {
		flush()
	}
	return d
}

// frontWorkloads are the shapes of the workloads of the front end: the Zipf
// sets of BENCHMARKS.md (941K distinct keys over 29.8M tokens at n = 1M:
// SIMJOIN_BENCH_BIG=1; 100K sets by default), and documents of shingles,
// most of which occur once (as in the Go tree: 7M tokens, 5M distinct).
func frontWorkloads() map[string]func() *frontData {
	zipf := func(n int) func() *frontData {
		return func() *frontData {
			cfg := synth.SetsConfig{N: n, MinSize: 10, MaxSize: 50, Universe: n, Zipf: 1, DupFraction: 0.3, Replace: 0.1, Seed: 1}
			return newFrontData(func(yield func([]uint64)) {
				for _, s := range synth.Sets(cfg) {
					set := make([]uint64, len(s))
					for i, w := range s {
						set[i] = mix.Mix64(uint64(w) + 1)
					}
					yield(set)
				}
			})
		}
	}
	w := map[string]func() *frontData{
		"zipf/n=100000": zipf(100_000),
		// 4,000 documents of 500 shingles, 70% of them unique to the
		// document, the rest from a shared pool of 200,000.
		"shingles/n=4000": func() *frontData {
			r := rand.New(rand.NewPCG(9, 9))
			return newFrontData(func(yield func([]uint64)) {
				for range 4000 {
					set := make([]uint64, 500)
					for i := range set {
						if r.IntN(10) < 7 {
							set[i] = r.Uint64()
						} else {
							set[i] = mix.Mix64(r.Uint64N(200_000))
						}
					}
					yield(set)
				}
			})
		},
	}
	if os.Getenv("SIMJOIN_BENCH_BIG") != "" {
		w["zipf/n=1000000"] = zipf(1_000_000)
	}
	return w
}

func (d *frontData) input() *Input {
	in := new(Input)
	for i := range d.keys {
		in.AddBatch(d.keys[i], d.offs[i])
	}
	return in
}

// BenchmarkFrontEnd measures the two phases of the order on the command
// line's path: phase=add enters every batch into an Input (the vocabulary's
// hash table: a key's id and document frequency), phase=new builds the
// dictionary and the collection from it (ids remapped, each set sorted,
// records sorted). cpu-ns/op is the process's CPU time per op (both cores),
// ns/token the wall time per token.
//
//	go test ./order -run '^$' -bench FrontEnd -benchtime 5x
//	SIMJOIN_BENCH_BIG=1 go test ./order -run '^$' -bench 'FrontEnd/data=zipf/n=1000000' -benchtime 3x
func BenchmarkFrontEnd(b *testing.B) {
	w := frontWorkloads()
	for _, name := range []string{"zipf/n=100000", "shingles/n=4000", "zipf/n=1000000"} {
		gen, ok := w[name]
		if !ok {
			continue
		}
		d := gen()
		b.Run(fmt.Sprintf("data=%s/phase=add", name), func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuNanos()
			for b.Loop() {
				d.input()
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.tokens), "ns/token")
		})
		b.Run(fmt.Sprintf("data=%s/phase=new", name), func(b *testing.B) {
			b.ReportAllocs()
			var cpu int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				in := d.input()
				b.StartTimer()
				c0 := cpuNanos()
				if _, err := New(in); err != nil {
					b.Fatal(err)
				}
				cpu += cpuNanos() - c0
			}
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.tokens), "ns/token")
		})
	}
}
