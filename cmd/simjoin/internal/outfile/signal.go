package outfile

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Signals are the signals that end a run the same way: the run is
// cancelled, its temporaries removed, and the process exits with
// ExitCode(sig), as a shell expects of a program killed by it.
var Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// ExitCode returns the exit status shells give a process ended by sig:
// 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM, 129 for
// SIGHUP).
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// signalNames are the names of Signals as a shell's kill -l spells them.
var signalNames = map[os.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// linger, set by Linger, is the least time Catch waits after a signal
// before it exits on its own (nanoseconds).
var linger atomic.Int64

// Linger makes Catch wait at least d after a signal, instead of its grace,
// before it removes the temporaries and exits on its own: for a run that
// winds down by itself but may need longer, such as a server answering the
// requests under way. A second signal still exits at once. The setting is
// process-wide, like the signals.
func Linger(d time.Duration) { linger.Store(int64(d)) }

// Interrupted is the cause (context.Cause) of a context that Catch ended.
type Interrupted struct{ Signal os.Signal }

// Error names the signal as kill -l does: "interrupted by SIGTERM".
func (i Interrupted) Error() string {
	name, ok := signalNames[i.Signal]
	if !ok && i.Signal != nil {
		name = i.Signal.String()
	}
	return "interrupted by " + name
}

// DefaultGrace is the grace of Catch in the simjoin command: how long a run
// may take to wind down after SIGINT, SIGTERM or SIGHUP before its temporary
// files are removed and the process exits regardless (a phase that does not
// watch for cancellation, such as reading the input, must not hold a signal
// up).
const DefaultGrace = 500 * time.Millisecond

// caught is what Catch and Finish share. Signals are the process's, so
// there is one Catch at a time.
var caught struct {
	mu sync.Mutex // protects the fields below
	// sig is the first signal the current Catch took; nil if none. Catch
	// cancels its context under mu, so that Finish, which reads the
	// context's cause under mu, either sees the signal or seals first.
	sig os.Signal
	// sealed says that a Finish has begun committing (the commit point):
	// from then on Catch ignores signals, and the run ends as it would
	// have without them.
	sealed bool
}

// committing is held shared by every Commit under way and exclusively by
// Catch when it exits on its own, so that the process never exits in the
// middle of a commit (a hard-linked target half copied, a Set half
// renamed).
var committing sync.RWMutex

// testPause, if not nil, is called at the named points of a commit (see
// pause): a test's child process stops there until the signals it is sent
// have been seen (testSignal). Can change for testing.
var testPause func(point string)

// testSignal, if not nil, is called by Catch with each signal it receives,
// after acting on it. Can change for testing.
var testSignal func(os.Signal)

// pause calls testPause, if set.
func pause(point string) {
	if testPause != nil {
		testPause(point)
	}
}

// Catch returns a context cancelled (with cause Interrupted) when one of
// Signals arrives, and stop, which stops catching them and returns the
// signal caught (nil if none, or if it came once the run's outputs were
// being committed).
//
// A run should notice the cancellation, abort its Sets and return; if it has
// not returned (called stop) within grace of the signal, or a second signal
// arrives, Catch removes every temporary itself (RemoveTemporaries) and calls
// exit(ExitCode(sig)); it waits for a Commit under way first. exit is
// os.Exit in a program.
//
// A signal that arrives once Finish has passed the commit point (it found
// no signal and began to commit) is ignored: the outputs are completed and
// the run ends with its own status, so that a signal leaves either the old
// files and its exit status, or the new files whole and the run's. One
// Catch at a time: the signals are the process's.
func Catch(parent context.Context, grace time.Duration, exit func(int)) (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	caught.mu.Lock()
	caught.sig, caught.sealed = nil, false
	caught.mu.Unlock()
	signal.Notify(ch, Signals...)
	var (
		mu      sync.Mutex // protects stopped
		stopped bool
	)
	quit := make(chan struct{})
	end := func(sig os.Signal) {
		committing.Lock() // no commit is under way, and none starts
		defer committing.Unlock()
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		stopped = true
		RemoveTemporaries()
		exit(ExitCode(sig))
	}
	go func() {
		var timer <-chan time.Time
		for {
			select {
			case sig := <-ch:
				caught.mu.Lock()
				sealed, first := caught.sealed, caught.sig == nil
				if !sealed && first {
					caught.sig = sig
					cancel(Interrupted{sig})
				}
				caught.mu.Unlock()
				switch {
				case sealed:
				case first:
					timer = time.After(max(grace, time.Duration(linger.Load())))
				default:
					end(sig)
				}
				if testSignal != nil {
					testSignal(sig)
				}
				if !sealed && !first {
					return
				}
			case <-timer:
				caught.mu.Lock()
				sig := caught.sig
				caught.mu.Unlock()
				end(sig)
				return
			case <-quit:
				return
			}
		}
	}()
	stop = func() os.Signal {
		signal.Stop(ch)
		mu.Lock()
		if !stopped {
			stopped = true
			close(quit)
		}
		mu.Unlock()
		cancel(nil)
		caught.mu.Lock()
		defer caught.mu.Unlock()
		return caught.sig
	}
	return ctx, stop
}
