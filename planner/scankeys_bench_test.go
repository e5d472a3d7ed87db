package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/prefix"
)

// BenchmarkScanKeys measures planning's one pass over every key before the
// order (scanKeys): 1M sets of 10-50 Zipf keys, on one worker and two.
func BenchmarkScanKeys(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rng, 1.1, 1, 1<<20)
	var ks approx.KeySets
	var set []uint64
	for range 1 << 20 {
		set = set[:0]
		for range 10 + rng.IntN(41) {
			set = append(set, z.Uint64())
		}
		slices.Sort(set)
		ks.Add(slices.Compact(set))
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(ks.Tokens()) * 8)
			opt, err := Options{Workers: workers, Threshold: prefix.Threshold{Num: 9, Den: 10}}.resolve()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				pl, done := start(opt, newPlan(opt))
				pl.keys = []Keys{KeySetsOf(&ks)}
				pl.scanKeys()
				done()
			}
		})
	}
}
