// Package gcpace paces the garbage collector of a process whose heap is
// mostly large pointer-free arrays (the simjoin command's): a low GOGC
// percentage above a heap floor, below which small runs collect rarely or
// never.
//
// A low percentage (the heap may grow to 1 + percent/100 times the live heap
// before the next collection) keeps the peak memory of large runs down, and
// collecting their pointer-free arrays costs little. But the runtime scales
// its minimum heap goal (4 MiB at GOGC 100) by the same percentage, so that
// at 25 a run whose heap is a few tens of MiB collects every megabyte or
// two: tens of collections for work that allocates 50 MiB in all, each of
// which stops the working goroutines to scan their stacks (a tight loop is
// preempted by signals while an idle worker spins waiting for it). Floor
// sets the percentage from the live heap after every collection so that the
// next one comes when the heap reaches the floor or 1 + percent/100 times
// the live heap, whichever is larger: a run whose live heap stays below the
// floor collects a few times or never, and a larger one paces as at the
// percentage alone. The hook that sets it runs on the runtime's cleanup
// goroutine shortly after each collection; until it has, the percentage set
// after the collection before applies.
//
// A phase that drops a large array and then makes others leaves the freed
// pages to the collector, which frees them at its next cycle, and to the
// runtime's scavenger, which returns them to the operating system slowly:
// the arrays made meanwhile take fresh pages beside them, and the peak RSS
// holds both. Release, at such a drop, returns them at once, in a process
// that asked for it (SetRelease).
//
// What it does not do: bound memory (debug.SetMemoryLimit does, and still
// applies), or act when the GOGC environment variable is set (Command
// checks it).
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// The simjoin command paces the collector at DefaultPercent above
// DefaultFloor unless GOGC is set.
const (
	// DefaultPercent is the percentage. Almost all of the heap is
	// pointer-free arenas, which the collector does not scan, so collecting
	// more often costs little; the runtime's default (100) lets the heap grow
	// to twice the live arenas. Measured on the 1M-set collection of
	// BENCHMARKS.md (`simjoin join --method exact -t 0.5`, 30M tokens): peak
	// RSS 700-825 MiB at 100 and 525-540 MiB at 25, with the same CPU time
	// within the noise.
	DefaultPercent = 25
	// DefaultFloor is the heap below which the collector does not run: at 25
	// alone a run whose heap stays small collects every MiB or two, each
	// collection preempting the working goroutines. On the generated 59,000
	// passwords of BENCHMARKS.md (`simjoin join` allocates 18 MiB in all)
	// that is 8 collections without the floor and one with it; a floor of 32
	// MiB saved that one for no CPU time that could be measured, and raised
	// the peak RSS by 4 MiB (10 for `simjoin passwords`). Larger runs pace at
	// DefaultPercent as before once their live heap passes the floor.
	DefaultFloor = 16 << 20
)

// heapMinimum is the runtime's minimum heap goal at GOGC 100, scaled by the
// percentage in use (the garbage collector guide's "minimum total heap size
// of 4 MiB").
const heapMinimum = 4 << 20

// maxPercent bounds the percentage Percent returns.
const maxPercent = 1_000_000

// Percent returns the GOGC percentage that puts the next collection after
// one that left live bytes at the floor or at 1 + percent/100 times the live
// heap, whichever is larger: percent when live is at least
// floor/(1 + percent/100), and above it otherwise, up to the percentage
// whose minimum heap goal is the floor (for a heap that is nearly empty) and
// at most maxPercent. Cost: O(1).
func Percent(live, floor int64, percent int) int {
	if floor <= 0 || live*int64(100+percent) >= floor*100 {
		return percent
	}
	g := floor * 100 / heapMinimum // the runtime's minimum goal is then the floor
	if live > 0 {
		g = min(g, (floor-live)*100/live)
	}
	return int(min(max(g, int64(percent)), maxPercent))
}

// Pacer is a running Floor; Stop ends it.
type Pacer struct {
	floor   int64
	percent int
	prev    int // the percentage in force before Floor

	mu      sync.Mutex // guards stopped, the hook and the percentage set
	stopped bool
	sample  [1]metrics.Sample
}

// Floor sets the collector's percentage to percent above a heap floor of
// floor bytes, as the package describes, until Stop. It is meant to be
// called once, early in a process; a floor of 0 or less just sets the
// percentage. Cost: after every collection, one read of the live heap and
// one setting of the percentage, on the runtime's cleanup goroutine.
func Floor(percent int, floor int64) *Pacer {
	p := &Pacer{floor: floor, percent: percent}
	p.sample[0].Name = "/gc/heap/live:bytes"
	if floor <= 0 {
		p.prev = debug.SetGCPercent(percent)
		return p
	}
	p.prev = debug.SetGCPercent(Percent(0, floor, percent))
	p.arm()
	return p
}

// hooked, if set, is called each time the hook has run (after the
// percentage is set, or not, once stopped). Can change for testing.
var hooked atomic.Pointer[func()]

// arm attaches the hook that runs after the next collection to a new
// sentinel, which that collection frees (32 bytes: not a tiny object,
// which shares its block and may outlive the collection).
func (p *Pacer) arm() {
	runtime.AddCleanup(new([4]uint64), (*Pacer).collected, p)
}

// collected sets the percentage from the live heap the last collection left
// and arms the hook for the next one, unless stopped.
func (p *Pacer) collected() {
	defer func() {
		if h := hooked.Load(); h != nil {
			(*h)()
		}
	}()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	metrics.Read(p.sample[:])
	live := int64(0)
	if p.sample[0].Value.Kind() == metrics.KindUint64 {
		live = int64(p.sample[0].Value.Uint64())
	}
	debug.SetGCPercent(Percent(live, p.floor, p.percent))
	p.arm()
}

// Stop ends the pacing and puts back the percentage in force before Floor.
// Calls after the first do nothing.
func (p *Pacer) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.stopped = true
		debug.SetGCPercent(p.prev)
	}
}

// release is whether Release acts: off unless SetRelease turned it on.
var release atomic.Bool

// SetRelease turns Release on or off for the process. It is off by
// default: a library's caller may hold a large heap of its own, which every
// forced collection would mark. The simjoin command turns it on.
func SetRelease(on bool) { release.Store(on) }

// ReleaseMin is the least number of bytes dropped that Release acts on:
// below it the forced collection costs more than the pages are worth (the
// 59,000 generated passwords' order took 5 ms more with it).
const ReleaseMin = 16 << 20

// Release returns the heap's free pages to the operating system
// (debug.FreeOSMemory: a collection of the whole process, then every free
// page returned) when SetRelease turned it on and freed, the bytes the
// caller has just dropped, is at least ReleaseMin. Measured on the Go
// tree's integer lines at the order's two largest drops (BENCHMARKS.md):
// peak RSS 128 -> 117 MiB with one worker, 131 -> 120 with two, the same
// CPU. Cost: one collection, and the page faults of the pages' reuse. Safe
// for concurrent use.
func Release(freed int64) {
	if freed >= ReleaseMin && release.Load() {
		debug.FreeOSMemory()
	}
}

// Command sets up the collector of the simjoin command: unless the GOGC
// environment variable is set (then the runtime's pacing stands, and
// Release does nothing), Floor at DefaultPercent above DefaultFloor and
// Release turned on. It returns the pacer, nil when GOGC is set.
func Command() *Pacer {
	if os.Getenv("GOGC") != "" {
		return nil
	}
	SetRelease(true)
	return Floor(DefaultPercent, DefaultFloor)
}
