package cpuprofile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStart: a profile is written to the file when stopped; a second
// profile while one runs, or a file that cannot be created, is an error;
// no path profiles nothing.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	stop, err := Start(path)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Start(filepath.Join(dir, "second.pprof"))
	if err == nil {
		t.Error("a second profile started while one ran")
	}
	second() // does nothing: the first profile goes on
	stop()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("profile %v, %v; want a non-empty file", st, err)
	}
	if _, err := Start(filepath.Join(dir, "no", "such", "dir")); err == nil {
		t.Error("a profile started into a file that cannot be created")
	}
	none, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	none()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 { // cpu.pprof; second.pprof removed when refused
		t.Errorf("files %v", entries)
	}
}
