package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/eol"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// lineBatch is the number of lines a tokenizing worker takes at a time.
const lineBatch = 2048

// inputError names the file and line of bad input.
type inputError struct {
	file string
	line int
	err  error
}

func (e *inputError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err)
	}
	return fmt.Sprintf("%s: %v", e.file, e.err)
}

func (e *inputError) Unwrap() error { return e.err }

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
		return nil, &inputError{file: in.name, err: err}
	}
	closeFile := in.close
	in.Reader, in.format, in.close = dr, format, func() { done(); closeFile() }
	return in, nil
}

// lineReader yields the lines of r without their line ending ("\n" or
// "\r\n"). A final line without a newline is a line; the empty string after a
// final newline is not.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the next line (valid until the following call) or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(chunk) > cap(lr.buf)-len(lr.buf) {
			// Double a long line's buffer (append grows large slices by
			// a quarter, copying a long line many times over).
			lr.buf = slices.Grow(lr.buf, max(len(chunk), len(lr.buf)))
		}
		lr.buf = append(lr.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(lr.buf) == 0 {
				return nil, io.EOF
			}
			lr.line++
			return eol.Trim(lr.buf), nil
		}
		if err != nil {
			return nil, err
		}
		lr.line++
		return eol.Trim(lr.buf), nil
	}
}

// batch is a run of lines and, once tokenized, their sorted distinct keys.
type batch struct {
	first int   // line number of lines[0]
	read  int64 // bytes read up to the end of this batch
	text  []byte
	ends  []int // line k is text[ends[k-1]:ends[k]]
	keys  []uint64
	offs  []int
	err   error
	done  chan struct{}
}

// readRecords reads one record per line from r and tokenizes the lines on all
// cores, returning the token sets in line order. progress, if not nil, is
// called with the bytes read so far.
func readRecords(r io.Reader, name string, spec shingle.Spec, progress func(int64)) (*order.Input, error) {
	lr := newLineReader(r)
	workers := runtime.GOMAXPROCS(0)
	inOrder := make(chan *batch, 2*workers)
	work := make(chan *batch, 2*workers)
	var readErr error
	var read int64
	lastText := 1 << 16
	go func() {
		defer close(inOrder)
		defer close(work)
		for {
			// Size the batch like the last one, so that it rarely grows.
			b := &batch{first: lr.line + 1, done: make(chan struct{}),
				text: make([]byte, 0, lastText+lastText/8), ends: make([]int, 0, lineBatch)}
			for len(b.ends) < lineBatch {
				line, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					readErr = err
					break
				}
				b.text = append(b.text, line...)
				b.ends = append(b.ends, len(b.text))
				read += int64(len(line) + 1)
			}
			if len(b.ends) == 0 {
				return
			}
			lastText = len(b.text)
			b.read = read
			inOrder <- b
			work <- b
			if readErr != nil || len(b.ends) < lineBatch {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for b := range work {
				tokenize(b, spec)
				close(b.done)
			}
		})
	}
	in := new(order.Input)
	var firstErr error
	for b := range inOrder {
		<-b.done
		if firstErr != nil {
			continue
		}
		if b.err != nil {
			firstErr = b.err
			continue
		}
		in.AddBatch(b.keys, b.offs)
		if progress != nil {
			progress(b.read)
		}
	}
	wg.Wait()
	if firstErr != nil {
		var ie *inputError
		if errors.As(firstErr, &ie) {
			ie.file = name
		}
		return nil, firstErr
	}
	if readErr != nil {
		return nil, &inputError{file: name, err: readErr}
	}
	return in, nil
}

// tokenize fills b.keys and b.offs with each line's sorted distinct keys.
func tokenize(b *batch, spec shingle.Spec) {
	b.offs = append(make([]int, 0, len(b.ends)+1), 0)
	// About one key for every four bytes of text is typical of token sets;
	// q-grams and shingles have more, and append grows the rest. (A batch
	// of one long line holds its distinct keys only: see AppendSet.)
	b.keys = make([]uint64, 0, min(len(b.text)/4+16, 1<<20))
	// The text is not changed while the keys are made, and no key refers to
	// it: a string view, sliced per line, saves a copy of the batch.
	text := unsafe.String(unsafe.SliceData(b.text), len(b.text))
	start := 0
	for k, end := range b.ends {
		var err error
		b.keys, err = spec.AppendSet(b.keys, text[start:end])
		if err != nil {
			b.err = &inputError{line: b.first + k, err: err}
			return
		}
		b.offs = append(b.offs, len(b.keys))
		start = end
	}
	b.text = nil
}
