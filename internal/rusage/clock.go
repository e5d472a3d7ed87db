package rusage

import "time"

// Clock times a phase by the wall clock and by the process's CPU time.
type Clock struct {
	wall time.Time
	cpu  time.Duration
	ok   bool
}

// Start returns a Clock started now. Cost: one system call.
func Start() Clock {
	cpu, ok := CPU()
	return Clock{time.Now(), cpu, ok}
}

// Lap returns the wall and CPU time since c started (CPU 0 where the system
// cannot say). Cost: one system call; c may lap any number of times.
func (c Clock) Lap() (wall, cpu time.Duration) {
	now, ok := CPU()
	wall = time.Since(c.wall)
	if ok && c.ok {
		cpu = now - c.cpu
	}
	return wall, cpu
}
