package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// These tests check how the commands take their input: compression, the
// standard input, and what --files skips.

func gzipText(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func zstdText(t *testing.T, s string) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.EncodeAll([]byte(s), nil)
}

func writeBytes(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompressedInput: gzip and zstd input is decompressed wherever input is
// read, and the statistics say so.
func TestCompressedInput(t *testing.T) {
	dir := t.TempDir()
	text := "a b c\na b c d\nx y\n"
	plain := cliWrite(t, dir, "sets.txt", text)
	gz := writeBytes(t, dir, "sets.txt.gz", gzipText(t, text))
	zst := writeBytes(t, dir, "sets.txt.zst", zstdText(t, text))
	want := "1\t2\t0.75\n"
	for _, args := range [][]string{
		{"join", "-t", "0.5", "--stats", "--stats-json", filepath.Join(dir, "stats.json"), gz},
		{"join", "-t", "0.5", "--stats", zst},
		{"join", "-t", "0.5", "--stats", "-"},
	} {
		stdin := ""
		if args[len(args)-1] == "-" {
			stdin = string(gzipText(t, text))
		}
		out, stderr := cliOK(t, stdin, args...)
		if out != want {
			t.Errorf("%v: got %q, want %q", args, out, want)
		}
		if !strings.Contains(stderr, "decompressed") || !strings.Contains(stderr, "gzip") && !strings.Contains(stderr, "zstd") {
			t.Errorf("%v: the statistics do not say the input was decompressed:\n%s", args, stderr)
		}
	}
	// --against: R-S pairs of the plain file with the compressed one.
	out, _ := cliOK(t, "", "join", "-t", "1", "--sort", "--against", zst, plain)
	if out != "1\t1\t1\n2\t2\t1\n3\t3\t1\n" {
		t.Errorf("--against zstd: %q", out)
	}
	// passwords reads compressed lists too.
	pw := writeBytes(t, dir, "pw.gz", gzipText(t, "password1\npassword2\n"))
	out, _ = cliOK(t, "", "passwords", "-t", "0.7", pw)
	if !strings.HasPrefix(out, "1\t2\t") {
		t.Errorf("passwords on gzip: %q", out)
	}
	// --files: each compressed file is read decompressed.
	fdir := filepath.Join(dir, "docs")
	os.Mkdir(fdir, 0o755)
	writeBytes(t, fdir, "a.gz", gzipText(t, "alpha beta gamma delta"))
	writeBytes(t, fdir, "b.zst", zstdText(t, "alpha beta gamma delta"))
	out, stderr := cliOK(t, "", "join", "--files", "--tokens", "words", "-t", "1", "--stats", fdir)
	if !strings.Contains(out, "a.gz\t") || !strings.Contains(out, "b.zst\t1") {
		t.Errorf("--files on compressed files: %q", out)
	}
	if !strings.Contains(stderr, "1 gzip, 1 zstd") {
		t.Errorf("--files statistics:\n%s", stderr)
	}
	// Corrupt input is an error naming the file.
	bad := writeBytes(t, dir, "bad.gz", gzipText(t, text)[:15])
	code, _, stderr := cliRun(t, "", "join", "-t", "0.5", bad)
	if code != exitRuntime || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "gzip") {
		t.Errorf("truncated gzip: exit %d, %q", code, stderr)
	}
}

// TestAgainstBothStdin: both sides of a join (or --against and the
// candidates of passwords check) read from one stream under any names is
// refused with exit status 2 (it would split the records between the
// sides); a regular file on standard input named twice is read twice.
func TestAgainstBothStdin(t *testing.T) {
	code, out, stderr := cliRun(t, "a b\na b\n", "join", "-t", "0.5", "--against", "-", "-")
	if code != exitUsage || out != "" || !strings.Contains(stderr, "standard input") {
		t.Errorf("--against - -: exit %d, out %q, stderr %q", code, out, stderr)
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir := t.TempDir()
	sets := "a b c\na b c d\nx y\n"
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"join", "-t", "0.5", "--against", "/dev/stdin", "-"},
		{"join", "-t", "0.5", "--against", "/dev/fd/0", "-"},
		{"join", "-t", "0.5", "--against", "/proc/self/fd/0", "-"},
		{"join", "-t", "0.5", "--against", "-", "/dev/stdin"},
		{"join", "-t", "0.5", "--against", "/dev/stdin", "/dev/fd/0"},
		{"join", "-t", "0.5", "--against", fifo, fifo},
		{"explain", "-t", "0.5", "--against", "/dev/stdin", "-"},
		{"passwords", "check", "--against", "/dev/stdin"},
		{"passwords", "check", "--against", "/proc/self/fd/0"},
	} {
		code, out, stderr := mainRun(t, sets, args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, "read once") && !strings.Contains(stderr, "standard input") {
			t.Errorf("%v: exit %d, out %q, stderr %q; want 2 and one stream named", args, code, out, stderr)
		}
	}
	in := cliWrite(t, dir, "sets", sets)
	want, _ := cliOK(t, "", "join", "-t", "0.5", "--sort", "--against", in, in)
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code, out, stderr := mainRunFrom(t, f, "join", "-t", "0.5", "--sort", "--against", "/dev/stdin", "-"); code != 0 || out != want {
		t.Errorf("a file on standard input as both sides: exit %d, %q (%s), want %q", code, out, stderr, want)
	}
}

// TestFilesSkipsWhatIsNotAFile: FIFOs, links to nothing and link loops are
// errors, or with --keep-going counted and skipped, when the globs select
// them; a FIFO never blocks.
func TestFilesSkipsWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	cliWrite(t, dir, "a.txt", "alpha beta gamma delta")
	cliWrite(t, dir, "b.txt", "alpha beta gamma delta")
	fifo := filepath.Join(dir, "c.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	os.Symlink("nowhere", filepath.Join(dir, "d.dangling"))
	os.Symlink("e.loop2", filepath.Join(dir, "e.loop1"))
	os.Symlink("e.loop1", filepath.Join(dir, "e.loop2"))
	type result struct {
		code           int
		stdout, stderr string
	}
	runBounded := func(args ...string) result {
		ch := make(chan result, 1)
		go func() {
			code, out, errs := cliRun(t, "", args...)
			ch <- result{code, out, errs}
		}()
		select {
		case r := <-ch:
			return r
		case <-time.After(20 * time.Second):
			t.Fatalf("%v blocked", args)
			return result{}
		}
	}
	r := runBounded("join", "--files", "--tokens", "words", "-t", "1", dir)
	if r.code != exitRuntime || !strings.Contains(r.stderr, "c.fifo: not a regular file") {
		t.Errorf("without --keep-going: exit %d, %q", r.code, r.stderr)
	}
	r = runBounded("join", "--files", "--keep-going", "--tokens", "words", "-t", "1", "--stats", "--stats-json", filepath.Join(t.TempDir(), "stats.json"), dir)
	if r.code != 0 || !strings.Contains(r.stdout, "a.txt\t") {
		t.Errorf("--keep-going: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{"c.fifo: not a regular file", "d.dangling: symbolic link to nothing", "e.loop1: symbolic link loop",
		"4 (FIFO, device or socket: 1; link to nothing: 1; link loop: 2)"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("--keep-going: stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	// Left out by the globs, they fail nothing.
	for _, globs := range [][]string{{"--include", "*.txt"}, {"--exclude", "*.fifo", "--exclude", "*.dangling", "--exclude", "e.*"}} {
		r = runBounded(append(append([]string{"join", "--files", "--tokens", "words", "-t", "1"}, globs...), dir)...)
		if r.code != 0 || !strings.Contains(r.stdout, "a.txt\t") {
			t.Errorf("%v: exit %d, %q %q", globs, r.code, r.stdout, r.stderr)
		}
	}
	// Named explicitly.
	r = runBounded("join", "--files", "--tokens", "words", "-t", "1", fifo, filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"))
	if r.code != exitRuntime || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("a FIFO named: exit %d, %q", r.code, r.stderr)
	}
	r = runBounded("join", "--files", "--keep-going", "--tokens", "words", "-t", "1", fifo, filepath.Join(dir, "e.loop1"), filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"))
	if r.code != 0 || r.stdout == "" {
		t.Errorf("a FIFO named with --keep-going: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestPasswordsMaxLine: a list line longer than --max-line is an error that
// names the line, never the password.
func TestPasswordsMaxLine(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("Tr0ub4dor&3", 400) // 4,400 bytes
	list := cliWrite(t, dir, "list", "password1\n"+long+"\npassword2\n")
	code, out, stderr := cliRun(t, "", "passwords", list)
	if code != exitRuntime || out != "" || !strings.Contains(stderr, list+":2:") || !strings.Contains(stderr, "--max-line") {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	if strings.Contains(stderr, "Tr0ub") {
		t.Errorf("the error shows the password: %q", stderr)
	}
	cliOK(t, "", "passwords", "--max-line", "0", list)
	cliOK(t, "", "passwords", "--max-line", "5000", list)
	code, _, stderr = cliRun(t, "", "passwords", "check", "--against", list, "x")
	if code != exitRuntime || !strings.Contains(stderr, ":2:") {
		t.Errorf("check: exit %d, %q", code, stderr)
	}
}

// TestMemoryLimit: a join that will not fit stops before its large
// allocations with one line and exit status 1; --memory-limit sets the bound.
func TestMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	in := cliWrite(t, dir, "in", strings.Repeat("a b c d e f g h\n", 1000))
	var list strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&list, "password%d\n", i)
	}
	pw := cliWrite(t, dir, "pw", list.String())
	for _, args := range [][]string{
		{"join", "-t", "0.5", "--memory-limit", "64K", in},
		{"dedup", "-t", "0.5", "--memory-limit", "64K", in},
		{"join", "--files", "-t", "0.5", "--memory-limit", "100", in},
		{"passwords", "--memory-limit", "64K", pw},
		{"passwords", "check", "--against", pw, "--memory-limit", "64K", "x"},
	} {
		code, out, stderr := cliRun(t, "", args...)
		if code != exitRuntime || out != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "needs about") || !strings.Contains(stderr, "--memory-limit") {
			t.Errorf("%v: exit %d, out %q, stderr %q", args, code, out, stderr)
		}
	}
	// Sizes below a KiB are bytes: not "the 0 KiB", not "0.0 KiB".
	if _, _, stderr := cliRun(t, "", "join", "-t", "0.5", "--memory-limit", "10", in); !strings.Contains(stderr, "more than the 10 B this process may use") {
		t.Errorf("--memory-limit 10: %q", stderr)
	}
	small := filepath.Join(dir, "small")
	os.Mkdir(small, 0o755)
	cliWrite(t, small, "a", strings.Repeat("x", 34))
	if _, stderr := cliOK(t, "", "join", "--files", "-t", "0.5", "--stats", small); !regexp.MustCompile(`bytes read +34 B\n`).MatchString(stderr) {
		t.Errorf("a 34-byte file read:\n%s", stderr)
	}
	cliOK(t, "", "join", "-t", "0.5", "--memory-limit", "1G", in)
	cliOK(t, "", "join", "-t", "0.5", "--memory-limit", "0", in)
	cliOK(t, "", "passwords", "--memory-limit", "1G", pw)
	if code, _, _ := cliRun(t, "", "join", "-t", "0.5", "--memory-limit", "lots", in); code != exitUsage {
		t.Errorf("--memory-limit lots: exit %d", code)
	}
}

// TestByteOrderMark: a UTF-8 byte-order mark at the start of an input
// changes nothing, for every tokenizer and every kind of input: a file,
// standard input, --against, gzip and zstd, each --files record, a
// password list, and candidates on standard input.
func TestByteOrderMark(t *testing.T) {
	const mark = "\uFEFF"
	text := "alpha beta gamma\nalpha beta gamma delta\nx y\n"
	dir := t.TempDir()
	write := func(name, s string) (plain, marked string) {
		return cliWrite(t, dir, name, s), cliWrite(t, dir, name+".bom", mark+s)
	}
	same := func(what string, plainArgs, markedArgs []string, plainIn, markedIn string) {
		t.Helper()
		code, want, _ := cliRun(t, plainIn, plainArgs...)
		if mcode, got, stderr := cliRun(t, markedIn, markedArgs...); mcode != code || got != want || want == "" {
			t.Errorf("%s: exit %d, %q with the mark (%s); exit %d, %q without", what, mcode, got, stderr, code, want)
		}
	}
	plain, marked := write("sets", text)
	gz, zst := writeBytes(t, dir, "sets.gz", gzipText(t, mark+text)), writeBytes(t, dir, "sets.zst", zstdText(t, mark+text))
	for _, tokens := range []string{"set", "words", "qgram:2", "qgram:4", "shingle:2"} {
		args := func(in ...string) []string {
			return append([]string{"join", "-t", "0.5", "--sort", "--tokens", tokens}, in...)
		}
		same(tokens+" file", args(plain), args(marked), "", "")
		same(tokens+" stdin", args("-"), args("-"), text, mark+text)
		same(tokens+" gzip", args(plain), args(gz), "", "")
		same(tokens+" zstd", args(plain), args(zst), "", "")
		same(tokens+" --against", args("--against", plain, plain), args("--against", marked, marked), "", "")
	}
	docs, mdocs := filepath.Join(dir, "docs"), filepath.Join(dir, "mdocs")
	os.Mkdir(docs, 0o755)
	os.Mkdir(mdocs, 0o755)
	for name, s := range map[string]string{"a.go": "package p\n\nfunc f() int { return 1 }\n", "b.go": "package p\n\nfunc f() int { return 2 }\n"} {
		cliWrite(t, docs, name, s)
		cliWrite(t, mdocs, name, mark+s)
	}
	for _, tokens := range []string{"set", "words", "qgram:3", "go:1"} {
		args := func(in string) []string {
			return []string{"join", "--files", "-t", "0.5", "--sort", "--tokens", tokens, in}
		}
		want, _ := cliOK(t, "", args(docs)...)
		got, _ := cliOK(t, "", args(mdocs)...)
		if strings.ReplaceAll(got, mdocs, docs) != want || want == "" {
			t.Errorf("--files %s: %q with the mark, %q without", tokens, got, want)
		}
	}
	pw := "password1\npassword2\nletmein\n"
	pwPlain, pwMarked := write("pw", pw)
	same("passwords file", []string{"passwords", "-t", "0.5", pwPlain}, []string{"passwords", "-t", "0.5", pwMarked}, "", "")
	same("passwords stdin", []string{"passwords", "-t", "0.5", "-"}, []string{"passwords", "-t", "0.5", "-"}, pw, mark+pw)
	same("passwords gzip", []string{"passwords", "-t", "0.5", pwPlain}, []string{"passwords", "-t", "0.5", writeBytes(t, dir, "pw.gz", gzipText(t, mark+pw))}, "", "")
	same("passwords check candidates", []string{"passwords", "check", "-t", "0.5", "--against", pwPlain}, []string{"passwords", "check", "-t", "0.5", "--against", pwMarked}, "password3\n", mark+"password3\n")
}
