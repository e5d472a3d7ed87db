// Package parallel bounds the number of goroutines a call may start and
// holds the two ways the project spreads work over them: For, a parallel
// loop over blocks of a range, and Ordered, a pipeline of chunks whose
// outputs are handed on in chunk order, so that results do not depend on the
// number of workers.
//
// Every worker count that enters the module (a library Options.Workers, the
// CLI's -j) goes through Workers: 0 or less means GOMAXPROCS, and a count above
// PerProc·GOMAXPROCS is lowered to it. More goroutines than that cannot run
// at once and each costs scratch memory and channel slots, so a count such as
// 1<<40 would only exhaust memory; results never depend on the count. In For
// and Ordered ctx cancels the work, and every goroutine has ended when the
// call returns.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// PerProc is the most workers a call starts per GOMAXPROCS.
const PerProc = 4

// Workers returns the number of workers to start for a requested n: GOMAXPROCS
// for n <= 0, otherwise n lowered to at most PerProc·GOMAXPROCS. It is safe
// for concurrent use and costs O(1).
func Workers(n int) int {
	procs := runtime.GOMAXPROCS(0)
	if n <= 0 {
		return procs
	}
	return min(n, PerProc*procs)
}

// For runs f over [0, n) in blocks of the given size on workers goroutines;
// f gets the worker's number (0 <= w < workers) for scratch space of its own.
// Blocks are taken in no fixed order, so f must write disjoint outputs. It
// stops taking blocks once ctx is done and returns ctx's error.
func For(ctx context.Context, n, block, workers int, f func(w, lo, hi int)) error {
	block = max(block, 1)
	nblocks := (n + block - 1) / block
	workers = min(Workers(workers), nblocks)
	if workers <= 1 {
		for lo := 0; lo < n; lo += block {
			if err := ctx.Err(); err != nil {
				return err
			}
			f(0, lo, min(lo+block, n))
		}
		return ctx.Err()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for ctx.Err() == nil {
				b := int(next.Add(1) - 1)
				if b >= nblocks {
					return
				}
				f(w, b*block, min((b+1)*block, n))
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// Chunk is one unit of ordered work: the range [Lo, Hi) it covers, and the
// output and statistics that the work function leaves for emit.
type Chunk[T, St any] struct {
	Lo, Hi int
	Out    []T
	Stats  St
	done   chan struct{}
}

// Even returns chunk bounds over [0, n) every size: 0, size, 2·size, …, n.
func Even(n, size int) []int {
	size = max(size, 1)
	b := make([]int, 0, n/size+2)
	for lo := 0; lo < n; lo += size {
		b = append(b, lo)
	}
	return append(b, n)
}

// Ordered runs work over the chunks [bounds[k], bounds[k+1]) on workers
// goroutines, each with its own state from newState, and hands every chunk to
// emit in chunk order, from the calling goroutine. Chunk boundaries are the
// caller's, fixed independently of the number of workers, so the sequence
// emit sees is the same for any number of them. emit returning false stops
// the run without error. At most 2·workers chunks are buffered. It returns
// ctx's cause if ctx ends the run first.
func Ordered[T, St, S any](ctx context.Context, bounds []int, workers int, newState func() S,
	work func(s S, c *Chunk[T, St]), emit func(c *Chunk[T, St]) bool) error {
	workers = Workers(workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nchunks := max(len(bounds)-1, 0)
	inOrder := make(chan *Chunk[T, St], 2*workers)
	todo := make(chan *Chunk[T, St])
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		defer close(inOrder)
		defer close(todo)
		for k := 0; k < nchunks; k++ {
			c := &Chunk[T, St]{Lo: bounds[k], Hi: bounds[k+1], done: make(chan struct{})}
			select {
			case inOrder <- c:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- c:
			case <-ctx.Done():
				close(c.done)
				return
			}
		}
	})
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			s := newState()
			for c := range todo {
				if ctx.Err() == nil {
					work(s, c)
				}
				close(c.done)
			}
		})
	}
	stopped := false
	for c := range inOrder {
		<-c.done
		if stopped || ctx.Err() != nil {
			continue
		}
		if !emit(c) {
			stopped = true
			cancel()
		}
	}
	if stopped {
		return nil
	}
	return context.Cause(ctx)
}
