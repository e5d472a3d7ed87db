package outfile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The signal tests run a child process (this test binary, told so by
// OUTFILE_TEST_CHILD) that writes a Set as the simjoin command does, pauses
// at a chosen point of its run or of the commit (testPause), reports
// "ready" on its stdout, and goes on once it has seen the signals the
// parent sends it (testSignal reports each as "seen"). No timing decides
// where a signal lands.

// TestMain runs the child's part when OUTFILE_TEST_CHILD is set.
func TestMain(m *testing.M) {
	if os.Getenv("OUTFILE_TEST_CHILD") != "" {
		os.Exit(signalChild())
	}
	os.Exit(m.Run())
}

// newContents is what the child commits: several copyChunk's worth, so that
// an in-place copy takes several steps.
func newContents() []byte {
	return bytes.Repeat([]byte("new contents 0123456789\n"), 3*copyChunk/24+7)
}

// signalChild writes newContents to OUTFILE_TEST_LINKED (a file with a
// second hard link, copied in place) and to OUTFILE_TEST_RENAMED (a file
// renamed into place), pausing at the OUTFILE_TEST_PAUSE'th occurrence
// ("copy 3") of a point until OUTFILE_TEST_SIGNALS signals have been seen,
// under Catch with the grace OUTFILE_TEST_GRACE, and returns the exit status
// main would.
func signalChild() int {
	point, nth, _ := strings.Cut(os.Getenv("OUTFILE_TEST_PAUSE"), " ")
	at, _ := strconv.Atoi(nth)
	want, _ := strconv.Atoi(os.Getenv("OUTFILE_TEST_SIGNALS"))
	seen := make(chan os.Signal, 4)
	testSignal = func(sig os.Signal) {
		fmt.Printf("seen %d\n", sig)
		seen <- sig
	}
	count := 0
	testPause = func(p string) {
		if p != point {
			return
		}
		if count++; count != at {
			return
		}
		fmt.Println("ready")
		for range want {
			<-seen
		}
	}
	grace, _ := time.ParseDuration(os.Getenv("OUTFILE_TEST_GRACE"))
	ctx, stop := Catch(context.Background(), grace, os.Exit)
	s := NewSet(io.Discard)
	for _, p := range []string{os.Getenv("OUTFILE_TEST_LINKED"), os.Getenv("OUTFILE_TEST_RENAMED")} {
		f, err := s.Create(p)
		if err == nil {
			_, err = f.Write(newContents())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	pause("write") // the run's work, which does not watch ctx
	sig, err := s.Finish(ctx, true)
	if caught := stop(); caught != nil {
		sig = caught
	}
	switch {
	case sig != nil:
		return ExitCode(sig)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestSignalAtEveryPoint signals a child at each point of a run and of its
// commit and checks that the outputs are the old ones with the signal's exit
// status, or the new ones whole with status 0: before the commit point the
// signal wins, after it the commit does.
func TestSignalAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	chunks := (len(newContents()) + copyChunk - 1) / copyChunk
	for _, tc := range []struct {
		pause   string
		signals []syscall.Signal
		grace   time.Duration // Catch's: the shortest ends the run by Catch's own exit
		commits bool          // the signal comes after the commit point
	}{
		{"write 1", []syscall.Signal{syscall.SIGTERM}, time.Nanosecond, false},
		{"write 1", []syscall.Signal{syscall.SIGTERM}, time.Hour, false},
		{"write 1", []syscall.Signal{syscall.SIGINT, syscall.SIGHUP}, time.Hour, false},
		{"commit 1", []syscall.Signal{syscall.SIGTERM}, time.Nanosecond, true},
		{"copy 1", []syscall.Signal{syscall.SIGTERM}, time.Nanosecond, true},
		{"copy 2", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, time.Nanosecond, true},
		{"copy " + strconv.Itoa(chunks), []syscall.Signal{syscall.SIGHUP}, time.Hour, true},
		{"truncate 1", []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, time.Nanosecond, true},
		{"rename 1", []syscall.Signal{syscall.SIGTERM}, time.Nanosecond, true},
	} {
		name := fmt.Sprintf("%s/%v/grace %v", tc.pause, tc.signals, tc.grace)
		dir := t.TempDir()
		linked, other, renamed := filepath.Join(dir, "h1"), filepath.Join(dir, "h2"), filepath.Join(dir, "r")
		if err := os.WriteFile(linked, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(linked, other); err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "OUTFILE_TEST_CHILD=1", "OUTFILE_TEST_LINKED="+linked,
			"OUTFILE_TEST_RENAMED="+renamed, "OUTFILE_TEST_PAUSE="+tc.pause,
			"OUTFILE_TEST_SIGNALS="+strconv.Itoa(len(tc.signals)), "OUTFILE_TEST_GRACE="+tc.grace.String())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // a child that hangs
		lines := bufio.NewScanner(out)
		if !lines.Scan() || lines.Text() != "ready" {
			t.Fatalf("%s: the child did not reach its pause: %q %s", name, lines.Text(), stderr.String())
		}
		for _, sig := range tc.signals {
			cmd.Process.Signal(sig)
			if !lines.Scan() { // the child has exited
				break
			}
		}
		io.Copy(io.Discard, out)
		cmd.Wait()
		kill.Stop()
		code := cmd.ProcessState.ExitCode()
		old, _ := os.ReadFile(linked)
		_, rerr := os.Stat(renamed)
		switch {
		case tc.commits:
			if code != 0 || !bytes.Equal(old, newContents()) || rerr != nil {
				t.Errorf("%s: exit %d, %d bytes in the linked file, renamed file: %v; want 0 and the new files whole (%s)",
					name, code, len(old), rerr, stderr.String())
			}
		default: // the status of the signal that ended the run: the second, if any
			last := tc.signals[len(tc.signals)-1]
			if code != 128+int(last) || string(old) != "old\n" || rerr == nil {
				t.Errorf("%s: exit %d, %d bytes in the linked file, renamed file: %v; want %d and the old files (%s)",
					name, code, len(old), rerr, 128+int(last), stderr.String())
			}
		}
		if b, _ := os.ReadFile(other); !bytes.Equal(b, old) {
			t.Errorf("%s: the two links differ", name)
		}
		noTemporaries(t, dir)
	}
}
