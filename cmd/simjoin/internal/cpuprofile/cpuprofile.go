// Package cpuprofile writes the CPU profile of a run (runtime/pprof) to a
// file, for the --cpuprofile flag of the simjoin command. One profile runs
// at a time in a process.
package cpuprofile

import (
	"os"
	"runtime/pprof"
)

// Start creates the file path and starts profiling the CPU into it; the
// returned stop ends the profile and closes the file (call it once). An
// empty path profiles nothing, and stop does nothing. Creating the file or
// starting the profile (one already running) fails with the error of
// os.Create or pprof.StartCPUProfile, nothing is left running, a regular file
// created is removed again, and stop does nothing.
func Start(path string) (stop func(), err error) {
	none := func() {}
	if path == "" {
		return none, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return none, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		// Only a regular file is removed: a path such as /dev/null stays.
		if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
			os.Remove(path)
		}
		f.Close()
		return none, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
