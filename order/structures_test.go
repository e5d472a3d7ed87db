package order

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/btree"
)

// BenchmarkVocabulary measures entering token keys and counting their
// document frequencies, as Input does for every token read: the sharded
// open-addressing table the package keeps, the runtime's map, and
// google/btree (which would also give the keys in order, which the
// dictionary does not need: it orders by frequency).
//
//	go test ./order -run '^$' -bench Vocabulary
func BenchmarkVocabulary(b *testing.B) {
	for _, distinct := range []int{1 << 17, 1 << 21} {
		b.Run(fmt.Sprintf("distinct=%d", distinct), func(b *testing.B) { benchVocabulary(b, 1<<22, distinct) })
	}
}

func benchVocabulary(b *testing.B, tokens, distinct int) {
	r := rand.New(rand.NewPCG(3, 3))
	keys := make([]uint64, tokens)
	for i := range keys {
		keys[i] = r.Uint64N(uint64(distinct)) * 0x9e3779b97f4a7c15
	}
	b.Run("impl=table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v vocab
			v.prepare()
			for _, k := range keys {
				v.add(k)
			}
		}
	})
	b.Run("impl=map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := map[uint64]uint32{}
			for _, k := range keys {
				m[k]++
			}
		}
	})
	type entry struct {
		key uint64
		df  uint32
	}
	b.Run("impl=btree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := btree.NewG(32, func(a, b entry) bool { return a.key < b.key })
			for _, k := range keys {
				e, ok := t.Get(entry{key: k})
				e.key = k
				if ok {
					e.df++
				} else {
					e.df = 1
				}
				t.ReplaceOrInsert(e)
			}
		}
	})
}
