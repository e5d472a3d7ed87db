// Package fileset selects the files of a --files run: INPUT files and
// directories walked in lexical order, hidden entries skipped, symbolic links
// to files followed, files kept by --include and --exclude globs, and what
// cannot be a record (FIFOs, devices, sockets, links to nothing, link loops)
// counted and skipped or reported. The CLI's join and the Beam pipelines
// select with it, so both read the same files.
package fileset

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The globs of --include and --exclude. A glob without '/' is matched against
// a file's name; one with '/' against its path relative to the INPUT
// directory ('/'-separated), with or without a leading '/', so that
// '*/testdata/*' also takes a testdata directory at the top. The syntax is
// path.Match's, except that '*' and '?' also match '/', so that '*_test.go'
// and '*/testdata/*' reach every depth, and that '[!...]' negates a class as
// in the shell (path.Match reads it as a class holding '!'), so that a glob
// such as '*.[!o]' means what a shell user expects:
//
//	*        any run of characters, '/' included
//	?        any one character
//	[class]  one character of the class: c, \c or lo-hi items; [!...] or
//	         [^...] negates
//	\c       the character c

var ErrBadGlob = errors.New("bad glob")

// ValidateGlob returns an error for a glob that MatchGlob cannot read: an
// unclosed or empty class, a reversed range, a trailing backslash.
func ValidateGlob(p string) error {
	if !utf8.ValidString(p) {
		return fmt.Errorf("%w %q: invalid UTF-8", ErrBadGlob, p)
	}
	for i := 0; i < len(p); {
		switch p[i] {
		case '\\':
			if i+1 == len(p) {
				return fmt.Errorf("%w %q: trailing backslash", ErrBadGlob, p)
			}
			_, w := utf8.DecodeRuneInString(p[i+1:])
			i += 1 + w
		case '[':
			_, n, ok := matchClass(p[i:], 0)
			if !ok {
				return fmt.Errorf("%w %q: malformed [class]", ErrBadGlob, p)
			}
			i += n
		default:
			i++
		}
	}
	return nil
}

// MatchGlob reports whether name matches the glob p, which ValidateGlob has
// accepted. Cost: O(len(p)·len(name)) at worst, no allocation.
func MatchGlob(p, name string) bool {
	px, nx := 0, 0
	starP, starN := -1, -1 // after the last '*': where to resume on a mismatch
	for nx < len(name) {
		r, w := utf8.DecodeRuneInString(name[nx:])
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				px++
				starP, starN = px, nx
				continue
			case '?':
				px++
				nx += w
				continue
			case '[':
				if ok, n, valid := matchClass(p[px:], r); valid && ok {
					px += n
					nx += w
					continue
				}
			case '\\':
				if px+1 < len(p) {
					pr, pw := utf8.DecodeRuneInString(p[px+1:])
					if pr == r {
						px += 1 + pw
						nx += w
						continue
					}
				}
			default:
				pr, pw := utf8.DecodeRuneInString(p[px:])
				if pr == r {
					px += pw
					nx += w
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' absorb one more character and try again.
		_, sw := utf8.DecodeRuneInString(name[starN:])
		starN += sw
		px, nx = starP, starN
	}
	for px < len(p) && p[px] == '*' {
		px++
	}
	return px == len(p)
}

// matchClass reads the class at the start of p ("[...]") and reports whether
// r is in it, the class's length in bytes, and whether the class is well
// formed.
func matchClass(p string, r rune) (match bool, n int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	items := 0
	for {
		if i >= len(p) {
			return false, 0, false
		}
		if p[i] == ']' {
			if items == 0 {
				return false, 0, false
			}
			return match != negate, i + 1, true
		}
		lo, ok := classChar(p, &i)
		if !ok {
			return false, 0, false
		}
		hi := lo
		if i < len(p) && p[i] == '-' {
			i++
			if hi, ok = classChar(p, &i); !ok || hi < lo {
				return false, 0, false
			}
		}
		if lo <= r && r <= hi {
			match = true
		}
		items++
	}
}

// classChar reads one character of a class at p[*i], escaped or not.
func classChar(p string, i *int) (rune, bool) {
	escaped := false
	if *i < len(p) && p[*i] == '\\' {
		*i++
		escaped = true
	}
	if *i >= len(p) || !escaped && (p[*i] == ']' || p[*i] == '-') {
		return 0, false
	}
	r, w := utf8.DecodeRuneInString(p[*i:])
	*i += w
	return r, true
}

// Filter selects files by --include and --exclude globs. Keep counts the
// matches of each include glob, so a Filter is for one goroutine at a time.
type Filter struct {
	include, exclude []string
	hits             []int // files each include glob matched, before excludes
}

// NewFilter checks the globs; a bad one is an error wrapping ErrBadGlob.
func NewFilter(include, exclude []string) (*Filter, error) {
	for _, g := range append(append([]string(nil), include...), exclude...) {
		if err := ValidateGlob(g); err != nil {
			return nil, err
		}
	}
	return &Filter{include: include, exclude: exclude, hits: make([]int, len(include))}, nil
}

// globMatches reports whether glob selects the file at rel: a glob without
// '/' is matched against the name alone, one with '/' against the relative
// path and against it with a leading '/'.
func globMatches(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		return MatchGlob(glob, rel[strings.LastIndexByte(rel, '/')+1:])
	}
	return MatchGlob(glob, rel) || !strings.HasPrefix(rel, "/") && MatchGlob(glob, "/"+rel)
}

// Keep reports whether the file at rel (relative, '/'-separated) is selected:
// it matches an include glob (or there is none) and no exclude glob.
func (f *Filter) Keep(rel string) bool {
	in := len(f.include) == 0
	for k, g := range f.include {
		if globMatches(g, rel) {
			f.hits[k]++
			in = true
		}
	}
	if !in {
		return false
	}
	for _, g := range f.exclude {
		if globMatches(g, rel) {
			return false
		}
	}
	return true
}

// Unmatched returns the first include glob that matched no file.
func (f *Filter) Unmatched() (string, bool) {
	for k, n := range f.hits {
		if n == 0 {
			return f.include[k], true
		}
	}
	return "", false
}
