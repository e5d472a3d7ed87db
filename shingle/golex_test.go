package shingle

import (
	"bytes"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

var long = flag.Bool("long", false, "compare goLexer with go/scanner on every .go file of the Go tree without a time budget")

// lexed is one token as go/scanner reports it: the token and its literal
// ("\n" for an inserted semicolon, the spelling for an operator).
type lexed struct {
	tok token.Token
	lit string
}

func (l lexed) String() string { return fmt.Sprintf("%v %q", l.tok, l.lit) }

// scannerTokens is the reference: go/scanner's tokens of src (mode 0), and
// whether it scanned without an error.
func scannerTokens(src []byte) ([]lexed, bool) {
	var s scanner.Scanner
	bad := false
	s.Init(token.NewFileSet().AddFile("", -1, len(src)), src, func(token.Position, string) { bad = true }, 0)
	var out []lexed
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out, !bad
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, lexed{tok, lit})
	}
}

// lexerOutcome is how goLexer ended on a source.
type lexerOutcome int

const (
	lexedAll  lexerOutcome = iota // read to the end
	rejected                      // init or next found what go/scanner reports as an error
	directive                     // a comment that may be a line directive
)

// lexerTokens runs goLexer over src, checking each token's key against
// HashString of its text (";" for every semicolon).
func lexerTokens(t *testing.T, src []byte) ([]lexed, lexerOutcome) {
	t.Helper()
	var lx goLexer
	if !lx.init(src) {
		return nil, rejected
	}
	var out []lexed
	for {
		tok, from, to, key := lx.next()
		switch tok {
		case token.EOF:
			return out, lexedAll
		case token.ILLEGAL:
			return out, rejected
		case token.COMMENT:
			return out, directive
		}
		lit := string(src[from:to])
		if tok == token.STRING && lit[0] == '`' {
			lit = strings.ReplaceAll(lit, "\r", "")
		}
		text := lit
		switch {
		case tok == token.SEMICOLON && from == to:
			lit, text = "\n", ";"
		case tok.IsOperator() && lit != tok.String():
			t.Fatalf("operator %v spelled %q at %d", tok, lit, from)
		}
		if key != HashString(text) {
			t.Fatalf("%v %q: key %#x, want HashString %#x", tok, text, key, HashString(text))
		}
		out = append(out, lexed{tok, lit})
	}
}

// checkLexer fails t unless goLexer and go/scanner agree on src: the same
// tokens when go/scanner reports no error, a rejection when it reports one,
// and a deferral only at a comment that starts with "line ". It returns the
// lexer's outcome and whether go/scanner reads src without error.
func checkLexer(t *testing.T, name string, src []byte) (lexerOutcome, bool) {
	t.Helper()
	got, outcome := lexerTokens(t, src)
	want, ok := scannerTokens(src)
	switch {
	case outcome == directive:
		if !bytes.Contains(src, []byte("//line ")) && !bytes.Contains(src, []byte("/*line ")) {
			t.Fatalf("%s: deferred to go/scanner without a line directive", name)
		}
	case outcome == rejected && ok:
		t.Fatalf("%s: rejected after %d tokens, but go/scanner reads it without error: next %v",
			name, len(got), want[min(len(got), len(want)-1):min(len(got)+3, len(want))])
	case outcome == lexedAll && !ok:
		t.Fatalf("%s: read whole (%d tokens), but go/scanner reports an error", name, len(got))
	case outcome == lexedAll:
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				t.Fatalf("%s: token %d: lexer %v, go/scanner %v", name, i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
			}
		}
	}
	return outcome, ok
}

// lexerCases are small sources at every corner of the lexical grammar, each
// read the same by both (valid or not).
var lexerCases = []string{
	"", "\n", "x", "x\n", "x // c", "x /* c */", "x /* \n */ y", "x /* c */\ny", "return\n", "break", "f()\n}",
	"a++\nb--\n", "x[1]\n", "\ufeffpackage p", "\ufeff\ufeff", "a\ufeffb", "\xff\xfe", "x\x00", "'\x00'", "\"\xff\"",
	"0", "00", "08", "08.5", "08i", "09e1", "0x", "0x1p", "0x1.8p1", "0x1.8", "0X_1F", "0x_", "0b101", "0b102", "0b1.0",
	"0o17", "0O8", "0o1e2", "1e", "1e+", "1e+5", "1E-5i", ".5", ".5e3", "1_000", "1__0", "1_", "_1", "0_7", "0x1e+2",
	"1.e2", "1..2", "1.5.6", "0b", "0o", "0.", "0i", "1_i", "0x1p1_0", "0x1_p1", "1e1_0", "0_x1", "12abc", "1.2.3i",
	`"abc"`, `"a\nb"`, "\"a\nb\"", `"\x41\u00e9\U0001F600\101"`, `"\400"`, `"\ud800"`, `"\U00110000"`, `"\q"`, `"\'"`,
	`'a'`, `'é'`, `''`, `'ab'`, `'\''`, `'\"'`, `'\x4'`, `'\u12345'`, "'\n'", `'`, `"`, "`raw`", "`a\r\nb`", "`open",
	"/* open", "/*/ x */ y", "// c\r\nx", "/*line x:1*/ y", "//line x:0\ny", "x //line a:1\n", "#", "$", "?", "@",
	"\\", "\x7f", "\v", "\f", "“x”", "é := 1", "x٣ := 2", "_ = ü٣", "٣", "a.b...c..d", "&^= &^ && &= & |= || |",
	"<<= << <= <- < >>= >> >= > := : == = != ! += ++ + -= -- - *= * /= / %= % ^= ^ ~ , ; ( ) [ ] { }",
	"a\r\n\tb;\r\n", "x\n\n\ny", "go defer goto fallthrough\ncontinue\nif else", "fallthroughx\nreturns\n",
}

func TestGoLexerCases(t *testing.T) {
	var n [3]int // cases by outcome, so that the table covers all three
	for _, c := range lexerCases {
		o, _ := checkLexer(t, fmt.Sprintf("%q", c), []byte(c))
		n[o]++
	}
	for _, name := range []string{"go/tokens.go", "go/reader.go", "go/doc.go"} {
		if o, _ := checkLexer(t, name, readFixture(t, name)); o != lexedAll {
			t.Errorf("%s: outcome %d, want read whole", name, o)
		}
	}
	if n[lexedAll] < 40 || n[rejected] < 40 || n[directive] < 2 {
		t.Errorf("cases read whole %d, rejected %d, deferred %d: the table lost its spread", n[lexedAll], n[rejected], n[directive])
	}
}

// FuzzGoLexer compares goLexer with go/scanner on any bytes, seeded from the
// case table and the Go fixtures under testdata.
func FuzzGoLexer(f *testing.F) {
	for _, c := range lexerCases {
		f.Add([]byte(c))
	}
	for _, name := range []string{"go/tokens.go", "go/reader.go", "go/doc.go"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkLexer(t, "input", src)
	})
}

// TestGoLexerGenerated compares goLexer with go/scanner on sources pieced
// together from the case table, the fixtures' lines and separators, so that
// tokens meet every kind of neighbour.
func TestGoLexerGenerated(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	pieces := slices.Clone(lexerCases)
	for _, name := range []string{"go/tokens.go", "go/reader.go"} {
		pieces = append(pieces, strings.SplitAfter(string(readFixture(t, name)), "\n")...)
	}
	seps := []string{"", " ", "\n", "\t", "\r\n", "/**/", "/*\n*/", "// c\n", ";", ".", "0", "x", "'", "\"", "`", "\\"}
	n := 5000
	if testing.Short() {
		n = 500
	}
	var b strings.Builder
	for i := range n {
		b.Reset()
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		checkLexer(t, fmt.Sprintf("source %d %q", i, b.String()), []byte(b.String()))
	}
}

// TestGoLexerGoTree compares goLexer with go/scanner on the .go files under
// GOROOT/src, testdata (where some do not scan) included: with -long every
// file (7,711 files, 90 MB in Go 1.26: about five seconds of CPU), by default
// every fourth, under -short every hundredth.
func TestGoLexerGoTree(t *testing.T) {
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no Go tree: %v", err)
	}
	every := 4
	switch {
	case *long:
		every = 1
	case testing.Short():
		every = 100
	}
	var seen, files, bytesRead, invalid, deferred int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if seen++; seen%every != 0 {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		files++
		bytesRead += len(src)
		rel, _ := filepath.Rel(root, path)
		o, ok := checkLexer(t, rel, src)
		if !ok {
			invalid++
		}
		if o == directive {
			deferred++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Skip("no .go file under " + root)
	}
	t.Logf("%d of %d files, %.1f MB: %d do not scan, %d deferred at a line directive", files, seen, float64(bytesRead)/1e6, invalid, deferred)
}

// TestAppendGoFallback: a source that does not scan, or holds a line
// directive, goes through go/scanner, with the same result as the reference.
func TestAppendGoFallback(t *testing.T) {
	for _, src := range []string{"package p\n//line a.go:0\nvar x = 1\n", "package p\n/*line a.go:3*/ var x = 1\n", "package p\nvar x = 08\n"} {
		got, err := AppendGo(nil, []byte(src), 2)
		ref, ok := referenceGoTokens([]byte(src), false)
		switch {
		case !ok && err == nil:
			t.Errorf("%q: no error, go/scanner reports one", src)
		case ok && (err != nil || !slices.Equal(got, shinglesOf(ref, 2))):
			t.Errorf("%q: %d keys, err %v; want %d", src, len(got), err, len(shinglesOf(ref, 2)))
		}
	}
}
