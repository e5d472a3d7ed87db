package parallel

import (
	"runtime"
	"testing"
)

func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, tc := range []struct{ in, want int }{
		{0, procs}, {-3, procs}, {1, 1}, {procs, procs},
		{PerProc * procs, PerProc * procs}, {PerProc*procs + 1, PerProc * procs},
		{1 << 40, PerProc * procs}, {int(^uint(0) >> 1), PerProc * procs},
	} {
		if got := Workers(tc.in); got != tc.want {
			t.Errorf("Workers(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
