package hugepage

import (
	"syscall"
	"unsafe"
)

// huge is the size of a huge page on the platforms this package advises.
const huge = 2 << 20

// madvHugepage is MADV_HUGEPAGE.
const madvHugepage = 14

// advise madvises the huge-page-aligned interior of the n bytes at p.
func advise(p unsafe.Pointer, n uintptr) {
	start := uintptr(p)
	lo := (start + huge - 1) &^ (huge - 1)
	hi := (start + n) &^ (huge - 1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = syscall.Madvise(b, madvHugepage)
}
