package planner

import (
	"context"
	"math/rand/v2"

	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/join"
)

// sampleBelow draws CheckOptions.PairSample pairs of distinct sets uniformly
// (with replacement, seeded by CheckOptions.Seed) and keeps those below the
// floor, each with its Jaccard similarity; when the pairs of distinct sets
// number at most PairSample it takes them all instead. It also counts the
// pairs of distinct sets below the floor: the population the sample stands
// for. Deterministic for a seed, on any number of workers.
//
// Cost: O(PairSample) draws, each a merge of two sets, on the workers.
func (ck *checker) sampleBelow(ctx context.Context) error {
	c, cc := ck.r, ck.cc
	nu := c.Groups()
	var above int64 // pairs of distinct sets at or above the floor
	for _, tp := range ck.truth {
		if tp.rep {
			above++
		}
	}
	all := float64(nu) * float64(nu-1) / 2
	pop := all - float64(above)
	cc.Below = max(pop, 0)
	n := ck.opt.PairSample
	if nu < 2 || n == 0 || pop <= 0 {
		return nil
	}
	type draw struct{ a, b int32 } // groups
	var draws []draw
	if all <= float64(n) {
		// Few enough to take them all: the bins below are exact.
		cc.AllBelow = true
		for a := range nu {
			for b := a + 1; b < nu; b++ {
				draws = append(draws, draw{int32(a), int32(b)})
			}
		}
	} else {
		r := rand.New(rand.NewPCG(ck.opt.Seed, 0x706c6f74))
		draws = make([]draw, n)
		for i := range draws {
			a := r.IntN(nu)
			b := r.IntN(nu - 1)
			if b >= a {
				b++
			}
			draws[i] = draw{int32(a), int32(b)}
		}
	}
	out := make([]drawnPair, len(draws))
	below := make([]bool, len(draws))
	err := parallel.For(ctx, len(draws), 4096, ck.opt.LSH.Workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			pa, _ := c.Group(int(draws[i].a))
			pb, _ := c.Group(int(draws[i].b))
			x, y := c.Set(pa), c.Set(pb)
			o := join.Overlap(x, y)
			a, b := c.ID(pa), c.ID(pb)
			out[i] = drawnPair{key: pairKey(min(a, b), max(a, b)), sim: jaccard(o, len(x), len(y))}
			below[i] = !ck.floor.Passes(o, len(x), len(y))
		}
	})
	if err != nil {
		return err
	}
	for i, d := range out {
		if below[i] {
			ck.below = append(ck.below, d)
		}
	}
	cc.Sampled = len(ck.below)
	return nil
}
