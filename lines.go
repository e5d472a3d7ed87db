package simjoin

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unsafe"

	"github.com/simjoin/simjoin/internal/eol"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// LineError reports bad input by the name of its file (or stream) and its
// 1-based line: "name:line: reason", or "name: reason" when Line is 0 (an
// error of the stream, such as a read error). It never quotes the line
// (records may be passwords).
type LineError struct {
	Name string // as shown: a path, or "<stdin>"
	Line int    // 1-based; 0 when the error is not about one line
	Err  error
}

func (e *LineError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Name, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// LineReader yields the lines of a reader without their line ending ("\n" or
// "\r\n"). A final line without a newline is a line; the empty string after a
// final newline is not. A line may be of any length: its buffer doubles as
// it grows. It is not safe for concurrent use.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int // lines returned so far
}

// NewLineReader returns a LineReader over r, buffering 1 MiB of it.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// Line returns the 1-based number of the line Next returned last (0 before
// the first).
func (lr *LineReader) Line() int { return lr.line }

// Buffered returns the number of bytes read from the reader and not yet
// returned as lines: 0 means the next call to Next may wait for the reader
// (an interactive stream, a pipe whose writer has not written more).
func (lr *LineReader) Buffered() int { return lr.r.Buffered() }

// Next returns the next line, or io.EOF after the last. The line is valid
// until the following call. Cost: O(length of the line), amortised; no
// allocation once the buffer has grown to the longest line.
func (lr *LineReader) Next() ([]byte, error) {
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

// ReadOptions configures ReadLines. The zero value works.
type ReadOptions struct {
	// Name names the input in errors (a path, or "<stdin>"); "" is shown
	// as "<input>".
	Name string
	// Workers is the number of goroutines tokenizing (parallel.Workers: 0
	// means GOMAXPROCS). The result does not depend on it.
	Workers int
	// Progress, if not nil, is called on the calling goroutine after each
	// batch of lines with the bytes read so far: the text of the lines,
	// and one byte for each line's end (so "\r\n" counts as one).
	Progress func(bytes int64)
}

// batchLines is the number of lines a tokenizing worker takes at a time.
const batchLines = 2048

// lineBatch is a run of lines and, once tokenized, their sorted distinct
// keys.
type lineBatch struct {
	first int   // line number of the first line
	read  int64 // bytes read up to the end of this batch
	text  []byte
	ends  []int // line k is text[ends[k-1]:ends[k]]
	keys  []uint64
	offs  []int // line k's keys are keys[offs[k]:offs[k+1]]
	err   error // a *LineError without its Name
	done  chan struct{}
}

// ReadLines reads one record per line from r and returns the token sets of
// the lines (spec applied to each) in line order: record i is line i+1.
// A line that spec cannot tokenize (such as invalid UTF-8 where spec needs
// text) stops the read with a *LineError naming opts.Name and the line;
// so does a read error (without a line).
//
// Cost: one pass over r on a reading goroutine, which hands batches of 2,048
// lines to opts.Workers goroutines that tokenize them; the sets are added to
// the result in line order. Memory: the sets' keys (8 bytes per distinct
// token of each line) and a few batches of text in flight. All goroutines
// have ended when it returns; r is read to its end or to the first error,
// and not closed.
func ReadLines(r io.Reader, spec shingle.Spec, opts ReadOptions) (*order.Input, error) {
	name := opts.Name
	if name == "" {
		name = "<input>"
	}
	lr := NewLineReader(r)
	workers := parallel.Workers(opts.Workers)
	inOrder := make(chan *lineBatch, 2*workers)
	work := make(chan *lineBatch, 2*workers)
	var readErr error
	var read int64
	lastText := 1 << 16
	go func() {
		defer close(inOrder)
		defer close(work)
		for {
			// Size the batch like the last one, so that it rarely grows.
			b := &lineBatch{first: lr.line + 1, done: make(chan struct{}),
				text: make([]byte, 0, lastText+lastText/8), ends: make([]int, 0, batchLines)}
			for len(b.ends) < batchLines {
				line, err := lr.Next()
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
			if readErr != nil || len(b.ends) < batchLines {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.tokenize(spec)
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
		if opts.Progress != nil {
			opts.Progress(b.read)
		}
	}
	wg.Wait()
	if firstErr != nil {
		var le *LineError
		if errors.As(firstErr, &le) {
			le.Name = name
		}
		return nil, firstErr
	}
	if readErr != nil {
		return nil, &LineError{Name: name, Err: readErr}
	}
	return in, nil
}

// tokenize fills b.keys and b.offs with each line's sorted distinct keys.
func (b *lineBatch) tokenize(spec shingle.Spec) {
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
			b.err = &LineError{Line: b.first + k, Err: err}
			return
		}
		b.offs = append(b.offs, len(b.keys))
		start = end
	}
	b.text = nil
}
