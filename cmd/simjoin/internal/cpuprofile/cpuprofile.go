// Package cpuprofile writes the CPU profile of a run (runtime/pprof), for
// the --cpuprofile flag of the simjoin command. One profile runs at a time
// in a process.
package cpuprofile

import (
	"io"
	"runtime/pprof"
)

// Start starts profiling the CPU into w; the returned stop ends the profile
// and writes the rest of it to w (call it once; closing w is the caller's).
// A nil w profiles nothing, and stop does nothing. A profile already
// running fails with pprof.StartCPUProfile's error, and stop does nothing.
//
// The simjoin command gives it one of the run's outputs (internal/outfile),
// so that the profile replaces the file it names only when the run ends
// well, as the run's other outputs do.
func Start(w io.Writer) (stop func(), err error) {
	none := func() {}
	if w == nil {
		return none, nil
	}
	if err := pprof.StartCPUProfile(w); err != nil {
		return none, err
	}
	return pprof.StopCPUProfile, nil
}
