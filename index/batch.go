package index

import (
	"cmp"
	"context"
	"slices"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/parallel"
)

// Batched band lookups (Milvus's mh_lsh_batch_search): the queries of one
// LSH search share their band table lookups. For each segment and band,
// the queries' band keys are sorted and walked against the table (sorted
// by key) in one pass, each found by galloping from where the last one
// ended, so that a batch touches each table's pages in order, once, and
// identical keys are looked up once; a query then reads its buckets from
// the ranges found. A search of fewer than batchLookups queries looks each
// key up by itself (a binary search per band and segment).

// batchLookups is the fewest queries whose band lookups are shared. Can
// change for testing.
var batchLookups = 16

// bucketRange is a bucket of a band table: entries [lo, hi) of the band's
// table.
type bucketRange struct{ lo, hi uint32 }

// keyQuery is one query's key in one band.
type keyQuery struct {
	key uint64
	q   int32
}

// bandKeys returns the band keys of the packed signature row, one a band.
func bandKeys(cfg *Config, row []byte, keys []uint64) []uint64 {
	bb := cfg.Rows * cfg.Bits / 8
	for j := 0; j < cfg.Bands; j++ {
		keys = append(keys, approx.BandKey(row[j*bb:(j+1)*bb], j))
	}
	return keys
}

// lookupBands finds the buckets of queries qs (prepared: their rows) in
// every band table of every segment of st: the answer's [i][s*bands+j] is
// query i's bucket in band j of segment s (empty when its band filter says
// the table cannot hold it, or for an empty query). The (segment, band)
// tables are shared out on workers. Cost per table: sorting the queries'
// keys and one galloping pass, O(q log q + q log(n/q)) for q queries and a
// table of n entries, against O(q log n) for q binary searches.
func (st *state) lookupBands(ctx context.Context, qs []query, workers int) ([][]bucketRange, error) {
	cfg := st.cfg
	bands := cfg.Bands
	keys := make([]uint64, 0, len(qs)*bands)
	for i := range qs {
		keys = bandKeys(cfg, qs[i].row, keys)
	}
	ranges := make([][]bucketRange, len(qs))
	flat := make([]bucketRange, len(qs)*len(st.segs)*bands)
	for i := range ranges {
		ranges[i] = flat[i*len(st.segs)*bands : (i+1)*len(st.segs)*bands]
	}
	tasks := len(st.segs) * bands
	err := parallel.For(ctx, tasks, 1, workers, func(_, a, b int) {
		var kq []keyQuery
		for t := a; t < b; t++ {
			si, j := t/bands, t%bands
			s := st.segs[si]
			kq = kq[:0]
			for i := range qs {
				if k := keys[i*bands+j]; len(qs[i].keys) > 0 && s.mayHold(j, k) {
					kq = append(kq, keyQuery{k, int32(i)})
				}
			}
			slices.SortFunc(kq, func(x, y keyQuery) int { return cmp.Compare(x.key, y.key) })
			base := s.boff[j]
			tab := s.bent[base:s.boff[j+1]]
			pos := 0
			for k := 0; k < len(kq); {
				key := kq[k].key
				lo := gallop(tab, pos, key)
				hi := lo
				for hi < len(tab) && tab[hi].key == key {
					hi++
				}
				pos = hi
				for ; k < len(kq) && kq[k].key == key; k++ {
					ranges[kq[k].q][si*bands+j] = bucketRange{base + uint32(lo), base + uint32(hi)}
				}
			}
		}
	})
	return ranges, err
}

// gallop returns the first index at or after pos of tab (sorted by key)
// whose key is at least key: steps of 1, 2, 4, ... from pos, then a binary
// search in the last step.
func gallop(tab []bandEntry, pos int, key uint64) int {
	if pos >= len(tab) || tab[pos].key >= key {
		return pos
	}
	lo, step := pos, 1 // tab[lo].key < key
	for lo+step < len(tab) && tab[lo+step].key < key {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(tab)) // tab[hi].key >= key, or the end
	i, _ := slices.BinarySearchFunc(tab[lo+1:hi], key, func(e bandEntry, k uint64) int { return cmp.Compare(e.key, k) })
	return lo + 1 + i
}
