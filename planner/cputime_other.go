//go:build !unix

package planner

import "time"

// cpuTime reports that CPU time is not available here.
func cpuTime() (time.Duration, bool) { return 0, false }
