package shingle_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/simjoin/simjoin/shingle"
)

// The fuzz targets here run their seed corpus in every `go test`; explore
// with, for example:
//
//	go test -run '^$' -fuzz '^FuzzSpecAppend$' -fuzztime 60s ./shingle
//	go test -run '^$' -fuzz '^FuzzSpecParse$' -fuzztime 30s ./shingle

// specTexts are the specifications of the seed corpora, valid and not.
var specTexts = []string{
	"set", "words", "qgram:1", "qgram:2", "qgram:3", "qgram:4", "qgram:64", "shingle:1", "shingle:3",
	"go:1", "go:5", "go:64", "", "set:1", "words:2", "qgram", "qgram:", "qgram:0", "qgram:65",
	"qgram:-1", "qgram:+3", "qgram:03", "qgram:2:3", "qgram:x", "QGRAM:2", " set", "shingle:9999999999999999999",
	"go:1.5", "kind(7)", "qgram:2 ",
}

// FuzzSpecParse checks that Parse never panics, rejects with ErrSpec, and
// that an accepted specification has a valid length and prints as text that
// parses back to it.
func FuzzSpecParse(f *testing.F) {
	for _, s := range specTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := shingle.Parse(text)
		if err != nil {
			if !errors.Is(err, shingle.ErrSpec) {
				t.Fatalf("Parse(%q): error %v is not ErrSpec", text, err)
			}
			return
		}
		switch spec.Kind {
		case shingle.Set, shingle.Words:
		case shingle.QGram, shingle.Shingle, shingle.Go:
			if spec.N < 1 || spec.N > shingle.MaxN {
				t.Fatalf("Parse(%q) = %+v: length out of range", text, spec)
			}
		default:
			t.Fatalf("Parse(%q) = %+v: unknown kind", text, spec)
		}
		back, err := shingle.Parse(spec.String())
		if err != nil || back != spec {
			t.Fatalf("Parse(%q) = %+v prints as %q, which parses as %+v, %v", text, spec, spec.String(), back, err)
		}
	})
}

// records are the seed records: ASCII, accents, scripts without case,
// combining marks, numbers beyond digits, punctuation and symbols, Go
// source, invalid UTF-8 and control bytes.
var records = []string{
	"", " ", "a", "ab", "abc", "password", "p@ssw0rd!", "Hello, World", "hello  world\tagain\r\n",
	"Straße ÉCOLE école", "пароль Пароль", "日本語のテキスト", "e\u0301te\u0301", "x² ½ Ⅻ ٣",
	"a-b_c.d,e;f", "😀😀 smile 😀", "\u00a0nbsp\u2003em\u200bzw", "package p\nfunc f() { return }\n",
	"x := `raw\nstring` // comment", "\xff", "ok\xc3", "a\xe2\x82b", "\x00\x01\x02", "caf\xe9",
	strings.Repeat("ab", 100), strings.Repeat("é", 70),
}

// FuzzSpecAppend runs every kind of tokenizer over arbitrary bytes and
// checks it against a reference built from the unicode and strings
// packages: no panic; invalid UTF-8 gives ErrUTF8 (with dst unchanged) for
// the kinds that need text; Set splits on ASCII white space; Words and
// Shingle find the documented words; a q-gram tokenizer yields
// runes - q + 1 keys before duplicates are removed, equal grams get equal
// keys and, for q <= 3, distinct grams distinct keys; Append never touches
// what dst already holds, and AppendBytes agrees with Append.
func FuzzSpecAppend(f *testing.F) {
	for i, r := range records {
		for kind := range uint8(5) {
			f.Add(r, kind, uint8(i%6), uint8(i%4))
		}
	}
	f.Fuzz(func(t *testing.T, record string, kind, n, norm uint8) {
		spec := shingle.Spec{Kind: shingle.Kind(kind % 5), N: 1 + int(n)%shingle.MaxN, Norm: shingle.Norm(norm % 4)}
		if spec.Kind != shingle.Go {
			// Small lengths are where the edge cases are.
			spec.N = 1 + int(n)%8
			if n >= 200 {
				spec.N = 1 + int(n)%shingle.MaxN
			}
		}
		prior := []uint64{1, 2, 3}
		dst := slices.Clone(prior)
		keys, err := spec.Append(dst, record)
		if !slices.Equal(keys[:min(len(keys), 3)], prior) || len(keys) < 3 {
			t.Fatalf("%s: Append changed what dst held: %v", spec, keys[:min(len(keys), 3)])
		}
		got := keys[3:]
		kb, errb := spec.AppendBytes(nil, []byte(record))
		if !slices.Equal(kb, got) && !(len(kb) == 0 && len(got) == 0) || (errb == nil) != (err == nil) {
			t.Fatalf("%s: AppendBytes gives %d keys, %v; Append %d keys, %v", spec, len(kb), errb, len(got), err)
		}
		valid := utf8.ValidString(record)
		switch spec.Kind {
		case shingle.Set:
			if err != nil {
				t.Fatalf("set: error %v", err)
			}
			fields := strings.FieldsFunc(record, func(r rune) bool { return r < utf8.RuneSelf && isASCIISpace(byte(r)) })
			// FieldsFunc decodes runes, but the split points are ASCII
			// bytes, so the fields are the byte runs between them.
			want := make([]uint64, len(fields))
			for i, w := range fields {
				want[i] = shingle.HashString(w)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("set %q: %d keys, want %d (%q)", record, len(got), len(want), fields)
			}
		case shingle.Words, shingle.QGram, shingle.Shingle:
			if !valid {
				if !errors.Is(err, shingle.ErrUTF8) || len(got) != 0 {
					t.Fatalf("%s on invalid UTF-8: %d keys, err %v; want ErrUTF8 and none", spec, len(got), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s on valid UTF-8: %v", spec, err)
			}
			switch spec.Kind {
			case shingle.Words:
				want := refWordKeys(record, spec.Norm)
				if !slices.Equal(got, want) {
					t.Fatalf("words(%s) %q: %d keys, want %d: %q", spec.Norm, record, len(got), len(want), refWords(record, spec.Norm))
				}
			case shingle.Shingle:
				words := len(refWords(record, spec.Norm))
				if want := max(0, words-spec.N+1); len(got) != want {
					t.Fatalf("%s %q: %d keys from %d words, want %d", spec, record, len(got), words, want)
				}
			case shingle.QGram:
				checkQGrams(t, record, spec.N, got)
			}
		case shingle.Go:
			if err != nil {
				var se *shingle.ScanError
				if !errors.As(err, &se) || len(got) != 0 {
					t.Fatalf("go: error %v (%T) with %d keys; want a *ScanError and none", err, err, len(got))
				}
			}
		}
	})
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// refWords splits s as Norm documents it: words are maximal runs of letters,
// numbers and marks; with KeepPunct each punctuation or symbol character is
// a token of its own; everything else separates; letters fold to lower case
// unless KeepCase.
func refWords(s string, norm shingle.Norm) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			if norm&shingle.KeepCase == 0 {
				r = unicode.ToLower(r)
			}
			cur = append(cur, r)
		case norm&shingle.KeepPunct != 0 && (unicode.IsPunct(r) || unicode.IsSymbol(r)):
			flush()
			out = append(out, string(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

func refWordKeys(s string, norm shingle.Norm) []uint64 {
	var out []uint64
	for _, w := range refWords(s, norm) {
		out = append(out, shingle.HashString(w))
	}
	return out
}

// checkQGrams checks the keys of the q-grams of a valid string.
func checkQGrams(t *testing.T, s string, q int, keys []uint64) {
	t.Helper()
	runes := []rune(s)
	want := max(0, len(runes)-q+1)
	if len(keys) != want {
		t.Fatalf("qgram:%d %q: %d keys, want runes - q + 1 = %d", q, s, len(keys), want)
	}
	keyOf := map[string]uint64{}
	gramOf := map[uint64]string{}
	for i, k := range keys {
		g := string(runes[i : i+q])
		if prev, ok := keyOf[g]; ok && prev != k {
			t.Fatalf("qgram:%d %q: gram %q has keys %x and %x", q, s, g, prev, k)
		}
		keyOf[g] = k
		if q <= 3 {
			if prev, ok := gramOf[k]; ok && prev != g {
				t.Fatalf("qgram:%d %q: grams %q and %q share key %x", q, s, prev, g, k)
			}
			gramOf[k] = g
		} else if k != shingle.HashString(g) {
			t.Fatalf("qgram:%d %q: gram %q has key %x, want HashString %x", q, s, g, k, shingle.HashString(g))
		}
	}
}
