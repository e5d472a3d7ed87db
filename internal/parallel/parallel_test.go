package parallel

import (
	"context"
	"errors"
	"runtime"
	"slices"
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
