package shingle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind names a way of turning a record into a token set.
type Kind uint8

const (
	// Set takes whitespace-separated tokens exactly as they are.
	Set Kind = iota
	// Words takes maximal runs of letters and digits, folded to lower case.
	Words
	// QGram takes the distinct N-grams of Unicode code points, without padding.
	QGram
	// Shingle takes N consecutive normalised words (see Words).
	Shingle
	// Go takes N consecutive Go tokens from go/scanner, comments dropped.
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
}

// String returns the command-line form of s, such as "qgram:2".
func (s Spec) String() string {
	switch s.Kind {
	case QGram, Shingle, Go:
		return s.Kind.String() + ":" + strconv.Itoa(s.N)
	}
	return s.Kind.String()
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
// they are.
//
// Cost: O(len(record)) for Set, Words and QGram; Shingle and Go hash N tokens
// per shingle. Append allocates nothing for Set, Words and QGram beyond the
// growth of dst. It is safe for concurrent use.
func (s Spec) Append(dst []uint64, record string) ([]uint64, error) {
	switch s.Kind {
	case Set:
		return appendFields(dst, record), nil
	case Words:
		if !utf8.ValidString(record) {
			return dst, ErrUTF8
		}
		return appendWords(dst, record), nil
	case QGram:
		if !utf8.ValidString(record) {
			return dst, ErrUTF8
		}
		return AppendQGrams(dst, record, s.N), nil
	case Shingle:
		if !utf8.ValidString(record) {
			return dst, ErrUTF8
		}
		return appendShingles(dst, record, s.N), nil
	case Go:
		return AppendGo(dst, []byte(record), s.N)
	}
	return dst, fmt.Errorf("%w: kind %d", ErrSpec, s.Kind)
}

// appendFields appends the hash of every whitespace-separated field.
func appendFields(dst []uint64, record string) []uint64 {
	i := 0
	for i < len(record) {
		for i < len(record) && isSpace(record[i]) {
			i++
		}
		j := i
		for j < len(record) && !isSpace(record[j]) {
			j++
		}
		if j > i {
			dst = append(dst, HashString(record[i:j]))
		}
		i = j
	}
	return dst
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// words calls f for each maximal run of letters and digits in record, folded
// to lower case and hashed.
func words(record string, f func(uint64)) {
	var h uint64
	in := false
	for _, r := range record {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if !in {
				h, in = hashInit, true
			}
			h = hashRune(h, unicode.ToLower(r))
			continue
		}
		if in {
			f(finish(h))
			in = false
		}
	}
	if in {
		f(finish(h))
	}
}

func appendWords(dst []uint64, record string) []uint64 {
	words(record, func(k uint64) { dst = append(dst, k) })
	return dst
}

// appendShingles appends one key for every n consecutive words; a record of
// fewer than n words contributes nothing.
func appendShingles(dst []uint64, record string, n int) []uint64 {
	var ring [MaxN]uint64
	count := 0
	words(record, func(k uint64) {
		ring[count%n] = k
		count++
		if count >= n {
			dst = append(dst, combine(ring[:n], count%n))
		}
	})
	return dst
}

// combine hashes the n keys of ring starting at start, in order.
func combine(ring []uint64, start int) uint64 {
	h := uint64(hashInit)
	for i := range ring {
		h = Mix64(h ^ ring[(start+i)%len(ring)])
	}
	return h
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
		var ring [3]rune
		n := 0
		for _, r := range s {
			ring[n%3] = r
			n++
			if n >= q {
				var k uint64
				for i := n - q; i < n; i++ {
					k = k<<21 | uint64(ring[i%3])
				}
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
