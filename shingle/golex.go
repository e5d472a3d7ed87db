package shingle

import (
	"bytes"
	"go/token"
	"unicode"
	"unicode/utf8"
)

// goLexer reads the tokens of Go source exactly as go/scanner does (mode 0:
// comments skipped, semicolons inserted at line ends and at the end), without
// building a string for any token: a token is its kind and its byte range in
// the source. It follows the Go specification's lexical rules and
// go/scanner's reading of them, and it decides validity without messages:
// whenever go/scanner would report an error, next returns token.ILLEGAL, and
// the caller runs go/scanner for the message (appendGo falls back to scanGo).
//
// Departures, each of them a reason to defer to go/scanner: a comment that
// starts with "line " may be a line directive, which go/scanner parses (and may
// reject), so next returns token.COMMENT for it.
//
// Cost: one pass over the source, plus three vectorised passes of init (UTF-8
// validity, NUL bytes, byte order marks); no allocation. Not safe for
// concurrent use; a goLexer is a few words on the stack.
type goLexer struct {
	src []byte
	off int // the next byte to read
	// insertSemi is go/scanner's flag of the same name: the last token ends a
	// statement, so the next newline (or the end) is a semicolon.
	insertSemi bool
}

// bomBytes is U+FEFF in UTF-8: allowed as the source's first character only.
var bomBytes = []byte("\uFEFF")

// init starts the lexer on src and reports whether src passes the checks
// go/scanner makes on every character: valid UTF-8, no NUL byte, no byte
// order mark after the first character. With those checked once, next reads
// bytes.
func (lx *goLexer) init(src []byte) bool {
	*lx = goLexer{src: src}
	if bytes.HasPrefix(src, bomBytes) {
		lx.off = len(bomBytes)
	}
	return utf8.Valid(src) && bytes.IndexByte(src, 0) < 0 && !bytes.Contains(src[lx.off:], bomBytes)
}

// next returns the next token, its byte range [start, end) in the source and
// its key (see literalKey). An inserted semicolon has start == end; an
// explicit one is the byte ";". At the end it returns token.EOF; for source
// that go/scanner rejects, token.ILLEGAL; for a comment that may be a line
// directive, token.COMMENT. After any of the three the lexer must not be
// called again.
func (lx *goLexer) next() (tok token.Token, start, end int, key uint64) {
	src := lx.src
	i := lx.off
again:
	for ; i < len(src); i++ {
		c := src[i]
		if c == '\n' {
			if lx.insertSemi {
				lx.insertSemi = false
				lx.off = i + 1
				return token.SEMICOLON, i, i, opKeys[token.SEMICOLON]
			}
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' {
			break
		}
	}
	if i >= len(src) {
		lx.off = i
		if lx.insertSemi {
			lx.insertSemi = false
			return token.SEMICOLON, i, i, opKeys[token.SEMICOLON]
		}
		return token.EOF, i, i, 0
	}
	start = i
	c := src[i]
	semi := false // the token ends a statement
	switch {
	case wordByte[c] && c > '9':
		// An identifier or keyword, its key hashed as it is read.
		h := (hashInit ^ uint64(c)) * hashPrime
		for i++; i < len(src) && wordByte[src[i]]; i++ {
			h = (h ^ uint64(src[i])) * hashPrime
		}
		if i < len(src) && src[i] >= utf8.RuneSelf {
			j := identTail(src, i)
			h = hashFrom(h, src[i:j])
			i = j
		}
		key = finish(h)
		tok = keyword(src[start:i])
		switch tok {
		case token.IDENT, token.BREAK, token.CONTINUE, token.FALLTHROUGH, token.RETURN:
			semi = true
		}
		lx.insertSemi = semi
		lx.off = i
		return tok, start, i, key
	case c >= utf8.RuneSelf:
		r, w := utf8.DecodeRune(src[i:])
		if !unicode.IsLetter(r) {
			return token.ILLEGAL, i, i, 0
		}
		i = identTail(src, i+w)
		tok, semi = token.IDENT, true
	case '0' <= c && c <= '9' || c == '.' && i+1 < len(src) && '0' <= src[i+1] && src[i+1] <= '9':
		tok, i = scanNumber(src, i)
		semi = true
	case c == '"':
		if i = scanQuoted(src, i+1, '"'); i < 0 {
			return token.ILLEGAL, start, start, 0
		}
		tok, semi = token.STRING, true
	case c == '\'':
		if i = scanRuneLit(src, i+1); i < 0 {
			return token.ILLEGAL, start, start, 0
		}
		tok, semi = token.CHAR, true
	case c == '`':
		j := bytes.IndexByte(src[i+1:], '`')
		if j < 0 {
			return token.ILLEGAL, start, start, 0
		}
		i += j + 2
		tok, semi = token.STRING, true
	case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
		if bytes.HasPrefix(src[i+2:], lineDirective) {
			return token.COMMENT, start, start, 0
		}
		if src[i+1] == '/' {
			// Up to the newline, which is not part of the comment.
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			i += j
			goto again
		}
		j := bytes.Index(src[i+2:], commentEnd)
		if j < 0 {
			return token.ILLEGAL, start, start, 0
		}
		body := src[i+2 : i+2+j]
		i += j + 4
		// A comment holding a newline after a token that ends a statement
		// is that statement's semicolon.
		if lx.insertSemi && bytes.IndexByte(body, '\n') >= 0 {
			lx.insertSemi = false
			lx.off = i
			return token.SEMICOLON, i, i, opKeys[token.SEMICOLON]
		}
		goto again
	default:
		i++
		tok = token.ILLEGAL
		switch c {
		case ',':
			tok = token.COMMA
		case ';':
			tok = token.SEMICOLON
		case '(':
			tok = token.LPAREN
		case ')':
			tok, semi = token.RPAREN, true
		case '[':
			tok = token.LBRACK
		case ']':
			tok, semi = token.RBRACK, true
		case '{':
			tok = token.LBRACE
		case '}':
			tok, semi = token.RBRACE, true
		case '~':
			tok = token.TILDE
		case '.':
			tok = token.PERIOD
			if i+1 < len(src) && src[i] == '.' && src[i+1] == '.' {
				tok, i = token.ELLIPSIS, i+2
			}
		case ':':
			tok, i = with(src, i, '=', token.COLON, token.DEFINE)
		case '*':
			tok, i = with(src, i, '=', token.MUL, token.MUL_ASSIGN)
		case '/':
			tok, i = with(src, i, '=', token.QUO, token.QUO_ASSIGN)
		case '%':
			tok, i = with(src, i, '=', token.REM, token.REM_ASSIGN)
		case '^':
			tok, i = with(src, i, '=', token.XOR, token.XOR_ASSIGN)
		case '=':
			tok, i = with(src, i, '=', token.ASSIGN, token.EQL)
		case '!':
			tok, i = with(src, i, '=', token.NOT, token.NEQ)
		case '+':
			if tok, i = with(src, i, '+', token.ADD, token.INC); tok == token.INC {
				semi = true
			} else {
				tok, i = with(src, i, '=', token.ADD, token.ADD_ASSIGN)
			}
		case '-':
			if tok, i = with(src, i, '-', token.SUB, token.DEC); tok == token.DEC {
				semi = true
			} else {
				tok, i = with(src, i, '=', token.SUB, token.SUB_ASSIGN)
			}
		case '|':
			if tok, i = with(src, i, '|', token.OR, token.LOR); tok == token.OR {
				tok, i = with(src, i, '=', token.OR, token.OR_ASSIGN)
			}
		case '&':
			switch {
			case i < len(src) && src[i] == '^':
				tok, i = with(src, i+1, '=', token.AND_NOT, token.AND_NOT_ASSIGN)
			case i < len(src) && src[i] == '&':
				tok, i = token.LAND, i+1
			default:
				tok, i = with(src, i, '=', token.AND, token.AND_ASSIGN)
			}
		case '<':
			switch {
			case i < len(src) && src[i] == '-':
				tok, i = token.ARROW, i+1
			case i < len(src) && src[i] == '<':
				tok, i = with(src, i+1, '=', token.SHL, token.SHL_ASSIGN)
			default:
				tok, i = with(src, i, '=', token.LSS, token.LEQ)
			}
		case '>':
			if i < len(src) && src[i] == '>' {
				tok, i = with(src, i+1, '=', token.SHR, token.SHR_ASSIGN)
			} else {
				tok, i = with(src, i, '=', token.GTR, token.GEQ)
			}
		}
		if tok == token.ILLEGAL {
			return tok, start, start, 0
		}
		lx.insertSemi = semi
		lx.off = i
		return tok, start, i, opKeys[tok]
	}
	if tok == token.ILLEGAL {
		return tok, start, start, 0
	}
	lx.insertSemi = semi
	lx.off = i
	return tok, start, i, literalKey(src[start:i])
}

var (
	lineDirective = []byte("line ")
	commentEnd    = []byte("*/")
)

// with returns long and i+1 if src[i] is c, else short and i.
func with(src []byte, i int, c byte, short, long token.Token) (token.Token, int) {
	if i < len(src) && src[i] == c {
		return long, i + 1
	}
	return short, i
}

// wordByte holds the bytes of ASCII identifiers: letters, digits and '_'.
var wordByte = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
	}
	return t
}()

// identTail returns the end of the identifier that continues at i: letters
// (Unicode), digits (Unicode) and '_'.
func identTail(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if !wordByte[c] {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRune(src[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return i
		}
		i += w
	}
	return i
}

// keyword returns the keyword token that word spells, or token.IDENT.
func keyword(word []byte) token.Token {
	if len(word) < 2 || len(word) > 11 || word[0] < 'b' || word[0] > 'v' {
		return token.IDENT
	}
	switch string(word) {
	case "break":
		return token.BREAK
	case "case":
		return token.CASE
	case "chan":
		return token.CHAN
	case "const":
		return token.CONST
	case "continue":
		return token.CONTINUE
	case "default":
		return token.DEFAULT
	case "defer":
		return token.DEFER
	case "else":
		return token.ELSE
	case "fallthrough":
		return token.FALLTHROUGH
	case "for":
		return token.FOR
	case "func":
		return token.FUNC
	case "go":
		return token.GO
	case "goto":
		return token.GOTO
	case "if":
		return token.IF
	case "import":
		return token.IMPORT
	case "interface":
		return token.INTERFACE
	case "map":
		return token.MAP
	case "package":
		return token.PACKAGE
	case "range":
		return token.RANGE
	case "return":
		return token.RETURN
	case "select":
		return token.SELECT
	case "struct":
		return token.STRUCT
	case "switch":
		return token.SWITCH
	case "type":
		return token.TYPE
	case "var":
		return token.VAR
	}
	return token.IDENT
}

func lowerByte(c byte) byte { return c | ('a' - 'A') } // lower case of an ASCII letter
func isDecimal(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool     { return isDecimal(c) || 'a' <= lowerByte(c) && lowerByte(c) <= 'f' }

// digitsAt reads { digit | '_' } from i for a literal of base and returns
// where they end, whether a digit (has) or a separator (sep) was read, and
// whether a decimal digit too large for a base of at most 10 was read.
func digitsAt(src []byte, i, base int) (end int, has, sep, tooLarge bool) {
	for ; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '_':
			sep = true
		case base == 16 && isHex(c):
			has = true
		case base <= 10 && isDecimal(c):
			has = true
			tooLarge = tooLarge || int(c-'0') >= base
		default:
			return i, has, sep, tooLarge
		}
	}
	return i, has, sep, tooLarge
}

// scanNumber reads the number literal at i, as go/scanner delimits it, and
// returns its token and end, or token.ILLEGAL for a literal that go/scanner
// rejects: a digit too large for its base in an integer, no digits, a radix
// point in a binary or octal literal, an exponent that does not fit the
// mantissa or has no digits, a hexadecimal mantissa with a radix point but no
// 'p' exponent, or a '_' that does not separate two digits.
func scanNumber(src []byte, i int) (token.Token, int) {
	start := i
	// Most literals are decimal integers: digits, then a byte that cannot
	// continue a number.
	j := i
	for j < len(src) && isDecimal(src[j]) {
		j++
	}
	if j > i && (j == len(src) || !wordByte[src[j]] && src[j] != '.') && (src[i] != '0' || octal(src[i:j])) {
		return token.INT, j
	}
	at := func(j int) byte {
		if j < len(src) {
			return src[j]
		}
		return 0
	}
	tok := token.INT
	base, prefix := 10, byte(0)
	var has, sep, tooLarge bool
	if src[i] != '.' {
		if src[i] == '0' {
			i++
			switch lowerByte(at(i)) {
			case 'x':
				i, base, prefix = i+1, 16, 'x'
			case 'o':
				i, base, prefix = i+1, 8, 'o'
			case 'b':
				i, base, prefix = i+1, 2, 'b'
			default:
				base, prefix, has = 8, '0', true
			}
		}
		var h bool
		i, h, sep, tooLarge = digitsAt(src, i, base)
		has = has || h
	}
	if at(i) == '.' {
		tok = token.FLOAT
		if prefix == 'o' || prefix == 'b' {
			return token.ILLEGAL, i
		}
		j, h, s, _ := digitsAt(src, i+1, base)
		i, has, sep = j, has || h, sep || s
	}
	if !has {
		return token.ILLEGAL, i
	}
	if e := lowerByte(at(i)); e == 'e' || e == 'p' {
		if e == 'e' && prefix != 0 && prefix != '0' || e == 'p' && prefix != 'x' {
			return token.ILLEGAL, i
		}
		i++
		tok = token.FLOAT
		if c := at(i); c == '+' || c == '-' {
			i++
		}
		j, h, s, _ := digitsAt(src, i, 10)
		if !h {
			return token.ILLEGAL, i
		}
		i, sep = j, sep || s
	} else if prefix == 'x' && tok == token.FLOAT {
		return token.ILLEGAL, i
	}
	if at(i) == 'i' {
		tok = token.IMAG
		i++
	}
	if tok == token.INT && tooLarge || sep && !separatorsValid(src[start:i]) {
		return token.ILLEGAL, i
	}
	return tok, i
}

// octal reports whether every digit of the decimal digits x is below 8.
func octal(x []byte) bool {
	for _, c := range x {
		if c > '7' {
			return false
		}
	}
	return true
}

// separatorsValid reports whether every '_' of the number literal x stands
// between two digits (a base prefix counts as a digit).
func separatorsValid(x []byte) bool {
	hex := false
	prev := byte('.') // '0' after a digit, '_' after a separator, '.' otherwise
	i := 0
	if len(x) >= 2 && x[0] == '0' {
		if c := lowerByte(x[1]); c == 'x' || c == 'o' || c == 'b' {
			hex, prev, i = c == 'x', '0', 2
		}
	}
	for ; i < len(x); i++ {
		c := x[i]
		switch {
		case c == '_':
			if prev != '0' {
				return false
			}
			prev = '_'
		case isDecimal(c) || hex && isHex(c):
			prev = '0'
		default:
			if prev == '_' {
				return false
			}
			prev = '.'
		}
	}
	return prev != '_'
}

// scanQuoted reads an interpreted string literal from i, just after its
// opening quote, and returns the index after the closing quote, or -1 if it
// is not terminated on its line or holds an invalid escape.
func scanQuoted(src []byte, i int, quote byte) int {
	for i < len(src) {
		c := src[i]
		i++
		switch c {
		case quote:
			return i
		case '\n':
			return -1
		case '\\':
			if i = scanEscape(src, i, quote); i < 0 {
				return -1
			}
		}
	}
	return -1
}

// scanRuneLit reads a rune literal from i, just after its opening quote, and
// returns the index after the closing quote, or -1 unless it holds exactly
// one character or valid escape and is terminated on its line.
func scanRuneLit(src []byte, i int) int {
	n := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'':
			if n != 1 {
				return -1
			}
			return i + 1
		case c == '\n':
			return -1
		case c == '\\':
			if i = scanEscape(src, i+1, '\''); i < 0 {
				return -1
			}
		case c < utf8.RuneSelf:
			i++
		default:
			_, w := utf8.DecodeRune(src[i:])
			i += w
		}
		n++
	}
	return -1
}

// scanEscape reads the escape sequence after a backslash at i (quote is the
// literal's own quote, the one that may be escaped) and returns where it
// ends, or -1 if it is unknown, short, or not a valid code point.
func scanEscape(src []byte, i int, quote byte) int {
	if i >= len(src) {
		return -1
	}
	var n int
	var base, limit uint32
	switch c := src[i]; c {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', quote:
		return i + 1
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, base, limit = 3, 8, 255
	case 'x':
		i, n, base, limit = i+1, 2, 16, 255
	case 'u':
		i, n, base, limit = i+1, 4, 16, unicode.MaxRune
	case 'U':
		i, n, base, limit = i+1, 8, 16, unicode.MaxRune
	default:
		return -1
	}
	var x uint32
	for ; n > 0; n-- {
		if i >= len(src) {
			return -1
		}
		c := src[i]
		var d uint32
		switch {
		case isDecimal(c):
			d = uint32(c - '0')
		case 'a' <= lowerByte(c) && lowerByte(c) <= 'f':
			d = uint32(lowerByte(c)-'a') + 10
		default:
			return -1
		}
		if d >= base {
			return -1
		}
		x = x*base + d
		i++
	}
	if x > limit || 0xD800 <= x && x < 0xE000 {
		return -1
	}
	return i
}

// literalKey returns the key of a literal as go/scanner gives its text, the
// same as HashString of that text: a raw string without its carriage returns,
// which go/scanner strips. The key of an identifier or keyword is HashString
// of its text too, of an operator or delimiter HashString of its spelling,
// and of every semicolon, explicit or inserted, HashString(";") (opKeys).
func literalKey(text []byte) uint64 {
	if text[0] == '`' && bytes.IndexByte(text, '\r') >= 0 {
		h := uint64(hashInit)
		for _, c := range text {
			if c != '\r' {
				h = (h ^ uint64(c)) * hashPrime
			}
		}
		return finish(h)
	}
	return HashBytes(text)
}
