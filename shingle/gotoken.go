package shingle

import (
	"fmt"
	"go/scanner"
	"go/token"
)

// AppendGo appends one key for every n consecutive Go tokens of src, as
// go/scanner reads them with comments dropped. Semicolons that the scanner
// inserts at line ends are not tokens of the text and are skipped; explicit
// ones are kept. A token's text is its literal for identifiers, literals and
// explicit semicolons, and its operator or keyword spelling otherwise.
// A file with fewer than n tokens contributes nothing. A source that does not
// scan (a binary file, say) returns an error with its first position.
func AppendGo(dst []uint64, src []byte, n int) ([]uint64, error) {
	if n < 1 || n > MaxN {
		return dst, fmt.Errorf("%w: go:%d", ErrSpec, n)
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var firstErr error
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) {
		if firstErr == nil {
			firstErr = fmt.Errorf("line %d:%d: %s", pos.Line, pos.Column, msg)
		}
	}, 0)
	var ring [MaxN]uint64
	count := 0
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if firstErr != nil {
			return dst, firstErr
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		var k uint64
		if lit != "" {
			k = HashString(lit)
		} else {
			k = HashString(tok.String())
		}
		ring[count%n] = k
		count++
		if count >= n {
			dst = append(dst, combine(ring[:n], count%n))
		}
	}
	if firstErr != nil {
		return dst, firstErr
	}
	return dst, nil
}
