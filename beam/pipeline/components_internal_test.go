package pipeline

import (
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/cluster"
)

var long = flag.Bool("long", false, "run the long component sweeps")

// starRounds runs the alternating star operations in memory, as Components
// runs them in a pipeline (the same functions, every node's neighbours
// grouped), until the graph is a set of stars or rounds run out. It returns
// the rounds run, the final edges and the most edges any round held.
func starRounds(edges [][2]uint64, rounds int) (done int, final [][2]uint64, most int) {
	most = len(edges)
	var half [][2]uint64
	for r := range rounds {
		if isStars(edges) {
			return r, edges, most
		}
		half = half[:0]
		for _, e := range edges {
			half = append(half, e, [2]uint64{e[1], e[0]})
		}
		slices.SortFunc(half, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
		op := largeStar
		if r%2 == 1 {
			op = smallStar
		}
		var next [][2]uint64
		emit := func(a, b uint64) { next = append(next, [2]uint64{a, b}) }
		for lo := 0; lo < len(half); {
			hi := lo
			for hi < len(half) && half[hi][0] == half[lo][0] {
				hi++
			}
			i := lo
			op(half[lo][0], func(u *uint64) bool {
				if i == hi {
					return false
				}
				*u = half[i][1]
				i++
				return true
			}, emit)
			lo = hi
		}
		edges = next
		most = max(most, len(edges))
	}
	return rounds, edges, most
}

// isStars reports whether every edge joins a root (a node with no lower
// neighbour) to a leaf whose only neighbour it is.
func isStars(edges [][2]uint64) bool {
	cs := make([][2]uint64, 0, len(edges)) // (child, parent)
	for _, e := range edges {
		if lower(e[0], e[1]) {
			e[0], e[1] = e[1], e[0]
		}
		cs = append(cs, e)
	}
	slices.SortFunc(cs, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	for i := 1; i < len(cs); i++ {
		if cs[i][0] == cs[i-1][0] && cs[i][1] != cs[i-1][1] {
			return false // two parents
		}
	}
	for _, e := range cs {
		if _, found := slices.BinarySearchFunc(cs, e[1], func(x [2]uint64, v uint64) int { return cmp.Compare(x[0], v) }); found {
			return false // a parent with a parent
		}
	}
	return true
}

type graph struct {
	name  string
	nodes int
	edges [][2]uint64
}

// graphs are the shapes the components must settle: chains in id order and
// in a random order, a zigzag, a binary tree, a star, random sparse graphs,
// several components.
func graphs(n int, seed uint64) []graph {
	r := rand.New(rand.NewPCG(seed, 0))
	var gs []graph
	chain := func(order []int) [][2]uint64 {
		var es [][2]uint64
		for i := 1; i < len(order); i++ {
			es = append(es, [2]uint64{uint64(order[i-1]), uint64(order[i])})
		}
		return es
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i + 1
	}
	gs = append(gs, graph{"chain", n, chain(ids)})
	perm := slices.Clone(ids)
	r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	gs = append(gs, graph{"shuffled-chain", n, chain(perm)})
	var zig []int
	for lo, hi := 1, n; lo <= hi; lo, hi = lo+1, hi-1 {
		zig = append(zig, lo)
		if lo != hi {
			zig = append(zig, hi)
		}
	}
	gs = append(gs, graph{"zigzag", n, chain(zig)})
	var tree, star, rnd, parts [][2]uint64
	for i := 2; i <= n; i++ {
		tree = append(tree, [2]uint64{uint64(i / 2), uint64(i)})
		star = append(star, [2]uint64{uint64(n), uint64(i - 1)})
	}
	for range n {
		rnd = append(rnd, [2]uint64{1 + r.Uint64N(uint64(n)), 1 + r.Uint64N(uint64(n))})
	}
	for i := 1; i < n; i++ {
		if i%97 != 0 {
			parts = append(parts, [2]uint64{uint64(i), uint64(i + 1)})
		}
	}
	return append(gs, graph{"tree", n, tree}, graph{"star", n, star}, graph{"random", n, rnd}, graph{"chains", n, parts})
}

// The star operations settle every shape in at most DefaultRounds, the
// number of edges never grows, and the stars are the connected components.
// A chain of 100,000 nodes must settle in the default rounds.
func TestStarsSettle(t *testing.T) {
	sizes := []int{2, 3, 1000, 10000, 100000}
	if *long {
		sizes = append(sizes, 1000000)
	}
	for _, n := range sizes {
		for _, g := range graphs(n, uint64(n)) {
			// Chains are the slowest shape: 100,000 nodes by default,
			// 1,000,000 with -long, the other shapes up to 10,000 (100,000
			// with -long).
			if n > 10000 && g.name != "chain" && g.name != "shuffled-chain" && (!*long || n > 100000) {
				continue
			}
			t.Run(fmt.Sprintf("%s/n=%d", g.name, n), func(t *testing.T) {
				done, final, most := starRounds(g.edges, DefaultRounds)
				if !isStars(final) {
					t.Fatalf("not settled in %d rounds", DefaultRounds)
				}
				distinct := map[[2]uint64]bool{}
				for _, e := range g.edges {
					distinct[[2]uint64{min(e[0], e[1]), max(e[0], e[1])}] = true
				}
				if most > len(g.edges) {
					t.Errorf("a round held %d edges, more than the %d links", most, len(g.edges))
				}
				// The stars are the components: compare with union-find.
				f := cluster.New(g.nodes + 1)
				for _, e := range g.edges {
					f.Union(int(e[0]), int(e[1]))
				}
				root := map[uint64]uint64{}
				for _, e := range final {
					c, p := e[0], e[1]
					if lower(c, p) {
						c, p = p, c
					}
					root[c], root[p] = p, p
				}
				rep := map[int]uint64{}
				for v := range root {
					fr := f.Find(int(v))
					if r, ok := rep[fr]; ok && r != root[v] {
						t.Fatalf("node %d in star %d, another node of its component in star %d", v, root[v], r)
					}
					rep[fr] = root[v]
				}
				for e := range distinct {
					if root[e[0]] != root[e[1]] {
						t.Fatalf("link %v joins stars %d and %d", e, root[e[0]], root[e[1]])
					}
				}
				t.Logf("%d rounds", done)
			})
		}
	}
}
