package pipeline

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/internal/mix"
)

// DefaultRounds is the number of star operations (one shuffle each)
// Components runs. The alternating large-star/small-star algorithm settles
// a chain of n nodes, the slowest shape measured, in about 1.5·log2(n)
// operations (25 for 100,000 nodes, 31 for 1,000,000); 40 covers chains of
// tens of millions; Unsettled tells when they did not settle.
const DefaultRounds = 40

func init() {
	register.Function4x0(bothWays)
	register.Function3x0(largeStar)
	register.Function3x0(smallStar)
	register.Iter1[uint64]()
	register.Function3x0(labelCandidates)
	register.Function2x1(lowerNode)
	register.Function3x0(leastID)
}

// nodeKey orders the nodes of the component graph: by a fixed hash of the
// id, then the id. The star operations' rounds depend on the order; a hash
// makes a chain of consecutive ids (a common shape: near-duplicates in
// input order) as quick to settle as any other.
func nodeKey(v uint64) uint64 { return mix.Mix64(v ^ 0x9e3779b97f4a7c15) }

// lower reports whether node a comes before node b.
func lower(a, b uint64) bool {
	if ka, kb := nodeKey(a), nodeKey(b); ka != kb {
		return ka < kb
	}
	return a < b
}

// lowerNode is the combine that keeps the lower node.
func lowerNode(a, b uint64) uint64 {
	if lower(b, a) {
		return b
	}
	return a
}

// bothWays emits an edge in both directions: every node receives its
// neighbours.
func bothWays(ctx context.Context, a, b uint64, emit func(uint64, uint64)) {
	emit(a, b)
	emit(b, a)
	mShuffleCC.Inc(ctx, int64(2*(uvarintLen(a)+uvarintLen(b))))
}

// neighbours reads a node's neighbours, sorted in node order, without
// repeats, and returns them with the lowest of them and v.
func neighbours(v uint64, it func(*uint64) bool) (nb []uint64, m uint64) {
	var u uint64
	for it(&u) {
		nb = append(nb, u)
	}
	slices.Sort(nb)
	nb = slices.Compact(nb)
	m = v
	for _, u := range nb {
		if lower(u, m) {
			m = u
		}
	}
	return nb, m
}

// largeStar is the large-star operation of Kiveris et al.: every neighbour
// u of v above v is linked to m, the lowest of v and its neighbours. Each
// edge comes out as (child, parent) with the parent lower.
func largeStar(v uint64, it func(*uint64) bool, emit func(uint64, uint64)) {
	nb, m := neighbours(v, it)
	for _, u := range nb {
		if lower(v, u) {
			emit(u, m)
		}
	}
}

// smallStar is the small-star operation of Kiveris et al.: v and its
// neighbours below it are linked to m, the lowest of them.
func smallStar(v uint64, it func(*uint64) bool, emit func(uint64, uint64)) {
	nb, m := neighbours(v, it)
	if m == v {
		return // no neighbour below v: its edges are emitted by the others
	}
	emit(v, m)
	for _, u := range nb {
		if u != m && lower(u, v) {
			emit(u, m)
		}
	}
}

// labelCandidates proposes, for a settled edge (child, parent), the parent
// as the label of both.
func labelCandidates(child, parent uint64, emit func(uint64, uint64)) {
	emit(child, parent)
	emit(parent, parent)
}

// leastID gives every node of a star its record label: the least id among
// the star's nodes (root first: the root is among the nodes).
func leastID(_ uint64, nodes func(*uint64) bool, emit func(uint64, uint64)) {
	var all []uint64
	var v uint64
	for nodes(&v) {
		all = append(all, v)
	}
	least := slices.Min(all)
	for _, v := range all {
		emit(v, least)
	}
}

// Components labels every node of the graph of links (a PCollection of
// KV<uint64, uint64>; in a dedup, record ids) with the least node of its
// connected component, as KV<node, label>, for the nodes of some link.
//
// The algorithm is the alternating one of Kiveris, Lattanzi, Mirrokni,
// Rastogi and Vassilvitskii, "Connected Components in MapReduce and Beyond"
// (SoCC 2014): large-star and small-star operations in turn, one shuffle
// each, until every component is a star around its lowest node; then each
// star takes the least id among its nodes. Neither operation adds edges, so
// every round shuffles at most twice the links (4 to 20 bytes each), and
// the rounds grow with log n. Departures from the paper: nodes are ordered
// by a fixed hash of the id (their random order) rather than by the id;
// and, a Beam pipeline being a fixed graph of transforms, the operations
// run a fixed number of times, rounds (0: DefaultRounds), instead of until
// an operation changes nothing.
//
// The labels are the components only once the rounds have settled them:
// Unsettled checks that from the data (every link's two ends carry one
// label), not from the runner's metrics, and makes a guard that fails the
// job when they have not.
func Components(s beam.Scope, links beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("Components")
	if rounds <= 0 {
		rounds = DefaultRounds
	}
	edges := links
	for r := range rounds {
		adj := beam.GroupByKey(s, beam.ParDo(s, bothWays, edges))
		if r%2 == 0 {
			edges = beam.ParDo(s, largeStar, adj)
		} else {
			edges = beam.ParDo(s, smallStar, adj)
		}
	}
	roots := beam.CombinePerKey(s, lowerNode, beam.ParDo(s, labelCandidates, edges))
	return beam.ParDo(s, leastID, beam.GroupByKey(s, beam.SwapKV(s, roots)))
}
