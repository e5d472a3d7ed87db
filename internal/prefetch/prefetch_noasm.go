//go:build !amd64

package prefetch

import "unsafe"

// indexes hints each element in turn (amd64 does it in one call of its own).
func indexes(base unsafe.Pointer, n, size uintptr, idx *uint32, m int, lo uint32) {
	for _, v := range unsafe.Slice(idx, m) {
		if d := uintptr(v - lo); d < n {
			addr(unsafe.Add(base, d*size))
		}
	}
}
