package pipeline

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomBatches is a Batch and its RankBatch over n random records, ids
// in no particular order (an R-S join's two sides, a unit's first
// records), some far apart.
func randomBatches(n int, seed uint64) (Batch, RankBatch) {
	rng := rand.New(rand.NewPCG(seed, 9))
	var b Batch
	rb := RankBatch{HotFrom: uint32(rng.IntN(100)), Parts: minParts}
	for range n {
		id := rng.Uint64N(1 << 50)
		keys := make([]uint64, 1+rng.IntN(40))
		for i := range keys {
			keys[i] = rng.Uint64()
		}
		slices.Sort(keys)
		b.Add(id, slices.Compact(keys))
		ranks := make([]uint32, rng.IntN(30))
		for i := range ranks {
			ranks[i] = rng.Uint32()
		}
		slices.Sort(ranks)
		ranks = slices.Compact(ranks)
		rb.IDs = append(rb.IDs, id)
		rb.Private = append(rb.Private, uint32(rng.IntN(5)))
		rb.Ranks = append(rb.Ranks, ranks...)
		rb.Ends = append(rb.Ends, uint32(len(rb.Ranks)))
	}
	return b, rb
}

// TestBatchCoders: batches, ranked batches, counts, sizes and partition
// chunks decode to what was encoded.
func TestBatchCoders(t *testing.T) {
	for _, n := range []int{0, 1, 300} {
		b, rb := randomBatches(n, uint64(n))
		got, err := decBatch(encBatch(b))
		if err != nil || got.Len() != b.Len() || !slices.Equal(got.IDs, b.IDs) || !slices.Equal(got.Ends, b.Ends) || !slices.Equal(got.Keys, b.Keys) {
			t.Errorf("%d records: Batch did not round-trip (%v)", n, err)
		}
		gr, err := decRankBatch(encRankBatch(rb))
		if err != nil || !reflect.DeepEqual(gr.IDs, rb.IDs) || !slices.Equal(gr.Ranks, rb.Ranks) || !slices.Equal(gr.Private, rb.Private) ||
			!slices.Equal(gr.Ends, rb.Ends) || gr.HotFrom != rb.HotFrom || gr.Parts != rb.Parts {
			t.Errorf("%d records: RankBatch did not round-trip (%v)", n, err)
		}
		// A chunk of every record, each in two groups (one split).
		var c partChunk
		var want []member
		for i := range rb.Len() {
			ranks := rb.At(i)
			if len(ranks) == 0 {
				continue
			}
			gs := []chunkGroup{{at: 0, g: groupKey{Rank: ranks[0]}, index: true},
				{at: len(ranks) - 1, g: groupKey{Rank: ranks[len(ranks)-1], Blocks: 3, Block: 2}}}
			c.add(rb.IDs[i], rb.Private[i], ranks, gs)
			for _, g := range gs {
				want = append(want, member{g: g.g, at: uint32(g.at), index: g.index})
			}
		}
		var p partRecords
		ms, err := p.read(c.b, nil)
		if err != nil || len(ms) != len(want) {
			t.Fatalf("%d records: chunk read %d members, want %d (%v)", n, len(ms), len(want), err)
		}
		for i := range ms {
			ms[i].rec = 0
			if ms[i] != want[i] {
				t.Errorf("%d records: member %d = %+v, want %+v", n, i, ms[i], want[i])
			}
		}
	}
	counts := []tokenCount{{5, 2}, {1, 7}, {1 << 63, 1}}
	got := map[uint64]uint64{}
	singles, err := readCounts(appendCounts(nil, 42, counts), func(k, n uint64) { got[k] = n })
	if err != nil || singles != 42 || !reflect.DeepEqual(got, map[uint64]uint64{1: 7, 5: 2, 1 << 63: 1}) {
		t.Errorf("counts: %v, %d singles, %v", got, singles, err)
	}
	sizes := map[sizeKey]uint64{{3, 4}: 5, {1, 9}: 1}
	back := map[sizeKey]uint64{}
	if err := readSizes(appendSizes(nil, sizes), back); err != nil || !reflect.DeepEqual(back, sizes) {
		t.Errorf("sizes: %v, %v", back, err)
	}
}

// decodeAll runs every decoder of the exact join's elements on b.
func decodeAll(b []byte) {
	decBatch(b)
	decRankBatch(b)
	readCounts(b, func(uint64, uint64) {})
	readSizes(b, map[sizeKey]uint64{})
	var p partRecords
	p.read(b, nil)
}

// FuzzDecode: no element, however torn or forged, makes a decoder panic
// or allocate without bound; each returns an error or a value. The seeds
// are valid elements and their cuts.
func FuzzDecode(f *testing.F) {
	b, rb := randomBatches(5, 1)
	var c partChunk
	c.add(7, 1, []uint32{2, 9}, []chunkGroup{{at: 1, g: groupKey{Rank: 9, Blocks: 2, Block: 1}, index: true}})
	for _, s := range [][]byte{encBatch(b), encRankBatch(rb), appendCounts(nil, 3, []tokenCount{{1, 2}}),
		appendSizes(nil, map[sizeKey]uint64{{1, 2}: 3}), c.b} {
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) { decodeAll(b) })
}

// TestDecodeCorrupt: cut and forged elements are errors, never panics.
func TestDecodeCorrupt(t *testing.T) {
	b, rb := randomBatches(20, 2)
	for name, enc := range map[string][]byte{"batch": encBatch(b), "ranked": encRankBatch(rb)} {
		for cut := 1; cut < len(enc); cut += 7 {
			var err error
			if name == "batch" {
				_, err = decBatch(enc[:cut])
			} else {
				_, err = decRankBatch(enc[:cut])
			}
			if err == nil {
				t.Errorf("%s cut at %d of %d: no error", name, cut, len(enc))
			}
		}
	}
	// A count far beyond the bytes, ranks that do not ascend, a group
	// beyond the record's ranks, a block beyond its blocks.
	for _, bad := range [][]byte{
		{0xff, 0xff, 0xff, 0xff, 0x0f},
		{0, 0, 1, 2, 0, 0, 2, 5, 0, 0},
	} {
		if _, err := decBatch(bad); err == nil {
			t.Errorf("batch % x: no error", bad)
		}
	}
	var p partRecords
	for _, bad := range [][]byte{
		{2, 0, 2, 3, 0, 0},       // ranks 3, 3
		{2, 0, 1, 3, 1, 1 << 2},  // group at index 1 of one rank
		{2, 0, 1, 3, 1, 2, 2, 2}, // block 2 of 2
	} {
		if _, err := p.read(bad, nil); err == nil {
			t.Errorf("chunk % x: no error", bad)
		}
	}
}
