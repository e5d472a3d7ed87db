package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kelindar/bitmap"
)

// BenchmarkLiveSet measures the probe loop's "is this group already a
// candidate" bitset, as the join uses it: per probe, set the bits of the
// groups that become candidates, test the bits of the groups met late in the
// probe, then clear the set bits. The plain []uint64 words are what the join
// keeps; kelindar/bitmap is the library alternative.
//
//	go test ./join -run '^$' -bench LiveSet
func BenchmarkLiveSet(b *testing.B) {
	const groups = 1 << 20
	r := rand.New(rand.NewPCG(1, 1))
	probes := make([][]uint32, 512)
	for i := range probes {
		for k := 0; k < 64; k++ {
			probes[i] = append(probes[i], uint32(r.IntN(groups)))
		}
	}
	b.Run("impl=words", func(b *testing.B) {
		b.ReportAllocs()
		live := make([]uint64, groups/64)
		hits := 0
		for b.Loop() {
			for _, p := range probes {
				for _, g := range p[:16] {
					live[g>>6] |= 1 << (g & 63)
				}
				for _, g := range p {
					if live[g>>6]&(1<<(g&63)) != 0 {
						hits++
					}
				}
				for _, g := range p[:16] {
					live[g>>6] &^= 1 << (g & 63)
				}
			}
		}
		sink = hits
	})
	b.Run("impl=kelindar", func(b *testing.B) {
		b.ReportAllocs()
		var live bitmap.Bitmap
		live.Grow(groups)
		hits := 0
		for b.Loop() {
			for _, p := range probes {
				for _, g := range p[:16] {
					live.Set(g)
				}
				for _, g := range p {
					if live.Contains(g) {
						hits++
					}
				}
				for _, g := range p[:16] {
					live.Remove(g)
				}
			}
		}
		sink = hits
	})
}

// BenchmarkBitmapBound measures the bitmap filter's bound on 512-bit set
// signatures: the join's XOR-popcount loop over plain words against
// kelindar/bitmap's Xor and Count, which need a scratch copy.
func BenchmarkBitmapBound(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	const n, words = 1024, 8
	sigs := make([][]uint64, n)
	for i := range sigs {
		sigs[i] = make([]uint64, words)
		for w := range sigs[i] {
			sigs[i][w] = r.Uint64() & r.Uint64()
		}
	}
	b.Run(fmt.Sprintf("impl=words/bits=%d", 64*words), func(b *testing.B) {
		b.ReportAllocs()
		s := 0
		for b.Loop() {
			for i := 1; i < n; i++ {
				s += overlapBound(sigs[i-1], sigs[i], 300, 300)
			}
		}
		sink = s
	})
	b.Run(fmt.Sprintf("impl=kelindar/bits=%d", 64*words), func(b *testing.B) {
		b.ReportAllocs()
		s := 0
		scratch := make(bitmap.Bitmap, words)
		for b.Loop() {
			for i := 1; i < n; i++ {
				copy(scratch, sigs[i-1])
				scratch.Xor(bitmap.Bitmap(sigs[i]))
				s += (600 - scratch.Count()) / 2
			}
		}
		sink = s
	})
}

var sink int
