package shingle

import (
	"errors"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tokensFixture lists, by hand, every token of testdata/docs/go/tokens.go in
// order: no comment, no build constraint. "\n" marks a semicolon that the
// scanner inserts at a line end (its text is ";"); explicit ones are ";".
var tokensFixture = []string{
	"package", "tokens", "\n",
	"import", `"fmt"`, "\n",
	"const", "raw", "=", "`a\nb`", "\n",
	"func", "Add", "(", "x", ",", "y", "int", ")", "int", "{", "return", "x", "+", "y", "}", "\n",
	"func", "loop", "(", ")", "{",
	"for", "i", ":=", "0", ";", "i", "<", "3", ";", "i", "++", "{",
	"fmt", ".", "Println", "(", "'x'", ",", "1.5e3", ",", "0x1F", ",", "2i", ",",
	"x", "&^", "y", ",", "<-", "ch", ")", "\n",
	"}", "\n",
	"}", "\n",
}

// fixtureTokens returns tokensFixture's texts, with the inserted semicolons
// as ";" or, with drop, left out.
func fixtureTokens(drop bool) []string {
	var out []string
	for _, tok := range tokensFixture {
		switch {
		case tok != "\n":
			out = append(out, tok)
		case !drop:
			out = append(out, ";")
		}
	}
	return out
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goTokens(t testing.TB, src []byte, drop bool) []string {
	t.Helper()
	var got []string
	if err := scanGo(src, drop, func(text string, key uint64) {
		if key != HashString(text) {
			t.Errorf("token %q: key %#x, want HashString %#x", text, key, HashString(text))
		}
		got = append(got, text)
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestScanGoFixture(t *testing.T) {
	for _, drop := range []bool{false, true} {
		got := goTokens(t, readFixture(t, "go/tokens.go"), drop)
		want := fixtureTokens(drop)
		if !slices.Equal(got, want) {
			t.Errorf("drop=%v:\ngot  %q\nwant %q", drop, got, want)
		}
	}
}

// shinglesOf is the reference: n consecutive keys of texts, combined in order.
func shinglesOf(texts []string, n int) []uint64 {
	var out []uint64
	for i := 0; i+n <= len(texts); i++ {
		keys := make([]uint64, n)
		for j := range keys {
			keys[j] = HashString(texts[i+j])
		}
		out = append(out, combine(keys))
	}
	return out
}

func TestAppendGoFixture(t *testing.T) {
	src := readFixture(t, "go/tokens.go")
	for _, drop := range []bool{false, true} {
		texts := fixtureTokens(drop)
		spec := Spec{Kind: Go, DropSemicolons: drop}
		for _, n := range []int{1, 2, 5, len(texts), len(texts) + 1, MaxN} {
			if n > MaxN {
				continue
			}
			spec.N = n
			got, err := spec.AppendBytes(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			want := shinglesOf(texts, n)
			if !slices.Equal(got, want) {
				t.Errorf("drop=%v n=%d: %d keys, want %d (%x vs %x)", drop, n, len(got), len(want), got, want)
			}
			if !drop {
				if a, err := AppendGo(nil, src, n); err != nil || !slices.Equal(a, want) {
					t.Errorf("AppendGo n=%d: %d keys, err %v; want Spec.AppendBytes's %d", n, len(a), err, len(want))
				}
			}
		}
	}
	// Appending keeps what dst held.
	dst := []uint64{7}
	dst, err := AppendGo(dst, src, 5)
	if err != nil || dst[0] != 7 || len(dst) != 1+len(tokensFixture)-4 {
		t.Errorf("append to a non-empty dst: %d keys, err %v", len(dst), err)
	}
	if _, err := AppendGo(nil, src, 0); !errors.Is(err, ErrSpec) {
		t.Errorf("n=0: err %v, want ErrSpec", err)
	}
}

// TestGoLayout: comments and build constraints never change a file's
// shingles; a line break where the scanner inserts a semicolon does, unless
// DropSemicolons.
func TestGoLayout(t *testing.T) {
	a := `package p

func f(a, b int) int {
	return a +
		b // sum
}
`
	b := `//go:build linux
// +build linux

/* The same function,
   laid out differently. */
package p
// comment
func f(a,
	b int) int {
	return a + /* inline */ b
}
`
	c := `package p
func f(a, b int) int { return a + b }
`
	keys := func(src string, drop bool) []uint64 {
		t.Helper()
		k, err := Spec{Kind: Go, N: 3, DropSemicolons: drop}.Append(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, drop := range []bool{false, true} {
		if ka, kb := keys(a, drop), keys(b, drop); !slices.Equal(ka, kb) {
			t.Errorf("drop=%v: comments changed the shingles:\n%q\n%q", drop,
				goTokens(t, []byte(a), drop), goTokens(t, []byte(b), drop))
		}
	}
	if slices.Equal(keys(a, false), keys(c, false)) {
		t.Errorf("one-line body: same shingles with the inserted semicolons kept:\n%q\n%q",
			goTokens(t, []byte(a), false), goTokens(t, []byte(c), false))
	}
	if ka, kc := keys(a, true), keys(c, true); !slices.Equal(ka, kc) {
		t.Errorf("one-line body: line breaks changed the shingles with DropSemicolons:\n%q\n%q",
			goTokens(t, []byte(a), true), goTokens(t, []byte(c), true))
	}
	if got := goTokens(t, []byte(b), false); got[0] != "package" {
		t.Errorf("first token %q: the build constraint was read as a token", got[0])
	}
}

// TestGoTreeInternalPair is the article's check by hand on the files
// cmd/gofmt/internal.go and go/format/internal.go, which say they are
// identical but for a comment and the package name: Jaccard 0.993 (per mille,
// rounded) of their go:5 shingles with the inserted semicolons, 0.992
// without, in Go 1.26's tree (the article, on an older tree: 0.994).
func TestGoTreeInternalPair(t *testing.T) {
	if !strings.HasPrefix(runtime.Version(), "go1.26") {
		t.Skipf("figures are for Go 1.26's tree; this is %s", runtime.Version())
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	a, errA := os.ReadFile(filepath.Join(src, "cmd/gofmt/internal.go"))
	b, errB := os.ReadFile(filepath.Join(src, "go/format/internal.go"))
	if errA != nil || errB != nil {
		t.Skipf("Go tree not found: %v %v", errA, errB)
	}
	for _, tc := range []struct {
		drop     bool
		perMille int64
	}{{false, 993}, {true, 992}} {
		spec := Spec{Kind: Go, N: 5, DropSemicolons: tc.drop}
		set := func(src []byte) map[uint64]bool {
			keys, err := spec.AppendBytes(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			m := make(map[uint64]bool)
			for _, k := range keys {
				m[k] = true
			}
			return m
		}
		sa, sb := set(a), set(b)
		var inter int64
		for k := range sa {
			if sb[k] {
				inter++
			}
		}
		union := int64(len(sa)+len(sb)) - inter
		// Rounded per mille, in integers: floor((2000·inter + union) / (2·union)).
		if got := (2000*inter + union) / (2 * union); got != tc.perMille {
			t.Errorf("drop=%v: J = %d/%d, %d per mille; want %d", tc.drop, inter, union, got, tc.perMille)
		}
	}
}

func TestGoOnlyComments(t *testing.T) {
	src := []byte("// nothing but comments\n\n/*\n\tnot even a package clause\n*/\n//go:build ignore\n")
	if got := goTokens(t, src, false); len(got) != 0 {
		t.Errorf("tokens %q, want none", got)
	}
	for _, n := range []int{1, 5} {
		got, err := AppendGo(nil, src, n)
		if err != nil || len(got) != 0 {
			t.Errorf("n=%d: %d keys, err %v; want none", n, len(got), err)
		}
	}
	// doc.go: comments and a package clause, three tokens with the inserted
	// semicolon: no five-token shingle.
	doc := readFixture(t, "go/doc.go")
	if got := goTokens(t, doc, false); !slices.Equal(got, []string{"package", "docs", ";"}) {
		t.Errorf("doc.go tokens %q", got)
	}
	if got, err := AppendGo(nil, doc, 5); err != nil || len(got) != 0 {
		t.Errorf("doc.go go:5: %d keys, err %v", len(got), err)
	}
	if got, err := AppendGo(nil, nil, 1); err != nil || len(got) != 0 {
		t.Errorf("empty source: %d keys, err %v", len(got), err)
	}
}

func TestGoNotGo(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		line, col  int
		msgContain string
	}{
		{"NUL", "package p\nvar x = 1\x00\x01\x02", 2, 10, "NUL"},
		{"bad UTF-8", "package p\n\nvar s = \xff\xfe", 3, 9, "UTF-8"},
		{"unterminated string", "package p\nvar s = \"abc\n", 2, 9, "not terminated"},
		{"illegal character", "package p\nvar x = 1 # 2\n", 2, 11, "illegal character"},
		{"ELF header", "\x7fELF\x02\x01\x01\x00\x00\x00", 1, 1, "illegal character"},
	} {
		dst := []uint64{1, 2}
		got, err := AppendGo(dst, []byte(tc.src), 1)
		var se *ScanError
		if !errors.As(err, &se) {
			t.Errorf("%s: err %v, want a *ScanError", tc.name, err)
			continue
		}
		if se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msgContain) {
			t.Errorf("%s: %v, want %d:%d: ...%s...", tc.name, se, tc.line, tc.col, tc.msgContain)
		}
		if !slices.Equal(got, dst) {
			t.Errorf("%s: dst changed to %x on error", tc.name, got)
		}
		if _, err := (Spec{Kind: Go, N: 5}).Append(nil, tc.src); !errors.As(err, &se) {
			t.Errorf("%s: Spec.Append err %v", tc.name, err)
		}
	}
}

func TestSpecGoMatchesAppendGo(t *testing.T) {
	src := readFixture(t, "go/reader.go")
	want, err := AppendGo(nil, src, 5)
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Kind: Go, N: 5}
	got, err := spec.Append(nil, string(src))
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Spec.Append: %d keys, err %v; want %d", len(got), err, len(want))
	}
	got, err = spec.AppendBytes(nil, src)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Spec.AppendBytes: %d keys, err %v; want %d", len(got), err, len(want))
	}
}

// referenceGoTokens scans src with go/scanner directly, keeping comments out,
// every semicolon as ";" or, with drop, only those whose literal is ";".
func referenceGoTokens(src []byte, drop bool) ([]string, bool) {
	fset := token.NewFileSet()
	var s scanner.Scanner
	bad := false
	s.Init(fset.AddFile("", -1, len(src)), src, func(token.Position, string) { bad = true }, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if bad {
			return nil, false
		}
		if tok == token.EOF {
			return out, true
		}
		if tok == token.SEMICOLON {
			if drop && lit != ";" {
				continue
			}
			lit = ";"
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, lit)
	}
}

func FuzzAppendGo(f *testing.F) {
	f.Add([]byte("package p\nfunc f() { x := 1; _ = x }\n"), 3)
	f.Add([]byte("// only\n/* comments */"), 1)
	f.Add([]byte("package p\nvar s = \xff"), 2)
	f.Add([]byte("x\x00y"), 1)
	f.Add([]byte("a ; b\n\tc"), 2)
	f.Add([]byte("a ; b\n\tc"), -2)
	for _, name := range []string{"go/tokens.go", "go/reader.go", "go/doc.go"} {
		f.Add(readFixture(f, name), 5)
	}
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		drop := n < 0
		n = 1 + (n%MaxN+MaxN)%MaxN
		got, err := Spec{Kind: Go, N: n, DropSemicolons: drop}.AppendBytes(nil, src)
		ref, ok := referenceGoTokens(src, drop)
		if !ok {
			var se *ScanError
			if !errors.As(err, &se) || len(got) != 0 {
				t.Fatalf("source that does not scan: err %v, %d keys", err, len(got))
			}
			return
		}
		if err != nil {
			t.Fatalf("err %v for a source that scans", err)
		}
		if want := shinglesOf(ref, n); !slices.Equal(got, want) {
			t.Fatalf("n=%d drop=%v: %d keys, want %d (tokens %q)", n, drop, len(got), len(want), ref)
		}
	})
}

// BenchmarkAppendGo shingles Go source with the lexer of this package
// (impl=lexer, what AppendGo runs) and with go/scanner (impl=goscanner, the
// fallback and the reference). file=gotree reads every non-test .go file of
// GOROOT/src outside testdata (set SIMJOIN_GOROOT_BENCH=1).
func BenchmarkAppendGo(b *testing.B) {
	files := map[string][][]byte{"reader.go": {readFixture(b, "go/reader.go")}}
	if os.Getenv("SIMJOIN_GOROOT_BENCH") != "" {
		files["gotree"] = goTreeSources(b)
	}
	impls := []struct {
		name string
		run  func(dst []uint64, src []byte, n int) []uint64
	}{
		{"lexer", func(dst []uint64, src []byte, n int) []uint64 {
			dst, _ = appendGo(dst, src, n, false)
			return dst
		}},
		{"goscanner", func(dst []uint64, src []byte, n int) []uint64 {
			w := window{n: n}
			_ = scanGo(src, false, func(_ string, k uint64) {
				if w.push(k) {
					dst = append(dst, w.key())
				}
			})
			return dst
		}},
	}
	for _, file := range []string{"reader.go", "gotree"} {
		srcs, ok := files[file]
		if !ok {
			continue
		}
		var size int64
		for _, src := range srcs {
			size += int64(len(src))
		}
		for _, n := range []int{1, 5} {
			for _, impl := range impls {
				b.Run("file="+file+"/n="+strconv.Itoa(n)+"/impl="+impl.name, func(b *testing.B) {
					b.SetBytes(size)
					b.ReportAllocs()
					var dst []uint64
					for b.Loop() {
						for _, src := range srcs {
							dst = impl.run(dst[:0], src, n)
						}
					}
				})
			}
		}
	}
}

// goTreeSources returns every non-test .go file of GOROOT/src outside
// testdata, or skips b.
func goTreeSources(b *testing.B) [][]byte {
	root := filepath.Join(runtime.GOROOT(), "src")
	var out [][]byte
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		src, err := os.ReadFile(path)
		out = append(out, src)
		return err
	})
	if err != nil || len(out) == 0 {
		b.Skipf("no Go tree at %s: %v", root, err)
	}
	return out
}
