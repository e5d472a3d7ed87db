package rusage

import (
	"runtime"
	"testing"
)

// TestGrows: CPU time does not go back while the process works, and the peak
// resident set is at least the heap in use.
func TestGrows(t *testing.T) {
	c0, ok := CPU()
	if !ok {
		t.Skip("no CPU time on", runtime.GOOS)
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	c1, _ := CPU()
	if c1 < c0 {
		t.Errorf("CPU time went back: %v then %v (%d)", c0, c1, x)
	}
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	if rss := PeakRSS(); rss < int64(len(buf)) {
		t.Errorf("peak RSS %d bytes, below the %d just touched", rss, len(buf))
	}
}
