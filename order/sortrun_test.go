package order

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/shingle"
)

// TestSortRun checks that runs come out in key order, with each value's
// shard, including values whose keys share the top 40 bits (so the top 37
// that sortRun packs them under; pairs found by sorting the keys of the
// values below 2^22), which the packing alone would order by shard and
// value.
func TestSortRun(t *testing.T) {
	tied := [][2]uint32{{2284961, 1776807}, {3483192, 577901}, {4141886, 1013567}, {38343, 2385825}}
	for _, p := range tied {
		a, b := shingle.IntKey(p[0]), shingle.IntKey(p[1])
		if a>>valBits != b>>valBits || a >= b {
			t.Fatalf("values %d and %d: keys %x and %x do not share their top bits in this order", p[0], p[1], a, b)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var s keysort.Sorter
	var packed []uint64
	for _, n := range []int{0, 1, 2, 5, 17, 100, 3000} {
		for range 20 {
			seen := map[uint32]bool{}
			var vals []uint32
			for _, p := range tied {
				if rng.IntN(2) == 0 {
					vals = append(vals, p[0], p[1])
					seen[p[0]], seen[p[1]] = true, true
				}
			}
			for len(vals) < n {
				if v := rng.Uint32N(shingle.IntLimit); !seen[v] {
					seen[v] = true
					vals = append(vals, v)
				}
			}
			rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
			want := slices.Clone(vals)
			slices.SortFunc(want, func(a, b uint32) int {
				ka, kb := shingle.IntKey(a), shingle.IntKey(b)
				if ka < kb {
					return -1
				}
				if ka > kb {
					return 1
				}
				return 0
			})
			sh := make([]uint8, len(vals))
			packed = sortRun(&s, shingle.IntValues{}, vals, sh, packed)
			if !slices.Equal(vals, want) {
				t.Fatalf("%d values: not in key order", len(vals))
			}
			for i, v := range vals {
				if want := uint8(shardOf(keymap.Hash(shingle.IntKey(v)))); sh[i] != want {
					t.Fatalf("%d values: value %d at %d has shard %d, want %d", len(vals), v, i, sh[i], want)
				}
			}
		}
	}
}

// TestFirstBlocks checks that the blocks list the values by first
// appearance, each record's new ones in its own order (the runs of two or
// more in unsorted, none split between blocks), over records that span
// several chunks and blocks, repeat values within and across records, and
// include empty ones; and that eachFirst gives any stretch of them.
func TestFirstBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := &Input{Workers: 1}
	var vals []uint32
	offs := []int{0}
	var recs [][]uint32 // every record as added
	for range 3000 {
		from := len(vals)
		for range rng.IntN(40) {
			vals = append(vals, uint32(rng.IntN(5000)))
		}
		recs = append(recs, slices.Clone(vals[from:]))
		offs = append(offs, len(vals))
		if len(offs) == 100 {
			in.AddValues(vals, offs, shingle.IntValues{})
			vals, offs = vals[:0], []int{0}
		}
	}
	in.AddValues(vals, offs, shingle.IntValues{})
	if len(in.chunks) < 2 || len(in.blocks) < 2 {
		t.Fatalf("%d chunks, %d blocks; the test wants records over several", len(in.chunks), len(in.blocks))
	}
	var want []uint32
	var runs []int
	seen := map[uint32]bool{}
	for _, rec := range recs {
		from := len(want)
		for _, v := range rec {
			if !seen[v] {
				seen[v] = true
				want = append(want, v)
			}
		}
		if len(want)-from > 1 {
			runs = append(runs, from, len(want))
		}
	}
	if in.Vocabulary() != len(want) {
		t.Errorf("Vocabulary() = %d, want %d", in.Vocabulary(), len(want))
	}
	starts := in.blockStarts()
	if got := slices.Concat(in.blocks...); !slices.Equal(got, want) || !slices.Equal(in.unsorted, runs) || starts[len(starts)-1] != len(want) {
		t.Fatalf("blocks: %d values, %d runs; want %d, %d (or their order differs)", len(got), len(in.unsorted)/2, len(want), len(runs)/2)
	}
	for r := 0; r < len(runs); r += 2 {
		k, _ := slices.BinarySearch(starts, runs[r]+1)
		if runs[r+1] > starts[k] {
			t.Fatalf("run [%d, %d) is split between blocks at %d", runs[r], runs[r+1], starts[k])
		}
	}
	for range 200 {
		lo := rng.IntN(len(want) + 1)
		hi := lo + rng.IntN(len(want)-lo+1)
		var got []uint32
		in.eachFirst(starts, lo, hi, func(at int, vals []uint32) {
			if at != lo+len(got) {
				t.Fatalf("eachFirst(%d, %d): a stretch at %d after %d values", lo, hi, at, len(got))
			}
			got = append(got, vals...)
		})
		if !slices.Equal(got, want[lo:hi]) {
			t.Fatalf("eachFirst(%d, %d): %d values, not those of the stretch", lo, hi, len(got))
		}
	}
}
