package shingle

import (
	"fmt"
	"go/scanner"
	"go/token"
	"unsafe"
)

// ScanError is the first error go/scanner reports for a source that is not
// Go: a binary file, an illegal character, invalid UTF-8, an unterminated
// literal. Line and Column are 1-based; Column counts bytes.
type ScanError struct {
	Line, Column int
	Msg          string
}

// Error returns "line:column: message", ready to follow a file name.
func (e *ScanError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// opKeys holds the key of every operator and keyword, by token, so that the
// scanner's fixed spellings are hashed once.
var opKeys [token.TILDE + 1]uint64

func init() {
	for tok := range opKeys {
		opKeys[tok] = HashString(token.Token(tok).String())
	}
}

// scanGo calls f with the text of every token of src, in order, as go/scanner
// reads it with comments dropped, and with its key. Every semicolon the
// scanner emits is a token, those it inserts at line ends and at the end of
// the source too (their text is ";", like an explicit one: the grammar does
// not tell them apart); with dropSemis the inserted ones are skipped. A
// token's text is its literal for identifiers, keywords, literals and explicit
// semicolons, and its spelling for operators and delimiters. It returns the
// first scan error.
func scanGo(src []byte, dropSemis bool, f func(text string, key uint64)) error {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var first *ScanError
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) {
		if first == nil {
			first = &ScanError{Line: pos.Line, Column: pos.Column, Msg: msg}
		}
	}, 0)
	for {
		_, tok, lit := s.Scan()
		if first != nil {
			return first
		}
		switch {
		case tok == token.EOF:
			return nil
		case tok == token.SEMICOLON:
			if lit != ";" && dropSemis {
				continue
			}
			f(";", opKeys[tok])
		case lit != "":
			f(lit, HashString(lit))
		case int(tok) < len(opKeys):
			f(tok.String(), opKeys[tok])
		default:
			text := tok.String()
			f(text, HashString(text))
		}
	}
}

// AppendGo appends one key for every n consecutive Go tokens of src, as
// go/scanner reads them with comments dropped (build constraints and //go:
// directives are comments, and so are dropped): the tokenization of the
// article this project grew from. The semicolons that the scanner inserts at
// line ends and at the end of the source are tokens, the same token as an
// explicit ";" (Spec.DropSemicolons skips them instead). Each token is hashed
// from its text (HashString), and the n keys of a shingle are combined in
// order. A source with fewer than n tokens contributes nothing.
//
// A source that does not scan (a binary file, invalid UTF-8, an illegal
// character, an unterminated literal) returns dst unchanged and a *ScanError
// with its first position.
//
// Cost: one pass over src that allocates nothing (a lexer of its own that
// reads exactly go/scanner's tokens; go/scanner itself, which allocates a
// string a token, only for a source that does not scan or holds a //line
// directive); O(n) per shingle to combine keys. src is only read and not
// retained. Safe for concurrent use.
func AppendGo(dst []uint64, src []byte, n int) ([]uint64, error) {
	return appendGo(dst, src, n, false)
}

// appendGo is AppendGo, skipping the inserted semicolons if dropSemis. It
// reads src with goLexer and, for a source that goLexer leaves to go/scanner
// (one that does not scan, or holds a line directive), with go/scanner.
func appendGo(dst []uint64, src []byte, n int, dropSemis bool) ([]uint64, error) {
	if n < 1 || n > MaxN {
		return dst, fmt.Errorf("%w: go:%d", ErrSpec, n)
	}
	start := len(dst)
	var lx goLexer
	if lx.init(src) {
		// The token keys go into dst first; then each is overwritten, in
		// place and in order, by the key of the shingle it starts (shingle
		// i reads tokens i..i+n-1, none of them overwritten yet).
		for {
			tok, from, to, key := lx.next()
			switch {
			case tok == token.EOF:
				toks := dst[start:]
				if len(toks) < n {
					return dst[:start], nil
				}
				for i := range len(toks) - n + 1 {
					toks[i] = combine(toks[i : i+n])
				}
				return dst[:len(dst)-n+1], nil
			case tok == token.ILLEGAL || tok == token.COMMENT:
			case tok == token.SEMICOLON && from == to && dropSemis:
				continue
			default:
				dst = append(dst, key)
				continue
			}
			break
		}
	}
	dst = dst[:start]
	w := window{n: n}
	err := scanGo(src, dropSemis, func(_ string, k uint64) {
		if w.push(k) {
			dst = append(dst, w.key())
		}
	})
	if err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// bytesOf returns the bytes of s without copying; the result must not be
// modified.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
