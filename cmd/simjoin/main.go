// Command simjoin finds every pair of similar records in a collection.
//
// See README.md for the commands, flags and output formats.
package main

import (
	"context"
	"os"
	"time"

	"github.com/simjoin/simjoin/internal/gcpace"
	"github.com/simjoin/simjoin/internal/outfile"
)

// gcPercent is the collector's target unless GOGC is set. Almost all of the
// heap is pointer-free arenas, which the collector does not scan, so
// collecting more often costs little; the default (100) lets the heap grow to
// twice the live arenas. Measured on the 1M-set collection of BENCHMARKS.md
// (`simjoin join --method exact -t 0.5`, 30M tokens): peak RSS 700-825 MiB at
// 100 and 525-540 MiB at 25, with the same CPU time within the noise.
const gcPercent = 25

// gcFloor is the heap below which the collector does not run (internal/
// gcpace): at 25 alone a run whose heap stays small collects every MiB or
// two, each collection preempting the working goroutines. On the generated
// 59,000 passwords of BENCHMARKS.md (`simjoin join` allocates 18 MiB in
// all) that is 8 collections without the floor and one with it; a floor of
// 32 MiB saved that one for no CPU time that could be measured, and raised
// the peak RSS by 4 MiB (10 for `simjoin passwords`). Larger runs pace at
// gcPercent as before once their live heap passes the floor.
const gcFloor = 16 << 20

// signalGrace is how long a run may take to wind down after SIGINT, SIGTERM
// or SIGHUP before its temporary files are removed and the process exits
// regardless (a phase that does not watch for cancellation, such as reading
// the input, must not hold a signal up).
const signalGrace = 500 * time.Millisecond

func main() {
	if os.Getenv("GOGC") == "" {
		gcpace.Floor(gcPercent, gcFloor)
	}
	ctx, stop := outfile.Catch(context.Background(), signalGrace, os.Exit)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if sig := stop(); sig != nil {
		code = outfile.ExitCode(sig)
	}
	os.Exit(code)
}
