package shingle

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// referenceWords splits s as Norm documents it, rune by rune with the
// unicode package only, and returns the normalised texts.
func referenceWords(s string, norm Norm) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			if norm&KeepCase == 0 {
				r = unicode.ToLower(r)
			}
			cur.WriteRune(r)
		case norm&KeepPunct != 0 && (unicode.IsPunct(r) || unicode.IsSymbol(r)):
			flush()
			out = append(out, string(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

func hashAll(texts []string) []uint64 {
	out := make([]uint64, len(texts))
	for i, s := range texts {
		out[i] = HashString(s)
	}
	return out
}

func TestWordsNorm(t *testing.T) {
	const text = "Hello, World! hello... ÄRGER über café (cafe\u0301) x²+y² — 42°C"
	for _, tc := range []struct {
		norm Norm
		want []string
	}{
		{0, []string{"hello", "world", "hello", "ärger", "über", "café", "cafe\u0301", "x²", "y²", "42", "c"}},
		{KeepCase, []string{"Hello", "World", "hello", "ÄRGER", "über", "café", "cafe\u0301", "x²", "y²", "42", "C"}},
		{KeepPunct, []string{"hello", ",", "world", "!", "hello", ".", ".", ".", "ärger", "über", "café", "(", "cafe\u0301", ")", "x²", "+", "y²", "—", "42", "°", "c"}},
	} {
		if ref := referenceWords(text, tc.norm); !slices.Equal(ref, tc.want) {
			t.Fatalf("%s: reference %q, want %q", tc.norm, ref, tc.want)
		}
		got, err := Spec{Kind: Words, Norm: tc.norm}.Append(nil, text)
		if err != nil {
			t.Fatal(err)
		}
		if want := hashAll(tc.want); !slices.Equal(got, want) {
			t.Errorf("%s: %d keys, want %d for %q", tc.norm, len(got), len(want), tc.want)
		}
	}
}

func TestShingleNorm(t *testing.T) {
	a := "The oak stood at the edge of the field."
	b := "THE OAK stood, at the edge of the field!"
	spec := Spec{Kind: Shingle, N: 3}
	ka, _ := spec.Append(nil, a)
	kb, _ := spec.Append(nil, b)
	if len(ka) != 7 || !slices.Equal(ka, kb) {
		t.Errorf("default: %d and %d keys, equal %v; want 7, equal", len(ka), len(kb), slices.Equal(ka, kb))
	}
	words := referenceWords(a, 0)
	if want := shinglesOf(words, 3); !slices.Equal(ka, want) {
		t.Errorf("shingles of %q differ from the reference", words)
	}
	for _, norm := range []Norm{KeepCase, KeepPunct, KeepCase | KeepPunct} {
		spec.Norm = norm
		ka, _ := spec.Append(nil, a)
		kb, _ := spec.Append(nil, b)
		if slices.Equal(ka, kb) {
			t.Errorf("%s: the two texts have the same shingles", norm)
		}
		if want := shinglesOf(referenceWords(a, norm), 3); !slices.Equal(ka, want) {
			t.Errorf("%s: shingles differ from the reference", norm)
		}
	}
	if got, _ := (Spec{Kind: Shingle, N: 9}).Append(nil, a); len(got) != 1 {
		t.Errorf("9 words, shingle:9: %d keys, want 1", len(got))
	}
	if got, _ := (Spec{Kind: Shingle, N: 10}).Append(nil, a); len(got) != 0 {
		t.Errorf("9 words, shingle:10: %d keys, want 0", len(got))
	}
	if _, err := (Spec{Kind: Shingle, N: 2}).Append(nil, "ab\xffcd"); !errors.Is(err, ErrUTF8) {
		t.Errorf("invalid UTF-8: err %v, want ErrUTF8", err)
	}
}

func TestTextFixtures(t *testing.T) {
	spec := Spec{Kind: Shingle, N: 4}
	sets := map[string][]uint64{}
	for _, name := range []string{"oak.txt", "oak-copy.txt", "pine.txt", "empty.txt"} {
		keys, err := spec.AppendBytes(nil, readFixture(t, "text/"+name))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		sets[name] = slices.Compact(keys)
	}
	jac := func(a, b []uint64) float64 {
		o := 0
		for _, k := range a {
			if _, ok := slices.BinarySearch(b, k); ok {
				o++
			}
		}
		return float64(o) / float64(len(a)+len(b)-o)
	}
	if j := jac(sets["oak.txt"], sets["oak-copy.txt"]); j < 0.8 {
		t.Errorf("oak and its copy: J = %.3f, want >= 0.8 (case and punctuation folded)", j)
	}
	if j := jac(sets["oak.txt"], sets["pine.txt"]); j > 0.1 {
		t.Errorf("oak and pine: J = %.3f, want < 0.1", j)
	}
	if len(sets["empty.txt"]) != 0 {
		t.Errorf("empty.txt: %d shingles", len(sets["empty.txt"]))
	}
}

func TestSpecString(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: Shingle, N: 5}, "shingle:5"},
		{Spec{Kind: Shingle, N: 5, Norm: KeepCase}, "shingle:5 --case keep"},
		{Spec{Kind: Words, Norm: KeepPunct}, "words --punct keep"},
		{Spec{Kind: Words, Norm: KeepCase | KeepPunct}, "words --case keep --punct keep"},
		{Spec{Kind: Go, N: 5, Norm: KeepCase}, "go:5"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.s, got, tc.want)
		}
	}
	if Norm(0).String() != "--case fold --punct drop" {
		t.Errorf("default norm: %q", Norm(0).String())
	}
}

// FuzzWords checks the ASCII fast path and the Unicode path against the
// rune-by-rune reference, for every normalisation.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"Hello, World!", "a-b_c d\te\nF", "ÄRGER über café", "x²+y²", "\x00\x7f~`", "cafe\u0301 İ ß"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, norm uint8) {
		if !utf8.ValidString(s) {
			return
		}
		n := Norm(norm) & (KeepCase | KeepPunct)
		got := appendWords(nil, s, n)
		if want := hashAll(referenceWords(s, n)); !slices.Equal(got, want) {
			t.Fatalf("%s %q: %d keys, want %d (%q)", n, s, len(got), len(want), referenceWords(s, n))
		}
	})
}

func BenchmarkShingle(b *testing.B) {
	text := strings.Repeat(string(readFixture(b, "text/oak.txt")), 20)
	for _, norm := range []Norm{0, KeepCase | KeepPunct} {
		spec := Spec{Kind: Shingle, N: 5, Norm: norm}
		b.Run("n=5/norm="+strings.ReplaceAll(strings.ReplaceAll(norm.String(), "--", ""), " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var dst []uint64
			for b.Loop() {
				dst, _ = spec.Append(dst[:0], text)
			}
		})
	}
}
