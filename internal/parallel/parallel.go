// Package parallel bounds the number of goroutines a call may start.
//
// Every worker count that enters the module (a library Options.Workers, the
// CLI's -j) goes through Workers: 0 or less means GOMAXPROCS, and a count above
// PerProc·GOMAXPROCS is lowered to it. More goroutines than that cannot run
// at once and each costs scratch memory and channel slots, so a count such as
// 1<<40 would only exhaust memory; results never depend on the count.
package parallel

import "runtime"

// PerProc is the most workers a call starts per GOMAXPROCS.
const PerProc = 4

// Workers returns the number of workers to start for a requested n: GOMAXPROCS
// for n <= 0, otherwise n lowered to at most PerProc·GOMAXPROCS. It is safe
// for concurrent use and costs O(1).
func Workers(n int) int {
	procs := runtime.GOMAXPROCS(0)
	if n <= 0 {
		return procs
	}
	return min(n, PerProc*procs)
}
