// Package race reports whether the program was built with the race
// detector (go build -race), for tests whose assertions the detector's
// instrumentation changes: it allocates on paths that allocate nothing
// otherwise, and slows every memory access several times over.
package race
