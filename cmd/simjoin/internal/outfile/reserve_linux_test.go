package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInPlaceFullDisk: when the blocks of a hard-linked target's new
// contents cannot be had, the commit fails before the old contents change,
// and before any other output of the Set is renamed into place.
func TestInPlaceFullDisk(t *testing.T) {
	defer func(f func(int, uint32, int64, int64) error) { fallocate = f }(fallocate)
	fallocate = func(int, uint32, int64, int64) error { return syscall.ENOSPC }
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	os.WriteFile(a, []byte("old"), 0o644)
	if err := os.Link(a, b); err != nil {
		t.Skip(err)
	}
	s := NewSet(nil)
	write(t, s, c, "new c") // created first: committed first, were it not for the order
	write(t, s, a, strings.Repeat("new", 1000))
	err := s.Commit()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), a) {
		t.Errorf("Commit: %v, want ENOSPC naming %s", err, a)
	}
	if got := readFile(t, b); got != "old" {
		t.Errorf("the linked file holds %q after a failed commit", got)
	}
	if _, err := os.Stat(c); err == nil {
		t.Error("another output appeared although the commit failed")
	}
	noTemporaries(t, dir)
}
