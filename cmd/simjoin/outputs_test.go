package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests check what a run does to the files it writes: see
// cmd/simjoin/internal/outfile for the mechanism.

// TestMain lets a test run the program itself in a child process (for
// signals, standard streams, resource limits): with SIMJOIN_TEST_MAIN set,
// the test binary is simjoin; with SIMJOIN_TEST_MARK set too, it first
// creates that file, to show that it got as far as main.
func TestMain(m *testing.M) {
	if os.Getenv("SIMJOIN_TEST_MAIN") != "" {
		if mark := os.Getenv("SIMJOIN_TEST_MARK"); mark != "" {
			if f, err := os.Create(mark); err == nil {
				f.Close()
			}
		}
		os.Args = append([]string{"simjoin"}, strings.Fields(os.Getenv("SIMJOIN_TEST_MAIN"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

func noPartial(t *testing.T, dir string) {
	t.Helper()
	for _, n := range dirNames(t, dir) {
		if strings.Contains(n, ".partial-") {
			t.Errorf("partial file left behind: %s", n)
		}
	}
}

func TestOutputModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	list := cliWrite(t, dir, "list", "password1\npassword2\n")
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	pw := filepath.Join(dir, "pw.tsv")
	cliOK(t, "", "passwords", "-o", pw, list)
	if st, _ := os.Stat(pw); st.Mode().Perm() != 0o600 {
		t.Errorf("new file under umask 077: mode %03o, want 600", st.Mode().Perm())
	}
	// An existing file keeps its mode, whatever the umask.
	syscall.Umask(0o022)
	os.Chmod(pw, 0o640)
	cliOK(t, "", "passwords", "-o", pw, list)
	if st, _ := os.Stat(pw); st.Mode().Perm() != 0o640 {
		t.Errorf("existing 0640 file: mode %03o", st.Mode().Perm())
	}
}

func TestOutputThroughLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	real := cliWrite(t, dir, "real", "old")
	link := filepath.Join(dir, "link")
	os.Symlink("real", link)
	cliOK(t, "", "join", "-t", "0.5", "-o", link, in)
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Error("-o replaced the symbolic link")
	}
	if b, _ := os.ReadFile(real); string(b) != "1\t2\t0.75\n" {
		t.Errorf("the link's target holds %q", b)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	cliOK(t, "", "join", "-t", "0.5", "-o", fifo, in)
	select {
	case g := <-got:
		if g != "1\t2\t0.75\n" {
			t.Errorf("the FIFO's reader got %q", g)
		}
	case <-time.After(10 * time.Second):
		t.Error("the FIFO's reader got nothing")
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Error("-o replaced the FIFO")
	}
	devnull := filepath.Join(dir, "devnull")
	os.Symlink("/dev/null", devnull)
	cliOK(t, "", "join", "-t", "0.5", "-o", devnull, "--stats-json", devnull, in)
	if st, _ := os.Lstat("/dev/null"); st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatal("/dev/null is no longer a device")
	}
	noPartial(t, dir)
}

// TestOutputsAllOrNone: when the report cannot be written, the pairs do not
// appear either.
func TestOutputsAllOrNone(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	full := filepath.Join(dir, "full")
	os.Symlink("/dev/full", full)
	out := filepath.Join(dir, "pairs")
	for _, args := range [][]string{
		{"join", "-t", "0.5", "-o", out, "--stats-json", full, in},
		{"dedup", "-t", "0.5", "-o", out, "--stats-json", full, in},
		{"passwords", "-o", out, "--stats-json", full, in},
		{"plot", "-t", "0.5", "--lsh", "2x2", "--circle", filepath.Join(dir, "circle.svg"), "--scurve", filepath.Join(dir, "s.svg"), "-o", out, "--stats-json", full, in},
	} {
		code, _, stderr := cliRun(t, "", args...)
		if code != exitRuntime {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
		if !strings.Contains(stderr, full) || strings.Contains(stderr, ".partial-") {
			t.Errorf("%v: error %q should name %s and no temporary", args, stderr, full)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the pairs appeared without their report", args)
		}
		for _, fig := range []string{"circle.svg", "s.svg"} {
			if _, err := os.Stat(filepath.Join(dir, fig)); err == nil {
				t.Errorf("%v: %s appeared without the report", args, fig)
			}
		}
	}
	noPartial(t, dir)
}

func TestStatsJSONStdout(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"join", "-t", "0.5", "--stats-json", "-", in},
		{"dedup", "-t", "0.5", "--stats-json", "-", in},
		{"plot", "-t", "0.5", "--lsh", "2x2", "--stats-json", "-", in},
		{"join", "--files", "-t", "0.5", "--stats-json", "-", dir},
		{"passwords", "--stats-json", "-", in},
		{"join", "-t", "0.5", "-o", "-", "--stats-json", "-", in},
	} {
		code, stdout, stderr := cliRun(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "standard output") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and standard output named", args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%v: wrote %q", args, stdout)
		}
	}
	// With -o elsewhere, stdout is free for the report.
	for _, args := range [][]string{
		{"join", "-t", "0.5", "-o", out, "--stats-json", "-", in},
		{"passwords", "-o", out, "--stats-json", "-", in},
		{"passwords", "check", "--silent", "--against", in, "--stats-json", "-", "x"},
	} {
		_, stdout, stderr := cliRun(t, "", args...)
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep["command"] == nil {
			t.Errorf("%v: stdout is not the report (%v): %q %s", args, err, stdout, stderr)
		}
	}
	noPartial(t, dir)
}

func TestOutputOntoInputRefused(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	link := filepath.Join(dir, "link")
	os.Symlink("in", link)
	for _, args := range [][]string{
		{"join", "-t", "0.5", "-o", in, in},
		{"join", "-t", "0.5", "-o", link, in},
		{"join", "-t", "0.5", "--stats-json", in, in},
		{"join", "-t", "0.5", "--against", in, "-o", in, "-"},
		{"dedup", "-t", "0.5", "-o", in, in},
		{"passwords", "-o", in, in},
		{"passwords", "check", "--against", in, "-o", in, "x"},
		{"join", "-t", "0.5", "-o", filepath.Join(dir, "out"), "--stats-json", filepath.Join(dir, "out"), in},
	} {
		code, _, stderr := cliRun(t, "", args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
	// Standard input redirected from the file is the file.
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb strings.Builder
	if code := run([]string{"join", "-t", "0.5", "-o", in, "-"}, f, &out, &errb); code != exitUsage {
		t.Errorf("-o onto the file on stdin: exit %d (%s), want 2", code, errb.String())
	}
	if b, _ := os.ReadFile(in); string(b) != "a b c\na b c d\n" {
		t.Errorf("input now holds %q", b)
	}
	noPartial(t, dir)
}

// TestSignalsCleanUp runs the program in a child process that blocks
// reading its stdin, signals it, and checks its exit status, its one line
// on stderr, and that no partial file is left and a hard-linked -o keeps
// its old contents (internal/outfile's tests signal the commit itself).
func TestSignalsCleanUp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		sig    syscall.Signal
		code   int
		name   string
		linked bool // -o has a second hard link
	}{{syscall.SIGINT, 130, "SIGINT", false}, {syscall.SIGTERM, 143, "SIGTERM", true}, {syscall.SIGHUP, 129, "SIGHUP", false}} {
		dir := t.TempDir()
		out := filepath.Join(dir, "pairs")
		if tc.linked {
			cliWrite(t, dir, "pairs", "old\n")
			if err := os.Link(out, filepath.Join(t.TempDir(), "link")); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "SIMJOIN_TEST_MAIN=join -t 0.5 -o "+out+" --stats-json "+out+".json -")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe() // held open: the run blocks reading it
		if err != nil {
			t.Fatal(err)
		}
		stdin.Write([]byte("a b c\na b c d\n"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the temporaries to exist.
		deadline := time.Now().Add(20 * time.Second)
		for len(dirNames(t, dir)) < 2+len(cliFiles(tc.linked)) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		kill := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() }) // a run that ignores the signal
		err = cmd.Wait()
		kill.Stop()
		stdin.Close()
		code := cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = -int(ws.Signal())
		}
		if code != tc.code {
			t.Errorf("%v: exit %d (%v), want %d", tc.sig, code, err, tc.code)
		}
		// The line, when the run returned within the grace (else Catch
		// exits on its own, silently).
		if want := "simjoin: interrupted by " + tc.name + "\n"; stderr.String() != want && stderr.String() != "" {
			t.Errorf("%v: stderr %q, want %q", tc.sig, stderr.String(), want)
		}
		if names := dirNames(t, dir); len(names) != len(cliFiles(tc.linked)) {
			t.Errorf("%v: left %v", tc.sig, names)
		}
		if tc.linked {
			if b, _ := os.ReadFile(out); string(b) != "old\n" {
				t.Errorf("%v: the hard-linked -o holds %q", tc.sig, b)
			}
		}
	}
}

// cliFiles lists the files TestSignalsCleanUp's directory holds before the
// run: -o, when it has a second link.
func cliFiles(linked bool) []string {
	if linked {
		return []string{"pairs"}
	}
	return nil
}

// TestWorkersFlagClamped: -j far beyond the machine runs with 4 workers a
// core (it used to take minutes and gigabytes, or die).
func TestWorkersFlagClamped(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	want := 4 * runtime.GOMAXPROCS(0)
	for _, args := range [][]string{
		{"join", "-t", "0.5", "-j", "1099511627776", in},
		{"passwords", "-j", "1000000", in},
	} {
		out := filepath.Join(dir, "stats.json")
		cliOK(t, "", append(args, "--stats-json", out)...)
		var rep struct{ Workers int }
		b, _ := os.ReadFile(out)
		if err := json.Unmarshal(b, &rep); err != nil || rep.Workers != want {
			t.Errorf("%v: workers %d (%v), want %d", args, rep.Workers, err, want)
		}
	}
}

// mainRun runs the program in a child process (the test binary as simjoin,
// with the args, which hold no spaces) with stdin, stdout and stderr pipes of
// its own, so that /dev/stdout and /dev/fd/1 are its standard output.
func mainRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return mainRunFrom(t, strings.NewReader(stdin), args...)
}

// mainRunFrom is mainRun with stdin read from r: an *os.File is the
// child's standard input itself.
func mainRunFrom(t *testing.T, r io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "SIMJOIN_TEST_MAIN="+strings.Join(args, " "))
	cmd.Stdin = r
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // a child that hangs
	cmd.Wait()
	kill.Stop()
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestOutputsOnStdoutByIdentity: two outputs that are the process's
// standard output under any names (-, /dev/stdout, /dev/fd/1,
// /proc/self/fd/1, a link to one of them) are refused, as "-" twice is,
// before anything is written; the null device may take several, and
// standard output is free for the report when -o is elsewhere.
func TestOutputsOnStdoutByIdentity(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	link := filepath.Join(dir, "out")
	os.Symlink("/dev/stdout", link)
	svg := filepath.Join(dir, "circle.svg")
	os.Symlink("/dev/fd/1", svg)
	for _, args := range [][]string{
		{"join", "-t", "0.5", "-o", "/dev/stdout", "--stats-json", "-", in},
		{"join", "-t", "0.5", "--stats-json", "/dev/stdout", in},
		{"join", "-t", "0.5", "--stats-json", "/dev/fd/1", in},
		{"join", "-t", "0.5", "--stats-json", "/proc/self/fd/1", in},
		{"join", "-t", "0.5", "-o", link, "--stats-json", link, in},
		{"dedup", "-t", "0.5", "--stats-json", "/dev/stdout", in},
		{"passwords", "--stats-json", "/dev/stdout", in},
		{"passwords", "check", "--against", in, "--stats-json", "/dev/fd/1", "x"},
		{"plot", "-t", "0.5", "--lsh", "2x2", "--circle", svg, in},
	} {
		code, stdout, stderr := mainRun(t, "", args...)
		named := strings.Contains(stderr, "standard output") || strings.Contains(stderr, "already an output")
		if code != exitUsage || !named || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming the output twice", args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%v: wrote %q", args, stdout)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Error("-o replaced the link to /dev/stdout")
	}
	if code, stdout, stderr := mainRun(t, "", "join", "-t", "0.5", "-o", "/dev/null", "--stats-json", "/dev/null", in); code != 0 || stdout != "" {
		t.Errorf("both outputs on /dev/null: exit %d, %q %s", code, stdout, stderr)
	}
	code, stdout, stderr := mainRun(t, "", "join", "-t", "0.5", "-o", filepath.Join(dir, "pairs"), "--stats-json", "/dev/stdout", in)
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep["command"] != "join" {
		t.Errorf("the report alone on /dev/stdout: exit %d (%v): %q %s", code, err, stdout, stderr)
	}
	noPartial(t, dir)
}

// TestCPUProfileIsAnOutput: --cpuprofile's file is written as the run's
// other outputs are: whole when the run succeeds, the old file kept when it
// fails, and never one of the run's inputs or other outputs.
func TestCPUProfileIsAnOutput(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", "a b c\na b c d\n")
	bad := cliWrite(t, dir, "bad", "\xff\n")
	prof := cliWrite(t, dir, "cpu.pprof", "old")
	if code, _, stderr := cliRun(t, "", "join", "--cpuprofile", prof, "--tokens", "words", "-t", "0.5", bad); code != exitRuntime {
		t.Errorf("a failing run: exit %d (%s)", code, stderr)
	}
	if b, _ := os.ReadFile(prof); string(b) != "old" {
		t.Errorf("a failing run left the profile holding %d bytes, want the old file", len(b))
	}
	cliOK(t, "", "join", "--cpuprofile", prof, "-t", "0.5", in)
	if b, _ := os.ReadFile(prof); len(b) == 0 || string(b) == "old" {
		t.Errorf("a run that ended well left the profile holding %q", b)
	}
	for _, args := range [][]string{
		{"join", "--cpuprofile", in, "-t", "0.5", in},
		{"join", "--cpuprofile", prof, "-o", prof, "-t", "0.5", in},
		{"join", "--cpuprofile", prof, "--stats-json", dir + "/./cpu.pprof", "-t", "0.5", in},
		{"join", "--cpuprofile", "-", "-t", "0.5", in},
		{"passwords", "--cpuprofile", in, in},
	} {
		if code, _, stderr := cliRun(t, "", args...); code != exitUsage || !strings.Contains(stderr, "--cpuprofile") && !strings.Contains(stderr, "already") {
			t.Errorf("%v: exit %d, %q; want 2", args, code, stderr)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "a b c\na b c d\n" {
		t.Errorf("the input now holds %q", b)
	}
	noPartial(t, dir)
}
