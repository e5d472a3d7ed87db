package join_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// TestIdenticalPairsStreamed: the n(n-1)/2 pairs of n identical sets all
// fall in one chunk, so a join that collected a chunk's pairs before
// yielding them would hold 4.5 million pairs (144 MB) for 3,000 copies and
// 6.4 GB for 20,000. The live heap while streaming must not grow with the
// number of pairs.
func TestIdenticalPairsStreamed(t *testing.T) {
	const n = 3000
	sets := make([][]uint32, n)
	for i := range sets {
		sets[i] = []uint32{1, 2, 3, 4}
	}
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "1")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var live uint64
	count := 0
	_, err = join.SelfJoin(context.Background(), c, join.Options{Threshold: th, Workers: 1}, func(join.Pair) bool {
		if count++; count == n*(n-1)/4 { // half way
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = ms.HeapAlloc - min(ms.HeapAlloc, before.HeapAlloc)
		}
		return true
	})
	if err != nil || count != n*(n-1)/2 {
		t.Fatalf("%d pairs, %v", count, err)
	}
	if live > 32<<20 {
		t.Errorf("streaming %d pairs holds %d MB of live heap half way", count, live>>20)
	}
}

// TestEstimateMemory: the estimate covers the live heap of ordering a
// collection and joining it.
func TestEstimateMemory(t *testing.T) {
	sets := synth.Sets(synth.SetsConfig{N: 20000, MinSize: 10, MaxSize: 60, Universe: 50000, DupFraction: 0.1, Replace: 0.1, Seed: 4})
	in := jointest.Input(sets)
	tokens := 0
	for _, s := range sets {
		tokens += len(s)
	}
	est := join.EstimateMemory(in.Len(), tokens, in.Vocabulary())
	var before, ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	var peak uint64
	n := 0
	_, err = join.SelfJoin(context.Background(), c, join.Options{Threshold: th, Workers: 1}, func(join.Pair) bool {
		if n++; n%2000 == 1 {
			runtime.GC() // the live heap, not garbage
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapAlloc)
	live := int64(peak) - int64(before.HeapAlloc) + 4*int64(tokens) // the input's arena, built before
	t.Logf("%d tokens: estimate %d bytes, measured about %d", tokens, est, live)
	if live > est {
		t.Errorf("measured %d bytes, above the estimate %d", live, est)
	}
	if est > 8*live {
		t.Errorf("estimate %d bytes is more than 8 times the measured %d", est, live)
	}
	runtime.KeepAlive(c)
}
