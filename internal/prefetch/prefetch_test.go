package prefetch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAtChangesNothing hints every element of a slice, the first and the
// last included, and checks that the slice reads back as it was: a hint is
// no access.
func TestAtChangesNothing(t *testing.T) {
	s := make([]uint64, 1000)
	for i := range s {
		s[i] = uint64(i) * 7
	}
	for i := range s {
		At(s, i)
	}
	for i, v := range s {
		if v != uint64(i)*7 {
			t.Fatalf("s[%d] = %d after the hints, want %d", i, v, i*7)
		}
	}
}

// TestAtChecksIndex: an index outside the slice panics, as s[i] would.
func TestAtChecksIndex(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("At(s, len(s)) did not panic")
		}
	}()
	At(make([]byte, 3), 3)
}

// BenchmarkAt measures a hint's cost on memory already in cache.
func BenchmarkAt(b *testing.B) {
	s := make([]uint32, 1024)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		At(s, i&1023)
	}
}

// TestIndexesChangesNothing hints lists of indexes, some outside the slice
// or below lo, and checks that nothing changed (a hint outside the slice is
// skipped, not made).
func TestIndexesChangesNothing(t *testing.T) {
	type wide struct{ a, b, c uint32 }
	s := make([]wide, 100)
	for i := range s {
		s[i] = wide{uint32(i), 2, 3}
	}
	idx := []uint32{0, 5, 99, 100, 1 << 31, 1<<32 - 1, 7}
	for _, lo := range []uint32{0, 5, 1 << 31} {
		Indexes(s, idx, lo)
		Indexes(s, nil, lo)
		Indexes(s[:0], idx, lo)
	}
	for i, v := range s {
		if v != (wide{uint32(i), 2, 3}) {
			t.Fatalf("s[%d] = %v after the hints", i, v)
		}
	}
}

// TestStridedChangesNothing hints records of three words, some outside the
// slice, and checks that nothing changed.
func TestStridedChangesNothing(t *testing.T) {
	s := make([]uint64, 30)
	for i := range s {
		s[i] = uint64(i)
	}
	Strided(s, 3, []uint32{0, 9, 10, 1 << 31}, 0)
	Strided(s, 3, []uint32{0, 9, 10}, 1)
	Strided(s, 31, []uint32{0}, 0)
	for i, v := range s {
		if v != uint64(i) {
			t.Fatalf("s[%d] = %d after the hints", i, v)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Strided with stride 0 did not panic")
		}
	}()
	Strided(s, 0, []uint32{0}, 0)
}

// BenchmarkIndexes measures hinting eight elements of a slice in cache in
// one call.
func BenchmarkIndexes(b *testing.B) {
	s := make([]uint32, 1024)
	idx := []uint32{1, 100, 200, 300, 400, 500, 600, 700}
	b.ReportAllocs()
	for b.Loop() {
		Indexes(s, idx, 0)
	}
}

// BenchmarkRandomCounts increments counters at random places in 32 MB, as
// building an index does, plainly and with the counters 64 increments ahead
// hinted eight at a time (Indexes): ns/elem is the time an increment.
//
//	go test ./internal/prefetch -run '^$' -bench RandomCounts -benchtime 20x
func BenchmarkRandomCounts(b *testing.B) {
	const n = 1 << 23
	r := rand.New(rand.NewPCG(1, 2))
	idx := make([]uint32, 1<<20)
	for i := range idx {
		idx[i] = uint32(r.IntN(n))
	}
	cnt := make([]uint32, n)
	for _, hinted := range []bool{false, true} {
		b.Run(fmt.Sprintf("hinted=%v", hinted), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < len(idx); i += 8 {
					if j := i + 64; hinted && j+8 <= len(idx) {
						Indexes(cnt, idx[j:j+8], 0)
					}
					for _, w := range idx[i : i+8] {
						cnt[w]++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(idx)), "ns/elem")
		})
	}
}
