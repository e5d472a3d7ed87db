// Package hugepage asks the operating system to back large arrays with huge
// pages (2 MiB on amd64 Linux) instead of 4 KiB ones.
package hugepage

import "unsafe"

// MinBytes is the size from which Advise advises: below it an array spans
// few huge pages, and the advice would cost more than it saves.
const MinBytes = 8 << 20

// Advise advises that the memory of s be backed by huge pages, on Linux
// (madvise MADV_HUGEPAGE over the 2 MiB-aligned part of s), when s holds at
// least MinBytes; elsewhere, or for smaller arrays, it does nothing. It is
// advice: it never changes what s holds, and a kernel that ignores it (or
// transparent huge pages turned off) leaves the array as it was. Call it
// before the array is first written, so that its pages are made huge when
// they are first touched.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	var zero T
	n := uintptr(len(s)) * unsafe.Sizeof(zero)
	if n < MinBytes {
		return
	}
	advise(unsafe.Pointer(unsafe.SliceData(s)), n)
}
