package outfile

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestCatchLinger checks that Linger holds off Catch's own exit past its
// grace, and that a second signal still exits at once.
func TestCatchLinger(t *testing.T) {
	Linger(time.Hour)
	defer Linger(0)
	codes := make(chan int, 1)
	ctx, stop := Catch(context.Background(), time.Millisecond, func(c int) { codes <- c })
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-ctx.Done()
	select {
	case c := <-codes:
		t.Fatalf("exit %d within the linger", c)
	case <-time.After(100 * time.Millisecond): // 100 times the grace
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case c := <-codes:
		if c != 130 {
			t.Errorf("second signal: exit %d, want 130", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second signal did not exit")
	}
}
