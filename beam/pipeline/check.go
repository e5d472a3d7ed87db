package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// The checks below make guards for WriteLines: PCollections of error
// messages, empty when all is well, so that a job that went wrong commits
// nothing, whether the launcher waits for it or not and whether the runner
// reports metrics or not.

func init() {
	register.Function2x1(sumCounts)
	register.Function4x0(edgeLabelAtB)
	register.Function5x0(edgeUnsettled)
	register.Emitter1[int64]()
	register.DoFn2x0[int64, func(string)](&unsettledFn{})
	register.Emitter1[string]()
	register.Function3x0(nameKey)
	register.Emitter2[string, uint64]()
	register.DoFn3x0[string, func(*uint64) bool, func(string)](&repeatedNameFn{})
}

// Unsettled returns one message when some edge (KV<uint64, uint64>) joins
// two nodes whose labels (KV<node, label> from Components run for rounds
// rounds) differ, the labels then not being the connected components; none
// otherwise. Cost: two co-groups of the edges with the labels.
func Unsettled(s beam.Scope, edges, labels beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("Unsettled")
	atB := beam.ParDo(s, edgeLabelAtB, beam.CoGroupByKey(s, edges, labels))
	bad := beam.ParDo(s, edgeUnsettled, beam.CoGroupByKey(s, atB, labels))
	return beam.ParDo(s, &unsettledFn{Rounds: rounds}, beam.Combine(s, sumCounts, bad))
}

// sumCounts adds two counts (a combine).
func sumCounts(a, b int64) int64 { return a + b }

// edgeLabelAtB sends the label of a to b, for every edge (a, b).
func edgeLabelAtB(_ uint64, bs func(*uint64) bool, label func(*uint64) bool, emit func(uint64, uint64)) {
	var l, b uint64
	if !label(&l) {
		return
	}
	for bs(&b) {
		emit(b, l)
	}
}

// edgeUnsettled counts the edges into b whose other end's label differs.
func edgeUnsettled(ctx context.Context, _ uint64, got func(*uint64) bool, label func(*uint64) bool, emit func(int64)) {
	var l, g uint64
	if !label(&l) {
		return
	}
	var n int64
	for got(&g) {
		if g != l {
			n++
		}
	}
	if n > 0 {
		mUnsettled.Inc(ctx, n)
		emit(n)
	}
}

type unsettledFn struct {
	Rounds int
}

func (f *unsettledFn) ProcessElement(n int64, emit func(string)) {
	if n > 0 {
		emit(fmt.Sprintf("clusters did not settle in %d rounds (%d edges join different labels): raise --rounds", f.Rounds, n))
	}
}

// RepeatedNames returns a message for every name that more than one record
// bears (info: KV<uint64, Info> with the names, from ReadInput), naming the
// first two records by position as ids formats them without names: an id
// given by the input must name one record. Cost: one shuffle of every
// record's name.
func RepeatedNames(s beam.Scope, info beam.PCollection, ids IDs) beam.PCollection {
	s = s.Scope("RepeatedNames")
	return beam.ParDo(s, &repeatedNameFn{Paths: ids.Paths, SFrom: ids.SFrom}, beam.GroupByKey(s, beam.ParDo(s, nameKey, info)))
}

// nameKey keys a record's id by its name.
func nameKey(id uint64, x Info, emit func(string, uint64)) { emit(x.Name, id) }

type repeatedNameFn struct {
	Paths []string
	SFrom int
}

func (f *repeatedNameFn) ProcessElement(name string, it func(*uint64) bool, emit func(string)) {
	var got []uint64
	var id uint64
	for it(&id) {
		got = append(got, id)
	}
	if len(got) < 2 {
		return
	}
	slices.Sort(got)
	where := func(id uint64) string {
		file, line := SplitID(id)
		return fmt.Sprintf("%s:%d", f.Paths[file], line)
	}
	emit(fmt.Sprintf("%s: id %q repeats the id of %s", where(got[1]), name, where(got[0])))
}
