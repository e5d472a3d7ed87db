package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the controlling side and the
// terminal a program reads from.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ctl.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skip(e)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skip(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { ctl.Close(); tty.Close() })
	return ctl, tty
}

// TestCheckTerminalNoEcho: a password typed at a terminal is not echoed,
// and the prompt goes to stderr.
func TestCheckTerminalNoEcho(t *testing.T) {
	ctl, tty := openPTY(t)
	dir := t.TempDir()
	known := filepath.Join(dir, "known")
	os.WriteFile(known, []byte("hunter22\nsomething\n"), 0o644)
	// Type the password once the terminal's echo is off (or after a while,
	// for a program that never turns it off).
	go func() {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err == nil && tio.Lflag&unix.ECHO == 0 {
				break
			}
		}
		ctl.Write([]byte("hunter22\n"))
	}()
	// A program that reads stdin to its end gets an end of file (^D) later.
	eof := time.AfterFunc(5*time.Second, func() { ctl.Write([]byte{4}) })
	defer eof.Stop()
	var out, errb bytes.Buffer
	code := run([]string{"passwords", "check", "--against", known}, tty, &out, &errb)
	if code != exitTooClose {
		t.Errorf("exit %d, want %d; stderr %q", code, exitTooClose, errb.String())
	}
	if !strings.Contains(errb.String(), "password to check: ") {
		t.Errorf("no prompt on stderr: %q", errb.String())
	}
	if !strings.HasPrefix(out.String(), "1\t1\t1\t") {
		t.Errorf("output %q", out.String())
	}
	// What the terminal showed: nothing of the password.
	fd := int(ctl.Fd()) // Fd makes the file blocking: take it once
	syscall.SetNonblock(fd, true)
	buf := make([]byte, 256)
	n, _ := syscall.Read(fd, buf)
	if n > 0 && bytes.Contains(buf[:n], []byte("hunter22")) {
		t.Errorf("the terminal echoed the password: %q", buf[:n])
	}
}
