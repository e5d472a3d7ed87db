package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{"join", "-t", "0.5", "--stats", gz},
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

func TestAgainstBothStdin(t *testing.T) {
	code, out, stderr := cliRun(t, "a b\na b\n", "join", "-t", "0.5", "--against", "-", "-")
	if code != exitUsage || out != "" || !strings.Contains(stderr, "standard input") {
		t.Errorf("--against - -: exit %d, out %q, stderr %q", code, out, stderr)
	}
}
