package approx

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/keymap"
)

// BenchmarkBandLookup finds a signature's bucket in one band table, as every
// probe of an R-S join or a query does once a band: the sorted table the
// package keeps (a binary search, then the run), against the project's hash
// table (internal/keymap) from a bucket's key to its run, which would sit
// beside the sorted entries (the self-join walks the buckets in key order,
// so the entries stay sorted either way). Half the lookups find a bucket.
// B/unit is the memory of the lookup structure a unit: the sorted entries
// alone, or the map's slots on top of them.
//
//	go test ./approx -run '^$' -bench BandLookup
func BenchmarkBandLookup(b *testing.B) {
	for _, units := range []int{100_000, 1_000_000} {
		r := rand.New(rand.NewPCG(5, 5))
		tab := make([]entry, units)
		for u := range tab {
			// About one unit in four shares its bucket with others.
			k := r.Uint64()
			if r.IntN(4) == 0 {
				k = uint64(r.IntN(units/16)) * 0x9e3779b97f4a7c15
			}
			tab[u] = entry{key: k, unit: uint32(u)}
		}
		slices.SortFunc(tab, compareEntries)
		t := &tables{band: [][]entry{tab}}
		var runs keymap.Map[uint64]
		runs.Init(units)
		for lo := 0; lo < len(tab); {
			hi := runEnd(tab, lo)
			v, _ := runs.Insert(tab[lo].key)
			*v = uint64(lo)<<32 | uint64(hi)
			lo = hi
		}
		queries := make([]uint64, 1<<16)
		for i := range queries {
			if i%2 == 0 {
				queries[i] = tab[r.IntN(units)].key
			} else {
				queries[i] = r.Uint64()
			}
		}
		b.Run(fmt.Sprintf("units=%d/impl=sorted", units), func(b *testing.B) {
			b.ReportAllocs()
			found, i := 0, 0
			for b.Loop() {
				lo, hi := t.lookup(0, queries[i&(len(queries)-1)])
				found += hi - lo
				i++
			}
			b.ReportMetric(float64(found)/float64(b.N), "units/op")
			b.ReportMetric(16, "B/unit")
		})
		b.Run(fmt.Sprintf("units=%d/impl=keymap", units), func(b *testing.B) {
			b.ReportAllocs()
			found, i := 0, 0
			for b.Loop() {
				v, _ := runs.Find(queries[i&(len(queries)-1)])
				found += int(uint32(v)) - int(v>>32)
				i++
			}
			b.ReportMetric(float64(found)/float64(b.N), "units/op")
			b.ReportMetric(16+16*float64(len(runs.Slots()))/float64(units), "B/unit")
		})
	}
}
