package pipeline

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// DefaultRounds is the number of Hash-to-Min rounds Components runs.
// Hash-to-Min settles a component of diameter d in about 2·log2(d) rounds
// (Rastogi et al. 2013); near-duplicate clusters are rarely wider than a few
// hops, and Components reports when they did not settle.
const DefaultRounds = 8

func init() {
	register.Function4x0(bothWays)
	register.Function3x0(neighbourhood)
	register.Function3x0(hashToMin)
	register.Emitter2[uint64, Record]()
	register.DoFn3x0[uint64, func(*Record) bool, func(Record)](&mergeFn{})
	register.Function2x0(labelOf)
	register.Emitter1[Line]()
	register.Function2x0(recordID)
	register.Function4x0(labelAtA)
	register.Function4x0(checkEdge)
	register.Iter1[uint64]()
}

// bothWays emits an edge in both directions.
func bothWays(ctx context.Context, a, b uint64, emit func(uint64, uint64)) {
	emit(a, b)
	emit(b, a)
	mShuffleCC.Inc(ctx, int64(2*(uvarintLen(a)+uvarintLen(b))))
}

// neighbourhood is a node's first cluster: itself and its neighbours.
func neighbourhood(v uint64, nb func(*uint64) bool, emit func(Record)) {
	c := []uint64{v}
	var u uint64
	for nb(&u) {
		c = append(c, u)
	}
	slices.Sort(c)
	emit(Record{ID: v, Keys: slices.Compact(c)})
}

// hashToMin is one round's map of Hash-to-Min: a node v with cluster C(v)
// sends C(v) to m = min C(v) and {m} to every other node of C(v).
func hashToMin(ctx context.Context, c Record, emit func(uint64, Record)) {
	m := c.Keys[0]
	emit(m, Record{Keys: c.Keys})
	n := int64(uvarintLen(m) + keysSize(len(c.Keys)))
	for _, u := range c.Keys[1:] {
		emit(u, Record{Keys: []uint64{m}})
		n += int64(uvarintLen(u) + keysSize(1))
	}
	mShuffleCC.Inc(ctx, n+1)
}

// mergeFn is one round's reduce: the union of the clusters a node received.
type mergeFn struct{}

func (f *mergeFn) ProcessElement(v uint64, got func(*Record) bool, emit func(Record)) {
	var c []uint64
	var r Record
	for got(&r) {
		c = append(c, r.Keys...)
	}
	slices.Sort(c)
	emit(Record{ID: v, Keys: slices.Compact(c)})
}

// labelOf is a node's label: the least node of its cluster.
func labelOf(c Record, emit func(uint64, uint64)) { emit(c.ID, c.Keys[0]) }

// Components labels every node of the graph of edges (a PCollection of
// KV<uint64, uint64>) with the least node of its connected component, by
// Hash-to-Min (Rastogi, Machanavajjhala, Chitnis and Das Sarma, "Finding
// connected components in map-reduce in logarithmic rounds", ICDE 2013) run
// for a fixed number of rounds, each one shuffle. It returns KV<node, label>
// and counts in the components_unsettled_edges metric the edges whose two
// ends still have different labels after the last round: when it is not
// zero the labels are not the components yet and the caller must fail (or
// run more rounds). Cost per round: O(Σ|C(v)|) elements shuffled, which
// Hash-to-Min keeps within O(nodes + edges) per round in practice.
func Components(s beam.Scope, edges beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("Components")
	if rounds <= 0 {
		rounds = DefaultRounds
	}
	clusters := beam.ParDo(s, neighbourhood, beam.GroupByKey(s, beam.ParDo(s, bothWays, edges)))
	for range rounds {
		clusters = beam.ParDo(s, &mergeFn{}, beam.GroupByKey(s, beam.ParDo(s, hashToMin, clusters)))
	}
	labels := beam.ParDo(s, labelOf, clusters)
	// Check: every edge's two ends carry one label.
	atB := beam.ParDo(s, labelAtA, beam.CoGroupByKey(s, edges, labels))
	beam.ParDo0(s, checkEdge, beam.CoGroupByKey(s, atB, labels))
	return labels
}

// labelAtA sends the label of a to b, for every edge (a, b).
func labelAtA(_ uint64, bs func(*uint64) bool, label func(*uint64) bool, emit func(uint64, uint64)) {
	var l, b uint64
	if !label(&l) {
		return
	}
	for bs(&b) {
		emit(b, l)
	}
}

// checkEdge counts the edges into b whose other end's label differs.
func checkEdge(ctx context.Context, _ uint64, got func(*uint64) bool, label func(*uint64) bool) {
	var l, g uint64
	if !label(&l) {
		return
	}
	for got(&g) {
		if g != l {
			mUnsettled.Inc(ctx, 1)
		}
	}
}

// recordID keys a record's id for the kept-record join.
func recordID(r Record, emit func(uint64, uint64)) { emit(r.ID, r.ID) }

// Kept returns the output lines of dedup: for every record whose label is
// itself or that has none (a cluster of one), its id; with all, every record
// as ID<TAB>FIRST, FIRST the id of the first record of its cluster (the kept
// one). Lines sort by record id.
func Kept(s beam.Scope, records, labels beam.PCollection, ids IDs, all bool) beam.PCollection {
	s = s.Scope("Kept")
	byID := beam.ParDo(s, recordID, records)
	return beam.ParDo(s, &keptFn{Paths: ids.Paths, Files: ids.Files, SFrom: ids.SFrom, All: all}, beam.CoGroupByKey(s, byID, labels))
}

func init() {
	register.DoFn5x0[context.Context, uint64, func(*uint64) bool, func(*uint64) bool, func(Line)](&keptFn{})
}

type keptFn struct {
	Paths []string
	Files bool
	SFrom int
	All   bool
}

func (f *keptFn) ProcessElement(ctx context.Context, id uint64, rec func(*uint64) bool, label func(*uint64) bool, emit func(Line)) {
	var x uint64
	if !rec(&x) {
		return // a node that is no record: cannot happen for edges of records
	}
	l := id
	label(&l)
	ids := IDs{Paths: f.Paths, Files: f.Files, SFrom: f.SFrom}
	if l == id {
		mClusters.Inc(ctx, 1)
		mKept.Inc(ctx, 1)
	}
	switch {
	case f.All:
		b := ids.Append(nil, id)
		b = append(b, '\t')
		b = ids.Append(b, l)
		emit(Line{A: id, Text: string(b)})
	case l == id:
		emit(Line{A: id, Text: string(ids.Append(nil, id))})
	}
}
