package hugepage

import "syscall"

// madviseAllowed reports the error of a MADV_HUGEPAGE advice on a mapping
// of its own (a sandbox may refuse the call, which Advise ignores).
func madviseAllowed() error {
	b, err := syscall.Mmap(-1, 0, 2*huge, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer syscall.Munmap(b)
	return syscall.Madvise(b, madvHugepage)
}
