package fileset

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, name string
		want       bool
	}{
		{"*_test.go", "bytes/reader_test.go", true},
		{"*_test.go", "bytes/reader.go", false},
		{"*/testdata/*", "cmd/go/testdata/script/x.txt", true},
		{"*/testdata/*", "testdata/x.go", false},
		{"testdata/*", "testdata/x.go", true},
		{"*.go", "a/b/c.go", true},
		{"a/*/c.go", "a/b/x/c.go", true},
		{"?.go", "a.go", true},
		{"?.go", "ab.go", false},
		{"?", "é", true},
		{"[abc].go", "b.go", true},
		{"[!abc].go", "b.go", false},
		{"[^abc].go", "d.go", true},
		{"[a-c]x", "cx", true},
		{"[a-c]x", "dx", false},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{`[\]]`, "]", true},
		{"", "", true},
		{"", "a", false},
		{"**", "", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"*/internal/*", "cmd/gofmt/internal.go", false},
	} {
		if err := ValidateGlob(tc.glob); err != nil {
			t.Fatalf("%q: %v", tc.glob, err)
		}
		if got := MatchGlob(tc.glob, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.glob, tc.name, got, tc.want)
		}
	}
	for _, bad := range []string{"[", "[]", "[!]", "[a", "[z-a]", "[-a]", "[a-]", `a\`, "\xff"} {
		if err := ValidateGlob(bad); err == nil {
			t.Errorf("ValidateGlob(%q) accepted a bad glob", bad)
		}
	}
}

func TestGlobFilter(t *testing.T) {
	f, err := NewFilter([]string{"*.go", "*.s"}, []string{"*_test.go", "*/testdata/*"})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		"bytes/reader.go":         true,
		"bytes/reader_test.go":    false,
		"go/types/testdata/a.go":  false,
		"runtime/asm_amd64.s":     true,
		"README":                  false,
		"reader.go":               true,
		"cmd/testdata.go":         true,
		"x/testdata/nested/y.txt": false,
		"testdata/top.go":         false,
	} {
		if got := f.Keep(rel); got != want {
			t.Errorf("keep(%q) = %v, want %v", rel, got, want)
		}
	}
	if g, ok := f.Unmatched(); ok {
		t.Errorf("unmatched %q, want none", g)
	}
	f, _ = NewFilter([]string{"*.go", "*.gox"}, nil)
	f.Keep("a.go")
	if g, ok := f.Unmatched(); !ok || g != "*.gox" {
		t.Errorf("unmatched = %q, %v; want *.gox", g, ok)
	}
	if _, err := NewFilter(nil, []string{"[x"}); err == nil {
		t.Error("a bad exclude glob was accepted")
	}
}

// globRegexp is the reference: the glob as a regular expression.
func globRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(p); {
		switch p[i] {
		case '*':
			b.WriteString(`.*`)
			i++
		case '?':
			b.WriteString(`.`)
			i++
		case '\\':
			r, w := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += 1 + w
		case '[':
			_, n, _ := matchClass(p[i:], 0)
			class := p[i+1 : i+n-1]
			b.WriteByte('[')
			if class[0] == '!' || class[0] == '^' {
				b.WriteByte('^')
				class = class[1:]
			}
			for j := 0; j < len(class); {
				escaped := class[j] == '\\'
				if escaped {
					j++
				}
				if class[j] == '-' && !escaped {
					b.WriteByte('-')
					j++
					continue
				}
				r, w := utf8.DecodeRuneInString(class[j:])
				fmt.Fprintf(&b, `\x{%x}`, r)
				j += w
			}
			b.WriteByte(']')
			i += n
		default:
			r, w := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += w
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// shellNegation rewrites each class [!...] of a glob that ValidateGlob accepts as
// [^...], path.Match's spelling of the same class.
func shellNegation(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); {
		switch p[i] {
		case '\\':
			_, w := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(p[i : i+1+w])
			i += 1 + w
		case '[':
			_, n, _ := matchClass(p[i:], 0)
			class := p[i : i+n]
			if strings.HasPrefix(class, "[!") {
				class = "[^" + class[2:]
			}
			b.WriteString(class)
			i += n
		default:
			b.WriteByte(p[i])
			i++
		}
	}
	return b.String()
}

// TestShellNegation: [!x] and [^x] are the same class.
func TestShellNegation(t *testing.T) {
	for _, tc := range []struct {
		glob, name string
		want       bool
	}{
		{"[!0]x", "0x", false}, {"[!0]x", "1x", true}, {"[!0]x", "!x", true},
		{"[^0]x", "0x", false}, {"[^0]x", "!x", true}, {"*.[!o]", "a.c", true}, {"*.[!o]", "a.o", false},
		{`[\!]x`, "!x", true}, {`[\!]x`, "1x", false},
	} {
		if got := MatchGlob(tc.glob, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.glob, tc.name, got, tc.want)
		}
	}
}

// FuzzMatchGlob compares MatchGlob with a regular expression built from the
// glob, and, on names without '/', with path.Match (whose '*' and '?' differ
// only on '/').
func FuzzMatchGlob(f *testing.F) {
	for _, s := range [][2]string{
		{"*_test.go", "bytes/reader_test.go"}, {"*/testdata/*", "a/testdata/b"},
		{"[a-c]?*x", "b/yx"}, {`\[*\]`, "[a]"}, {"[!/]*", "/x"}, {"a*b*c", "aXbYbZc"},
		{"[\\]a-]", "]"}, {"é?[à-ü]", "éxö"},
		{"[!0]x", "0x"}, {"[!0]x", "1x"}, {"[^!]x", "!x"}, {`[\!a]`, "!"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, name string) {
		if ValidateGlob(glob) != nil || !utf8.ValidString(name) || len(glob) > 40 {
			return
		}
		got := MatchGlob(glob, name)
		if want := globRegexp(glob).MatchString(name); got != want {
			t.Fatalf("MatchGlob(%q, %q) = %v, regexp %v", glob, name, got, want)
		}
		if !strings.Contains(name, "/") {
			// path.Match spells negation [^...] only.
			if want, err := path.Match(shellNegation(glob), name); err == nil && got != want {
				t.Fatalf("MatchGlob(%q, %q) = %v, path.Match(%q) %v", glob, name, got, shellNegation(glob), want)
			}
		}
	})
}
