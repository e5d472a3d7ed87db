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
	for _, n := range []int{0, 1, 2, 15, 16, 17, 30, 47, 48, 49, 100, 1000, 5000, 70000} {
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

// TestSortIDs checks SortIDs against slices.Sort on every size up to a few
// hundred and on long records, for limits that need one to four passes, ids
// distinct or repeated.
func TestSortIDs(t *testing.T) {
	seed := uint64(78)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	var s Sorter
	for _, limit := range []uint32{1, 2, 200, 1 << 8, 1<<8 + 1, 70000, 1 << 24, 5_000_000, 1<<32 - 1} {
		for _, n := range append([]int{0, 1, 2, 3, 10, 30, 50, radixMin - 1, radixMin, radixMin + 1, 300, pairedMin - 1, pairedMin, pairedMin + 1, 5000, 5001}, r.IntN(4000)) {
			ids := make([]uint32, n)
			for i := range ids {
				ids[i] = uint32(r.Uint64N(uint64(limit)))
			}
			want := slices.Clone(ids)
			slices.Sort(want)
			s.SortIDs(ids, limit)
			if !slices.Equal(ids, want) {
				t.Fatalf("limit %d, %d ids: not sorted like slices.Sort", limit, n)
			}
		}
	}
}

func FuzzSortIDs(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0}, uint32(3))
	f.Add(make([]byte, 4*200), uint32(1))
	var s Sorter
	f.Fuzz(func(t *testing.T, data []byte, limit uint32) {
		if limit == 0 {
			limit = 1
		}
		ids := make([]uint32, len(data)/4)
		for i := range ids {
			ids[i] = binary.LittleEndian.Uint32(data[4*i:]) % limit
		}
		want := slices.Clone(ids)
		slices.Sort(want)
		if s.SortIDs(ids, limit); !slices.Equal(ids, want) {
			t.Fatalf("limit %d, %d ids: not sorted like slices.Sort", limit, len(ids))
		}
	})
}

// BenchmarkSortIDs sorts a record's distinct ids drawn from a vocabulary of
// 4M (the Go tree's), as order does after rewriting a set to final ids. Each
// op sorts the next of 1,024 different records (one record sorted over and
// over would teach the branch predictor its order, which flatters the
// comparison sorts on short records).
//
//	go test ./internal/keysort -run '^$' -bench SortIDs -benchtime 20000x
func BenchmarkSortIDs(b *testing.B) {
	const limit = 4_000_000
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{10, 30, 50, 63, 64, 128, 300, 1700, 20000} {
		recs := make([][]uint32, max(1, min(1024, 1<<20/n)))
		for k := range recs {
			recs[k] = make([]uint32, n)
			for i := range recs[k] {
				recs[k][i] = uint32(r.Uint64N(limit))
			}
		}
		var s Sorter
		b.Run("sort=keysort/n="+strconv.Itoa(n), func(b *testing.B) {
			benchSort(b, recs, func(ids []uint32) { s.SortIDs(ids, limit) })
		})
		b.Run("sort=slices/n="+strconv.Itoa(n), func(b *testing.B) {
			benchSort(b, recs, slices.Sort[[]uint32])
		})
	}
}

// benchSort times sort on copies of recs (all of one length), one a loop,
// in turn.
func benchSort(b *testing.B, recs [][]uint32, sort func([]uint32)) {
	work := make([]uint32, len(recs[0]))
	b.ReportAllocs()
	b.SetBytes(int64(4 * len(work)))
	k := 0
	for b.Loop() {
		copy(work, recs[k])
		sort(work)
		k = (k + 1) % len(recs)
	}
}

// BenchmarkSortIDsClustered sorts records whose ids lie in eight narrow
// ranges, in random order: the ids of a document's own tokens after the
// order's rewrite (numbered together, by shard), whose high digits
// neighbouring ids mostly share.
//
//	go test ./internal/keysort -run '^$' -bench SortIDsClustered
func BenchmarkSortIDsClustered(b *testing.B) {
	const limit = 4_000_000
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{300, 1700, 20000} {
		recs := make([][]uint32, max(1, min(1024, 1<<20/n)))
		for k := range recs {
			var base [8]uint32
			for s := range base {
				base[s] = uint32(r.Uint64N(limit - uint64(n)))
			}
			recs[k] = make([]uint32, n)
			for i := range recs[k] {
				recs[k][i] = base[i%8] + uint32(i/8)
			}
			r.Shuffle(n, func(i, j int) { recs[k][i], recs[k][j] = recs[k][j], recs[k][i] })
		}
		var s Sorter
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			benchSort(b, recs, func(ids []uint32) { s.SortIDs(ids, limit) })
		})
	}
}

// TestCountDistinct: the count is that of the sorted, compacted keys, for
// hashed, small, repeated and clustered keys and any number of workers; the
// keys are not changed.
func TestCountDistinct(t *testing.T) {
	seed := uint64(78)
	t.Logf("Using seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, n := range []int{0, 1, 2, 300, 5000, 200000, 2*smallDistinct + 10} {
		for _, kind := range []string{"hashed", "small", "dups", "one", "zero", "late", "limit", "over"} {
			keys := make([]uint64, n)
			for i := range keys {
				switch kind {
				case "hashed":
					keys[i] = r.Uint64()
				case "small":
					keys[i] = r.Uint64N(1 << 12)
				case "dups":
					keys[i] = mix.Mix64(r.Uint64N(uint64(n/3 + 1)))
				case "one":
					keys[i] = 42
				case "zero": // key 0 mixes to 0, the set's empty slot
					keys[i] = r.Uint64N(3)
				case "late": // few distinct keys, then many: the set overflows late
					keys[i] = r.Uint64N(100)
					if i > n/2 {
						keys[i] = uint64(i)
					}
				case "limit": // exactly as many distinct keys as the set counts
					keys[i] = uint64(i % smallDistinct)
				case "over": // one more
					keys[i] = uint64(i % (smallDistinct + 1))
				}
			}
			before := slices.Clone(keys)
			want := len(reference(keys))
			for _, w := range []int{1, 3} {
				if got := CountDistinct(keys, w); got != want {
					t.Errorf("n=%d %s workers=%d: %d distinct, want %d", n, kind, w, got, want)
				}
			}
			if !slices.Equal(keys, before) {
				t.Errorf("n=%d %s: keys changed", n, kind)
			}
		}
	}
}

// BenchmarkCountDistinct counts the distinct keys of a collection's arena:
// n hashed keys drawn from a given number of distinct values (a tenth of
// them repeated, or a vocabulary of 50,000 as LSH's reports count).
func BenchmarkCountDistinct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, distinct int }{{100000, 90000}, {6000000, 5400000}, {6000000, 50000}} {
		n := c.n
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = mix.Mix64(r.Uint64N(uint64(c.distinct)))
		}
		for _, w := range []int{1, 2} {
			b.Run("n="+strconv.Itoa(n)+"/distinct="+strconv.Itoa(c.distinct)+"/workers="+strconv.Itoa(w), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					CountDistinct(keys, w)
				}
			})
		}
	}
}
