package passwords

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/simjoin/simjoin/internal/testkit/race"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// refGrams is the reference: the distinct q-grams of pw as byte strings,
// over code points when pw is valid UTF-8 and over bytes otherwise.
func refGrams(pw []byte, q int) map[string]bool {
	var units [][]byte
	if utf8.Valid(pw) {
		for i := 0; i < len(pw); {
			_, n := utf8.DecodeRune(pw[i:])
			units = append(units, pw[i:i+n])
			i += n
		}
	} else {
		for i := range pw {
			units = append(units, pw[i:i+1])
		}
	}
	out := map[string]bool{}
	for i := 0; i+q <= len(units); i++ {
		out[string(slices.Concat(units[i:i+q]...))] = true
	}
	return out
}

func keySet(keys []uint64) []uint64 {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	return slices.Compact(keys)
}

// checkGrams compares the keys of a corpus with the reference grams: each
// password has as many distinct keys as grams, and two grams of any two
// passwords share a key exactly when they are the same bytes.
func checkGrams(t *testing.T, corpus [][]byte, q int) {
	t.Helper()
	g := Grams{Q: q}
	gramOf := map[uint64]string{}
	keyOf := map[string]uint64{}
	for _, pw := range corpus {
		keys := g.Append(nil, pw)
		ref := refGrams(pw, q)
		if got := len(keySet(keys)); got != len(ref) {
			t.Fatalf("q=%d %q: %d distinct keys, %d grams", q, pw, got, len(ref))
		}
		// Keys come in text order: pair them with the reference's grams in
		// the same order.
		var texts []string
		if utf8.Valid(pw) {
			rs := []rune(string(pw))
			for i := 0; i+q <= len(rs); i++ {
				texts = append(texts, string(rs[i:i+q]))
			}
		} else {
			for i := 0; i+q <= len(pw); i++ {
				texts = append(texts, string(pw[i:i+q]))
			}
		}
		if len(texts) != len(keys) {
			t.Fatalf("q=%d %q: %d keys for %d grams", q, pw, len(keys), len(texts))
		}
		for i, k := range keys {
			if s, ok := gramOf[k]; ok && s != texts[i] {
				t.Fatalf("q=%d: grams %q and %q share key %#x", q, s, texts[i], k)
			}
			if k2, ok := keyOf[texts[i]]; ok && k2 != k {
				t.Fatalf("q=%d: gram %q has keys %#x and %#x", q, texts[i], k, k2)
			}
			gramOf[k], keyOf[texts[i]] = texts[i], k
		}
	}
}

var gramCorpus = []string{
	"password", "p@ssw0rd", "PASSWORD", "ab", "a", "", "aaaa", "aaaaaa",
	"café", "caf\xe9", "cafe\xcc\x81", "ÄRGER", "\xc4rger", "\xc3\xa9", "\xe9",
	"日本語パスワード", "\xff\xfe\xfd", "pass\x00word", "x\xc3", "\xc3\xa9\xe9",
	"été2024", "\xe9t\xe92024", "abc\xe9def",
}

func TestGramsAgainstReference(t *testing.T) {
	var corpus [][]byte
	for _, s := range gramCorpus {
		corpus = append(corpus, []byte(s))
	}
	for q := 1; q <= 6; q++ {
		checkGrams(t, corpus, q)
	}
}

// TestGramsMatchShingle checks that valid UTF-8 passwords get exactly the
// keys of `simjoin join --tokens qgram:N`.
func TestGramsMatchShingle(t *testing.T) {
	for _, s := range gramCorpus {
		if !utf8.ValidString(s) {
			continue
		}
		for q := 1; q <= 5; q++ {
			want, err := shingle.Spec{Kind: shingle.QGram, N: q}.Append(nil, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := (Grams{Q: q}).Append(nil, []byte(s)); !slices.Equal(got, want) {
				t.Errorf("q=%d %q: keys %x, shingle gives %x", q, s, got, want)
			}
		}
	}
}

// TestGramsASCIIShared checks that an ASCII gram of a Latin-1 password has
// the key the same gram has in a UTF-8 password, and that a Latin-1 byte
// never meets the UTF-8 code point it encodes.
func TestGramsASCIIShared(t *testing.T) {
	for q := 1; q <= 5; q++ {
		g := Grams{Q: q}
		latin := keySet(g.Append(nil, []byte("\xe9password")))
		utf := keySet(g.Append(nil, []byte("épassword")))
		ascii := keySet(g.Append(nil, []byte("password")))
		shared := 0
		for _, k := range ascii {
			if _, ok := slices.BinarySearch(latin, k); ok {
				shared++
			}
		}
		if shared != len(ascii) {
			t.Errorf("q=%d: Latin-1 password shares %d of %d ASCII grams", q, shared, len(ascii))
		}
		// Grams holding é differ between the two readings.
		common := 0
		for _, k := range utf {
			if _, ok := slices.BinarySearch(latin, k); ok {
				common++
			}
		}
		if common != len(ascii) {
			t.Errorf("q=%d: UTF-8 and Latin-1 passwords share %d grams, want the %d ASCII ones", q, common, len(ascii))
		}
	}
}

func TestGramsNormalised(t *testing.T) {
	g := Grams{Norm: StripSuffix | FoldLeet | FoldCase}
	a := keySet(g.Append(nil, []byte("P@ssw0rd2024!")))
	b := keySet(g.Append(nil, []byte("password")))
	if !slices.Equal(a, b) {
		t.Errorf("normalised sets differ: %x vs %x", a, b)
	}
	if got := (Grams{}).Append(nil, []byte("a")); len(got) != 0 {
		t.Errorf("one character has %d bigrams", len(got))
	}
	if got := (Grams{Norm: StripSuffix}).Append(nil, []byte("a123")); len(got) != 0 {
		t.Errorf("a123 stripped has %d bigrams", len(got))
	}
}

func TestGramsBadQ(t *testing.T) {
	for _, q := range []int{-1, MaxQ + 1, 1000} {
		if got := (Grams{Q: q}).Append(nil, []byte("password")); len(got) != 0 {
			t.Errorf("q=%d: %d keys, want none", q, len(got))
		}
	}
}

func TestGramsAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	g := Grams{Norm: StripSuffix | FoldLeet | FoldCase}
	dst := make([]uint64, 0, 64)
	pw := []byte("Sommer-Ärger2024!")
	if n := testing.AllocsPerRun(100, func() { dst = g.Append(dst[:0], pw) }); n != 0 {
		t.Errorf("Append allocates %v times", n)
	}
}

// FuzzGrams compares the keys of two passwords with the reference grams:
// they share as many keys as grams.
func FuzzGrams(f *testing.F) {
	for i, s := range gramCorpus {
		f.Add([]byte(s), []byte(gramCorpus[(i+1)%len(gramCorpus)]), uint8(2))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, q8 uint8) {
		q := 1 + int(q8%6)
		checkGrams(t, [][]byte{a, b}, q)
	})
}

// TestGramsCheck: Q in 1..MaxQ (0 for DefaultQ) and known normalisations
// pass; any other Q wraps ErrQ, and Join refuses what Validate refuses.
func TestGramsCheck(t *testing.T) {
	for _, g := range []Grams{{}, {Q: 1}, {Q: MaxQ, Norm: FoldCase | FoldLeet | StripSuffix}} {
		if err := g.Validate(); err != nil {
			t.Errorf("%+v: %v", g, err)
		}
	}
	for _, q := range []int{-1, MaxQ + 1} {
		g := Grams{Q: q}
		if err := g.Validate(); !errors.Is(err, ErrQ) {
			t.Errorf("Q %d: %v, want ErrQ", q, err)
		}
		if _, err := Join(context.Background(), &List{}, Options{Grams: g, Threshold: DefaultThreshold()}, nil); !errors.Is(err, ErrQ) {
			t.Errorf("Join with Q %d: %v, want ErrQ", q, err)
		}
	}
	if err := (Grams{Norm: 1 << 7}).Validate(); err == nil {
		t.Errorf("an unknown normalisation passes")
	}
}

// TestGramsValues: where AppendValues takes a password (Q up to 3, ASCII
// once normalised), the keys of its values are Append's keys, in order;
// where it does not, the password or Q is why.
func TestGramsValues(t *testing.T) {
	norms := []Norm{0, FoldCase, FoldLeet | StripSuffix, allNorms}
	for _, s := range append(gramCorpus, "Sommer2024!", "P4$$W0RD", "abc123", "x") {
		pw := []byte(s)
		for q := 1; q <= 5; q++ {
			for _, n := range norms {
				g := Grams{Q: q, Norm: n}
				vals, ok := g.AppendValues([]uint32{7}, pw)
				keys := g.Append(nil, pw)
				if !ok {
					if len(vals) != 1 {
						t.Fatalf("%q q=%d norm=%v: refused, but appended %v", s, q, n, vals[1:])
					}
					ascii := q <= shingle.MaxGramValues
					for _, c := range n.Append(nil, pw, utf8.Valid(pw)) {
						ascii = ascii && c < 0x80
					}
					if ascii {
						t.Fatalf("%q q=%d norm=%v: an ASCII password refused", s, q, n)
					}
					continue
				}
				if len(vals)-1 != len(keys) {
					t.Fatalf("%q q=%d norm=%v: %d values, %d keys", s, q, n, len(vals)-1, len(keys))
				}
				for i, v := range vals[1:] {
					if k := (shingle.GramValues{N: q}).Key(v); k != keys[i] {
						t.Fatalf("%q q=%d norm=%v: value %d's key %x, Append's %x", s, q, n, i, k, keys[i])
					}
				}
			}
		}
	}
}

// TestInputValues: input builds exactly the collection of the keys, when
// every password goes as values, and when a block past the first holds one
// that does not (from there on, keys), for q 2 to 4 and any workers.
func TestInputValues(t *testing.T) {
	for _, odd := range []string{"", "caf\u00e9", "\xff"} {
		var l List
		for i := range 3 * gramBlock {
			pw := fmt.Sprintf("%c%cpw%d!", 'a'+i%23, 'K'+i%7, i%3001)
			if i == 2*gramBlock+5 && odd != "" {
				pw = odd
			}
			if _, _, err := l.Add([]byte(pw), 1, i); err != nil {
				t.Fatal(err)
			}
		}
		for q := 2; q <= 4; q++ {
			g := Grams{Q: q}
			ref := new(order.Input)
			for i := range l.Len() {
				ref.Add(g.Append(nil, l.Password(i)))
			}
			want, err := order.New(ref)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{1, 3} {
				got, err := order.New(input(&l, g, w))
				if err != nil {
					t.Fatal(err)
				}
				if got.Len() != want.Len() || got.Dict().Len() != want.Dict().Len() || got.Tokens() != want.Tokens() {
					t.Fatalf("odd %q q=%d workers=%d: %d sets, %d distinct, %d tokens; want %d, %d, %d", odd, q, w,
						got.Len(), got.Dict().Len(), got.Tokens(), want.Len(), want.Dict().Len(), want.Tokens())
				}
				for id := range uint32(want.Dict().Len()) {
					if got.Dict().Key(id) != want.Dict().Key(id) || got.Dict().DF(id) != want.Dict().DF(id) {
						t.Fatalf("odd %q q=%d workers=%d: token %d differs", odd, q, w, id)
					}
				}
				for i := range want.Len() {
					if got.ID(i) != want.ID(i) || !slices.Equal(got.Set(i), want.Set(i)) {
						t.Fatalf("odd %q q=%d workers=%d: set %d differs", odd, q, w, i)
					}
				}
			}
		}
	}
}
