package passwords

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strconv"

	"github.com/simjoin/simjoin/internal/eol"
	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
)

// List holds distinct passwords, each with its count and the first line it
// was read from, in order of first appearance. All passwords share one byte
// arena; a hash table (internal/keymap) finds a password already present. The zero value is an
// empty list ready for Add.
//
// A List is not safe for concurrent mutation; once built, any number of
// goroutines may read it (Password, Count, Line, Len) and join or index it.
type List struct {
	text   []byte
	ends   []uint32 // password i is text[ends[i]:ends[i+1]]
	counts []uint64
	lines  []uint32
	// byHash maps the hash of a password (maphash with seed) to its index
	// + 1. A password whose 64-bit hash another already holds (rare, but
	// not impossible) is in collided instead.
	byHash   keymap.Map[uint32]
	collided map[string]uint32
	seed     maphash.Seed
	seeded   bool
}

// bytesPerPassword is about the bytes a line of a password list takes,
// line ending included (the 59,000 generated passwords of BENCHMARKS.md:
// 11.0; Debian's john-data list: 7.4), by which Grow turns bytes into
// passwords.
const bytesPerPassword = 10

// growMax bounds the passwords Grow makes room for, beyond which the list
// grows as passwords come, as it would without Grow: a list of many
// repeated lines holds far fewer passwords than its bytes suggest, and its
// table, written at random, would take all the memory it was given (at
// 2^20: about 56 MiB at most, where each doubling costs the most).
const growMax = 1 << 20

// Grow sizes an empty list for the passwords of about n bytes of a list
// (n/bytesPerPassword of them, at most growMax): its arena, per-password
// arrays and hash table, so that Add does not grow them while the list
// stays within that. It does nothing to a list that is not empty, or when n
// is not positive. Cost: O(n) to allocate (and the table to clear).
func (l *List) Grow(n int64) {
	if n <= 0 || l.seeded {
		return
	}
	k := int(min(n/bytesPerPassword+1, growMax))
	l.text = make([]byte, 0, min(n, int64(k)*bytesPerPassword))
	l.ends = make([]uint32, 0, k+1)
	l.counts = make([]uint64, 0, k)
	l.lines = make([]uint32, 0, k)
	l.byHash.Init(k)
}

// Len returns the number of distinct passwords.
func (l *List) Len() int { return len(l.counts) }

// Password returns password i (0 <= i < Len()). The slice aliases the list's
// arena and must not be modified; it stays valid while the list lives.
func (l *List) Password(i int) []byte {
	return l.text[l.ends[i]:l.ends[i+1]:l.ends[i+1]]
}

// Count returns the summed count of password i.
func (l *List) Count(i int) uint64 { return l.counts[i] }

// Line returns the 1-based line password i was first read from (as given to
// Add).
func (l *List) Line(i int) int { return int(l.lines[i]) }

// Bytes returns the number of bytes of distinct passwords held.
func (l *List) Bytes() int { return len(l.text) }

// Add adds count occurrences of pw, first seen on line, and returns its index
// and whether it is new. A password already present keeps its index and line
// and adds to its count (saturating at the largest uint64). pw is copied; the
// caller may reuse it. Cost: amortised O(len(pw)).
func (l *List) Add(pw []byte, count uint64, line int) (int, bool, error) {
	if !l.seeded {
		l.seed, l.seeded = maphash.MakeSeed(), true
		l.ends = append(l.ends[:0], 0)
	}
	h := hashOf(l.seed, pw)
	if i, ok := l.find(h, pw); ok {
		l.counts[i] = addSat(l.counts[i], count)
		return i, false, nil
	}
	if line < 0 || line >= math.MaxUint32 || len(l.counts) >= math.MaxUint32-1 ||
		uint64(len(l.text))+uint64(len(pw)) > math.MaxUint32 {
		return 0, false, errListTooLarge
	}
	i := len(l.counts)
	l.text = append(l.text, pw...)
	l.ends = append(l.ends, uint32(len(l.text)))
	l.counts = append(l.counts, count)
	l.lines = append(l.lines, uint32(line))
	if v, taken := l.byHash.Insert(h); !taken {
		*v = uint32(i + 1)
	} else {
		if l.collided == nil {
			l.collided = make(map[string]uint32)
		}
		l.collided[string(pw)] = uint32(i)
	}
	return i, true, nil
}

// hashOf is the hash a list finds a password by. Can change for testing
// (every password given one hash exercises the collided map).
var hashOf = maphash.Bytes

// find returns the index of pw, whose hash is h.
func (l *List) find(h uint64, pw []byte) (int, bool) {
	v, ok := l.byHash.Find(h)
	if !ok {
		return 0, false
	}
	if i := int(v - 1); bytes.Equal(l.Password(i), pw) {
		return i, true
	}
	i, ok := l.collided[string(pw)]
	return int(i), ok
}

// Index returns the index of pw, and false when the list does not hold it.
// Cost: O(len(pw)) expected.
func (l *List) Index(pw []byte) (int, bool) {
	if !l.seeded {
		return 0, false
	}
	return l.find(hashOf(l.seed, pw), pw)
}

// Counts says where a frequency list keeps its counts.
type Counts uint8

const (
	// NoCounts: every line is a password, counted once.
	NoCounts Counts = iota
	// CountFirst: count<TAB>password. The count ends at the first tab; the
	// password is everything after it, tabs included.
	CountFirst
	// CountLast: password<TAB>count. The count starts after the last tab.
	CountLast
)

// ErrCounts is the error of ParseCounts for a name it does not know.
var ErrCounts = errors.New("passwords: unknown counts layout")

// ParseCounts reads a Counts by the name String gives it ("none", "first",
// "last"); "" is NoCounts too.
func ParseCounts(s string) (Counts, error) {
	switch s {
	case "", "none":
		return NoCounts, nil
	case "first":
		return CountFirst, nil
	case "last":
		return CountLast, nil
	}
	return NoCounts, ErrCounts
}

// String names c: "none", "first" or "last".
func (c Counts) String() string {
	switch c {
	case NoCounts:
		return "none"
	case CountFirst:
		return "first"
	case CountLast:
		return "last"
	}
	return fmt.Sprintf("Counts(%d)", uint8(c))
}

// EstimateMemory returns about the peak bytes of joining or indexing l
// (join.EstimateMemory): a password of n code points has at most n q-grams,
// so the list's bytes bound its tokens, and the grams' vocabulary is far
// smaller (an eighth is generous). It is for a check before the large
// allocations, not a bound. O(1).
func EstimateMemory(l *List) int64 {
	return join.EstimateMemory(l.Len(), l.Bytes(), l.Bytes()/8)
}

// ReadOptions says how Read parses a list. The zero value reads one
// password a line, byte for byte.
type ReadOptions struct {
	Counts Counts
	// SkipComments skips lines that start with "#!comment:", the comment
	// lines of John the Ripper's word lists.
	SkipComments bool
	// Progress, if not nil, is called now and then with the bytes read.
	Progress func(read int64)
	// MaxLine bounds a line's length in bytes (line ending excluded, a
	// count included): a longer line is an ErrLineTooLong LineError, found
	// without holding more than MaxLine bytes of it. 0 means DefaultMaxLine;
	// a negative value, no bound.
	MaxLine int
	// Name, if not empty, names the list in every error of Read, as
	// LineError.Name: a path, or "<stdin>".
	Name string
	// SizeHint, if positive, is about the number of bytes Read will be
	// given (a file's size): the list is sized up front for the passwords
	// that many bytes hold (Grow), instead of growing as they come.
	SizeHint int64
}

// errListTooLarge is the error of a list over its 32-bit limits: 2³²-1
// lines, or 2³² bytes of distinct passwords (order.ErrTooLarge).
var errListTooLarge = fmt.Errorf("passwords: list %w", order.ErrTooLarge)

// DefaultMaxLine is ReadOptions.MaxLine's default: real passwords are far
// shorter, and a list with a longer line is not a password list (a binary
// or a one-line dump, whose grams would take memory for nothing).
const DefaultMaxLine = 4096

// ErrLineTooLong is the error of a line longer than ReadOptions.MaxLine.
var ErrLineTooLong = errors.New("line longer than the limit")

// ReadStats counts what Read saw.
type ReadStats struct {
	Lines      int // lines read, comments and empty ones included
	Comments   int // skipped by SkipComments
	Empty      int // empty passwords, skipped
	Duplicates int // lines whose password an earlier line already had
}

// LineError is a malformed line of a list. Its message names the line and
// what is wrong, never the line's content. With ReadOptions.Name it also
// names the list ("list.txt:3: ..."), and then stands for every error of
// Read, Line 0 when the error is not about one line ("list.txt: ...").
type LineError struct {
	Name string
	Line int
	Err  error
}

func (e *LineError) Error() string {
	switch {
	case e.Name == "":
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Name, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// Errors of malformed frequency lines (wrapped in a LineError).
var (
	ErrNoCount  = errors.New("no tab-separated count")
	ErrBadCount = errors.New("count is not an unsigned integer")
)

const commentPrefix = "#!comment:"

// Read reads a password list: one password a line, taken byte for byte but
// for the line ending ("\n" or "\r\n"), with a count beside it as opt says.
// Empty passwords (and empty lines of a frequency list) are counted and
// skipped; a password seen before adds to its count. A malformed line stops
// the read with a *LineError. Cost: one pass, amortised O(1) work and memory
// per byte.
func Read(r io.Reader, opt ReadOptions) (*List, ReadStats, error) {
	if opt.Name != "" {
		return readNamed(r, opt)
	}
	var st ReadStats
	l := new(List)
	l.Grow(opt.SizeHint)
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	var read int64
	maxLine := opt.MaxLine
	if maxLine == 0 {
		maxLine = DefaultMaxLine
	}
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull && (maxLine < 0 || len(long) <= maxLine+2) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if maxLine >= 0 && len(line) > maxLine && len(eol.Trim(line)) > maxLine {
			return nil, st, &LineError{Line: st.Lines + 1, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, maxLine)}
		}
		if err != nil && err != io.EOF {
			return nil, st, err
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		read += int64(len(line))
		st.Lines++
		if st.Lines >= math.MaxUint32 {
			return nil, st, errListTooLarge
		}
		if opt.Progress != nil && st.Lines%65536 == 0 {
			opt.Progress(read)
		}
		line = eol.Trim(line)
		if opt.SkipComments && bytes.HasPrefix(line, []byte(commentPrefix)) {
			st.Comments++
		} else if e := addLine(l, &st, line, opt.Counts); e != nil {
			return nil, st, &LineError{Line: st.Lines, Err: e}
		}
		if err == io.EOF {
			break
		}
	}
	if opt.Progress != nil {
		opt.Progress(read)
	}
	return l, st, nil
}

func addLine(l *List, st *ReadStats, line []byte, counts Counts) error {
	count := uint64(1)
	pw := line
	if counts != NoCounts && len(line) > 0 {
		var field []byte
		var cut int
		if counts == CountFirst {
			cut = bytes.IndexByte(line, '\t')
			if cut >= 0 {
				field, pw = line[:cut], line[cut+1:]
			}
		} else {
			cut = bytes.LastIndexByte(line, '\t')
			if cut >= 0 {
				pw, field = line[:cut], line[cut+1:]
			}
		}
		if cut < 0 {
			return ErrNoCount
		}
		n, ok := parseCount(field)
		if !ok {
			return ErrBadCount
		}
		count = n
	}
	if len(pw) == 0 {
		st.Empty++
		return nil
	}
	_, added, err := l.Add(pw, count, st.Lines)
	if err != nil {
		return err
	}
	if !added {
		st.Duplicates++
	}
	return nil
}

// parseCount reads an unsigned decimal, with spaces allowed around it (as
// `uniq -c` pads its counts).
func parseCount(b []byte) (uint64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	return n, err == nil
}
