package outfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// write creates path in s and writes text to it.
func write(t *testing.T, s *Set, path, text string) *File {
	t.Helper()
	f, err := s.Create(path)
	if err != nil {
		t.Fatalf("Create(%s): %v", path, err)
	}
	if _, err := io.WriteString(f, text); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	return f
}

func commit(t *testing.T, s *Set) {
	t.Helper()
	if err := s.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemporaries fails if dir holds a .partial- file.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("temporary left behind: %s", e.Name())
		}
	}
}

func TestNewFileModeFollowsUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o077, 0o600}, {0o022, 0o644}, {0o002, 0o664}} {
		old := syscall.Umask(tc.umask)
		dir := t.TempDir()
		p := filepath.Join(dir, "out")
		s := NewSet(nil)
		write(t, s, p, "x")
		commit(t, s)
		syscall.Umask(old)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != tc.want {
			t.Errorf("umask %03o: mode %03o, want %03o", tc.umask, got, tc.want)
		}
	}
}

func TestExistingFileKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pw.tsv")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o600)
	s := NewSet(nil)
	write(t, s, p, "new")
	commit(t, s)
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %03o, want 600", st.Mode().Perm())
	}
	if got := readFile(t, p); got != "new" {
		t.Errorf("contents %q", got)
	}
	noTemporaries(t, dir)
}

func TestSymlinkReplacesItsTarget(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.WriteFile(real, []byte("old"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	// A link to a link, and a dangling one that names a file to create.
	link2 := filepath.Join(dir, "link2")
	os.Symlink(link, link2)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("new", dangling)

	s := NewSet(nil)
	write(t, s, link2, "via link")
	write(t, s, dangling, "created")
	commit(t, s)
	for _, l := range []string{link, link2, dangling} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link", l)
		}
	}
	if got := readFile(t, real); got != "via link" {
		t.Errorf("target holds %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "new")); got != "created" {
		t.Errorf("dangling link's target holds %q", got)
	}
	noTemporaries(t, dir)
}

func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	_, err := NewSet(nil).Create(a)
	if !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), a) {
		t.Errorf("Create on a loop: %v", err)
	}
}

func TestHardLinkKept(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("old"), 0o644)
	if err := os.Link(a, b); err != nil {
		t.Skip(err)
	}
	s := NewSet(nil)
	write(t, s, a, "new")
	commit(t, s)
	if got := readFile(t, b); got != "new" {
		t.Errorf("other link holds %q: the link was broken", got)
	}
	sa, _ := os.Stat(a)
	sb, _ := os.Stat(b)
	if !os.SameFile(sa, sb) {
		t.Error("a and b are no longer the same file")
	}
	noTemporaries(t, dir)
}

func TestFIFOWrittenStraight(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	s := NewSet(nil)
	write(t, s, p, "through the pipe")
	commit(t, s)
	if g := <-got; g != "through the pipe" {
		t.Errorf("reader got %q", g)
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced")
	}
	noTemporaries(t, dir)
}

func TestDeviceWrittenStraight(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "null")
	os.Symlink("/dev/null", link)
	s := NewSet(nil)
	write(t, s, link, "gone")
	write(t, s, "/dev/null", "gone too")
	commit(t, s)
	st, err := os.Lstat("/dev/null")
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to /dev/null was replaced")
	}
	noTemporaries(t, dir)
}

func TestDescriptorWrittenStraight(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := NewSet(nil)
	write(t, s, fmt.Sprintf("/dev/fd/%d", w.Fd()), "fd")
	commit(t, s)
	w.Close()
	b, _ := io.ReadAll(r)
	if string(b) != "fd" {
		t.Errorf("pipe got %q", b)
	}
}

func TestAbortLeavesOldFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("old"), 0o644)
	b := filepath.Join(dir, "b")
	s := NewSet(nil)
	write(t, s, a, "new")
	write(t, s, b, "new")
	s.Abort()
	if got := readFile(t, a); got != "old" {
		t.Errorf("a holds %q", got)
	}
	if _, err := os.Stat(b); err == nil {
		t.Error("b appeared")
	}
	noTemporaries(t, dir)
	if err := s.Commit(); err != nil {
		t.Errorf("Commit after Abort: %v", err)
	}
	if _, err := os.Stat(b); err == nil {
		t.Error("b appeared after Commit following Abort")
	}
}

// TestFullDiskWritesNothing writes one file to a directory and one to
// /dev/full: the second's failure must keep the first from appearing.
func TestFullDiskWritesNothing(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "pairs")
	s := NewSet(nil)
	write(t, s, a, "pairs")
	f, err := s.Create("/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "report"); err == nil {
		t.Fatal("writing /dev/full succeeded")
	} else if !strings.Contains(err.Error(), "/dev/full") {
		t.Errorf("error %q does not name /dev/full", err)
	}
	s.Abort()
	if _, err := os.Stat(a); err == nil {
		t.Error("pairs appeared without the report")
	}
	noTemporaries(t, dir)
}

func TestErrorsNameUserPath(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	p := filepath.Join(sub, "out")
	s := NewSet(nil)
	write(t, s, p, "x")
	os.RemoveAll(sub) // the rename cannot succeed
	err := s.Commit()
	if err == nil {
		t.Fatal("Commit succeeded without its directory")
	}
	if !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), ".partial-") {
		t.Errorf("error %q: want the user's path and no temporary", err)
	}
	_, err = NewSet(nil).Create(filepath.Join(dir, "missing", "out"))
	if err == nil || strings.Contains(err.Error(), ".partial-") || !strings.Contains(err.Error(), "missing/out") {
		t.Errorf("Create error %q", err)
	}
	_, err = NewSet(nil).Create(dir)
	if !errors.Is(err, syscall.EISDIR) {
		t.Errorf("Create on a directory: %v", err)
	}
}

func TestInputProtected(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.WriteFile(in, []byte("data"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink("in", link)
	hard := filepath.Join(dir, "hard")
	os.Link(in, hard)
	for _, p := range []string{in, link, hard, dir + "/./in"} {
		s := NewSet(nil)
		s.Protect(in, "-")
		if _, err := s.Create(p); !errors.Is(err, ErrInput) {
			t.Errorf("Create(%s) over the input: %v", p, err)
		}
		s.Abort()
	}
	if got := readFile(t, in); got != "data" {
		t.Errorf("input now holds %q", got)
	}
	noTemporaries(t, dir)
	// A device read and written is no input to protect.
	s := NewSet(nil)
	s.Protect("/dev/null")
	if _, err := s.Create("/dev/null"); err != nil {
		t.Errorf("/dev/null in and out: %v", err)
	}
	s.Abort()
}

// TestInputDirProtected: ProtectDir refuses an output inside the directory
// (an existing file, a new name, through a symbolic link to the directory or
// to a file in it) and a hard link to one of its files elsewhere, and
// leaves its files as they were; a file beside the directory is written.
func TestInputDirProtected(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ix")
	os.Mkdir(dir, 0o755)
	man := filepath.Join(dir, "MANIFEST")
	os.WriteFile(man, []byte("data"), 0o644)
	os.Symlink("ix", filepath.Join(root, "dirlink"))
	os.Symlink("ix/MANIFEST", filepath.Join(root, "filelink"))
	os.Link(man, filepath.Join(root, "hard"))
	for _, c := range []struct {
		path string
		want error
	}{
		{man, ErrInputDir},
		{filepath.Join(dir, "new"), ErrInputDir},
		{filepath.Join(root, "dirlink", "MANIFEST"), ErrInputDir},
		{filepath.Join(root, "dirlink", "new"), ErrInputDir},
		{filepath.Join(root, "filelink"), ErrInputDir},
		{filepath.Join(root, "hard"), ErrInput},
		{filepath.Join(root, ".", "ix", "..", "ix", "MANIFEST"), ErrInputDir},
	} {
		s := NewSet(nil)
		s.ProtectDir(filepath.Join(root, "dirlink"))
		if _, err := s.Create(c.path); !errors.Is(err, c.want) {
			t.Errorf("Create(%s) in a protected directory: %v, want %v", c.path, err, c.want)
		}
		s.Abort()
	}
	if got := readFile(t, man); got != "data" {
		t.Errorf("the directory's file now holds %q", got)
	}
	noTemporaries(t, dir)
	s := NewSet(nil)
	s.ProtectDir(dir)
	f, err := s.Create(filepath.Join(root, "out"))
	if err != nil {
		t.Fatalf("Create beside the protected directory: %v", err)
	}
	f.Write([]byte("ok"))
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestStdoutOnce(t *testing.T) {
	var out bytes.Buffer
	s := NewSet(&out)
	write(t, s, "-", "pairs\n")
	if s.StdoutFree() {
		t.Error("stdout still free")
	}
	if _, err := s.Create(""); !errors.Is(err, ErrStdoutTaken) {
		t.Errorf("second stdout: %v", err)
	}
	commit(t, s)
	if out.String() != "pairs\n" {
		t.Errorf("stdout %q", out.String())
	}
}

func TestDuplicateRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	s := NewSet(nil)
	write(t, s, p, "x")
	if _, err := s.Create(p); !errors.Is(err, ErrDuplicate) {
		t.Errorf("same new file twice: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "old"), nil, 0o644)
	write(t, s, filepath.Join(dir, "old"), "y")
	if _, err := s.Create(filepath.Join(dir, ".", "old")); !errors.Is(err, ErrDuplicate) {
		t.Errorf("same existing file twice: %v", err)
	}
	s.Abort()
}

func TestCatchRemovesTemporariesAndExits(t *testing.T) {
	dir := t.TempDir()
	s := NewSet(nil)
	write(t, s, filepath.Join(dir, "out"), "partial")
	codes := make(chan int, 1)
	ctx, stop := Catch(context.Background(), 50*time.Millisecond, func(c int) { codes <- c })
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	<-ctx.Done()
	// The run does not return in time: Catch cleans up and exits.
	select {
	case c := <-codes:
		if c != 129 {
			t.Errorf("exit %d, want 129", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after the grace period")
	}
	noTemporaries(t, dir)
	if sig := stop(); sig != syscall.SIGHUP {
		t.Errorf("stop returned %v", sig)
	}
}

func TestCatchStopBeforeGrace(t *testing.T) {
	ctx, stop := Catch(context.Background(), time.Hour, func(int) { t.Error("exit called") })
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-ctx.Done()
	if sig := stop(); sig != syscall.SIGTERM || ExitCode(sig) != 143 {
		t.Errorf("stop returned %v (exit %d)", sig, ExitCode(sig))
	}
	if ExitCode(syscall.SIGINT) != 130 {
		t.Error("SIGINT is not 130")
	}
}

// TestOutputsDecidedByIdentity: two outputs are the same file whatever
// their names (a new file by two spellings or through a dangling link,
// standard output under "-" and /dev/fd/N, one FIFO through a link), and
// are refused whatever the file's kind; the null device alone may take
// several; standard output that is an input is refused as any output is.
func TestOutputsDecidedByIdentity(t *testing.T) {
	dir := t.TempDir()
	for _, names := range [][2]string{
		{filepath.Join(dir, "new"), dir + "/./new"},
		{filepath.Join(dir, "new"), dir + "/sub/../new"},
		{filepath.Join(dir, "dangling"), dir + "//target"},
	} {
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		os.Symlink("target", filepath.Join(dir, "dangling"))
		s := NewSet(nil)
		write(t, s, names[0], "x")
		if _, err := s.Create(names[1]); !errors.Is(err, ErrDuplicate) {
			t.Errorf("%s then %s: %v, want ErrDuplicate", names[0], names[1], err)
		}
		s.Abort()
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := fmt.Sprintf("/dev/fd/%d", w.Fd())
	for _, order := range [][2]string{{"-", fd}, {fd, "-"}} {
		s := NewSet(w)
		write(t, s, order[0], "")
		if _, err := s.Create(order[1]); !errors.Is(err, ErrStdoutTaken) {
			t.Errorf("%s then %s, standard output a pipe: %v, want ErrStdoutTaken", order[0], order[1], err)
		}
		s.Abort()
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		os.Symlink("fifo", filepath.Join(dir, "fifolink"))
		// Opening a FIFO to write waits for a reader.
		rf, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSet(nil)
		write(t, s, fifo, "")
		if _, err := s.Create(filepath.Join(dir, "fifolink")); !errors.Is(err, ErrDuplicate) {
			t.Errorf("one FIFO by two names: %v, want ErrDuplicate", err)
		}
		s.Abort()
		rf.Close()
	}

	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer devnull.Close()
	s := NewSet(devnull)
	for _, p := range []string{"-", os.DevNull, os.DevNull} {
		if _, err := s.Create(p); err != nil {
			t.Errorf("%s, standard output the null device: %v", p, err)
		}
	}
	s.Abort()

	in := filepath.Join(dir, "in")
	os.WriteFile(in, []byte("data"), 0o644)
	app, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	s = NewSet(app)
	s.Protect(in)
	if _, err := s.Create("-"); !errors.Is(err, ErrInput) {
		t.Errorf("standard output appending to the input: %v, want ErrInput", err)
	}
	s.Abort()
	noTemporaries(t, dir)
}
