package passwords

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Norm is a set of normalisations applied to a password before its q-grams
// are taken. The zero value applies none: the password is taken byte for
// byte. Normalisations compose; Append applies them in a fixed order
// (StripSuffix, then FoldLeet, then FoldCase), whatever order they were named
// in.
type Norm uint8

const (
	// FoldCase folds letters to lower case: every code point by
	// unicode.ToLower for a password that is valid UTF-8; for one that is
	// not, its bytes read as Latin-1 (A-Z and À-Þ but ×).
	FoldCase Norm = 1 << iota
	// FoldLeet reads leet-speak digits and symbols as the letters they stand
	// for, by the table LeetTable returns (@ and 4 as a, 3 as e, 0 as o, 1 ! and |
	// as i, $ and 5 as s, 7 and + as t, ...). Only ASCII bytes change.
	FoldLeet
	// StripSuffix removes the trailing run of ASCII digits, punctuation,
	// symbols and spaces ("123", "!", "2024!") unless that run is the whole
	// password: "123456" stays as it is, so that number passwords still
	// compare with each other.
	StripSuffix

	allNorms = FoldCase | FoldLeet | StripSuffix
)

// normName is the name of a normalisation.
type normName struct {
	n    Norm
	name string
}

var normNames = []normName{{StripSuffix, "strip-suffix"}, {FoldLeet, "fold-leet"}, {FoldCase, "fold-case"}}

// String names the normalisations that are on, in the order they apply and
// separated by "+" (as "strip-suffix+fold-case"), or "none".
func (n Norm) String() string {
	var parts []string
	for _, e := range normNames {
		if n&e.n != 0 {
			parts = append(parts, e.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// ErrNorm is the error of ParseNorm for a name it does not know.
var ErrNorm = errors.New("passwords: unknown normalisation")

// ParseNorm reads normalisations by the names String gives them, in any
// order and separated by "+" (as "fold-case+strip-suffix"); "none" and ""
// are none. An unknown name is an error wrapping ErrNorm.
func ParseNorm(s string) (Norm, error) {
	var n Norm
	if s == "" || s == "none" {
		return n, nil
	}
	for name := range strings.SplitSeq(s, "+") {
		i := slices.IndexFunc(normNames, func(e normName) bool { return e.name == name })
		if i < 0 {
			return 0, fmt.Errorf("%q: %w", name, ErrNorm)
		}
		n |= normNames[i].n
	}
	return n, nil
}

// LeetTable returns a new map of each ASCII byte that FoldLeet rewrites to
// the letter it stands for. Digits stand for the letter they look like; 1, !
// and | all read as i (l would serve as well; one letter must be chosen so
// that they meet). Changing the map changes nothing else.
func LeetTable() map[byte]byte {
	m := make(map[byte]byte, len(leetPairs)/2)
	for i := 0; i < len(leetPairs); i += 2 {
		m[leetPairs[i]] = leetPairs[i+1]
	}
	return m
}

// leetPairs lists FoldLeet's rewrites as (from, to) byte pairs.
var leetPairs = [...]byte{
	'@', 'a', '4', 'a',
	'8', 'b',
	'(', 'c',
	'3', 'e',
	'6', 'g', '9', 'g',
	'#', 'h',
	'1', 'i', '!', 'i', '|', 'i',
	'0', 'o',
	'$', 's', '5', 's',
	'7', 't', '+', 't',
	'2', 'z',
}

var leet [256]byte // 0: unchanged

func init() {
	for i := 0; i < len(leetPairs); i += 2 {
		leet[leetPairs[i]] = leetPairs[i+1]
	}
}

// isSuffixByte reports whether StripSuffix removes c: an ASCII digit,
// punctuation or symbol character, or space.
func isSuffixByte(c byte) bool {
	return c >= ' ' && c <= '~' && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z')
}

// Append appends pw after the normalisations of n to dst and returns the
// extended slice; with no normalisation it appends pw unchanged. utf8 says
// how pw is read (as UTF-8 when true, as Latin-1 bytes otherwise): it must
// be utf8.Valid(pw) for the raw password, which the result then keeps. It
// allocates nothing beyond the growth of dst and is safe for concurrent use.
// Cost: O(len(pw)).
func (n Norm) Append(dst, pw []byte, isUTF8 bool) []byte {
	if n&StripSuffix != 0 {
		end := len(pw)
		for end > 0 && isSuffixByte(pw[end-1]) {
			end--
		}
		if end > 0 {
			pw = pw[:end]
		}
	}
	start := len(dst)
	if n&FoldCase != 0 && isUTF8 && !isASCII(pw) {
		for len(pw) > 0 {
			r, size := utf8.DecodeRune(pw)
			pw = pw[size:]
			if n&FoldLeet != 0 && r < utf8.RuneSelf && leet[r] != 0 {
				r = rune(leet[r])
			}
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		return dst
	}
	dst = append(dst, pw...)
	out := dst[start:]
	if n&FoldLeet != 0 {
		for i, c := range out {
			if l := leet[c]; l != 0 {
				out[i] = l
			}
		}
	}
	if n&FoldCase != 0 {
		for i, c := range out {
			switch {
			case 'A' <= c && c <= 'Z':
				out[i] = c + ('a' - 'A')
			case !isUTF8 && c >= 0xC0 && c <= 0xDE && c != 0xD7:
				out[i] = c + 0x20 // Latin-1 À-Þ to à-þ
			}
		}
	}
	return dst
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
