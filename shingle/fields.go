package shingle

import (
	"encoding/binary"
	"math/bits"
)

// appendFields appends the key of every whitespace-separated field of
// record: HashString of the field, for the white space of isSpace.
//
// It is the hot path of Set (one key a token, such as decimal integers), so
// it departs from the obvious loop in two ways, neither changing a key:
//
//   - Fields are found eight bytes at a time: a word whose bytes are all
//     above ' ' (no white space can be among them) is skipped in one step,
//     and the first byte at or below ' ' is located with bit arithmetic and
//     then tested exactly.
//   - Four fields are hashed at once, their FNV-1a chains interleaved byte
//     by byte: each chain waits on a multiplication per byte, and four
//     independent chains keep the multiplier busy instead of idle.
//
// Cost: O(len(record)); no allocation beyond the growth of dst.
func appendFields(dst []uint64, record string) []uint64 {
	var from, to [4]int
	i, n := 0, len(record)
	for {
		k := 0
		for ; k < 4; k++ {
			for i < n && isSpace(record[i]) {
				i++
			}
			if i == n {
				break
			}
			from[k] = i
			i = fieldEnd(record, i+1)
			to[k] = i
		}
		if k < 4 {
			for f := 0; f < k; f++ {
				dst = append(dst, HashString(record[from[f]:to[f]]))
			}
			return dst
		}
		dst = hash4(dst, record[from[0]:to[0]], record[from[1]:to[1]], record[from[2]:to[2]], record[from[3]:to[3]])
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// fieldEnd returns the index of the first white-space byte of s at or after
// i, or len(s).
func fieldEnd(s string, i int) int {
	for i+8 <= len(s) {
		w := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		// A byte below 0x21 sets its high bit here (bytes above it may be
		// set too, by a borrow, but never one before the first such byte).
		m := (w - 0x21*ones) &^ w & highs
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)/8
		if isSpace(s[j]) {
			return j
		}
		// A control byte that is not white space: part of the field.
		i = j + 1
	}
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return i
}

// hash4 appends HashString of a, b, c and d, computed side by side.
func hash4(dst []uint64, a, b, c, d string) []uint64 {
	ha, hb, hc, hd := uint64(hashInit), uint64(hashInit), uint64(hashInit), uint64(hashInit)
	m := min(len(a), len(b), len(c), len(d))
	a, b, c, d = a[:len(a)], b[:len(b)], c[:len(c)], d[:len(d)]
	for p := 0; p < m; p++ {
		ha = (ha ^ uint64(a[p])) * hashPrime
		hb = (hb ^ uint64(b[p])) * hashPrime
		hc = (hc ^ uint64(c[p])) * hashPrime
		hd = (hd ^ uint64(d[p])) * hashPrime
	}
	ha, hb, hc, hd = hashFrom(ha, a[m:]), hashFrom(hb, b[m:]), hashFrom(hc, c[m:]), hashFrom(hd, d[m:])
	return append(dst, finish(ha), finish(hb), finish(hc), finish(hd))
}
