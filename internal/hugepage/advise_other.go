//go:build !linux

package hugepage

import "unsafe"

// huge is the size of a huge page (used by the tests alone here).
const huge = 2 << 20

func advise(p unsafe.Pointer, n uintptr) {}
