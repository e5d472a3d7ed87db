package prefetch

import "unsafe"

//go:noescape
func indexes(base unsafe.Pointer, n, size uintptr, idx *uint32, m int, lo uint32)
