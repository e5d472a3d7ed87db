// Package infile opens the file arguments of the simjoin command: a path, or
// "-" for standard input, decompressed on the fly when it starts with the
// magic bytes of gzip or zstd (internal/decompress), so that no flag has to
// say so. It is the counterpart of cmd/simjoin/internal/outfile.
//
// A UTF-8 byte-order mark that starts an input (after decompression) is not
// part of it: Open and Batches drop it, so that the first record of a list
// or of standard input reads as the others do. (The tokenizers drop one at
// the start of every record too: see shingle.Spec.Append.)
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
	"strings"

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
	in.Reader, in.Format, in.close = dropBOM(dr), format, func() { done(); closeFile() }
	return in, nil
}

// bom is U+FEFF in UTF-8.
const bom = "\uFEFF"

// dropBOM returns a reader of r's stream without the byte-order mark
// (U+FEFF) that starts it, if any. Its first Read reads at most three bytes
// of r (and waits for a third only after EF BB, the start of the mark), so
// that a stream read as it arrives is not held up.
func dropBOM(r io.Reader) io.Reader { return &bomReader{r: r} }

// bomReader is dropBOM's reader.
type bomReader struct {
	r    io.Reader
	done bool   // the start has been decided
	pend []byte // bytes read while deciding, to return first
	err  error  // r's error while deciding, to return after pend
}

func (b *bomReader) Read(p []byte) (int, error) {
	for !b.done {
		var buf [len(bom)]byte
		n := copy(buf[:], b.pend)
		m, err := b.r.Read(buf[n:])
		b.pend = append(b.pend[:0], buf[:n+m]...)
		if len(b.pend) == len(bom) || !strings.HasPrefix(bom, string(b.pend)) || err != nil {
			b.done, b.err = true, err
			if string(b.pend) == bom {
				b.pend = nil
			}
		}
	}
	if len(b.pend) > 0 {
		n := copy(p, b.pend)
		b.pend = b.pend[n:]
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.r.Read(p)
}

// OneStream reports whether the file arguments a and b ("-" is stdin) are
// one stream that a run would read twice: "-" twice, or one file (the same
// device and inode, under any names: /dev/stdin, /dev/fd/0,
// /proc/self/fd/0, a link) that is not a regular file, such as a pipe, a
// FIFO or a terminal. Such input can be read once; reading it for two sides
// would split its records between them. A regular file may be named twice:
// each open reads it whole. Arguments that cannot be examined are not one
// stream (opening them reports why). It opens nothing, so it never waits
// on a FIFO.
func OneStream(a, b string, stdin io.Reader) bool {
	if a == "-" && b == "-" {
		return true
	}
	sa, sb := statArg(a, stdin), statArg(b, stdin)
	return sa != nil && sb != nil && os.SameFile(sa, sb) && !sa.Mode().IsRegular()
}

// statArg returns the file a file argument names ("-": stdin, when it is a
// file), or nil.
func statArg(name string, stdin io.Reader) os.FileInfo {
	if name == "-" {
		if f, ok := stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil {
				return st
			}
		}
		return nil
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil
	}
	return st
}
