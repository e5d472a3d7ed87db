package order

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/shingle"
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
	// vals and valOffs, when not nil, are the same records as small
	// integers (Input.AddValues), by batch, in the order given.
	vals    [][]uint32
	valOffs [][]int
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
			sets := synth.Sets(cfg)
			d := newFrontData(func(yield func([]uint64)) {
				for _, s := range sets {
					set := make([]uint64, len(s))
					for i, w := range s {
						set[i] = mix.Mix64(uint64(w) + 1)
					}
					yield(set)
				}
			})
			for lo := 0; lo < len(sets); lo += 2048 {
				var vals []uint32
				offs := []int{0}
				for _, s := range sets[lo:min(lo+2048, len(sets))] {
					for _, w := range s {
						vals = append(vals, uint32(w))
					}
					offs = append(offs, len(vals))
				}
				d.vals, d.valOffs = append(d.vals, vals), append(d.valOffs, offs)
			}
			return d
		}
	}
	w := map[string]func() *frontData{
		"zipf/n=100000": zipf(100_000),
		// 4,000 documents of 500 shingles, 70% of them unique to the
		// document, the rest from a shared pool of 200,000.
		"shingles/n=4000": func() *frontData {
			r := rand.New(rand.NewPCG(9, 9))
			d := newFrontData(func(yield func([]uint64)) {
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
			// The same records as integers, each key numbered by first
			// appearance (as a file of token ids numbered beforehand
			// gives them: the Go tree's integer lines).
			ids := map[uint64]uint32{}
			for i, keys := range d.keys {
				vals := make([]uint32, len(keys))
				for j, k := range keys {
					id, ok := ids[k]
					if !ok {
						id = uint32(len(ids))
						ids[k] = id
					}
					vals[j] = id
				}
				d.vals, d.valOffs = append(d.vals, vals), append(d.valOffs, d.offs[i])
			}
			return d
		},
	}
	// 1,000 records of 1,500 hash-valued keys, four fifths of them held by
	// one record (the Go tree's shingles as their 64-bit hashes: 7M
	// tokens, 4.0M distinct): 1.5M tokens, 1.3M distinct.
	w["hashes/n=1000"] = func() *frontData {
		r := rand.New(rand.NewPCG(7, 7))
		return newFrontData(func(yield func([]uint64)) {
			for range 1000 {
				set := make([]uint64, 1500)
				for i := range set {
					if r.IntN(5) > 0 {
						set[i] = r.Uint64()
					} else {
						set[i] = mix.Mix64(r.Uint64N(100_000))
					}
				}
				yield(set)
			}
		})
	}
	if os.Getenv("SIMJOIN_BENCH_BIG") != "" {
		w["zipf/n=1000000"] = zipf(1_000_000)
	}
	return w
}

// input enters the records by their keys (AddBatch), or with ints by
// their values (AddValues).
func (d *frontData) input(ints bool) *Input {
	in := new(Input)
	if ints {
		for i := range d.vals {
			in.AddValues(d.vals[i], d.valOffs[i], shingle.IntValues{})
		}
		return in
	}
	for i := range d.keys {
		in.AddBatch(d.keys[i], d.offs[i])
	}
	return in
}

// BenchmarkFrontEnd measures the two phases of the order on the command
// line's path: phase=add enters every batch into an Input (the vocabulary's
// hash table: a key's id and document frequency; by keys, the first keys
// only wait, and are entered by New), phase=new builds the dictionary and
// the collection from it (ids remapped, each set sorted, records sorted),
// phase=all both. cpu-ns/op is the process's CPU time per op (both cores),
// ns/token the wall time per token.
//
//	go test ./order -run '^$' -bench FrontEnd -benchtime 5x
//	SIMJOIN_BENCH_BIG=1 go test ./order -run '^$' -bench 'FrontEnd/data=zipf/n=1000000' -benchtime 3x
func BenchmarkFrontEnd(b *testing.B) {
	w := frontWorkloads()
	for _, name := range []string{"zipf/n=100000", "shingles/n=4000", "hashes/n=1000", "zipf/n=1000000"} {
		gen, ok := w[name]
		if !ok {
			continue
		}
		d := gen()
		for _, ints := range []bool{false, true} {
			if ints && d.vals == nil {
				continue
			}
			// The keys' road keeps the names it had before the values'.
			data := name
			if ints {
				data += "/road=ints"
			}
			b.Run(fmt.Sprintf("data=%s/phase=add", data), func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuNanos()
				for b.Loop() {
					d.input(ints)
				}
				b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.tokens), "ns/token")
			})
			b.Run(fmt.Sprintf("data=%s/phase=new", data), func(b *testing.B) {
				b.ReportAllocs()
				var cpu int64
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					in := d.input(ints)
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
			b.Run(fmt.Sprintf("data=%s/phase=all", data), func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuNanos()
				for b.Loop() {
					if _, err := New(d.input(ints)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.tokens), "ns/token")
			})
		}
	}
}
