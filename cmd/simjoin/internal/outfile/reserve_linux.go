package outfile

import (
	"errors"
	"os"
	"syscall"
)

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate blocks without changing
// the file's length.
const fallocKeepSize = 1

// fallocate is fallocate(2). Can change for testing.
var fallocate = syscall.Fallocate

// reserve allocates the blocks of the first size bytes of f without
// changing its contents or length, so that writing them cannot fail for
// want of space (fallocate(2) with FALLOC_FL_KEEP_SIZE). A file system
// without fallocate gets a check of its free space instead. On a failure
// the blocks allocated past the end are given back.
func reserve(f *os.File, size int64) error {
	if size == 0 {
		return nil
	}
	err := fallocate(int(f.Fd()), fallocKeepSize, 0, size)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
		return roomFor(f, size)
	}
	if st, serr := f.Stat(); serr == nil {
		f.Truncate(st.Size()) // frees the blocks allocated past the end
	}
	return err
}

// roomFor returns ENOSPC when the file system of f has fewer free blocks
// than writing size bytes over f needs beyond those f holds.
func roomFor(f *os.File, size int64) error {
	var fs syscall.Statfs_t
	st, err := f.Stat()
	if err != nil || syscall.Fstatfs(int(f.Fd()), &fs) != nil {
		return nil // nothing to judge by: the copy finds out
	}
	if grow := size - st.Size(); grow > 0 && uint64(grow) > fs.Bavail*uint64(fs.Bsize) {
		return syscall.ENOSPC
	}
	return nil
}
