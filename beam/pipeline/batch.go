package pipeline

import (
	"context"
	"encoding/binary"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// A runner's cost is per element far more than per byte: Prism spends about
// half a millisecond on every element that crosses a shuffle, whatever its
// size. The exact join therefore moves records in batches (Batch, RankBatch)
// and its groups in partitions, so that the elements it shuffles number in
// the bundles and partitions, not in the records and tokens.

// batchKeys is the number of token keys a batch collects before it is
// emitted (8 MiB of keys).
const batchKeys = 1 << 20

// Batch is records packed into one element: record i has id IDs[i] and the
// keys Keys[Ends[i-1]:Ends[i]] (Ends[-1] = 0), sorted ascending and
// distinct, as in Record. Invariants: len(Ends) == len(IDs), Ends ascending,
// Ends[len-1] == len(Keys); no record is empty.
type Batch struct {
	IDs  []uint64
	Ends []uint32
	Keys []uint64
}

// Len is the number of records in b.
func (b *Batch) Len() int { return len(b.IDs) }

// At returns record i's keys.
func (b *Batch) At(i int) []uint64 { return b.Keys[b.start(i):b.Ends[i]] }

func (b *Batch) start(i int) uint32 {
	if i == 0 {
		return 0
	}
	return b.Ends[i-1]
}

// Add appends a record.
func (b *Batch) Add(id uint64, keys []uint64) {
	b.IDs = append(b.IDs, id)
	b.Keys = append(b.Keys, keys...)
	b.Ends = append(b.Ends, uint32(len(b.Keys)))
}

// RankBatch is a Batch in the exact join's global order: every token held by
// two records or more is its rank (0 the rarest), and the tokens a record
// holds alone are only counted, as they come first in its order and are
// never shared. Record i has id IDs[i], Private[i] tokens of its own and the
// shared tokens Ranks[Ends[i-1]:Ends[i]], ascending: its set in the global
// order is Private[i] tokens, then those ranks. HotFrom is the first rank
// whose document frequency exceeds the block size (ranks from HotFrom on
// may have a group too large for one worker; their groups are planned by
// set size), and Parts the number of partitions the groups are cut in; both
// are the same in every batch of a run. Invariants: as Batch, and
// len(Private) == len(IDs).
type RankBatch struct {
	IDs     []uint64
	Private []uint32
	Ends    []uint32
	Ranks   []uint32
	HotFrom uint32
	Parts   uint32
}

// Len is the number of records in b.
func (b *RankBatch) Len() int { return len(b.IDs) }

// At returns record i's shared tokens, as ranks.
func (b *RankBatch) At(i int) []uint32 {
	s := uint32(0)
	if i > 0 {
		s = b.Ends[i-1]
	}
	return b.Ranks[s:b.Ends[i]]
}

// Size is record i's set size.
func (b *RankBatch) Size(i int) int { return int(b.Private[i]) + len(b.At(i)) }

func init() {
	beam.RegisterCoder(reflect.TypeFor[Batch](), encBatch, decBatch)
	beam.RegisterCoder(reflect.TypeFor[RankBatch](), encRankBatch, decRankBatch)
	register.DoFn3x0[context.Context, Record, func(Batch)](&batchFn{})
	register.Emitter1[Batch]()
}

// A Batch is written as its record count, then every record as the zigzag
// delta of its id from the one before, its size and its keys (8 bytes
// each: they are hashes). A RankBatch's records carry the private count and
// the ranks as deltas from the one before (the first from 0), so that a
// token costs one or two bytes where its key costs eight.

func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func encBatch(v Batch) []byte {
	b := make([]byte, 0, 8+3*len(v.IDs)+8*len(v.Keys))
	b = binary.AppendUvarint(b, uint64(len(v.IDs)))
	var prev uint64
	for i, id := range v.IDs {
		b = binary.AppendUvarint(b, zigzag(int64(id-prev)))
		prev = id
		b = appendKeys(b, v.At(i))
	}
	return b
}

func decBatch(b []byte) (Batch, error) {
	r := reader{b: b}
	n := r.count(2)
	var v Batch
	var prev uint64
	for range n {
		prev += uint64(unzigzag(r.uvarint()))
		keys := r.keys()
		if r.err != nil {
			break
		}
		v.Add(prev, keys)
	}
	return v, r.done()
}

func encRankBatch(v RankBatch) []byte {
	b := make([]byte, 0, 16+4*len(v.IDs)+2*len(v.Ranks))
	b = binary.AppendUvarint(b, uint64(v.HotFrom))
	b = binary.AppendUvarint(b, uint64(v.Parts))
	b = binary.AppendUvarint(b, uint64(len(v.IDs)))
	var prev uint64
	for i, id := range v.IDs {
		b = binary.AppendUvarint(b, zigzag(int64(id-prev)))
		prev = id
		b = binary.AppendUvarint(b, uint64(v.Private[i]))
		b = appendRanks(b, v.At(i))
	}
	return b
}

func decRankBatch(b []byte) (RankBatch, error) {
	r := reader{b: b}
	v := RankBatch{HotFrom: uint32(r.uvarint()), Parts: uint32(r.uvarint())}
	n := r.count(3)
	var prev uint64
	for range n {
		prev += uint64(unzigzag(r.uvarint()))
		v.IDs = append(v.IDs, prev)
		v.Private = append(v.Private, uint32(r.uvarint()))
		v.Ranks = r.ranks(v.Ranks)
		v.Ends = append(v.Ends, uint32(len(v.Ranks)))
		if r.err != nil {
			break
		}
	}
	return v, r.done()
}

// appendRanks writes ascending ranks as their count and deltas.
func appendRanks(b []byte, ranks []uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(ranks)))
	var prev uint32
	for _, x := range ranks {
		b = binary.AppendUvarint(b, uint64(x-prev))
		prev = x
	}
	return b
}

// ranks appends what appendRanks wrote to dst; ranks that do not ascend
// (or overflow) are corrupt.
func (r *reader) ranks(dst []uint32) []uint32 {
	n := r.count(1)
	var prev uint64
	for i := range n {
		d := r.uvarint()
		if i > 0 && d == 0 || prev+d > 1<<32-1 {
			r.err = errCorrupt
		}
		if r.err != nil {
			return dst
		}
		prev += d
		dst = append(dst, uint32(prev))
	}
	return dst
}

// count reads a count of items that take at least min bytes each, and
// fails when the rest of the element cannot hold them.
func (r *reader) count(min int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/min) {
		r.err = errCorrupt
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// batchFn packs the non-empty records of a bundle into Batches of about
// batchKeys keys and, with Count, counts the records (empty ones as
// skipped) and their tokens.
type batchFn struct {
	Count bool
	b     Batch
}

func (f *batchFn) ProcessElement(ctx context.Context, r Record, emit func(Batch)) {
	if f.Count {
		mRecords.Inc(ctx, 1)
		mSetTokens.Inc(ctx, int64(len(r.Keys)))
	}
	if len(r.Keys) == 0 {
		if f.Count {
			mSkipped.Inc(ctx, 1)
		}
		return
	}
	f.b.Add(r.ID, r.Keys)
	if len(f.b.Keys) >= batchKeys {
		emit(f.b)
		f.b = Batch{}
	}
}

func (f *batchFn) FinishBundle(emit func(Batch)) {
	if f.b.Len() > 0 {
		emit(f.b)
	}
	f.b = Batch{}
}
