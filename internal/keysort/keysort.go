package keysort

import (
	"context"
	"math/bits"
	"slices"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
)

// Sorter holds the scratch memory of SortDistinct and SortIDs; the zero value
// is ready.
// A Sorter is not safe for concurrent use: keep one per goroutine.
type Sorter struct {
	counts []uint32
	buf    []uint64
	ids    []uint32 // SortIDs' second buffer
}

// small is the bucket size above which a bucket is sorted by slices.Sort
// (insertion sort below it).
const small = 48

// direct is the length below which SortDistinct sorts by insertion without
// buckets. From about 16 hashed keys on, sixteen buckets and insertion sorts
// of about two keys each beat both insertion sort and slices.Sort (2-4x at
// 20-80 keys, the sets of typical records).
const direct = 16

// SortDistinct sorts keys ascending in place, removes repeated keys and
// returns the distinct keys, a prefix of keys: a bucket sort on the keys'
// top bits (about two keys a bucket), then one insertion sort over all the
// buckets when none holds more than 48 keys, or a sort of each bucket (by
// insertion, or slices.Sort over 48 keys) otherwise. Cost: O(k) expected for
// k hashed keys, O(k log k) at worst; no allocation once the scratch has
// grown to the largest record.
func (s *Sorter) SortDistinct(keys []uint64) []uint64 {
	n := len(keys)
	if n < direct {
		insertion(keys)
		return slices.Compact(keys)
	}
	// About two keys a bucket: 2^b >= n/2, b in [4, 16].
	b := min(max(bits.Len(uint(n/2)), 4), 16)
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
	largest := uint32(0)
	for i := 1; i <= nb; i++ {
		largest = max(largest, counts[i])
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
	if largest <= small {
		// One insertion sort over all the buckets: a key moves only within
		// its bucket, so it costs O(n·largest), without a loop per bucket
		// (whose branches mispredict on buckets of random sizes).
		insertion(buf)
		for _, k := range buf {
			if out == 0 || keys[out-1] != k {
				keys[out] = k
				out++
			}
		}
		return keys[:out]
	}
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

// insertion sorts a few keys or ids by straight insertion.
func insertion[T uint32 | uint64](a []T) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i
		for ; j > 0 && a[j-1] > v; j-- {
			a[j] = a[j-1]
		}
		a[j] = v
	}
}

// radixMin is the length from which SortIDs sorts by radix: below it,
// insertion sort costs no more than clearing and summing 256 counters a pass.
const radixMin = 64

// SortIDs sorts ids, dense token ids all below limit, ascending in place: a
// least-significant-digit radix sort on bytes, one counting pass and one
// scatter per byte that limit needs (three for ids below 2^24), stable and
// branch-free where a comparison sort mispredicts half its branches on
// random ids. Records of fewer than radixMin ids are sorted by insertion,
// which is faster there than the passes' fixed 256 counters and, on the
// short sets of most collections (10 to 50 ids), about twice as fast as
// slices.Sort (BenchmarkSortIDs). Cost: O(n·⌈log₂₅₆ limit⌉ + 256 per pass),
// O(n²) below radixMin; no allocation once the scratch has grown to the
// largest record.
func (s *Sorter) SortIDs(ids []uint32, limit uint32) {
	n := len(ids)
	if n < radixMin {
		insertion(ids)
		return
	}
	if cap(s.ids) < n {
		s.ids = make([]uint32, n)
	}
	src, dst := ids, s.ids[:n]
	for shift := 0; shift < bits.Len32(limit); shift += 8 {
		if n < pairedMin {
			scatter(src, dst, shift)
		} else {
			scatterPaired(src, dst, shift)
		}
		src, dst = dst, src
	}
	if &src[0] != &ids[0] {
		copy(ids, src)
	}
}

// pairedMin is the length from which SortIDs scatters by scatterPaired:
// below it the second set of counters costs more than it saves
// (BenchmarkSortIDs: at 300 random ids 1.4 times as long; at 1,700 random
// ids 0.85 to 1.03 times in two runs, clustered ids 0.79).
const pairedMin = 1024

// scatter writes src to dst stably sorted by the byte of each id at shift:
// a count of each digit, then each id placed after the ids before it with
// its digit.
func scatter(src, dst []uint32, shift int) {
	var counts [256]uint32
	for _, v := range src {
		counts[byte(v>>shift)]++
	}
	var sum uint32
	for d, c := range counts {
		counts[d] = sum
		sum += c
	}
	for _, v := range src {
		d := byte(v >> shift)
		dst[counts[d]] = v
		counts[d]++
	}
}

// scatterPaired is scatter taking src in two halves, each with counters of
// its own, the second half's ids of a digit placed after the first's (so
// it stays stable): two chains of counter updates interleave where one
// would wait on itself whenever neighbouring ids share the digit, as the
// high digits of ids below a few million mostly do, and more so the ids of
// a document's own tokens, numbered together (BenchmarkSortIDs at 20,000
// random ids: 0.76 times as long; BenchmarkSortIDsClustered at 1,700:
// 0.79, at 20,000: 0.66; BENCHMARKS.md).
func scatterPaired(src, dst []uint32, shift int) {
	half := len(src) / 2
	lo, hi := src[:half], src[half:]
	var ca, cb [256]uint32
	for i, v := range lo {
		ca[byte(v>>shift)]++
		cb[byte(hi[i]>>shift)]++
	}
	for _, v := range hi[half:] { // the odd one out, if any
		cb[byte(v>>shift)]++
	}
	var sum uint32
	for d := range ca {
		a, b := ca[d], cb[d]
		ca[d], cb[d] = sum, sum+a
		sum += a + b
	}
	for i, x := range lo {
		y := hi[i]
		dx, dy := byte(x>>shift), byte(y>>shift)
		dst[ca[dx]] = x
		ca[dx]++
		dst[cb[dy]] = y
		cb[dy]++
	}
	for _, v := range hi[half:] {
		dst[cb[byte(v>>shift)]] = v
	}
}

// CountDistinct returns the number of distinct values among keys, which it
// only reads. Keys are first mixed by splitmix64's finaliser (a bijection,
// so distinct keys stay distinct and small or clustered keys spread). While
// they number at most smallDistinct they are counted in a small hash set
// that stays in cache, on the calling goroutine (BenchmarkCountDistinct,
// 6M keys of 50,000 values: 27-48 ms against the sort's 47-128 ms, 2.1 MB
// allocated against 49.5 MB). Past that,
// they are sorted on workers goroutines (parallel.Workers; 0 means
// GOMAXPROCS): scattered by their top byte into 256 buckets, each bucket
// sorted by SortDistinct on the remaining 56 bits. Cost: O(n) expected; the
// sort's two passes and one sort of each bucket take 8 bytes a key, the set
// 2 MiB, and the keys read before the set overflows are read again.
func CountDistinct(keys []uint64, workers int) int {
	if n, ok := countSmall(keys, smallDistinct); ok {
		return n
	}
	var start [257]int
	for _, k := range keys {
		start[mix.Mix64(k)>>56+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	buf := make([]uint64, len(keys))
	next := start
	for _, k := range keys {
		m := mix.Mix64(k)
		buf[next[m>>56]] = m << 8
		next[m>>56]++
	}
	counts := make([]int, parallel.Workers(workers))
	sorters := make([]Sorter, len(counts))
	parallel.For(context.Background(), 256, 1, workers, func(w, lo, hi int) {
		for b := lo; b < hi; b++ {
			counts[w] += len(sorters[w].SortDistinct(buf[start[b]:start[b+1]]))
		}
	})
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// smallDistinct is the most distinct keys CountDistinct counts in a hash
// set: its table, at most half full, grows to 2 MiB.
const smallDistinct = 1 << 17

// countSmall counts the distinct keys in an open-addressing set of their
// mixes (linear probing, at most half full, doubled as it fills from 1,024
// slots; the mix 0, of key 0, counted apart) while they are at most limit;
// ok is false, and n meaningless, once they pass it.
func countSmall(keys []uint64, limit int) (n int, ok bool) {
	table := make([]uint64, 1<<10)
	mask := uint64(len(table) - 1)
	add := func(m uint64) bool { // reports whether m is new
		for i := m & mask; ; i = (i + 1) & mask {
			switch table[i] {
			case m:
				return false
			case 0:
				table[i] = m
				return true
			}
		}
	}
	zero := false
	for _, k := range keys {
		m := mix.Mix64(k)
		switch {
		case m == 0:
			if !zero {
				zero = true
				n++
			}
		case add(m):
			if n++; n > limit {
				return n, false
			}
			if 2*n > len(table) {
				old := table
				table = make([]uint64, 2*len(old))
				mask = uint64(len(table) - 1)
				for _, m := range old {
					if m != 0 {
						add(m)
					}
				}
			}
		}
	}
	return n, true
}
