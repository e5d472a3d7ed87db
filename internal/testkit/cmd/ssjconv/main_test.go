package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/records"
)

// TestConvert checks the binary layout on a small input: records by size,
// ids rare first, sets sorted, empty lines left out, ids the input's indexes.
func TestConvert(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.txt")
	// Document frequencies: a 3, b 2, c 1, d 1.
	if err := os.WriteFile(path, []byte("a b c\n\na b\nd a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := convertFile(t, &out, path, "bin"); err != nil {
		t.Fatal(err)
	}
	var got [][]uint32 // id, size, tokens...
	b := out.Bytes()
	for len(b) > 0 {
		if len(b) < 8 {
			t.Fatalf("%d trailing bytes", len(b))
		}
		id, n := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		rec := []uint32{id, n}
		b = b[8:]
		for range n {
			rec = append(rec, binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
		got = append(got, rec)
	}
	if len(got) != 3 {
		t.Fatalf("%d records, want 3 (the empty line left out): %v", len(got), got)
	}
	for i, rec := range got {
		if i > 0 && rec[1] < got[i-1][1] {
			t.Errorf("records not by size: %v", got)
		}
		if !slices.IsSorted(rec[2:]) {
			t.Errorf("record %v: tokens not sorted", rec)
		}
	}
	// The record of three tokens is line 0: its rarest token (c, df 1) comes
	// first and its most frequent (a, df 3) last.
	last := got[2]
	if last[0] != 0 || last[1] != 3 {
		t.Fatalf("largest record %v, want id 0 of size 3", last)
	}
	if a := last[4]; a != 3 {
		t.Errorf("token a has id %d, want 3 (the most frequent of 4 tokens)", a)
	}
}

// TestConvertText checks the integer lines of -format text against the
// binary records of the same input: the same sets in the same order.
func TestConvertText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte("a b c\n\na b\nd a\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var bin, text bytes.Buffer
	if err := convertFile(t, &bin, path, "bin"); err != nil {
		t.Fatal(err)
	}
	if err := convertFile(t, &text, path, "text"); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	b := bin.Bytes()
	for len(b) > 0 {
		n := binary.LittleEndian.Uint32(b[4:])
		b = b[8:]
		for i := range n {
			if i > 0 {
				want.WriteByte(' ')
			}
			want.WriteString(strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b)), 10))
			b = b[4:]
		}
		want.WriteByte('\n')
	}
	if got := text.String(); got != want.String() || strings.Count(got, "\n") != 4 {
		t.Fatalf("text format:\n%q\nwant the binary records' sets, 4 lines:\n%q", got, want.String())
	}
}

// TestConvertKeys checks -format keys: the text format's lines with each
// id replaced by its token's key, which read back as integers give the same
// sets in the same order.
func TestConvertKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(path, []byte("a b c\n\na b\nd a\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var text, keys bytes.Buffer
	if err := convertFile(t, &text, path, "text"); err != nil {
		t.Fatal(err)
	}
	if err := convertFile(t, &keys, path, "keys"); err != nil {
		t.Fatal(err)
	}
	if keys.String() == text.String() {
		t.Fatalf("keys format wrote the ids: %q", keys.String())
	}
	back := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(back, keys.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := convertFile(t, &again, back, "text"); err != nil {
		t.Fatal(err)
	}
	if again.String() != text.String() {
		t.Fatalf("keys read back give\n%q\nwant the text format's sets\n%q", again.String(), text.String())
	}
}

// convertFile converts the line file at path with whitespace tokens.
func convertFile(t *testing.T, w *bytes.Buffer, path, format string) error {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return convert(w, records.Lines(f, path), records.Options{}, format)
}

// TestConvertFiles checks that a Files source gives one record a file,
// selected by the globs as simjoin's --files selects them.
func TestConvertFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.txt": "x y z", "b.txt": "x y", "c.log": "q"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	opts := records.Options{Files: records.FileOptions{Include: []string{"*.txt"}}}
	if err := convert(&out, records.Files(dir), opts, "text"); err != nil {
		t.Fatal(err)
	}
	// Document frequencies: z 1, x 2, y 2: the sets {x, y} and {z, x, y}.
	if got, want := out.String(), "1 2\n0 1 2\n"; got != want {
		t.Fatalf("files converted to %q, want %q", got, want)
	}
}
