package decompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func gz(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.Bytes()
}

func zst(t *testing.T, s string) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.EncodeAll([]byte(s), nil)
}

func TestReader(t *testing.T) {
	text := strings.Repeat("a b c\nd e f\n", 1000)
	for _, tc := range []struct {
		in   []byte
		want Format
	}{
		{[]byte(text), None},
		{[]byte(""), None},
		{[]byte("x"), None},
		{gz(t, text), Gzip},
		{append(gz(t, text[:6]), gz(t, text[6:])...), Gzip}, // two members
		{zst(t, text), Zstd},
		{append(zst(t, text[:6]), zst(t, text[6:])...), Zstd}, // two frames
	} {
		r, f, done, err := Reader(bytes.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		done()
		if err != nil || f != tc.want {
			t.Errorf("format %q (%v), want %q", f, err, tc.want)
		}
		if tc.want != None && string(got) != text || tc.want == None && !bytes.Equal(got, tc.in) {
			t.Errorf("%q: contents differ", tc.want)
		}
		b, f2, err := Bytes(tc.in)
		if err != nil || f2 != tc.want || !bytes.Equal(b, got) {
			t.Errorf("Bytes: %q %v", f2, err)
		}
	}
}

func TestCorrupt(t *testing.T) {
	for _, in := range [][]byte{gz(t, "hello world")[:12], zst(t, strings.Repeat("hello world", 100))[:10]} {
		r, f, done, err := Reader(bytes.NewReader(in))
		if err == nil {
			_, err = io.ReadAll(r)
			done()
		}
		if err == nil || !strings.Contains(err.Error(), string(f)) {
			t.Errorf("truncated %s: %v", f, err)
		}
	}
}
