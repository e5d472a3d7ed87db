// Package decompress recognises gzip and zstd input by its magic bytes and
// decompresses it on the fly, so that every input of a run may be
// compressed without a flag saying so.
//
// Detection reads at most the first four bytes; input that starts with
// neither magic is passed through unchanged (a text file never starts with
// gzip's 0x1f 0x8b or zstd's 0x28 0xb5 0x2f 0xfd, which are not valid
// UTF-8 text). Concatenated gzip members and zstd frames are read as one
// stream, as gzip -d and zstd -d do. Decompression runs in the calling
// goroutine (zstd: one decoder goroutine), costs O(output) time and a
// window of memory (gzip 32 KiB, zstd at most MaxWindow).
package decompress

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Format names a compression format; None is plain input.
type Format string

const (
	None Format = ""
	Gzip Format = "gzip"
	Zstd Format = "zstd"
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// MaxWindow bounds the zstd window (and so its memory): frames that ask for
// more are refused, as zstd -d refuses them without --long.
const MaxWindow = 128 << 20

// Detect returns the format of data from its first bytes.
func Detect(data []byte) Format {
	switch {
	case bytes.HasPrefix(data, gzipMagic):
		return Gzip
	case bytes.HasPrefix(data, zstdMagic):
		return Zstd
	}
	return None
}

// Reader returns a reader of r's decompressed contents, the format found,
// and a close function that releases the decoder (it does not close r).
// Errors of decompression come from the returned reader's Read, prefixed
// with the format's name.
func Reader(r io.Reader) (io.Reader, Format, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, None, nil, err
	}
	switch Detect(head) {
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, Gzip, nil, fmt.Errorf("gzip: %w", err)
		}
		return &named{zr, Gzip}, Gzip, func() { zr.Close() }, nil
	case Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(MaxWindow))
		if err != nil {
			return nil, Zstd, nil, fmt.Errorf("zstd: %w", err)
		}
		return &named{zr, Zstd}, Zstd, zr.Close, nil
	}
	return br, None, func() {}, nil
}

// Bytes returns data decompressed if it starts with a magic, else data
// itself, and the format found.
func Bytes(data []byte) ([]byte, Format, error) {
	if Detect(data) == None {
		return data, None, nil
	}
	r, f, done, err := Reader(bytes.NewReader(data))
	if err != nil {
		return nil, f, err
	}
	defer done()
	out, err := io.ReadAll(r)
	return out, f, err
}

// named prefixes read errors with the format.
type named struct {
	r io.Reader
	f Format
}

func (n *named) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %w", n.f, err)
	}
	return k, err
}
