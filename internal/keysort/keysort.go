package keysort

import (
	"math/bits"
	"slices"
)

// Sorter holds the scratch memory of SortDistinct; the zero value is ready.
// A Sorter is not safe for concurrent use: keep one per goroutine.
type Sorter struct {
	counts []uint32
	buf    []uint64
}

// small is the length below which slices.Sort is used directly, and the
// bucket size above which a bucket is sorted by slices.Sort.
const small = 48

// SortDistinct sorts keys ascending in place, removes repeated keys and
// returns the distinct keys, a prefix of keys. Cost: O(k) expected for k
// hashed keys, O(k log k) at worst; no allocation once the scratch has grown
// to the largest record.
func (s *Sorter) SortDistinct(keys []uint64) []uint64 {
	n := len(keys)
	if n < small {
		slices.Sort(keys)
		return slices.Compact(keys)
	}
	// About four keys a bucket: 2^b >= n/4, b in [4, 16].
	b := min(max(bits.Len(uint(n/4)), 4), 16)
	shift := 64 - b
	nb := 1 << b
	if cap(s.counts) < nb+1 {
		s.counts = make([]uint32, nb+1)
	}
	counts := s.counts[:nb+1]
	clear(counts)
	for _, k := range keys {
		counts[k>>shift+1]++
	}
	for i := 1; i <= nb; i++ {
		counts[i] += counts[i-1]
	}
	if cap(s.buf) < n {
		s.buf = make([]uint64, n)
	}
	buf := s.buf[:n]
	// counts[i] is now the start of bucket i; scatter advances it.
	for _, k := range keys {
		d := k >> shift
		buf[counts[d]] = k
		counts[d]++
	}
	// counts[i] is now the end of bucket i (the start of bucket i+1).
	out := 0
	lo := 0
	for i := 0; i < nb; i++ {
		hi := int(counts[i])
		if hi-lo > 1 {
			bucket := buf[lo:hi]
			if len(bucket) > small {
				slices.Sort(bucket)
			} else {
				insertion(bucket)
			}
		}
		for _, k := range buf[lo:hi] {
			if out == 0 || keys[out-1] != k {
				keys[out] = k
				out++
			}
		}
		lo = hi
	}
	return keys[:out]
}

func insertion(a []uint64) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i
		for ; j > 0 && a[j-1] > v; j-- {
			a[j] = a[j-1]
		}
		a[j] = v
	}
}
