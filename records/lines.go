package records

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
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

// lineOptions configures readLines. The zero value works.
type lineOptions struct {
	// Name names the input in errors (a path, or "<stdin>"); "" is shown
	// as "<input>".
	Name string
	// Workers is the number of goroutines tokenizing: 0 means GOMAXPROCS
	// (parallel.Workers). The result does not depend on it.
	Workers int
	// Progress, if not nil, is called on the calling goroutine after each
	// batch of lines with the bytes read so far: the text of the lines,
	// and one byte for each line's end (so "\r\n" counts as one).
	Progress func(bytes int64)
}

// batchBytes is the size of the blocks of input a tokenizing worker takes
// at a time (a block is cut after its last line end; a longer line makes a
// larger block, up to holdLineBytes).
const batchBytes = 1 << 20

// holdLineBytes is the length up to which a line is held whole, in a block
// of its own, and tokenized by a worker as any other (as small values where
// its tokens are: a set of a million token ids numbered beforehand is a
// line of megabytes). A longer line is tokenized as it is read, by the
// reading goroutine, holding its distinct keys and a few pieces of its text
// (blockReader.long), never the line. Can change for testing.
var holdLineBytes = 8 << 20

// lineBatch is a block of whole lines and, once tokenized, their sorted
// distinct keys.
type lineBatch struct {
	text  []byte   // whole lines, each but perhaps the input's last ended by '\n'
	lines int      // lines in text, set by tokenize
	read  int64    // progress: each line's text and one byte for its end
	keys  []uint64 // line k's keys are keys[offs[k]:offs[k+1]]; nil when vals holds the lines
	vals  []uint32 // or line k's values are vals[offs[k]:offs[k+1]] (valuesOf)
	offs  []int
	err   error // a *LineError with Line counted from the batch's first line, without its Name
}

// batchSink is where readLines hands each block's sets, on its calling
// goroutine, in line order (offs[0] == 0 and line k is [offs[k], offs[k+1])).
type batchSink struct {
	// keys takes line k's sorted distinct keys keys[offs[k]:offs[k+1]], and
	// reports whether it keeps keys and offs (which are then not reused);
	// one that does not must not retain them.
	keys func(keys []uint64, offs []int) (kept bool)
	// values, if not nil, takes a block of lines whose every token is a
	// small value (valuesOf: integers under Set, grams of ASCII text under
	// QGram) as those values, vals[offs[k]:offs[k+1]] instead, with what
	// they stand for (vk); it retains neither slice.
	values func(vals []uint32, offs []int, vk order.Values)
}

// readLines reads r in blocks of whole lines, tokenizes the blocks on
// opts.Workers goroutines and hands each block's sets to sink in line
// order, on the calling goroutine (parallel.OrderedStream). Where the
// tokens can be small values (valuesOf) and the sink takes them, blocks
// are read as values until one holds a token that is not (a field that is
// not a small integer's one spelling, a byte that is not ASCII); that block
// and every later one are read as keys. A cancelled ctx stops the read
// between blocks with ctx's cause.
func readLines(ctx context.Context, r io.Reader, spec shingle.Spec, opts lineOptions, sink batchSink) error {
	name := opts.Name
	if name == "" {
		name = "<input>"
	}
	workers := parallel.Workers(opts.Workers)
	// Buffers of text and keys go back here once used, so that the blocks
	// in flight reuse a few buffers instead of allocating one each.
	freeKeys := parallel.NewBuffers[uint64](4*workers + 2)
	freeVals := parallel.NewBuffers[uint32](4*workers + 2)
	appendValues, vk := valuesOf(spec)
	var ints atomic.Bool // blocks are still tried as values
	ints.Store(appendValues != nil && sink.values != nil)
	br := &blockReader{r: r, free: parallel.NewBuffers[byte](4*workers + 2), spec: spec, freeKeys: freeKeys}
	// Keys a KiB of text in the last block tokenized (to start with, about
	// one for every four bytes, typical of token sets, or one a byte for
	// q-grams): a block's keys are sized from it, so that they rarely grow
	// and a KeyBatches keeps them without a copy.
	var perKiB atomic.Int64
	perKiB.Store(256)
	if spec.Kind == shingle.QGram {
		perKiB.Store(1024)
	}
	var firstErr error
	var read int64
	line := 0 // lines before the current batch
	err := parallel.OrderedStream(ctx, workers, br.next,
		func(_ int, blk block) *lineBatch {
			if blk.long != nil {
				// Its keys, made as it was read: later blocks are read
				// as keys too (the values' road gives the same sets).
				ints.Store(false)
				return blk.long
			}
			text := blk.text
			b := &lineBatch{text: text}
			room := min(int(int64(len(b.text))*perKiB.Load()/1024*9/8)+16, 1<<20)
			if ints.Load() {
				b.vals = freeVals.Get(room)
				if !b.tokenizeValues(appendValues) {
					ints.Store(false)
					freeVals.Put(b.vals)
					*b = lineBatch{text: text}
				}
			}
			if b.vals == nil {
				b.keys = freeKeys.Get(room)
				b.tokenize(spec)
			}
			perKiB.Store(int64(len(b.keys)+len(b.vals))*1024/int64(max(len(text), 1)) + 1)
			br.free.Put(b.text)
			b.text = nil
			return b
		},
		func(b *lineBatch) bool {
			if b.err != nil {
				var le *LineError
				if errors.As(b.err, &le) {
					le.Line += line
					le.Name = name
				}
				firstErr = b.err
				return false
			}
			if b.vals != nil {
				sink.values(b.vals, b.offs, vk)
				freeVals.Put(b.vals)
			} else if !sink.keys(b.keys, b.offs) {
				freeKeys.Put(b.keys)
			}
			line += b.lines
			read += b.read
			if opts.Progress != nil {
				opts.Progress(read)
			}
			return true
		})
	switch {
	case firstErr != nil:
		return firstErr
	case err != nil && err == br.err:
		return &LineError{Name: name, Err: err} // a read error
	}
	return err // nil, or ctx's cause
}

// block is what the reading goroutine hands the workers: whole lines of
// text, or one long line already tokenized.
type block struct {
	text []byte     // whole lines (the input's last perhaps without its newline)
	long *lineBatch // or one line longer than a block, tokenized (text nil)
}

// blockReader cuts a reader into blocks of whole lines, for one goroutine.
type blockReader struct {
	r        io.Reader
	free     *parallel.Buffers[byte] // used blocks, given back for reuse
	carry    []byte                  // the start of a line the last block did not end
	err      error                   // io.EOF or the read error that ended the input
	spec     shingle.Spec            // how a long line is tokenized (long)
	sb       shingle.SetBuilder      // a long line's keys so far
	freeKeys *parallel.Buffers[uint64]
}

// fill reads into text up to its capacity, or until the input ends (br.err).
func (br *blockReader) fill(text []byte) []byte {
	for len(text) < cap(text) && br.err == nil {
		n, err := br.r.Read(text[len(text):cap(text)])
		text = text[:len(text)+n]
		br.err = err
	}
	return text
}

// next returns the next block of about batchBytes: whole lines, or a
// longer line tokenized as it is read (long), or the input's last line
// without its newline; ok false after the last block, and the read error,
// if one ended the input, after the block of the text read before it.
func (br *blockReader) next() (blk block, ok bool, err error) {
	if br.err != nil && len(br.carry) == 0 { // (long may leave lines read before the end)
		if br.err == io.EOF {
			return block{}, false, nil
		}
		return block{}, false, br.err
	}
	text := br.free.Get(max(batchBytes, 2*len(br.carry)))
	text = append(text, br.carry...)
	br.carry = br.carry[:0]
	for {
		if text = br.fill(text); br.err != nil {
			break
		}
		if i := bytes.LastIndexByte(text, '\n'); i >= 0 {
			br.carry = append(br.carry, text[i+1:]...)
			return block{text: text[:i+1]}, true, nil
		}
		if len(text) >= holdLineBytes {
			return block{long: br.long(text)}, true, nil
		}
		// A line longer than the block: double the block.
		text = slices.Grow(text, cap(text))
	}
	if len(text) == 0 {
		br.free.Put(text)
		return br.next()
	}
	return block{text: text}, true, nil
}

// long tokenizes a line longer than holdLineBytes, of which text (without
// a line end) is the start, reading the rest of it through text's buffer
// in pieces of batchBytes, and returns its batch (one line; its error, if it does not
// tokenize, as lineBatch.err): the line is never held whole (but under Go
// tokens, see shingle.SetBuilder). The text after its end is left in
// br.carry.
func (br *blockReader) long(text []byte) *lineBatch {
	sb := &br.sb
	sb.Reset(br.spec)
	n, cr := 0, false // bytes of the line written; whether a '\r' is held back
	write := func(p []byte) {
		if len(p) == 0 {
			return
		}
		if cr {
			sb.Write([]byte{'\r'})
			n++
		}
		// A '\r' at the end is held back: it is dropped if '\n' follows.
		if cr = len(p) > 0 && p[len(p)-1] == '\r'; cr {
			p = p[:len(p)-1]
		}
		sb.Write(p)
		n += len(p)
	}
	for {
		i := bytes.IndexByte(text, '\n')
		if i >= 0 {
			write(text[:i]) // and a '\r' held back is dropped: the line ends in "\r\n"
			br.carry = append(br.carry, text[i+1:]...)
			break
		}
		write(text)
		if br.err != nil {
			if cr {
				sb.Write([]byte{'\r'}) // a last line's '\r' is its own
				n++
			}
			break
		}
		text = br.fill(text[:0:min(cap(text), batchBytes)])
	}
	br.free.Put(text)
	b := &lineBatch{lines: 1, read: int64(n) + 1, offs: []int{0}}
	var err error
	if b.keys, err = sb.AppendTo(br.freeKeys.Get(0)); err != nil {
		b.err = &LineError{Line: 1, Err: err}
		return b
	}
	b.offs = append(b.offs, len(b.keys))
	return b
}

// sinkOf returns how readLines hands its batches to to: a KeyBatches
// keeps them, other sinks copy them, and an order.Input (or a KeyBatches
// that takes values) takes blocks of small values as values
// (order.Input.AddValues), counting their tokens into values when it is
// not nil.
func sinkOf(to Sink, values *int64) batchSink {
	sink := batchSink{keys: func(keys []uint64, offs []int) bool {
		to.AddBatch(keys, offs)
		return false
	}}
	var addValues func([]uint32, []int, order.Values)
	switch to := to.(type) {
	case *KeyBatches:
		sink.keys = to.take
		if to.Values {
			addValues = to.addValues
		}
	case *order.Input:
		addValues = to.AddValues
	}
	if addValues != nil {
		sink.values = func(vals []uint32, offs []int, vk order.Values) {
			if values != nil {
				*values += int64(offs[len(offs)-1])
			}
			addValues(vals, offs, vk)
		}
	}
	return sink
}

// eachLine splits b.text into lines and calls f with each, its end of line
// trimmed, counting b.lines and b.read, until f returns false; offs is
// started for as many lines as the text holds. It reports whether every
// line was taken.
func (b *lineBatch) eachLine(f func(line string) bool) bool {
	b.offs = append(make([]int, 0, bytes.Count(b.text, []byte{'\n'})+2), 0)
	// The text is not changed while the lines are read, and nothing made of
	// them refers to it: a string view, sliced per line, saves a copy of
	// the batch.
	text := unsafe.String(unsafe.SliceData(b.text), len(b.text))
	for start := 0; start < len(text); {
		next := len(text)
		if end := strings.IndexByte(text[start:], '\n'); end >= 0 {
			next = start + end + 1
		}
		line := eol.Trim(text[start:next])
		b.lines++
		b.read += int64(len(line)) + 1
		if !f(line) {
			return false
		}
		start = next
	}
	return true
}

// tokenize fills b.keys and b.offs with each line's sorted distinct keys,
// b.lines and b.read.
func (b *lineBatch) tokenize(spec shingle.Spec) {
	b.eachLine(func(line string) bool {
		// b.keys comes sized for as many keys a byte as the last block had
		// (up to 1M keys), and doubles when a line might not fit. (A batch
		// of one long line holds its distinct keys only: see AppendSet.)
		// A line has at most a key a byte (q-grams of one-byte code
		// points): the room for that is made by doubling the buffer, where
		// append would grow it by a quarter at a time, copying the keys so
		// far (into fresh memory) each time.
		if n := len(line) + 1; cap(b.keys)-len(b.keys) < n && n <= shingle.PieceBytes {
			b.keys = slices.Grow(b.keys, max(n, len(b.keys)))
		}
		var err error
		b.keys, err = spec.AppendSet(b.keys, line)
		if err != nil {
			b.err = &LineError{Line: b.lines, Err: err}
			return false
		}
		b.offs = append(b.offs, len(b.keys))
		return true
	})
}

// valuesOf returns how spec's tokens can be read as small values, and what
// the values stand for: the integers of Set's fields (shingle.AppendInts),
// the grams of ASCII text under QGram of up to shingle.MaxGramValues
// characters (shingle.AppendGramValues); nil for the other tokenizers.
func valuesOf(spec shingle.Spec) (func(dst []uint32, line string) ([]uint32, bool), order.Values) {
	switch {
	case spec.Kind == shingle.Set:
		return shingle.AppendInts, shingle.IntValues{}
	case spec.Kind == shingle.QGram && spec.N <= shingle.MaxGramValues:
		n := spec.N
		return func(dst []uint32, line string) ([]uint32, bool) {
			return shingle.AppendGramValues(dst, line, n)
		}, shingle.GramValues{N: n}
	}
	return nil, nil
}

// tokenizeValues fills b.vals and b.offs with each line's values as
// appendValues gives them, b.lines and b.read, and reports true; or false
// when a line's tokens are not all values.
func (b *lineBatch) tokenizeValues(appendValues func(dst []uint32, line string) ([]uint32, bool)) bool {
	return b.eachLine(func(line string) bool {
		if n := min(len(line), shingle.PieceBytes) + 1; cap(b.vals)-len(b.vals) < n {
			b.vals = slices.Grow(b.vals, max(n, len(b.vals)))
		}
		var ok bool
		if b.vals, ok = appendValues(b.vals, line); !ok {
			return false
		}
		b.offs = append(b.offs, len(b.vals))
		return true
	})
}
