// Package rusage reads what the process has used so far: its CPU time (user
// and system, all threads, the runtime's included) and its peak resident set
// size. CPU time is what a loaded machine disturbs least, so the planner's
// measurements and the statistics reports time phases with it beside the
// wall clock.
package rusage

import "time"

// CPU returns the user and system CPU time the process has used so far, and
// false where the system cannot say. Cost: one system call; safe for
// concurrent use.
func CPU() (time.Duration, bool) { return cpu() }

// PeakRSS returns the peak resident set size of the process in bytes, or 0
// where the system cannot say. Cost: one system call.
func PeakRSS() int64 { return peakRSS() }
