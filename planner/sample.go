package planner

import (
	"math/rand/v2"
	"slices"

	"github.com/simjoin/simjoin/order"
)

// Sample is a seeded sample of the records of a Collection, rebuilt as a
// Collection of its own (with its own token order, as the joins require).
// Pos lists the positions in the parent collection of the sampled records,
// ascending; the sample's record i (its original index i, as sample.ID
// reports it) is the parent's position Pos[i], whose original index is
// Parent.ID(Pos[i]).
type Sample struct {
	Parent *order.Collection
	C      *order.Collection
	Pos    []int
}

// OrigID returns the parent's original record index of the sample's original
// index i (a record index as a join over s.C reports it).
func (s *Sample) OrigID(i int) int { return s.Parent.ID(s.Pos[i]) }

// NewSample draws m distinct non-empty records of c uniformly at random with
// the given seed (all of them when m >= c.Len()) and builds a Collection of
// them. Two calls with the same collection, m and seed give the same sample.
// The sample's tokens keep their original keys, so every seeded hash (such as
// a MinHash signature) of a sampled set is the one it has in c; token
// frequencies, and so the token order, are those within the sample.
//
// Cost: O(m) draws and O(sampled tokens) to rebuild; the sample's arena is
// separate from c's. c is only read.
func NewSample(c *order.Collection, m int, seed uint64) (*Sample, error) {
	ss, err := newSamples([]*order.Collection{c}, m, seed)
	if err != nil {
		return nil, err
	}
	return ss[0], nil
}

// newSamples samples every collection of cs (m records each, seeds derived
// from seed) and builds the samples with one shared token order, as an R-S
// join requires.
func newSamples(cs []*order.Collection, m int, seed uint64) ([]*Sample, error) {
	ins := make([]*order.Input, len(cs))
	out := make([]*Sample, len(cs))
	var buf []uint64
	for k, c := range cs {
		pos := samplePositions(c.Len(), m, seed+uint64(k)*0x9e3779b97f4a7c15)
		in := new(order.Input)
		dict := c.Dict()
		for _, p := range pos {
			buf = buf[:0]
			for _, w := range c.Set(p) {
				buf = append(buf, dict.Key(w))
			}
			in.Add(buf)
		}
		ins[k] = in
		out[k] = &Sample{Parent: c, Pos: pos}
	}
	built, err := order.Build(ins...)
	if err != nil {
		return nil, err
	}
	for k := range out {
		out[k].C = built[k]
	}
	return out, nil
}

// samplePositions returns m distinct positions of [0, n) drawn with a
// seeded partial Fisher–Yates shuffle (Floyd's algorithm for small m),
// sorted ascending; all n when m >= n.
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
