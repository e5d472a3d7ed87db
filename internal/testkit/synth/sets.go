// Package synth generates seeded synthetic collections in the style of the
// set-similarity-join literature: uniform and Zipf-distributed token sets with
// planted near-duplicates. The same seed gives the same collection on every
// machine.
package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// SetsConfig describes a generated collection of token sets. Tokens are
// integers in [0, Universe).
type SetsConfig struct {
	N                int     // number of sets
	MinSize, MaxSize int     // set size, uniform in [MinSize, MaxSize]
	Universe         int     // number of distinct tokens
	Zipf             float64 // Zipf exponent of token frequencies; 0 means uniform
	DupFraction      float64 // share of sets that are near-duplicates of an earlier set
	Replace          float64 // share of an earlier set's tokens a near-duplicate replaces
	Seed             uint64
}

// Sets generates the collection described by cfg. Each set is sorted and has
// distinct tokens (unless the universe is too small for its size, when it
// holds as many as it can draw).
func Sets(cfg SetsConfig) [][]uint32 {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5e75))
	draw := sampler(r, cfg.Universe, cfg.Zipf)
	out := make([][]uint32, cfg.N)
	var seen map[uint32]struct{}
	for i := range out {
		if i > 0 && cfg.DupFraction > 0 && r.Float64() < cfg.DupFraction {
			out[i] = mutate(r, out[r.IntN(i)], cfg.Replace, draw)
			continue
		}
		size := cfg.MinSize
		if cfg.MaxSize > cfg.MinSize {
			size += r.IntN(cfg.MaxSize - cfg.MinSize + 1)
		}
		size = min(size, cfg.Universe)
		if seen == nil {
			seen = make(map[uint32]struct{})
		}
		clear(seen)
		set := make([]uint32, 0, size)
		for tries := 0; len(set) < size && tries < 50*size+100; tries++ {
			w := draw()
			if _, ok := seen[w]; !ok {
				seen[w] = struct{}{}
				set = append(set, w)
			}
		}
		slices.Sort(set)
		out[i] = set
	}
	return out
}

// mutate copies src and replaces about share of its tokens with fresh draws.
func mutate(r *rand.Rand, src []uint32, share float64, draw func() uint32) []uint32 {
	set := slices.Clone(src)
	k := int(math.Round(share * float64(len(set))))
	for ; k > 0 && len(set) > 0; k-- {
		set[r.IntN(len(set))] = draw()
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// sampler returns a function drawing tokens in [0, universe): uniformly for
// s == 0, else with probability proportional to 1/(rank+1)^s.
func sampler(r *rand.Rand, universe int, s float64) func() uint32 {
	if s == 0 {
		return func() uint32 { return uint32(r.IntN(universe)) }
	}
	cdf := make([]float64, universe)
	sum := 0.0
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	return func() uint32 {
		u := r.Float64() * sum
		return uint32(sort.SearchFloat64s(cdf, u))
	}
}
