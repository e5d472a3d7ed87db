package index

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/google/btree"
	"github.com/kelindar/bitmap"
)

// BenchmarkMutablePostings measures the mutable part's postings as the
// writer and the readers use them: insert the prefix postings of 1,000
// records (Zipf-distributed tokens), publish a snapshot, and probe 200
// tokens' postings, repeated. impl=btree is the library alternative
// (google/btree: a snapshot is a lazy copy-on-write Clone, readers need no
// lock); impl=map is what the index keeps, a map of posting slices under a
// read-write lock (readers lock and skip rows past their snapshot).
//
//	go test ./index -run '^$' -bench MutablePostings
func BenchmarkMutablePostings(b *testing.B) {
	const batch, vocab = 1000, 5000
	r := rand.New(rand.NewPCG(1, 1))
	z := rand.NewZipf(r, 1.2, 1, vocab-1)
	toks := make([]uint32, 64*batch)
	for i := range toks {
		toks[i] = uint32(z.Uint64())
	}
	for _, rows := range []int{16 << 10, 64 << 10} {
		b.Run("impl=btree/rows="+itoa(rows), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tree := btree.NewG(32, lessItem)
				var snap *btree.BTreeG[mitem]
				found := 0
				for row := 0; row < rows; row++ {
					for k := 0; k < 3; k++ {
						w := toks[(row*3+k)%len(toks)]
						tree.ReplaceOrInsert(mitem{key: uint64(w), row: uint32(row), pos: uint32(k), size: 8})
					}
					if row%batch == batch-1 {
						snap = tree.Clone()
						for p := 0; p < 200; p++ {
							w := toks[(row+p*7)%len(toks)]
							snap.AscendGreaterOrEqual(mitem{key: uint64(w)}, func(it mitem) bool {
								if it.key != uint64(w) {
									return false
								}
								found++
								return true
							})
						}
					}
				}
				_ = found
			}
		})
		b.Run("impl=map/rows="+itoa(rows), func(b *testing.B) {
			b.ReportAllocs()
			type post struct{ row, pos, size uint32 }
			for b.Loop() {
				var mu sync.RWMutex
				m := make(map[uint32][]post)
				found, n := 0, 0
				for row := 0; row < rows; row++ {
					mu.Lock()
					for k := 0; k < 3; k++ {
						w := toks[(row*3+k)%len(toks)]
						m[w] = append(m[w], post{uint32(row), uint32(k), 8})
					}
					mu.Unlock()
					if row%batch == batch-1 {
						n = row + 1
						for p := 0; p < 200; p++ {
							w := toks[(row+p*7)%len(toks)]
							mu.RLock()
							for _, ps := range m[w] {
								if int(ps.row) < n {
									found++
								}
							}
							mu.RUnlock()
						}
					}
				}
				_ = found
			}
		})
	}
}

// BenchmarkIDSet measures the membership tests of tombstones and of a
// search's Only/Exclude filter: 1M ids, 10% set, random lookups.
// impl=kelindar is what the index keeps (kelindar/bitmap); impl=words is the
// same bits as plain []uint64 words; impl=map a map of ids.
//
//	go test ./index -run '^$' -bench IDSet
func BenchmarkIDSet(b *testing.B) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(2, 2))
	var bm bitmap.Bitmap
	words := make([]uint64, n/64)
	m := make(map[uint32]struct{})
	for i := 0; i < n/10; i++ {
		x := uint32(r.IntN(n))
		bm.Set(x)
		words[x>>6] |= 1 << (x & 63)
		m[x] = struct{}{}
	}
	look := make([]uint32, 4096)
	for i := range look {
		look[i] = uint32(r.IntN(n))
	}
	b.Run("impl=kelindar", func(b *testing.B) {
		b.ReportAllocs()
		hits := 0
		for b.Loop() {
			for _, x := range look {
				if bm.Contains(x) {
					hits++
				}
			}
		}
		_ = hits
	})
	b.Run("impl=words", func(b *testing.B) {
		b.ReportAllocs()
		hits := 0
		for b.Loop() {
			for _, x := range look {
				if words[x>>6]&(1<<(x&63)) != 0 {
					hits++
				}
			}
		}
		_ = hits
	})
	b.Run("impl=map", func(b *testing.B) {
		b.ReportAllocs()
		hits := 0
		for b.Loop() {
			for _, x := range look {
				if _, ok := m[x]; ok {
					hits++
				}
			}
		}
		_ = hits
	})
}

func itoa(n int) string {
	if n >= 1<<10 && n%(1<<10) == 0 {
		return itoa(n>>10) + "k"
	}
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}

// BenchmarkAddedTokens measures the dictionary's tokens added since the
// last checkpoint as the index uses them: add the new tokens of a batch
// (1,000), publish a snapshot, look up 4,000 keys (half of them added),
// until 64,000 tokens are added. impl=btree is the library alternative
// (google/btree, a lazy copy-on-write Clone per snapshot, lock-free reads);
// impl=map is what the index keeps, a map under a read-write lock (readers
// ignore ids past their snapshot).
//
//	go test ./index -run '^$' -bench AddedTokens
func BenchmarkAddedTokens(b *testing.B) {
	const total, batch = 64000, 1000
	keys := make([]uint64, total)
	r := rand.New(rand.NewPCG(3, 3))
	for i := range keys {
		keys[i] = r.Uint64()
	}
	b.Run("impl=btree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tree := btree.NewG(32, func(x, y [2]uint64) bool { return x[0] < y[0] })
			hits, n := 0, uint64(0)
			for lo := 0; lo < total; lo += batch {
				for _, k := range slices.Sorted(slices.Values(keys[lo : lo+batch])) {
					if _, ok := tree.Get([2]uint64{k}); !ok {
						tree.ReplaceOrInsert([2]uint64{k, n})
						n++
					}
				}
				snap := tree.Clone()
				for k := 0; k < 4000; k++ {
					if _, ok := snap.Get([2]uint64{keys[(lo+k*7)%total]}); ok {
						hits++
					}
				}
			}
		}
	})
	b.Run("impl=map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d := dict{added: newAdded()}
			hits := 0
			for lo := 0; lo < total; lo += batch {
				d.add(slices.Sorted(slices.Values(keys[lo : lo+batch])))
				snap := d.snapshot()
				for k := 0; k < 4000; k++ {
					if _, ok := snap.lookup(keys[(lo+k*7)%total]); ok {
						hits++
					}
				}
			}
		}
	})
}
