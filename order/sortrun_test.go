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
