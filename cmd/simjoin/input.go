package main

import (
	"fmt"
	"io"
	"os"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/internal/decompress"
)

// input is an opened file argument, decompressed if it is gzip or zstd.
type input struct {
	io.Reader
	name   string            // as shown in messages: the path, or <stdin>
	size   int64             // of a regular file (compressed), or -1
	format decompress.Format // the compression found, if any
	close  func()
}

func (in *input) Close() error { in.close(); return nil }

// openInput opens a file argument; "-" is standard input. Gzip and zstd
// input is recognised by its magic bytes and decompressed on the fly.
func openInput(name string, stdin io.Reader) (*input, error) {
	in := &input{name: name, size: -1, close: func() {}}
	var r io.Reader = stdin
	if name == "-" {
		in.name = "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory (use --files to take each file as a record)", name)
		} else if err == nil && st.Mode().IsRegular() {
			in.size = st.Size()
		}
		r, in.close = f, func() { f.Close() }
	}
	dr, format, done, err := decompress.Reader(r)
	if err != nil {
		in.close()
		return nil, &simjoin.LineError{Name: in.name, Err: err}
	}
	closeFile := in.close
	in.Reader, in.format, in.close = dr, format, func() { done(); closeFile() }
	return in, nil
}
