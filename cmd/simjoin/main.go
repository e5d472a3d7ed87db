// Command simjoin finds every pair of similar records in a collection.
//
// See README.md for the commands, flags and output formats.
package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the collector's target unless GOGC is set. Almost all of the
// heap is pointer-free arenas, which the collector does not scan, so
// collecting more often costs little; the default (100) lets the heap grow to
// twice the live arenas. Measured on the 1M-set collection of BENCHMARKS.md
// (`simjoin join --method exact -t 0.5`, 30M tokens): peak RSS 700-825 MiB at
// 100 and 525-540 MiB at 25, with the same CPU time within the noise.
const gcPercent = 25

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
