package shingle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/simjoin/simjoin/internal/mix"
)

// Kind names a way of turning a record into a token set.
type Kind uint8

const (
	// Set takes whitespace-separated tokens exactly as they are.
	Set Kind = iota
	// Words takes words: maximal runs of letters, numbers and combining marks,
	// normalised as Spec.Norm says (by default folded to lower case).
	Words
	// QGram takes the distinct N-grams of Unicode code points, without padding.
	QGram
	// Shingle takes N consecutive words, normalised as for Words.
	Shingle
	// Go takes N consecutive Go tokens from go/scanner, comments dropped and
	// the semicolons it inserts at line ends kept (see Spec.DropSemicolons).
	Go
)

var kindNames = [...]string{Set: "set", Words: "words", QGram: "qgram", Shingle: "shingle", Go: "go"}

// String returns the name used on the command line.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ErrSpec is returned (wrapped) by Parse for a tokenizer specification it does
// not understand.
var ErrSpec = errors.New("shingle: bad tokenizer")

// ErrUTF8 is returned (wrapped) by Append for a record that is not valid UTF-8.
var ErrUTF8 = errors.New("invalid UTF-8")

// Spec says how a record becomes a set. The zero value is Set.
type Spec struct {
	Kind Kind
	// N is the gram or shingle length for QGram, Shingle and Go; ignored otherwise.
	N int
	// Norm is the word normalisation of Words and Shingle; ignored otherwise.
	// The zero value folds case and drops punctuation.
	Norm Norm
	// DropSemicolons, for Go only, skips the semicolons go/scanner inserts
	// at line ends and at the end of the source (explicit ones stay), so that
	// a line break never changes a shingle. The zero value keeps them: the
	// article's tokens, and what a Go parser sees.
	DropSemicolons bool
}

// String returns the command-line form of s, such as "qgram:2" or, with a
// normalisation other than the default, "shingle:3 --case keep" or
// "go:5 --go-semicolons drop".
func (s Spec) String() string {
	var out string
	switch s.Kind {
	case QGram, Shingle, Go:
		out = s.Kind.String() + ":" + strconv.Itoa(s.N)
	default:
		out = s.Kind.String()
	}
	if (s.Kind == Words || s.Kind == Shingle) && s.Norm != 0 {
		out += " " + s.Norm.String()
	}
	if s.Kind == Go && s.DropSemicolons {
		out += " --go-semicolons drop"
	}
	return out
}

// Norm says how Words and Shingle normalise the words of a record. Words are
// maximal runs of letters, numbers (digits, ², ½, Ⅻ) and combining marks; white space and
// control characters always separate them. The zero value is the default:
// letters are folded to lower case (unicode.ToLower, rune by rune), and
// punctuation and symbols separate words like white space.
type Norm uint8

const (
	// KeepCase keeps letters as written instead of folding them to lower case.
	KeepCase Norm = 1 << iota
	// KeepPunct makes every punctuation or symbol character a token of its
	// own ("end." is the two tokens "end" and ".") instead of a separator.
	KeepPunct
)

// String returns the command-line flags that select n, such as
// "--case keep --punct keep"; the default is "--case fold --punct drop".
func (n Norm) String() string {
	c, p := "fold", "drop"
	if n&KeepCase != 0 {
		c = "keep"
	}
	if n&KeepPunct != 0 {
		p = "keep"
	}
	switch {
	case n == 0:
		return "--case fold --punct drop"
	case n&^(KeepCase|KeepPunct) != 0:
		return "norm(" + strconv.Itoa(int(n)) + ")"
	case n == KeepCase:
		return "--case keep"
	case n == KeepPunct:
		return "--punct keep"
	}
	return "--case " + c + " --punct " + p
}

// MaxN is the largest gram or shingle length Parse accepts.
const MaxN = 64

// Parse reads a specification: "set", "words", "qgram:N", "shingle:N" or "go:N"
// with 1 <= N <= MaxN.
func Parse(text string) (Spec, error) {
	name, arg, hasArg := strings.Cut(text, ":")
	for k, kn := range kindNames {
		if name != kn {
			continue
		}
		s := Spec{Kind: Kind(k)}
		switch s.Kind {
		case Set, Words:
			if hasArg {
				return Spec{}, fmt.Errorf("%w %q: %s takes no length", ErrSpec, text, name)
			}
			return s, nil
		}
		if !hasArg {
			return Spec{}, fmt.Errorf("%w %q: want %s:N", ErrSpec, text, name)
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > MaxN {
			return Spec{}, fmt.Errorf("%w %q: length must be an integer from 1 to %d", ErrSpec, text, MaxN)
		}
		s.N = n
		return s, nil
	}
	return Spec{}, fmt.Errorf("%w %q: want set, words, qgram:N, shingle:N or go:N", ErrSpec, text)
}

// Append appends the token keys of record to dst and returns the extended
// slice. Keys may repeat; the order package removes duplicates. The record
// must be valid UTF-8 (ErrUTF8 otherwise) except for Set, which takes bytes as
// they are, and Go, which reports a *ScanError instead. A length N outside
// 1..MaxN for QGram, Shingle or Go returns ErrSpec.
//
// A byte-order mark (U+FEFF, the bytes EF BB BF) that starts the record is
// not part of it, for every kind: an editor's or a converter's mark at the
// start of a file or a line would otherwise change the first token (Set,
// QGram) or be a character of its own. Words and Shingle drop U+FEFF
// anywhere, as any character that is not a letter, number or mark; Go, as
// go/scanner, refuses it anywhere but first.
//
// Cost: O(len(record)) for Set, Words and QGram; Shingle and Go hash N tokens
// per shingle. Append allocates nothing for Set, Words and QGram beyond the
// growth of dst. It is safe for concurrent use.
func (s Spec) Append(dst []uint64, record string) ([]uint64, error) {
	if s.Kind != Go {
		record = trimBOM(record)
	}
	return s.append(dst, record)
}

// bom is U+FEFF in UTF-8.
const bom = "\uFEFF"

// trimBOM returns record without the byte-order mark (U+FEFF) that starts
// it, if any: what every tokenizer reads (see Spec.Append).
func trimBOM(record string) string {
	if len(record) >= len(bom) && record[:len(bom)] == bom {
		return record[len(bom):]
	}
	return record
}

// append is Append without the byte-order mark's check: for a record, or a
// piece of one, that does not start with a mark to drop.
func (s Spec) append(dst []uint64, record string) ([]uint64, error) {
	switch s.Kind {
	case QGram, Shingle, Go:
		if s.N < 1 || s.N > MaxN {
			return dst, fmt.Errorf("%w %s: length must be an integer from 1 to %d", ErrSpec, s, MaxN)
		}
	}
	switch s.Kind {
	case Set:
		return appendFields(dst, record), nil
	case Words:
		if !utf8.ValidString(record) {
			return dst, ErrUTF8
		}
		return appendWords(dst, record, s.Norm), nil
	case QGram:
		if !utf8.ValidString(record) {
			return dst, ErrUTF8
		}
		return AppendQGrams(dst, record, s.N), nil
	case Shingle:
		if !utf8.ValidString(record) {
			return dst, ErrUTF8
		}
		return appendShingles(dst, record, s.N, s.Norm), nil
	case Go:
		return appendGo(dst, bytesOf(record), s.N, s.DropSemicolons)
	}
	return dst, fmt.Errorf("%w: kind %d", ErrSpec, s.Kind)
}

// AppendBytes is Append for a record held in a byte slice, such as a whole
// file, without copying it. b is only read and not retained.
func (s Spec) AppendBytes(dst []uint64, b []byte) ([]uint64, error) {
	if s.Kind == Go {
		return appendGo(dst, b, s.N, s.DropSemicolons)
	}
	return s.Append(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// words calls f with the key of each word of record in order, normalised as
// norm says (see Norm). A word's key is the hash of its normalised UTF-8
// text, the same as HashString of that text; with KeepPunct a punctuation or
// symbol character's key is the hash of that character.
func words(record string, norm Norm, f func(uint64)) {
	var h uint64
	in := false
	for _, r := range record {
		if r < utf8.RuneSelf {
			// ASCII fast path: the same classes as below.
			c := byte(r)
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				if norm&KeepCase == 0 {
					r += 'a' - 'A'
				}
			default:
				if in {
					f(finish(h))
					in = false
				}
				if norm&KeepPunct != 0 && c > ' ' && c < 0x7f {
					f(finish((hashInit ^ uint64(c)) * hashPrime))
				}
				continue
			}
			if !in {
				h, in = hashInit, true
			}
			h = (h ^ uint64(r)) * hashPrime
			continue
		}
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			if !in {
				h, in = hashInit, true
			}
			if norm&KeepCase == 0 {
				r = unicode.ToLower(r)
			}
			h = hashRune(h, r)
			continue
		}
		if in {
			f(finish(h))
			in = false
		}
		if norm&KeepPunct != 0 && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			f(finish(hashRune(hashInit, r)))
		}
	}
	if in {
		f(finish(h))
	}
}

func appendWords(dst []uint64, record string, norm Norm) []uint64 {
	words(record, norm, func(k uint64) { dst = append(dst, k) })
	return dst
}

// appendShingles appends one key for every n consecutive words; a record of
// fewer than n words contributes nothing.
func appendShingles(dst []uint64, record string, n int, norm Norm) []uint64 {
	var w window
	w.n = n
	words(record, norm, func(k uint64) {
		if w.push(k) {
			dst = append(dst, w.key())
		}
	})
	return dst
}

// window holds the last n token keys of a shingle, n <= MaxN, as a ring
// kept twice over, so that the n keys from the oldest on are one slice.
type window struct {
	ring  [2 * MaxN]uint64 // ring[i] == ring[i+n] for i < n
	n     int              // shingle length
	next  int              // where the next key goes; the oldest key once full
	count int              // keys pushed, up to n
}

// push adds a key and reports whether the window holds n keys.
func (w *window) push(k uint64) bool {
	w.ring[w.next] = k
	w.ring[w.next+w.n] = k
	if w.next++; w.next == w.n {
		w.next = 0
	}
	if w.count < w.n {
		w.count++
	}
	return w.count == w.n
}

// key returns the key of the shingle in the window, oldest key first.
func (w *window) key() uint64 { return combine(w.ring[w.next : w.next+w.n]) }

// combinePrime multiplies the running state of combine: odd, so that each
// step is a bijection of the state for a fixed key and of the key for a
// fixed state.
const combinePrime = 0x9e3779b97f4a7c15

// combine returns the key of a shingle: its token keys folded in order into
// h = (h ^ k)·combinePrime from hashInit, then the splitmix64 finaliser.
// Token keys are already well mixed, so one multiplication a token suffices;
// two shingles that differ only in their last token never collide.
func combine(keys []uint64) uint64 {
	h := uint64(hashInit)
	for _, k := range keys {
		h = (h ^ k) * combinePrime
	}
	return mix.Mix64(h)
}

// AppendQGrams appends the distinct-or-not q-grams of the code points of s
// (no padding; a string of fewer than q code points contributes nothing).
// For q <= 3 each gram is packed exactly into its key (21 bits per code
// point), so distinct grams never share a key; longer grams are hashed.
// s must be valid UTF-8.
func AppendQGrams(dst []uint64, s string, q int) []uint64 {
	if q <= 0 {
		return dst
	}
	if q <= 3 {
		// The key of the last q code points, rolled on by one each.
		mask := uint64(1)<<(21*q) - 1
		var k uint64
		n := 0
		for _, r := range s {
			k = (k<<21 | uint64(r)) & mask
			if n++; n >= q {
				dst = append(dst, k)
			}
		}
		return dst
	}
	// Longer grams: hash the bytes between rune boundaries.
	var starts [MaxN + 1]int
	n := 0
	for i := range s {
		starts[n%(q+1)] = i
		n++
		if n > q {
			from := starts[(n-q-1)%(q+1)]
			dst = append(dst, HashString(s[from:i]))
		}
	}
	if n >= q {
		from := starts[(n-q)%(q+1)]
		dst = append(dst, HashString(s[from:]))
	}
	return dst
}
