// Package infile opens the file arguments of the simjoin command: a path, or
// "-" for standard input, decompressed on the fly when it starts with the
// magic bytes of gzip or zstd (internal/decompress), so that no flag has to
// say so. It is the counterpart of cmd/simjoin/internal/outfile.
//
// Open reads nothing but the first bytes (to recognise a compression); the
// File it returns is read once, front to back, by one goroutine, and must be
// closed. A directory is refused with a message pointing to --files, which
// reads each file of a directory as a record. Sources opens the inputs of a
// join (one file of lines or two, or files and directories) as the
// library's sources. Batches reads the records a command takes as arguments
// or on standard input, prompting for a secret typed at a terminal; IDs
// reads record ids given as arguments or on standard input.
package infile

import (
	"fmt"
	"io"
	"os"

	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/records"
)

// Stdin is the name standard input is shown by.
const Stdin = "<stdin>"

// File is an opened file argument, decompressed if it is gzip or zstd.
type File struct {
	io.Reader
	Name   string            // as shown in messages: the path, or Stdin
	Size   int64             // of a regular file (compressed), or -1
	Format decompress.Format // the compression found, if any
	close  func()
}

// Close releases the decompressor and closes the file (not standard input).
func (f *File) Close() error { f.close(); return nil }

// Open opens a file argument; "-" is stdin. Gzip and zstd input is
// recognised by its magic bytes and decompressed on the fly. A directory is
// an error; so is a compressed stream whose header cannot be read, as a
// *records.LineError naming the file.
func Open(name string, stdin io.Reader) (*File, error) {
	in := &File{Name: name, Size: -1, close: func() {}}
	var r io.Reader = stdin
	if name == "-" {
		in.Name = Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory (use --files to take each file as a record)", name)
		} else if err == nil && st.Mode().IsRegular() {
			in.Size = st.Size()
		}
		r, in.close = f, func() { f.Close() }
	}
	dr, format, done, err := decompress.Reader(r)
	if err != nil {
		in.close()
		return nil, &records.LineError{Name: in.Name, Err: err}
	}
	closeFile := in.close
	in.Reader, in.Format, in.close = dr, format, func() { done(); closeFile() }
	return in, nil
}
