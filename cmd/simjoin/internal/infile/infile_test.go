package infile

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/records"
)

const text = "alpha beta\ngamma\n"

// read opens name and returns what it reads, checking the File's fields.
func read(t *testing.T, name string, stdin io.Reader, wantName string, wantSize int64, wantFormat decompress.Format) {
	t.Helper()
	f, err := Open(name, stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || string(got) != text {
		t.Errorf("%s: read %q, %v; want %q", name, got, err, text)
	}
	if f.Name != wantName || f.Size != wantSize || f.Format != wantFormat {
		t.Errorf("%s: name %q size %d format %q; want %q %d %q", name, f.Name, f.Size, f.Format, wantName, wantSize, wantFormat)
	}
}

// TestOpen reads a plain file, a gzipped file and standard input.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	read(t, plain, nil, plain, int64(len(text)), decompress.None)

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	packed := filepath.Join(dir, "packed")
	if err := os.WriteFile(packed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	read(t, packed, nil, packed, int64(gz.Len()), decompress.Gzip)
	read(t, "-", strings.NewReader(text), Stdin, -1, decompress.None)
	read(t, "-", bytes.NewReader(gz.Bytes()), Stdin, -1, decompress.Gzip)
}

// TestOpenErrors: a missing file, a directory (pointing to --files) and a
// stream that fails before its magic bytes are read.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Open(dir, nil); err == nil || err.Error() != dir+" is a directory (use --files to take each file as a record)" {
		t.Errorf("directory: %v", err)
	}
	broken := errors.New("broken pipe")
	_, err := Open("-", &failReader{broken})
	var le *records.LineError
	if !errors.As(err, &le) || le.Name != Stdin || !errors.Is(err, broken) {
		t.Errorf("failing stdin: %v, want a LineError of %s", err, Stdin)
	}
}

type failReader struct{ err error }

func (r *failReader) Read([]byte) (int, error) { return 0, r.err }

// TestSources: a self-join's lines from one file (stdin for "-"), an R-S
// join's from two, each told to opened; files and directories read nothing
// before the join; an error leaves nothing open.
func TestSources(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	join := func(r, s records.Source, method simjoin.Method) simjoin.Stats {
		t.Helper()
		st, err := simjoin.Run(ctx, r, s, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 1}, Method: method}, func(simjoin.Pair) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	var names []string
	opened := func(f *File) { names = append(names, f.Name) }
	r, s, done, err := Sources([]string{"-"}, "", false, strings.NewReader(text+"gamma\n"), opened)
	if err != nil {
		t.Fatal(err)
	}
	if st := join(r, s, simjoin.Exact); st.Records != 3 || st.Results != 1 || strings.Join(names, " ") != Stdin {
		t.Errorf("self-join of stdin: %d records, %d results, opened %q", st.Records, st.Results, names)
	}
	done()
	names = nil
	r, s, done, err = Sources([]string{a}, b, false, nil, opened)
	if err != nil {
		t.Fatal(err)
	}
	if st := join(r, s, simjoin.Exact); st.Results != 2 || strings.Join(names, " ") != a+" "+b {
		t.Errorf("R-S join of lines: %d results, opened %q", st.Results, names)
	}
	done()
	names = nil
	r, s, done, err = Sources([]string{dir}, b, true, nil, opened)
	if err != nil {
		t.Fatal(err)
	}
	if st := join(r, s, simjoin.Exact); st.Files == nil || st.Results != 2 || names != nil {
		t.Errorf("R-S join of files: files %v, %d results, opened %q", st.Files, st.Results, names)
	}
	done()
	if _, _, done, err := Sources([]string{a}, filepath.Join(dir, "missing"), false, nil, nil); err == nil || done != nil {
		t.Errorf("missing --against: done %t, err %v", done != nil, err)
	}
}

// TestIDs: ids from the arguments and, for "-", from stdin's lines, in
// order; a bad argument wraps index.ErrNotID, a bad line of stdin is a
// *records.LineError.
func TestIDs(t *testing.T) {
	ids, err := IDs([]string{"3", "-", "1"}, strings.NewReader("7\n 8 \n"))
	if err != nil || !slices.Equal(ids, []index.ID{3, 7, 8, 1}) {
		t.Errorf("ids %v, %v", ids, err)
	}
	var le *records.LineError
	if _, err := IDs([]string{"1", "x"}, nil); !errors.Is(err, index.ErrNotID) || errors.As(err, &le) {
		t.Errorf("bad argument: %v", err)
	}
	if _, err := IDs([]string{"-"}, strings.NewReader("1\nx\n")); !errors.As(err, &le) || le.Line != 2 || le.Name != Stdin {
		t.Errorf("bad line: %v", err)
	}
}

// TestOneStream: standard input twice, or a pipe under two names, is one
// stream; a regular file named twice is not (each open reads it whole),
// nor are two files, nor names that cannot be examined.
func TestOneStream(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("x\n"), 0o644)
	os.WriteFile(b, []byte("x\n"), 0o644)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	pipe := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		a, b  string
		stdin io.Reader
		want  bool
	}{
		{"-", "-", strings.NewReader(""), true},
		{"-", pipe, r, true},
		{pipe, pipe, nil, true},
		{a, a, nil, false},
		{"-", a, f, false},
		{a, b, nil, false},
		{"-", pipe, strings.NewReader(""), false},
		{filepath.Join(dir, "missing"), filepath.Join(dir, "missing"), nil, false},
	} {
		if got := OneStream(tc.a, tc.b, tc.stdin); got != tc.want {
			t.Errorf("OneStream(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestDropBOM: the mark is dropped at the start of a stream only, however
// the stream arrives (a byte at a time too), and a stream that merely
// starts like it, or ends within it, comes through whole.
func TestDropBOM(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "abc": "abc", "\uFEFF": "", "\uFEFFabc\n": "abc\n", "\uFEFF\uFEFFx": "\uFEFFx",
		"\xef": "\xef", "\xef\xbb": "\xef\xbb", "\xefabc": "\xefabc", "\xef\xbbX": "\xef\xbbX", "a\uFEFF": "a\uFEFF",
	} {
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(in), "bytes": iotest.OneByteReader(strings.NewReader(in))} {
			got, err := io.ReadAll(dropBOM(r))
			if err != nil || string(got) != want {
				t.Errorf("%q read as %s: %q, %v; want %q", in, name, got, err, want)
			}
		}
	}
	boom := errors.New("boom")
	if got, err := io.ReadAll(dropBOM(io.MultiReader(strings.NewReader("\xef"), iotest.ErrReader(boom)))); !errors.Is(err, boom) || string(got) != "\xef" {
		t.Errorf("an error after the first byte: %q, %v", got, err)
	}
	// Open drops it from a file, compressed or not.
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("\uFEFFa b\n"))
	zw.Close()
	for name, data := range map[string][]byte{"plain": []byte("\uFEFFa b\n"), "gzip": gz.Bytes()} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		f, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(f); string(got) != "a b\n" {
			t.Errorf("Open of a %s file: %q", name, got)
		}
		f.Close()
	}
}
