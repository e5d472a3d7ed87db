// Package prefetch asks the processor to bring memory into its caches ahead
// of use: a hint that returns at once, where a load of the same address would
// hold up the instructions behind it until the memory arrives. Joins use it
// to overlap the cache misses of the next lookups with the work at hand
// (software pipelining).
//
// On amd64 a hint is PREFETCHT0 and on arm64 PRFM PLDL1KEEP, behind a call
// that is not inlined; Indexes hints a whole list in one call, which is
// what the hot loops use (a call of a few nanoseconds for several hints,
// against the hundred or so nanoseconds of each miss to memory). Elsewhere
// the calls do nothing. A hint never faults and never changes what a program
// computes.
package prefetch

import "unsafe"

// At hints that s[i] will be read soon. i must be an index of s (it is
// checked as an index is).
func At[T any](s []T, i int) { addr(unsafe.Pointer(&s[i])) }

// Indexes hints that s[v-lo] will be read soon for every v of idx with
// lo <= v < lo+len(s); other values are skipped. Cost: one call, then a few
// instructions a value.
func Indexes[T any](s []T, idx []uint32, lo uint32) { Strided(s, 1, idx, lo) }

// Strided is Indexes for records of stride elements each: it hints
// s[(v-lo)*stride], the first element of record v-lo, for every v of idx
// below lo+len(s)/stride (and not below lo). stride must be at least 1.
func Strided[T any](s []T, stride int, idx []uint32, lo uint32) {
	if stride < 1 {
		panic("prefetch: stride below 1")
	}
	if len(s) < stride || len(idx) == 0 {
		return
	}
	var zero T
	indexes(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s)/stride), unsafe.Sizeof(zero)*uintptr(stride), unsafe.SliceData(idx), len(idx), lo)
}
