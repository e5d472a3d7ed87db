package pipeline

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// Keep is the rule by which dedup chooses the record it keeps of each
// cluster.
type Keep int

const (
	// KeepFirst keeps the first record in input order, as `simjoin dedup`
	// does.
	KeepFirst Keep = iota
	// KeepLongest keeps the record of the longest text (Info.Len), the first
	// in input order among equals.
	KeepLongest
	// KeepShortest keeps the record of the shortest text, the first in input
	// order among equals.
	KeepShortest
)

var keepNames = []string{"first", "longest", "shortest"}

// String returns the rule's name.
func (k Keep) String() string {
	if k < 0 || int(k) >= len(keepNames) {
		return fmt.Sprintf("Keep(%d)", int(k))
	}
	return keepNames[k]
}

// ParseKeep returns the rule of a name: first, longest or shortest.
func ParseKeep(name string) (Keep, error) {
	for i, n := range keepNames {
		if n == name {
			return Keep(i), nil
		}
	}
	return 0, fmt.Errorf("unknown keep rule %q: want first, longest or shortest", name)
}

// Dedup says what a dedup writes.
type Dedup struct {
	// Keep chooses the record kept of each cluster; KeepLongest and
	// KeepShortest need the records' Info with InfoLen.
	Keep Keep
	// Clusters writes every record as ID<TAB>KEPT, KEPT the id of the record
	// kept of its cluster (itself for a record alone), instead of the kept
	// records only.
	Clusters bool
	// Records writes the input lines of the kept records (Info.Text: a JSON
	// line whole) instead of their ids; it needs the Info with InfoText.
	Records bool
}

// Cand is a record of a cluster in the choice of the record kept: its id and
// the length of its text.
type Cand struct {
	ID  uint64
	Len int64
}

func init() {
	beam.RegisterType(reflect.TypeFor[Cand]())
	register.Function2x0(recordKey)
	register.Emitter2[uint64, bool]()
	register.Function4x0(keepFirst)
	register.Function6x0(candidate)
	register.Emitter2[uint64, Cand]()
	register.Iter1[Info]()
	register.Function2x1(longer)
	register.Function2x1(shorter)
	register.Function4x0(keptOfMember)
	register.Iter1[Cand]()
	register.DoFn4x0[context.Context, uint64, uint64, func(Line)](&dedupLineFn{})
	register.Function3x0(keptFlag)
	register.Function5x0(keptText)
}

// DedupLines returns the output lines of a dedup of records (a PCollection
// of Record) whose clusters are labels (KV<node, label> from Components: a
// record without a label is a cluster of its own): the id of the record kept
// of every cluster under o.Keep; with o.Clusters every record as
// ID<TAB>KEPT; with o.Records the kept records' input lines. info is the
// Info of ReadInput (KV<uint64, Info>) with the parts o needs, or the zero
// PCollection when it needs none. Lines sort by record id.
//
// Cost: KeepFirst co-groups the records' ids with the labels (one shuffle of
// every record id); KeepLongest and KeepShortest co-group the lengths too,
// combine each cluster to its best record (a lifted combine) and co-group
// the clustered records with it (one more shuffle of them); Records
// co-groups the kept ids with the texts; named ids add FormatPairs' lookups.
func DedupLines(s beam.Scope, records, labels, info beam.PCollection, ids IDs, o Dedup) beam.PCollection {
	s = s.Scope("Dedup")
	byID := beam.ParDo(s, recordKey, records)
	var kept beam.PCollection // KV<id, kept id> for every record
	if o.Keep == KeepFirst {
		kept = beam.ParDo(s, keepFirst, beam.CoGroupByKey(s, byID, labels))
	} else {
		alone, members := beam.ParDo2(s, candidate, beam.CoGroupByKey(s, byID, labels, info))
		better := longer
		if o.Keep == KeepShortest {
			better = shorter
		}
		best := beam.CombinePerKey(s, better, members)
		kept = beam.Flatten(s, alone, beam.ParDo(s, keptOfMember, beam.CoGroupByKey(s, members, best)))
	}
	if o.Records {
		return beam.ParDo(s, keptText, beam.CoGroupByKey(s, beam.ParDo(s, keptFlag, kept), info))
	}
	lines := beam.ParDo(s, &dedupLineFn{Paths: ids.Paths, Files: ids.Files, SFrom: ids.SFrom, Named: ids.Names.IsValid(), All: o.Clusters}, kept)
	return nameLines(s, lines, ids)
}

// recordKey keys a record's id.
func recordKey(r Record, emit func(uint64, bool)) { emit(r.ID, true) }

// keepFirst keeps of every cluster its label, the least id.
func keepFirst(id uint64, rec func(*bool) bool, label func(*uint64) bool, emit func(uint64, uint64)) {
	var x bool
	if !rec(&x) {
		return // a node that is no record: cannot happen for edges of records
	}
	l := id
	label(&l)
	emit(id, l)
}

// candidate sends a clustered record with its length to its cluster, and a
// record alone to the kept ones.
func candidate(id uint64, rec func(*bool) bool, label func(*uint64) bool, info func(*Info) bool, alone func(uint64, uint64), members func(uint64, Cand)) {
	var x bool
	if !rec(&x) {
		return
	}
	var l uint64
	if !label(&l) {
		alone(id, id)
		return
	}
	var in Info
	info(&in)
	members(l, Cand{ID: id, Len: in.Len})
}

// longer is the better of two records under KeepLongest.
func longer(a, b Cand) Cand {
	if a.Len > b.Len || a.Len == b.Len && a.ID < b.ID {
		return a
	}
	return b
}

// shorter is the better of two records under KeepShortest.
func shorter(a, b Cand) Cand {
	if a.Len < b.Len || a.Len == b.Len && a.ID < b.ID {
		return a
	}
	return b
}

// keptOfMember tells every record of a cluster the record kept.
func keptOfMember(_ uint64, members func(*Cand) bool, best func(*Cand) bool, emit func(uint64, uint64)) {
	var b, m Cand
	if !best(&b) {
		return
	}
	for members(&m) {
		emit(m.ID, b.ID)
	}
}

// dedupLineFn writes a kept record's id, or with All every record's id and
// its kept record's.
type dedupLineFn struct {
	Paths []string
	Files bool
	SFrom int
	Named bool
	All   bool
}

func (f *dedupLineFn) ProcessElement(ctx context.Context, id, kept uint64, emit func(Line)) {
	if id == kept {
		mClusters.Inc(ctx, 1)
		mKept.Inc(ctx, 1)
	}
	ids := IDs{Paths: f.Paths, Files: f.Files, SFrom: f.SFrom}
	switch {
	case f.All && f.Named:
		emit(Line{A: id, B: kept, Named: 2})
	case f.All:
		b := ids.Append(nil, id)
		b = append(b, '\t')
		b = ids.Append(b, kept)
		emit(Line{A: id, B: kept, Text: string(b)})
	case id != kept:
	case f.Named:
		emit(Line{A: id, Named: 1})
	default:
		emit(Line{A: id, Text: string(ids.Append(nil, id))})
	}
}

// keptFlag passes the kept records.
func keptFlag(id, kept uint64, emit func(uint64, bool)) {
	if id == kept {
		emit(id, true)
	}
}

// keptText writes the input line of a kept record.
func keptText(ctx context.Context, id uint64, kept func(*bool) bool, info func(*Info) bool, emit func(Line)) {
	var x bool
	var in Info
	if !kept(&x) || !info(&in) {
		return
	}
	mClusters.Inc(ctx, 1)
	mKept.Inc(ctx, 1)
	emit(Line{A: id, Text: in.Text})
}
