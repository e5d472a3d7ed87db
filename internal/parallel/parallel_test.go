package parallel

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, tc := range []struct{ in, want int }{
		{0, procs}, {-3, procs}, {1, 1}, {procs, procs},
		{PerProc * procs, PerProc * procs}, {PerProc*procs + 1, PerProc * procs},
		{1 << 40, PerProc * procs}, {int(^uint(0) >> 1), PerProc * procs},
	} {
		if got := Workers(tc.in); got != tc.want {
			t.Errorf("Workers(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestForCoversOnce checks that For calls f on every index exactly once,
// with worker numbers in range, for several sizes and worker counts.
func TestForCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 4097} {
		for _, workers := range []int{0, 1, 2, 5} {
			hits := make([]int32, n)
			nw := Workers(workers)
			err := For(context.Background(), n, 64, workers, func(w, lo, hi int) {
				if w < 0 || w >= nw {
					t.Errorf("worker %d out of [0, %d)", w, nw)
				}
				for i := lo; i < hi; i++ {
					hits[i]++
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("n=%d workers=%d: index %d done %d times", n, workers, i, h)
				}
			}
		}
	}
}

// TestOrderedSameForAnyWorkers checks that emit sees the chunks in order,
// with their outputs, for any number of workers, and that a false from emit
// stops the run without error while a cancelled context returns its error.
func TestOrderedSameForAnyWorkers(t *testing.T) {
	bounds := Even(1000, 37)
	run := func(workers, stopAt int, ctx context.Context) ([]int, error) {
		var got []int
		err := Ordered(ctx, bounds, workers, func() *int { return new(int) },
			func(s *int, c *Chunk[int, int]) {
				for i := c.Lo; i < c.Hi; i++ {
					c.Out = append(c.Out, i*i)
					*s++
				}
				c.Stats = c.Hi - c.Lo
			},
			func(c *Chunk[int, int]) bool {
				if c.Stats != len(c.Out) {
					t.Errorf("chunk [%d, %d): stats %d for %d outputs", c.Lo, c.Hi, c.Stats, len(c.Out))
				}
				got = append(got, c.Out...)
				return len(got) < stopAt
			})
		return got, err
	}
	want, err := run(1, 1<<30, context.Background())
	if err != nil || len(want) != 1000 || want[999] != 999*999 {
		t.Fatalf("one worker: %d outputs, err %v", len(want), err)
	}
	for _, w := range []int{0, 2, 3, 8} {
		got, err := run(w, 1<<30, context.Background())
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("workers=%d: output differs from one worker (err %v)", w, err)
		}
		got, err = run(w, 100, context.Background())
		if err != nil || len(got) < 100 || !slices.Equal(got, want[:len(got)]) {
			t.Fatalf("workers=%d: stopped run gave %d outputs, err %v", w, len(got), err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(2, 1<<30, ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: err %v, want context.Canceled", err)
	}
}

// stream returns a next function over 0, 1, …, n-1 that fails with err
// after the n items when err is not nil, and counts its calls.
func stream(n int, err error, calls *atomic.Int64) func() (int, bool, error) {
	i := 0
	return func() (int, bool, error) {
		calls.Add(1)
		if i == n {
			return 0, false, err
		}
		i++
		return i - 1, true, nil
	}
}

// TestOrderedStreamOrder checks that consume sees every item's output in
// stream order for one to four workers (and 0, GOMAXPROCS), that worker
// numbers are in range and never used by two goroutines at once, and that
// work is called once an item.
func TestOrderedStreamOrder(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1000} {
		for _, workers := range []int{0, 1, 2, 3, 4} {
			nw := Workers(workers)
			busy := make([]atomic.Bool, nw)
			var calls, works atomic.Int64
			var got []int
			err := OrderedStream(context.Background(), workers, stream(n, nil, &calls),
				func(w, i int) int {
					if w < 0 || w >= nw {
						t.Errorf("worker %d out of [0, %d)", w, nw)
						return 0
					}
					if busy[w].Swap(true) {
						t.Errorf("worker number %d used by two goroutines at once", w)
					}
					works.Add(1)
					if i%7 == 0 {
						runtime.Gosched() // let later items finish first
					}
					busy[w].Store(false)
					return i * i
				},
				func(out int) bool {
					got = append(got, out)
					return true
				})
			if err != nil {
				t.Fatalf("n=%d workers=%d: %v", n, workers, err)
			}
			if len(got) != n || works.Load() != int64(n) {
				t.Fatalf("n=%d workers=%d: %d outputs, %d work calls", n, workers, len(got), works.Load())
			}
			for i, v := range got {
				if v != i*i {
					t.Fatalf("n=%d workers=%d: output %d is %d, want %d", n, workers, i, v, i*i)
				}
			}
			if calls.Load() != int64(n+1) {
				t.Errorf("n=%d workers=%d: next called %d times, want %d", n, workers, calls.Load(), n+1)
			}
		}
	}
}

// TestOrderedStreamErrors checks that an error of next comes after every
// item before it is consumed, and that consume returning false stops the
// run without error and without consuming more.
func TestOrderedStreamErrors(t *testing.T) {
	errRead := errors.New("read failed")
	for _, workers := range []int{1, 2, 3, 4} {
		var calls atomic.Int64
		consumed := 0
		err := OrderedStream(context.Background(), workers, stream(100, errRead, &calls),
			func(_, i int) int { return i },
			func(out int) bool {
				if out != consumed {
					t.Errorf("workers=%d: consumed %d, want %d", workers, out, consumed)
				}
				consumed++
				return true
			})
		if !errors.Is(err, errRead) || consumed != 100 {
			t.Fatalf("workers=%d: err %v after %d items, want %v after 100", workers, err, consumed, errRead)
		}
		consumed = 0
		err = OrderedStream(context.Background(), workers, stream(1000, errRead, &calls),
			func(_, i int) int { return i },
			func(out int) bool {
				consumed++
				return out < 40
			})
		if err != nil || consumed != 41 {
			t.Fatalf("workers=%d: stopped run: err %v after %d items, want nil after 41", workers, err, consumed)
		}
	}
}

// TestOrderedStreamCancel checks that a context cancelled during the run
// stops it with the context's cause, that neither next nor work is called
// once the call has returned, and that a context cancelled before the call
// takes no item.
func TestOrderedStreamCancel(t *testing.T) {
	cause := errors.New("stopped by the test")
	for _, workers := range []int{1, 2, 3, 4} {
		ctx, cancel := context.WithCancelCause(context.Background())
		var calls, works atomic.Int64
		consumed := 0
		err := OrderedStream(ctx, workers, stream(1<<40, nil, &calls),
			func(_, i int) int {
				works.Add(1)
				return i
			},
			func(out int) bool {
				if consumed++; consumed == 50 {
					cancel(cause)
				}
				return true
			})
		if !errors.Is(err, cause) || consumed != 50 {
			t.Fatalf("workers=%d: err %v after %d items, want %v after 50", workers, err, consumed, cause)
		}
		// At most the items in flight were taken after the cancellation.
		c, w := calls.Load(), works.Load()
		if c > 50+2*int64(Workers(workers))+2 {
			t.Errorf("workers=%d: next called %d times for 50 items consumed", workers, c)
		}
		runtime.Gosched()
		if calls.Load() != c || works.Load() != w {
			t.Errorf("workers=%d: next or work called after the call returned", workers)
		}

		ctx, cancel = context.WithCancelCause(context.Background())
		cancel(cause)
		calls.Store(0)
		err = OrderedStream(ctx, workers, stream(10, nil, &calls),
			func(_, i int) int { t.Error("work called in a cancelled run"); return i },
			func(int) bool { t.Error("consume called in a cancelled run"); return true })
		if !errors.Is(err, cause) || calls.Load() != 0 {
			t.Fatalf("workers=%d: cancelled before the call: err %v, next called %d times", workers, err, calls.Load())
		}
	}
}

// TestBuffers: a buffer put back comes out again (emptied) while it is large
// enough, one too small is dropped for a new one, and the list holds at most
// its size.
func TestBuffers(t *testing.T) {
	b := NewBuffers[int](2)
	if s := b.Get(3); len(s) != 0 || cap(s) < 3 {
		t.Fatalf("Get(3) on an empty list = len %d cap %d, want an empty slice of cap >= 3", len(s), cap(s))
	}
	big := make([]int, 5, 8)
	b.Put(big)
	if s := b.Get(8); len(s) != 0 || &s[:1][0] != &big[0] {
		t.Fatalf("Get(8) did not return the buffer put back, emptied (len %d)", len(s))
	}
	b.Put(make([]int, 0, 2))
	if s := b.Get(4); cap(s) < 4 {
		t.Fatalf("Get(4) = cap %d: a buffer too small was returned", cap(s))
	}
	if s := b.Get(1); cap(s) != 1 {
		t.Fatalf("Get(1) = cap %d after the small buffer was dropped, want a new one of cap 1", cap(s))
	}
	for range 3 {
		b.Put(make([]int, 0, 16))
	}
	if n := len(b.free); n != 2 {
		t.Fatalf("list holds %d buffers, want at most its size 2", n)
	}
}
