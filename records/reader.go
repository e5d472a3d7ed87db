package records

import (
	"context"
	"fmt"
	"strconv"

	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/shingle"
)

// Options configures a Reader. The zero value works: whitespace-separated
// tokens, every file listed, one worker per core, no progress.
type Options struct {
	// Tokens says how a string, line or file becomes a set (shingle.Spec{}
	// takes whitespace-separated tokens as they are). Sets sources ignore
	// it.
	Tokens shingle.Spec
	// Files applies to the Files sources read.
	Files FileOptions
	// Workers is the number of goroutines reading Lines and Files; 0 or
	// less means GOMAXPROCS (parallel.Workers). The result does not depend
	// on it.
	Workers int
	// Progress, if not nil, is called when a long stage starts (a Lines
	// source's read, a Files source's files), with the source's name for
	// StageLines, and returns the function told of its advance: done of
	// total (-1: unknown), and end once the stage is over. Both are called
	// from the goroutine that called Read.
	Progress func(stage Stage, name string) (report func(done, total int64, end bool))
}

// Stage is a long reading stage whose advance Options.Progress is told.
type Stage uint8

const (
	// StageLines: reading the lines of a Lines source; done counts bytes
	// (each line's end as one), total is -1.
	StageLines Stage = iota + 1
	// StageFiles: reading the files of a Files source; done of total files.
	StageFiles
)

// Reader reads the sources of one join into sinks. The Sets sources it
// reads share one numbering of their tokens (so that the two sides of an R-S
// join compare), and its Files sources one file selection and one count of
// files (FileStats). It is not safe for concurrent use; each Read has ended
// its goroutines when it returns.
type Reader struct {
	opts    Options
	keyers  []any           // the Sets sources' keyer of each token type, made on first use
	nextKey uint64          // the next key a keyer gives a token
	filter  *fileset.Filter // the Files selection, made on first use
	files   *FileStats      // nil until a Files source is read
	counts  Counts          // what the reads so far counted
}

// Counts are what a Reader's reads counted: the front end's work, which the
// planner prices.
type Counts struct {
	// Bytes is the bytes read and tokenized: the strings of Strings
	// sources, the lines of Lines sources (each line end as one), the
	// contents of Files sources (decompressed). Sets sources add none.
	Bytes int64
	// Values is the tokens that Lines sources gave as small values
	// (order.Input.AddValues) to a sink that takes them, rather than as
	// keys.
	Values int64
	// Sets says a Sets source was read: its tokens came ready, without a
	// tokenizer.
	Sets bool
}

// NewReader returns a Reader with options opts.
func NewReader(opts Options) *Reader { return &Reader{opts: opts} }

// Read reads the records of src into to, record i of the source as the i-th
// set added, and returns their ids: the paths of a Files source, nil for
// the others (whose ids are their indices). side names the source in a
// *RecordError (0 in a self-join). Reading errors name the record
// (*RecordError), the line (*LineError) or the file; Lines and Files sources
// stop with ctx's cause when it is cancelled.
//
// Cost: linear in the input, on Options.Workers goroutines for Lines and
// Files, on the calling goroutine for Strings and Sets.
func (rd *Reader) Read(ctx context.Context, src Source, side Side, to Sink) ([]string, error) {
	if src.read == nil {
		return nil, nil
	}
	return src.read(ctx, rd, side, to)
}

// Counts returns what the reads so far counted.
func (rd *Reader) Counts() Counts { return rd.counts }

// FileStats returns what the Files sources read so far listed, selected and
// read; nil if none was read.
func (rd *Reader) FileStats() *FileStats { return rd.files }

// progress returns the reporter of one stage's advance to Options.Progress
// (a no-op without it).
func (rd *Reader) progress(stage Stage, name string) func(done, total int64, end bool) {
	if rd.opts.Progress == nil {
		return func(int64, int64, bool) {}
	}
	return rd.opts.Progress(stage, name)
}

// IsZero reports whether s is the zero Source, which holds no records.
func (s Source) IsZero() bool { return s.read == nil }

// Tokenized reports whether s's records are tokenized by Options.Tokens
// (Strings, Lines and Files; not Sets).
func (s Source) Tokenized() bool { return s.tokens }

// Side is the side of an R-S join a record is on: SideR (the first source)
// or SideS (the second); the zero Side is a self-join's.
type Side uint8

const (
	SideR Side = iota + 1 // the first source of an R-S join
	SideS                 // the second source of an R-S join
)

// String returns "r", "s", or "" for a self-join's zero Side.
func (s Side) String() string {
	switch s {
	case 0:
		return ""
	case SideR:
		return "r"
	case SideS:
		return "s"
	}
	return "side(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText returns the side's name.
func (s Side) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// RecordError reports a record that could not be tokenized. It names the
// record by side and index, and never quotes its text (records may be
// passwords). Lines and files name theirs by *LineError and path.
type RecordError struct {
	Side  Side  // SideR or SideS in an R-S join, 0 in a self-join
	Index int   // 0-based index of the record in its source
	Err   error // such as shingle.ErrUTF8
}

func (e *RecordError) Error() string {
	if e.Side == 0 {
		return fmt.Sprintf("simjoin: record %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("simjoin: record %s[%d]: %v", e.Side, e.Index, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }
