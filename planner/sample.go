package planner

import (
	"math/rand/v2"
	"slices"

	"github.com/simjoin/simjoin/order"
)

// Sample is a seeded sample of the records of a Collection: C holds the
// records at positions Pos (ascending) of Parent, over Parent's dictionary
// (order.Collection.Subset), so C's token order, prefixes and signatures are
// the parent's, and a join over C reports the parent's original record
// indices.
type Sample struct {
	Parent *order.Collection
	C      *order.Collection
	Pos    []int
}

// NewSample draws m distinct non-empty records of c uniformly at random with
// the given seed (all of them when m >= c.Len()) and returns them as a
// Sample. Two calls with the same collection, m and seed give the same
// sample.
//
// Cost: O(m) draws and O(sampled tokens) to copy the sets into the
// sample's own arena. c is only read.
func NewSample(c *order.Collection, m int, seed uint64) *Sample {
	return newSamples([]*order.Collection{c}, m, seed)[0]
}

// newSamples samples every collection of cs, m records each, with seeds
// derived from seed. Collections from one order.Build call share a
// dictionary, and so do their samples, as an R-S join requires.
func newSamples(cs []*order.Collection, m int, seed uint64) []*Sample {
	out := make([]*Sample, len(cs))
	for k, c := range cs {
		pos := samplePositions(c.Len(), m, seed+uint64(k)*0x9e3779b97f4a7c15)
		out[k] = &Sample{Parent: c, C: c.Subset(pos), Pos: pos}
	}
	return out
}

// samplePositions returns m distinct positions of [0, n) drawn with a
// seeded generator (Floyd's algorithm), sorted ascending; all n when m >= n.
func samplePositions(n, m int, seed uint64) []int {
	if m >= n {
		pos := make([]int, n)
		for i := range pos {
			pos[i] = i
		}
		return pos
	}
	r := rand.New(rand.NewPCG(seed, 0x5a3b1e))
	// Floyd: for j = n-m .. n-1 pick t in [0, j]; take t unless taken, else j.
	taken := make(map[int]struct{}, m)
	pos := make([]int, 0, m)
	for j := n - m; j < n; j++ {
		t := r.IntN(j + 1)
		if _, ok := taken[t]; ok {
			t = j
		}
		taken[t] = struct{}{}
		pos = append(pos, t)
	}
	slices.Sort(pos)
	return pos
}
