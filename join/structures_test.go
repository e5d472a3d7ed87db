package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kelindar/bitmap"
)

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

// TestBitmapWord checks the one-word bitmaps gathered in a register against
// the bits set one token at a time.
func TestBitmapWord(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 1000 {
		set := make([]uint32, r.IntN(80))
		var want uint64
		for i := range set {
			set[i] = r.Uint32()
			want |= 1 << (set[i] % 64)
		}
		if got := bitmapWord(set); got != want {
			t.Fatalf("bitmapWord(%v) = %#x, want %#x", set, got, want)
		}
	}
}
