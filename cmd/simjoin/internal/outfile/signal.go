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

func (i Interrupted) Error() string { return "interrupted by " + i.Signal.String() }

// DefaultGrace is the grace of Catch in the simjoin command: how long a run
// may take to wind down after SIGINT, SIGTERM or SIGHUP before its temporary
// files are removed and the process exits regardless (a phase that does not
// watch for cancellation, such as reading the input, must not hold a signal
// up).
const DefaultGrace = 500 * time.Millisecond

// Catch returns a context cancelled (with cause Interrupted) when one of Signals arrives, and stop,
// which stops catching them and returns the signal caught (nil if none).
//
// A run should notice the cancellation, abort its Sets and return; if it has
// not returned (called stop) within grace of the signal, or a second signal
// arrives, Catch removes every temporary itself (RemoveTemporaries) and calls
// exit(ExitCode(sig)). exit is os.Exit in a program.
func Catch(parent context.Context, grace time.Duration, exit func(int)) (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, Signals...)
	var (
		mu      sync.Mutex // protects caught, stopped
		caught  os.Signal
		stopped bool
	)
	quit := make(chan struct{})
	end := func(sig os.Signal) {
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
				mu.Lock()
				first := caught == nil
				if first {
					caught = sig
				}
				mu.Unlock()
				if !first {
					end(sig)
					return
				}
				cancel(Interrupted{sig})
				timer = time.After(max(grace, time.Duration(linger.Load())))
			case <-timer:
				mu.Lock()
				sig := caught
				mu.Unlock()
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
		defer mu.Unlock()
		if !stopped {
			stopped = true
			close(quit)
		}
		cancel(nil)
		return caught
	}
	return ctx, stop
}
