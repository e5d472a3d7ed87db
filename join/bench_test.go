package join_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// benchData builds the benchmark collections: the literature's shape (sizes
// uniform in [10, 50], Zipf(1) tokens, 30% near-duplicates with 10% of tokens
// replaced) and dense long sets of uniform tokens, where fixed prefixes leave
// many candidates. SIMJOIN_BENCH_BIG=1 adds the 1M-set collection, 20,000
// dense sets, and the long sets of BENCHMARKS.md (20,000 sets of 200-400
// Zipf tokens over 20,000, 10% near-duplicates: internal/testkit/cmd/gen's
// "sets -n 20000 -min 200 -max 400 -universe 20000 -zipf 1 -dup 0.1 -seed 2").
func benchData(b *testing.B) map[string]synth.SetsConfig {
	data := map[string]synth.SetsConfig{
		"zipf/n=100000": {N: 100_000, MinSize: 10, MaxSize: 50, Universe: 100_000, Zipf: 1, DupFraction: 0.3, Replace: 0.1, Seed: 1},
		"dense/n=5000":  {N: 5_000, MinSize: 290, MaxSize: 310, Universe: 5_000, Seed: 2},
	}
	if os.Getenv("SIMJOIN_BENCH_BIG") != "" {
		data["zipf/n=1000000"] = synth.SetsConfig{N: 1_000_000, MinSize: 10, MaxSize: 50, Universe: 1_000_000, Zipf: 1, DupFraction: 0.3, Replace: 0.1, Seed: 1}
		data["dense/n=20000"] = synth.SetsConfig{N: 20_000, MinSize: 290, MaxSize: 310, Universe: 20_000, Seed: 2}
		data["long/n=20000"] = synth.SetsConfig{N: 20_000, MinSize: 200, MaxSize: 400, Universe: 20_000, Zipf: 1, DupFraction: 0.1, Replace: 0.1, Seed: 2}
	}
	return data
}

var benchCache = map[string]*order.Collection{}

func benchCollection(b *testing.B, name string, cfg synth.SetsConfig) *order.Collection {
	if c, ok := benchCache[name]; ok {
		return c
	}
	c, err := order.New(jointest.Input(synth.Sets(cfg)))
	if err != nil {
		b.Fatal(err)
	}
	benchCache[name] = c
	return c
}

// cpuTime returns the process's user and system CPU time in nanoseconds.
// Other processes on a busy machine stretch wall time but hardly this.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkSelfJoin measures the join phase alone (grouping, index, probing,
// verification) on ready collections.
//
//	go test ./join -run '^$' -bench SelfJoin -benchtime 3x
func BenchmarkSelfJoin(b *testing.B) {
	for _, name := range []string{"zipf/n=100000", "dense/n=5000", "zipf/n=1000000", "dense/n=20000", "long/n=20000"} {
		cfg, ok := benchData(b)[name]
		if !ok {
			continue
		}
		for _, ts := range []string{"0.9", "0.8", "0.7", "0.5"} {
			if strings.HasPrefix(name, "dense") && ts != "0.5" && ts != "0.8" ||
				strings.HasPrefix(name, "long") && ts != "0.5" {
				continue
			}
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("data=%s/t=%s/workers=%d", name, ts, workers), func(b *testing.B) {
					c := benchCollection(b, name, cfg)
					th, _ := prefix.ParseThreshold(prefix.Jaccard, ts)
					opt := join.Options{Threshold: th, Workers: workers}
					b.ReportAllocs()
					var st join.Stats
					cpu := cpuTime()
					for b.Loop() {
						var err error
						st, err = join.SelfJoin(context.Background(), c, opt, func(join.Pair) bool { return true })
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(st.Candidates), "candidates")
					b.ReportMetric(float64(st.Results), "results")
				})
			}
		}
	}
}

// BenchmarkOrder measures building the Collection from raw sets.
func BenchmarkOrder(b *testing.B) {
	cfg := benchData(b)["zipf/n=100000"]
	sets := synth.Sets(cfg)
	b.Run("data=zipf/n=100000", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			if _, err := order.New(jointest.Input(sets)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
}
