package outfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFinish: a run's outputs appear when it succeeded, and are removed
// (the old file kept) when it failed or a signal ended it, whose signal
// Finish returns even when the run reports success.
func TestFinish(t *testing.T) {
	interrupted, cancel := context.WithCancelCause(context.Background())
	cancel(Interrupted{Signal: syscall.SIGTERM})
	for _, tc := range []struct {
		name string
		ctx  context.Context
		ok   bool
		sig  os.Signal
		want string
	}{
		{"succeeded", context.Background(), true, nil, "new"},
		{"failed", context.Background(), false, nil, "old"},
		{"signalled", interrupted, true, syscall.SIGTERM, "old"},
		{"cancelled otherwise", canceled(), true, nil, "new"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.txt")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := NewSet(nil)
		write(t, s, path, "new")
		sig, err := s.Finish(tc.ctx, tc.ok)
		if err != nil || sig != tc.sig {
			t.Errorf("%s: Finish = %v, %v; want %v", tc.name, sig, err, tc.sig)
		}
		if got := readFile(t, path); got != tc.want {
			t.Errorf("%s: the file holds %q, want %q", tc.name, got, tc.want)
		}
		noTemporaries(t, dir)
	}
	// Commit's error comes back.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := NewSet(nil)
	write(t, s, filepath.Join(dir, "gone", "out.txt"), "x")
	if err := os.RemoveAll(filepath.Join(dir, "gone")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(context.Background(), true); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Finish after the directory went: %v, want Commit's error", err)
	}
}

// canceled is a context cancelled without an Interrupted cause.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestInterruptedNamesSignal: the error names the signal as kill -l does.
func TestInterruptedNamesSignal(t *testing.T) {
	for sig, want := range map[os.Signal]string{syscall.SIGTERM: "interrupted by SIGTERM", syscall.SIGINT: "interrupted by SIGINT",
		syscall.SIGHUP: "interrupted by SIGHUP", syscall.SIGUSR1: "interrupted by user defined signal 1"} {
		if got := (Interrupted{Signal: sig}).Error(); got != want {
			t.Errorf("%v: %q, want %q", sig, got, want)
		}
	}
}
