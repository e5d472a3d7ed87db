package pipeline

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/prefix"
)

// DefaultBlockSize is the most records a group of the exact join holds before
// it is split into blocks, and the most indexed records of a block.
const DefaultBlockSize = 4096

// Join configures the exact join and the LSH verification: the measure, the
// threshold as an exact fraction, and for an R-S join the first id of S.
type Join struct {
	Measure   prefix.Measure
	Threshold prefix.Threshold
	// SFrom is the first record id of S in an R-S join (the ids of R's files
	// come first); 0 means a self-join.
	SFrom uint64
	// BlockSize caps the records of one group: the group of a prefix token
	// routed more records is split into blocks of at most this many
	// indexed records of consecutive set sizes (more only where one size
	// has more), each with the records that probe it. 0 means
	// DefaultBlockSize.
	BlockSize int
}

// joinFn carries a Join into a DoFn (exported fields only).
type joinFn struct {
	Measure   int
	Num, Den  uint64
	SFrom     uint64
	BlockSize int
}

func (j Join) fn() joinFn {
	bs := j.BlockSize
	if bs <= 0 {
		bs = DefaultBlockSize
	}
	return joinFn{Measure: int(j.Measure), Num: j.Threshold.Num, Den: j.Threshold.Den, SFrom: j.SFrom, BlockSize: bs}
}

func (j joinFn) bounds() prefix.Bounds {
	return prefix.NewBounds(prefix.Measure(j.Measure), prefix.Threshold{Num: j.Num, Den: j.Den})
}

// isS reports whether a record id is on the S side of an R-S join.
func (j joinFn) isS(id uint64) bool { return j.SFrom != 0 && id >= j.SFrom }

// ExactJoin is the exact set-similarity join of Vernica, Carey and Li,
// "Efficient parallel set-similarity joins using MapReduce" (SIGMOD 2010),
// over records (a PCollection of Record; for an R-S join both sides, told
// apart by j.SFrom). It returns the result pairs as a PCollection of Pair,
// each pair once. See the package documentation for the stages and their
// cost.
func ExactJoin(s beam.Scope, records beam.PCollection, j Join) beam.PCollection {
	return exactJoin(s.Scope("ExactJoin"), records, j, true)
}

// ExactLinks is ExactJoin for a dedup (a self-join): only the edges
// (KV<uint64, uint64> of record ids) the clusters need. Identical sets are
// first grouped into units (one shuffle of every record keyed by a
// fingerprint of its set, as LSHLinks groups them); the units' first
// records are joined by ExactJoin's stages, each pair found an edge, and
// every unit's first record is linked to its other records: n copies cost
// n-1 edges and one record in the join, not n(n-1)/2 pairs.
func ExactLinks(s beam.Scope, records beam.PCollection, j Join) beam.PCollection {
	s = s.Scope("ExactLinks")
	fn := lshFn{Measure: int(j.Measure), Num: j.Threshold.Num, Den: j.Threshold.Den}
	units, _ := groupUnits(s, records, fn, false)
	pairs := exactJoin(s, beam.ParDo(s, unitRecord, units), j, false)
	return beam.Flatten(s, beam.ParDo(s, pairLink, pairs), unitMembers(s, units, fn))
}

func init() {
	register.Function1x1(unitRecord)
	register.Function1x2(pairLink)
}

// unitRecord is a unit as the record that stands for it: its first record's
// id and its set.
func unitRecord(u Unit) Record { return Record{ID: u.ID, Keys: u.Keys} }

// pairLink is a result pair as an edge of the dedup graph.
func pairLink(p Pair) (uint64, uint64) { return p.A, p.B }

// exactJoin is ExactJoin; count counts the records read (false when they
// are units whose records were counted as they were grouped).
func exactJoin(s beam.Scope, records beam.PCollection, j Join, count bool) beam.PCollection {
	fn := j.fn()
	batches := beam.ParDo(s, &batchFn{Count: count}, records)
	// Stage 1: document frequencies, counted per bundle and summed per
	// shard of the vocabulary; only tokens held by two records or more can
	// be shared, so only they are broadcast.
	s1 := s.Scope("Stage1")
	counts := beam.ParDo(s1, &countFn{}, batches)
	vocab := beam.ParDo(s1, vocabFn, beam.GroupByKey(s1, counts))
	// Stage 2: every record in the global order, then to the groups of its
	// prefix tokens, the groups packed into partitions.
	s2 := s.Scope("Stage2")
	ranked := beam.ParDo(s2, &rankFn{BlockSize: fn.BlockSize}, batches, beam.SideInput{Input: vocab})
	sizes := beam.ParDo(s2, &hotSizeFn{J: fn}, ranked)
	parts := beam.ParDo(s2, &partitionFn{J: fn}, ranked, beam.SideInput{Input: sizes})
	return beam.ParDo(s2, &partJoinFn{J: fn}, beam.GroupByKey(s2, parts))
}

func init() {
	register.DoFn3x0[context.Context, Batch, func(uint32, []byte)](&countFn{})
	register.Function4x1(vocabFn)
	register.Iter1[[]byte]()
	register.Emitter1[[]byte]()
	register.Emitter2[uint32, []byte]()
	register.DoFn4x1[context.Context, Batch, func(*[]byte) bool, func(RankBatch), error](&rankFn{})
	register.Emitter1[RankBatch]()
	register.DoFn2x0[RankBatch, func([]byte)](&hotSizeFn{})
	register.DoFn4x1[context.Context, RankBatch, func(*[]byte) bool, func(uint32, []byte), error](&partitionFn{})
	register.DoFn4x1[context.Context, uint32, func(*[]byte) bool, func(Pair), error](&partJoinFn{})
	register.Emitter1[Pair]()
}

// vocabShards is the number of shards the vocabulary is counted in.
const vocabShards = 64

// maxCounted is the most distinct tokens countFn holds before it emits its
// counts.
const maxCounted = 1 << 21

// shardOf is the vocabulary shard of a token key.
func shardOf(k uint64) uint32 { return uint32(mix.Mix64(k) % vocabShards) }

// countFn counts the records holding each token, over a bundle (or until
// it holds maxCounted tokens), and emits the counts of each shard of the
// vocabulary as one element (appendCounts): a few elements a bundle, where
// one element a token occurrence made the runner's work grow with the
// tokens.
type countFn struct {
	n map[uint64]uint32
}

func (f *countFn) ProcessElement(ctx context.Context, b Batch, emit func(uint32, []byte)) {
	if f.n == nil {
		f.n = map[uint64]uint32{}
	}
	for _, k := range b.Keys {
		f.n[k]++
	}
	if len(f.n) >= maxCounted {
		f.flush(ctx, emit)
	}
}

func (f *countFn) FinishBundle(ctx context.Context, emit func(uint32, []byte)) {
	f.flush(ctx, emit)
}

func (f *countFn) flush(ctx context.Context, emit func(uint32, []byte)) {
	var shards [vocabShards][]tokenCount
	for k, c := range f.n {
		s := shardOf(k)
		shards[s] = append(shards[s], tokenCount{k, uint64(c)})
	}
	for s, tc := range shards {
		if len(tc) == 0 {
			continue
		}
		b := appendCounts(nil, 0, tc)
		mShuffleDF.Inc(ctx, int64(len(b)+1))
		emit(uint32(s), b)
	}
	clear(f.n)
}

// tokenCount is a token key and a count of records.
type tokenCount struct{ key, n uint64 }

// appendCounts writes a shard of counts: the number of tokens of the shard
// held by one record alone that it leaves out (singles), then the tokens in
// ascending order of key, each as the delta from the one before and its
// count. It sorts tc.
func appendCounts(b []byte, singles uint64, tc []tokenCount) []byte {
	slices.SortFunc(tc, func(a, b tokenCount) int { return cmp.Compare(a.key, b.key) })
	b = binary.AppendUvarint(b, singles)
	b = binary.AppendUvarint(b, uint64(len(tc)))
	var prev uint64
	for _, t := range tc {
		b = binary.AppendUvarint(b, t.key-prev)
		b = binary.AppendUvarint(b, t.n)
		prev = t.key
	}
	return b
}

// readCounts calls fn for every token of a shard appendCounts wrote and
// returns its singles.
func readCounts(b []byte, fn func(key, n uint64)) (singles uint64, err error) {
	r := reader{b: b}
	singles = r.uvarint()
	n := r.count(2)
	var key uint64
	for i := range n {
		d := r.uvarint()
		c := r.uvarint()
		if r.err != nil || i > 0 && d == 0 || c == 0 {
			return 0, errCorrupt
		}
		key += d
		fn(key, c)
	}
	return singles, r.done()
}

// vocabFn sums one shard's counts and emits the tokens held by two records
// or more with their document frequencies, and the number held by one.
func vocabFn(ctx context.Context, _ uint32, parts func(*[]byte) bool, emit func([]byte)) error {
	df := map[uint64]uint64{}
	var b []byte
	for parts(&b) {
		if _, err := readCounts(b, func(k, n uint64) { df[k] += n }); err != nil {
			return err
		}
	}
	mVocabulary.Inc(ctx, int64(len(df)))
	shared := make([]tokenCount, 0, len(df))
	var singles uint64
	for k, n := range df {
		if n >= 2 {
			shared = append(shared, tokenCount{k, n})
		} else {
			singles++
		}
	}
	emit(appendCounts(nil, singles, shared))
	return nil
}

// The groups are cut into partitions of about partTokens set tokens of
// the input each, and at least minParts of them.
const (
	partTokens = 1 << 20
	minParts   = 16
	maxParts   = 1 << 16
)

// rankTable is the global order, as every worker computes it from the
// vocabulary: the tokens held by two records or more ranked by document
// frequency ascending, ties by key, as package order ranks tokens (a token
// missing from it is held by one record: it comes before every ranked
// token of its record and is never shared).
type rankTable struct {
	rank map[uint64]uint32
	// hotFrom is the first rank of a token held by more than the block
	// size; the ranks from it on are those whose group may need
	// splitting.
	hotFrom uint32
	parts   uint32 // partitions of the groups
}

// newRankTable reads the vocabulary (vocabFn's elements) into the global
// order. Cost: O(V log V) for V shared tokens.
func newRankTable(vocab func(*[]byte) bool, blockSize int) (*rankTable, error) {
	var all []tokenCount
	var total uint64
	var b []byte
	for vocab(&b) {
		singles, err := readCounts(b, func(k, n uint64) {
			all = append(all, tokenCount{k, n})
			total += n
		})
		if err != nil {
			return nil, err
		}
		total += singles
	}
	slices.SortFunc(all, func(a, b tokenCount) int { return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.key, b.key)) })
	if uint64(len(all)) > 1<<32-1 {
		return nil, fmt.Errorf("pipeline: %d shared tokens: more than a rank holds", len(all))
	}
	t := &rankTable{rank: make(map[uint64]uint32, len(all)), hotFrom: uint32(len(all))}
	for i, tc := range all {
		t.rank[tc.key] = uint32(i)
		if tc.n > uint64(blockSize) && t.hotFrom == uint32(len(all)) {
			t.hotFrom = uint32(i)
		}
	}
	t.parts = uint32(min(max(total/partTokens, minParts), maxParts))
	return t, nil
}

// ranked writes a batch in the global order.
func (t *rankTable) ranked(b *Batch) RankBatch {
	out := RankBatch{HotFrom: t.hotFrom, Parts: t.parts, IDs: b.IDs,
		Private: make([]uint32, b.Len()), Ends: make([]uint32, b.Len()),
		Ranks: make([]uint32, 0, len(b.Keys))}
	for i := range b.Len() {
		start := len(out.Ranks)
		for _, k := range b.At(i) {
			if r, ok := t.rank[k]; ok {
				out.Ranks = append(out.Ranks, r)
			} else {
				out.Private[i]++
			}
		}
		slices.Sort(out.Ranks[start:])
		out.Ends[i] = uint32(len(out.Ranks))
	}
	return out
}

// rankFn writes every batch in the global order.
type rankFn struct {
	BlockSize int
	t         *rankTable // the side input, read once per DoFn instance
}

func (f *rankFn) ProcessElement(ctx context.Context, b Batch, vocab func(*[]byte) bool, emit func(RankBatch)) error {
	if f.t == nil {
		t, err := newRankTable(vocab, f.BlockSize)
		if err != nil {
			return err
		}
		f.t = t
	}
	rb := f.t.ranked(&b)
	mShuffleRecords.Inc(ctx, int64(len(encBatch(b))+len(encRankBatch(rb))))
	emit(rb)
	return nil
}
