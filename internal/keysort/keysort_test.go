package keysort

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
)

func reference(keys []uint64) []uint64 {
	c := slices.Clone(keys)
	slices.Sort(c)
	return slices.Compact(c)
}

func TestSortDistinct(t *testing.T) {
	seed := uint64(77)
	t.Logf("Using seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	var s Sorter
	for _, n := range []int{0, 1, 2, 47, 48, 49, 100, 1000, 5000, 70000} {
		for _, kind := range []string{"hashed", "small", "dups", "sorted", "reversed", "one-bucket"} {
			keys := make([]uint64, n)
			for i := range keys {
				switch kind {
				case "hashed":
					keys[i] = mix.Mix64(r.Uint64())
				case "small":
					keys[i] = r.Uint64N(1 << 21) // packed q-grams: top bits zero
				case "dups":
					keys[i] = mix.Mix64(r.Uint64N(uint64(n/3 + 1)))
				case "sorted", "reversed":
					keys[i] = uint64(i) << 40
				case "one-bucket":
					keys[i] = 0xabc<<52 | r.Uint64N(1<<20)
				}
			}
			if kind == "reversed" {
				slices.Reverse(keys)
			}
			want := reference(keys)
			got := s.SortDistinct(keys)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d %s: %d keys, want %d", n, kind, len(got), len(want))
			}
		}
	}
}

func FuzzSortDistinct(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(make([]byte, 8*200))
	var s Sorter
	f.Fuzz(func(t *testing.T, data []byte) {
		keys := make([]uint64, len(data)/8)
		for i := range keys {
			keys[i] = binary.LittleEndian.Uint64(data[8*i:])
			if i%3 == 0 {
				keys[i] = mix.Mix64(keys[i])
			}
		}
		want := reference(keys)
		if got := s.SortDistinct(keys); !slices.Equal(got, want) {
			t.Fatalf("%d keys: got %d, want %d", len(keys), len(got), len(want))
		}
	})
}

func BenchmarkSortDistinct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{100, 2400, 50000} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = mix.Mix64(r.Uint64N(uint64(n)))
		}
		work := make([]uint64, n)
		b.Run("sort=keysort/n="+strconv.Itoa(n), func(b *testing.B) {
			var s Sorter
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(work, keys)
				s.SortDistinct(work)
			}
		})
		b.Run("sort=slices/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(work, keys)
				slices.Sort(work)
				_ = slices.Compact(work)
			}
		})
	}
}
