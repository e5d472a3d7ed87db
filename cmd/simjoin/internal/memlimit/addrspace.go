package memlimit

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/simjoin/simjoin/internal/numfmt"
)

// The address-space limit (RLIMIT_AS, the shell's ulimit -v) bounds what a
// process reserves, not what it uses, and a Go process reserves far more
// than it uses. Measured with VmSize (/proc/self/status) on linux/amd64 with
// Go 1.26: before main runs, the runtime has reserved its page allocator's
// summaries (about 580 MiB) and its scavenger's index (512 MiB, where it
// fits under the limit), about 1.4 GiB in all with the binary and the first
// threads, while the heap is a few MiB; the heap then grows in arenas of 64
// MiB; and where the C library starts the threads (cgo, which a binary that
// links package net uses), each new thread takes a stack of RLIMIT_STACK (8
// MiB by default) and, up to eight a core, a malloc arena of 64 MiB. A run
// that crosses the limit dies in the runtime ("fatal error: out of memory",
// pthread_create failing), and nothing can recover from that; so the bound
// the limit sets is what it leaves once those are set aside.
const (
	heapArena   = 64 << 20 // the Go heap's unit of growth (heapArenaBytes on 64-bit Linux)
	mallocArena = 64 << 20 // a glibc malloc arena's reservation (HEAP_MAX_SIZE on 64-bit)
	goStack     = 64 << 10 // about what a thread the Go runtime starts itself takes
	// glibcStack is taken for the C library's thread stack when
	// RLIMIT_STACK is unlimited: glibc's default, 2 MiB on x86-64
	// (measured), is larger on some other architectures.
	glibcStack = 8 << 20
)

// addressSpace is the state of the process's address space that its bound
// under RLIMIT_AS is figured from.
type addressSpace struct {
	limit    int64 // RLIMIT_AS; 0: none
	reserved int64 // VmSize: everything mapped or reserved
	threads  int   // the process's threads
	libc     bool  // threads are started by the C library (pthread_create)
	stack    int64 // the stack of a thread the C library starts
}

// readAddressSpace reads the process's address space; ok is false when
// RLIMIT_AS is unlimited or /proc/self cannot be read.
func readAddressSpace() (a addressSpace, ok bool) {
	if a.limit = rlimitAS(); a.limit == 0 {
		return a, false
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return a, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmSize":
			a.reserved = n * 1024
		case "Threads":
			a.threads = int(n)
		}
	}
	if a.reserved == 0 {
		return a, false
	}
	a.libc = mapsLibc()
	a.stack = glibcStack
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &r); err == nil && r.Cur < 1<<40 {
		a.stack = int64(r.Cur)
	}
	return a, true
}

// mapsLibc reports whether the process maps the C library: then its threads
// are started by pthread_create.
func mapsLibc() bool {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return true // the larger cost, to be safe
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte("/libc.so")) || bytes.Contains(sc.Bytes(), []byte("/libc-")) {
			return true
		}
	}
	return false
}

// maxThreads bounds the threads a run of the command starts with procs
// Ps: one running each, as many again blocked in system calls (reading
// files), and the runtime's own (sysmon, the template thread, the signal
// and cleanup threads). Measured: 5 at start and at most 9 in any join on
// 2 cores (--files with -j 8 on the Go tree).
func maxThreads(procs int) int { return 2*procs + 6 }

// threadRoom returns the address space the threads yet to start may take,
// on a machine of cpus cores with procs Ps.
func (a addressSpace) threadRoom(procs, cpus int) int64 {
	more := max(0, maxThreads(procs)-a.threads)
	if !a.libc {
		return int64(more) * goStack
	}
	// One malloc arena a thread so far (the first thread's is the brk
	// heap), up to eight a core.
	arenas := max(0, min(more, 8*cpus-(a.threads-1)))
	return int64(more)*(a.stack+4096) + int64(arenas)*mallocArena
}

// AddressSpace returns the bound the address-space limit (RLIMIT_AS) sets
// on the memory of the process: the limit less what is already reserved
// (VmSize), less room for the threads yet to start and for one more heap
// arena (see the constants above). ok is false when there is no such limit
// (or it cannot be read: not Linux); a Limit with Bytes <= 0 leaves a run
// nothing (Limit.Room refuses it). It reads /proc/self/status and
// /proc/self/maps: call it at the start of a run, not in a loop.
func AddressSpace() (_ Limit, ok bool) {
	a, ok := readAddressSpace()
	if !ok {
		return Limit{}, false
	}
	set := a.reserved + a.threadRoom(runtime.GOMAXPROCS(0), runtime.NumCPU()) + heapArena
	return Limit{Bytes: a.limit - set, Source: "ulimit -v " + numfmt.Bytes(a.limit, 2), Reserved: set}, true
}

// watchEvery is how often Watch reads the runtime's memory.
const watchEvery = time.Millisecond

// Watch returns a context cancelled, with a cause wrapping ErrNotEnough,
// once the memory the Go runtime has mapped has grown past what l leaves
// since the call; and stop, which ends the watch (call it once). It watches
// the address-space limit's bound only (AddressSpace), for the phases that
// grow step by step before any estimate can be checked, such as reading
// the input: they stop between steps with one line instead of dying in the
// runtime. Any other l returns ctx itself. Cost: a goroutine that reads one
// runtime metric every millisecond.
func (l Limit) Watch(ctx context.Context) (context.Context, func()) {
	if !l.hard() {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	bound := goReserved() + l.Bytes
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if goReserved() > bound {
					cancel(fmt.Errorf("%w: the run took more than the %s this process may use (%s, less %s that the Go runtime reserves for itself, its threads and its heap's growth); raise ulimit -v",
						ErrNotEnough, numfmt.Bytes(max(l.Bytes, 0), 1), l.Source, numfmt.Bytes(l.Reserved, 2)))
					return
				}
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// goReserved returns the memory the Go runtime has mapped, released pages
// included (they stay in the address space): /memory/classes/total:bytes.
func goReserved() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
