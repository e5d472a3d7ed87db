package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that holds
// addr, and whether one does.
func vmFlags(t *testing.T, addr uintptr) (string, bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return line, true
		}
	}
	return "", false
}

// TestAdvise checks that a large array's aligned interior is marked for
// huge pages (VmFlags "hg" in smaps) on Linux, that its contents are kept,
// and that a small array is left alone.
func TestAdvise(t *testing.T) {
	s := make([]uint64, 3*MinBytes/8)
	for i := range s {
		s[i] = uint64(i)
	}
	Advise(s)
	for i, v := range s {
		if v != uint64(i) {
			t.Fatalf("element %d is %d after Advise", i, v)
		}
	}
	small := make([]byte, 1<<20)
	Advise(small) // below MinBytes: nothing to check but that it returns
	Advise([]int(nil))
	if runtime.GOOS != "linux" {
		return
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("kernel without transparent huge pages")
	}
	if err := madviseAllowed(); err != nil {
		t.Skip("madvise(MADV_HUGEPAGE) refused here:", err)
	}
	p := uintptr(unsafe.Pointer(&s[0]))
	mid := (p+huge-1)&^(huge-1) + huge // inside the aligned interior
	flags, ok := vmFlags(t, mid)
	if !ok {
		t.Fatalf("no mapping holds %#x", mid)
	}
	if !strings.Contains(flags+" ", " hg ") {
		t.Fatalf("the array's mapping is not advised for huge pages: %s", flags)
	}
	runtime.KeepAlive(s)
}
