package passwords

import (
	"errors"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/simjoin/simjoin/shingle"
)

// DefaultQ is the q-gram length used when Grams.Q is zero. Two is the
// shortest gram that keeps the order of characters (q = 1 makes anagrams
// identical), and the one that keeps most similarity under small edits of
// short strings: a password of n characters has n-1 bigrams, and changing one
// character changes at most two of them, where trigrams lose three of n-2.
// At q = 2 a password of 5 or more characters and the same with one
// character appended have Jaccard similarity (n-1)/n >= 0.8, the default
// threshold; at q = 3 that needs 7 or more.
const DefaultQ = 2

// MaxQ is the longest q-gram length accepted.
const MaxQ = shingle.MaxN

// ErrQ is returned (wrapped) for a q outside 1..MaxQ.
var ErrQ = errors.New("passwords: q-gram length out of range")

// byteGram marks the key of a gram of bytes (from a password that is not
// valid UTF-8) that holds a byte >= 0x80. Code-point grams of q <= 3 pack
// into the low 63 bits (21 bits a code point), so the two kinds of key never
// meet.
const byteGram = 1 << 63

// Grams says how a password becomes a set: the normalisations, then the
// distinct q-grams of what remains. The zero value takes bigrams of the raw
// password.
//
// A password that is valid UTF-8 is read as code points and its grams are
// exactly those of shingle.AppendQGrams (so `simjoin join --tokens qgram:2`
// gives the same sets). A password that is not (a Latin-1 list, say) is read
// as bytes: a gram of q bytes gets the key that the same text has in UTF-8
// when all its bytes are ASCII, and otherwise a key of its own (for q <= 3
// the bytes packed exactly, with the top bit set, which no code-point key
// has; for q > 3 the same hash of the gram's bytes that longer code-point
// grams get). So two grams share a key exactly when they are the same bytes
// (for q > 3: up to 64-bit hash collisions), whichever way their passwords
// were read. A password with fewer than q characters has no gram: the joins
// skip it.
type Grams struct {
	Q    int // gram length; 0 means DefaultQ
	Norm Norm
}

func (g Grams) q() int {
	if g.Q == 0 {
		return DefaultQ
	}
	return g.Q
}

// Validate reports whether g is a gram specification Join, Families and
// NewIndex take: Q in 1..MaxQ (0 for DefaultQ; out of range wraps ErrQ)
// and known normalisations. Cost: O(1).
func (g Grams) Validate() error {
	if q := g.q(); q < 1 || q > MaxQ {
		return fmt.Errorf("%w: %d (want 1 to %d)", ErrQ, q, MaxQ)
	}
	if g.Norm&^allNorms != 0 {
		return fmt.Errorf("passwords: unknown normalisation %#x", uint8(g.Norm))
	}
	return nil
}

// Append appends the keys of pw's q-grams to dst, after normalisation, and
// returns the extended slice. Keys come in text order and may repeat (an
// order.Input de-duplicates them). A Q outside 1..MaxQ gives no keys (Join
// and NewIndex reject it with ErrQ). Append allocates nothing for passwords
// of up to 128 bytes beyond the growth of dst, and is safe for concurrent
// use. Cost: O(len(pw)).
func (g Grams) Append(dst []uint64, pw []byte) []uint64 {
	q := g.q()
	if q < 1 || q > MaxQ {
		return dst
	}
	isUTF8 := utf8.Valid(pw)
	var stack [128]byte
	text := pw
	if g.Norm != 0 {
		text = g.Norm.Append(stack[:0], pw, isUTF8)
	}
	if len(text) == 0 {
		return dst
	}
	if isUTF8 {
		// AppendQGrams only reads the string during the call.
		return shingle.AppendQGrams(dst, unsafe.String(&text[0], len(text)), q)
	}
	return appendByteGrams(dst, text, q)
}

// AppendValues appends the q-grams of pw, after normalisation, as small
// values (shingle.AppendGramValues: each gram's characters packed 7 bits
// apiece) and reports true, when Q is at most shingle.MaxGramValues and the
// normalised password is ASCII; otherwise it reports false and returns dst
// as given. Each value stands for the key Append gives its gram
// (shingle.GramValues{N: Q}), so order.Input.AddValues takes them for the
// keys (without a hash-table step a gram). Allocation and cost are
// Append's.
func (g Grams) AppendValues(dst []uint32, pw []byte) ([]uint32, bool) {
	q := g.q()
	if q < 1 || q > shingle.MaxGramValues {
		return dst, false
	}
	var stack [128]byte
	text := pw
	if g.Norm != 0 {
		text = g.Norm.Append(stack[:0], pw, utf8.Valid(pw))
	}
	if len(text) == 0 {
		return dst, true
	}
	// AppendGramValues only reads the string during the call.
	return shingle.AppendGramValues(dst, unsafe.String(&text[0], len(text)), q)
}

// appendByteGrams appends the keys of the q-grams of bytes of b.
func appendByteGrams(dst []uint64, b []byte, q int) []uint64 {
	if len(b) < q {
		return dst
	}
	if q > 3 {
		for i := 0; i+q <= len(b); i++ {
			dst = append(dst, shingle.HashBytes(b[i:i+q]))
		}
		return dst
	}
	for i := 0; i+q <= len(b); i++ {
		var ascii, packed uint64
		high := false
		for _, c := range b[i : i+q] {
			ascii = ascii<<21 | uint64(c)
			packed = packed<<8 | uint64(c)
			high = high || c >= utf8.RuneSelf
		}
		if high {
			dst = append(dst, byteGram|packed)
		} else {
			dst = append(dst, ascii)
		}
	}
	return dst
}
