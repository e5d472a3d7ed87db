package infile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/decompress"
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
	var le *simjoin.LineError
	if !errors.As(err, &le) || le.Name != Stdin || !errors.Is(err, broken) {
		t.Errorf("failing stdin: %v, want a LineError of %s", err, Stdin)
	}
}

type failReader struct{ err error }

func (r *failReader) Read([]byte) (int, error) { return 0, r.err }
