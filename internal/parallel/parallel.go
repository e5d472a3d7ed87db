// Package parallel bounds the number of goroutines a call may start and
// holds the two ways the project spreads work over them: For, a parallel
// loop over blocks of a range, and the ordered pipeline, whose outputs are
// handed on in input order, so that results do not depend on the number of
// workers: Ordered over chunks of a range, OrderedStream over a stream of
// items of unknown length (the blocks of a reader). Buffers is the free list
// through which a pipeline's consumer hands its buffers back to the workers.
//
// Every worker count that enters the module (a library Options.Workers, the
// CLI's -j) goes through Workers: 0 or less means GOMAXPROCS, and a count above
// PerProc·GOMAXPROCS is lowered to it. More goroutines than that cannot run
// at once and each costs scratch memory and channel slots, so a count such as
// 1<<40 would only exhaust memory; results never depend on the count. In For,
// Ordered and OrderedStream ctx cancels the work, and every goroutine has
// ended when the call returns.
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
// goroutines, each with its own state from newState (made when the worker
// takes its first chunk), and hands every chunk to emit in chunk order, from
// the calling goroutine. Chunk boundaries are the caller's, fixed
// independently of the number of workers, so the sequence emit sees is the
// same for any number of them. emit returning false stops the run without
// error. At most 2·workers chunks are buffered. It returns ctx's cause if
// ctx ends the run first. It is OrderedStream over the chunks.
func Ordered[T, St, S any](ctx context.Context, bounds []int, workers int, newState func() S,
	work func(s S, c *Chunk[T, St]), emit func(c *Chunk[T, St]) bool) error {
	nw := Workers(workers)
	states, made := make([]S, nw), make([]bool, nw) // index w is worker w's alone
	k := 0
	return OrderedStream(ctx, nw,
		func() (*Chunk[T, St], bool, error) {
			if k+1 >= len(bounds) {
				return nil, false, nil
			}
			k++
			return &Chunk[T, St]{Lo: bounds[k-1], Hi: bounds[k]}, true, nil
		},
		func(w int, c *Chunk[T, St]) *Chunk[T, St] {
			if !made[w] {
				states[w], made[w] = newState(), true
			}
			work(states[w], c)
			return c
		}, emit)
}

// OrderedStream is the ordered pipeline over a stream whose length is not
// known in advance (the blocks of a reader): next produces the items one at
// a time, on a goroutine of its own; work turns each item into an output on
// one of workers goroutines (w, 0 <= w < Workers(workers), is the worker's
// number, for scratch space of its own); and consume gets the outputs in the
// order next produced the items, on the calling goroutine. The sequence
// consume sees is thus the same for any number of workers.
//
// next returns ok false at the end of the stream, or an error, which ends
// the stream as well: the items produced before it are still worked on and
// consumed, and then OrderedStream returns the error. consume returning
// false stops the run without error (a caller that stops for an error of an
// item keeps it). A cancelled ctx stops it too: no item is taken or worked
// on after that, and the call returns ctx's cause. A call of next already
// under way is not interrupted (a read that waits for its input is waited
// for). At most 2·workers items are between next and consume at a time.
// Every goroutine has ended when the call returns.
func OrderedStream[In, Out any](ctx context.Context, workers int, next func() (In, bool, error),
	work func(w int, in In) Out, consume func(out Out) bool) error {
	workers = Workers(workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// An item goes to inOrder, in stream order, and then to todo for the
	// first free worker, which closes done once out is set (or the item is
	// dropped for a cancelled run).
	type item struct {
		in   In
		out  Out
		done chan struct{}
	}
	inOrder := make(chan *item, 2*workers)
	todo := make(chan *item)
	var nextErr error // set before inOrder is closed
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		defer close(inOrder)
		defer close(todo)
		for ctx.Err() == nil {
			in, ok, err := next()
			if err != nil {
				nextErr = err
				return
			}
			if !ok {
				return
			}
			it := &item{in: in, done: make(chan struct{})}
			select {
			case inOrder <- it:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- it:
			case <-ctx.Done():
				close(it.done)
				return
			}
		}
	})
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for it := range todo {
				if ctx.Err() == nil {
					it.out = work(w, it.in)
				}
				close(it.done)
			}
		})
	}
	stopped := false
	for it := range inOrder {
		<-it.done
		if stopped || ctx.Err() != nil {
			continue
		}
		if !consume(it.out) {
			stopped = true
			cancel()
		}
	}
	switch {
	case stopped:
		return nil
	case ctx.Err() != nil:
		return context.Cause(ctx)
	}
	return nextErr
}
