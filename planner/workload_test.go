package planner

import (
	"fmt"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// workload is one generated join: a collection and a Jaccard threshold. The
// collection is synth.Sets(cfg), or build's when build is set.
type workload struct {
	name  string
	cfg   synth.SetsConfig
	t     string
	build func(testing.TB) *order.Collection
	key   string // names a built collection, for the cache
}

func (w workload) threshold(tb testing.TB) prefix.Threshold {
	th, err := prefix.ParseThreshold(prefix.Jaccard, w.t)
	if err != nil {
		tb.Fatal(err)
	}
	return th
}

func wl(n, lo, hi, universe int, zipf, dup float64, t string) workload {
	cfg := synth.SetsConfig{N: n, MinSize: lo, MaxSize: hi, Universe: universe, Zipf: zipf,
		DupFraction: dup, Replace: 0.1, Seed: 1}
	name := fmt.Sprintf("n=%d/size=%d-%d/u=%s/zipf=%v/dup=%v/t=%s", n, lo, hi, short(universe), zipf, dup, t)
	return workload{name: name, cfg: cfg, t: t}
}

func short(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("2^%d", log2(n))
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}

// suite is the calibration and comparison suite: set size, token skew,
// vocabulary, n and t varied, from short sets at high thresholds to long
// sets of frequent tokens at 0.5. Every exact join in it takes at most a few
// seconds on a 2-core machine.
var suite = []workload{
	// Short sets, skewed tokens (records, tags, titles).
	wl(100000, 5, 20, 100000, 1, 0.2, "0.9"),
	wl(100000, 5, 20, 100000, 1, 0.2, "0.7"),
	wl(100000, 5, 20, 100000, 1, 0.2, "0.5"),
	wl(50000, 10, 40, 20000, 0.5, 0.2, "0.8"),
	wl(50000, 10, 40, 20000, 0.5, 0.2, "0.5"),
	// Medium sets.
	wl(20000, 50, 100, 50000, 1, 0.1, "0.8"),
	wl(20000, 50, 100, 50000, 1, 0.1, "0.5"),
	wl(20000, 50, 100, 5000, 0, 0.1, "0.7"),
	wl(20000, 50, 100, 5000, 0, 0.1, "0.5"),
	// Long sets of rare tokens: exact is cheap at any threshold.
	wl(20000, 250, 350, 1<<30, 0, 0.05, "0.5"),
	wl(5000, 800, 1200, 1<<30, 0, 0.05, "0.3"),
	// Long sets of frequent tokens: the prefix is long and its tokens common.
	wl(10000, 300, 300, 20000, 0, 0.05, "0.5"),
	wl(10000, 300, 300, 20000, 0, 0.05, "0.7"),
	wl(10000, 300, 300, 20000, 0, 0.05, "0.9"),
	wl(10000, 250, 350, 100000, 0.8, 0.05, "0.5"),
	wl(5000, 500, 700, 10000, 0, 0.05, "0.6"),
	wl(10000, 100, 200, 5000, 0, 0.05, "0.4"),
}

var (
	collMu sync.Mutex
	colls  = map[string]*order.Collection{}
)

// collection builds (once per test binary) the collection of w.
func (w workload) collection(tb testing.TB) *order.Collection {
	key := fmt.Sprintf("%+v", w.cfg)
	if w.build != nil {
		key = w.key
	}
	collMu.Lock()
	defer collMu.Unlock()
	if c, ok := colls[key]; ok {
		return c
	}
	var c *order.Collection
	if w.build != nil {
		c = w.build(tb)
	} else {
		var err error
		if c, err = order.New(jointest.Input(synth.Sets(w.cfg))); err != nil {
			tb.Fatal(err)
		}
	}
	colls[key] = c
	return c
}
