package synth

import (
	"iter"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/simjoin/simjoin/shingle"
)

// PasswordsConfig describes a generated password list.
type PasswordsConfig struct {
	N    int    // number of passwords
	Seed uint64 // the same seed gives the same list on every machine
	// Distinct redraws a password already generated, so that the list has N
	// different passwords (and the generator keeps a set of them: about 40
	// bytes a password). Otherwise popular passwords recur, as in a raw leak.
	Distinct bool
}

// Passwords generates a password list the way people make passwords up, in
// the proportions below, which were chosen so that a list of 59,000 distinct
// passwords has about as many similar pairs at q = 2, t = 0.8 (around half a
// pair per password) as published lists of real ones:
//
//   - 62%: a base word drawn by Zipf rank (exponent 1) from common words and
//     names, then a vocabulary of pronounceable made-up words that grows with
//     N (so large lists stay varied); 8% of them join two words. The word is
//     then capitalised (22%), upper-cased (5%) or left alone; letters are
//     leet-substituted (@ for a, 3 for e, 0 for o, ...) in 12%; and a suffix
//     is appended in 70%: digits ("1", "12", "123", random), a year
//     (1950-2025, two or four digits), a symbol or two, or digits and a
//     symbol.
//   - 6%: keyboard walks ("qwerty", "asdfgh", "1qaz2wsx", ...) of 4 to 12
//     keys from a random start, sometimes with a suffix.
//   - 14%: digits only: sequences, repeats, dates and random digit strings.
//   - 18%: unrelated random strings of 6 to 14 letters, digits and symbols.
//
// Passwords are ASCII. The yielded slice is valid until the next iteration.
// Cost: about a microsecond a password on one core.
func Passwords(cfg PasswordsConfig) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		g := newPasswordGen(cfg)
		var seen map[uint64]struct{}
		if cfg.Distinct {
			seen = make(map[uint64]struct{}, cfg.N)
		}
		var buf []byte
		for i := 0; i < cfg.N; {
			buf = g.next(buf[:0])
			if seen != nil {
				// A fixed 64-bit hash stands for the password: a collision
				// (about N²/2⁶⁵) only costs one redraw, never a duplicate,
				// and happens the same way on every run.
				h := shingle.HashBytes(buf)
				if _, dup := seen[h]; dup {
					continue
				}
				seen[h] = struct{}{}
			}
			if !yield(buf) {
				return
			}
			i++
		}
	}
}

// commonWords are frequent bases of real passwords, most popular first.
var commonWords = []string{
	"password", "iloveyou", "princess", "monkey", "dragon", "qwerty", "sunshine",
	"football", "baseball", "welcome", "shadow", "master", "michael", "superman",
	"letmein", "trustno", "jennifer", "charlie", "jordan", "hunter", "freedom",
	"whatever", "starwars", "batman", "computer", "summer", "winter", "secret",
	"pokemon", "chocolate", "butterfly", "liverpool", "soccer", "hockey",
	"killer", "george", "andrew", "michelle", "jessica", "pepper", "daniel",
	"access", "joshua", "maggie", "silver", "william", "dallas", "yankees",
	"hello", "amanda", "orange", "matthew", "ginger", "chelsea", "thomas",
	"cookie", "flower", "tigger", "purple", "angel", "lovely", "babygirl",
	"ashley", "nicole", "justin", "loveme", "anthony", "friends", "samsung",
	"family", "jasmine", "banana", "robert", "blessed", "hannah", "junior",
	"mustang", "harley", "ranger", "buster", "thunder", "cheese", "soccer",
	"matrix", "mickey", "diamond", "bailey", "access", "phoenix", "internet",
	"snoopy", "eagle", "falcon", "spider", "tiger", "rainbow", "forever",
	"sweety", "angels", "lauren", "patrick", "melissa", "heather", "victoria",
	"taylor", "austin", "martin", "samantha", "arsenal", "barcelona", "madrid",
	"cowboys", "steelers", "lakers", "packers", "gandalf", "merlin", "warrior",
	"ninja", "wizard", "scooter", "compaq", "dolphin", "naruto", "pikachu",
	"beautiful", "sparky", "peanut", "coffee", "apple", "banana", "cherry",
	"monday", "friday", "money", "business", "hollywood", "america", "canada",
	"london", "paris", "berlin", "mexico", "school", "student", "teacher",
	"doctor", "admin", "login", "changeme", "default", "system", "server",
	"oracle", "linux", "windows", "google", "facebook", "twitter", "youtube",
}

// The pieces of made-up words: consonant onsets and vowel nuclei.
var (
	onsets = []string{"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
		"br", "ch", "cl", "dr", "fr", "gr", "kr", "pl", "sh", "st", "th", "tr", ""}
	nuclei = []string{"a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ee", "oo", "ou", "ar", "er", "in", "on", "an", "el", "y"}
)

// keyboardRows are the walks of a US keyboard, by rows and by columns.
var keyboardRows = []string{
	"1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm",
	"1qaz2wsx3edc4rfv5tgb", "qazwsxedcrfvtgbyhnujm", "zaqxswcdevfrbgt", "0987654321", "poiuytrewq",
}

const symbols = "!@#$%&*?.-_+="

type passwordGen struct {
	r        *rand.Rand
	vocab    []string // commonWords, then made-up words
	cdf      []float64
	sum      float64
	leetFrom map[byte][]byte
}

func newPasswordGen(cfg PasswordsConfig) *passwordGen {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x9a55))
	g := &passwordGen{r: r}
	g.vocab = append(g.vocab, commonWords...)
	// The vocabulary grows with the list: a few made-up words per hundred
	// passwords, at least two thousand.
	made := max(2000, cfg.N/25)
	var w []byte
	for range made {
		w = w[:0]
		for s := 2 + r.IntN(2); s > 0; s-- {
			w = append(w, onsets[r.IntN(len(onsets))]...)
			w = append(w, nuclei[r.IntN(len(nuclei))]...)
		}
		if r.IntN(3) == 0 {
			w = append(w, onsets[r.IntN(len(onsets)-1)]...)
		}
		g.vocab = append(g.vocab, string(w))
	}
	g.cdf = make([]float64, len(g.vocab))
	for k := range g.cdf {
		g.sum += 1 / math.Pow(float64(k+1), 1)
		g.cdf[k] = g.sum
	}
	g.leetFrom = map[byte][]byte{
		'a': []byte("@4"), 'e': []byte("3"), 'i': []byte("1!"), 'o': []byte("0"),
		's': []byte("$5"), 't': []byte("7"), 'b': []byte("8"), 'g': []byte("9"),
	}
	return g
}

func (g *passwordGen) word() string {
	u := g.r.Float64() * g.sum
	return g.vocab[min(sort.SearchFloat64s(g.cdf, u), len(g.vocab)-1)]
}

// next appends one password to dst.
func (g *passwordGen) next(dst []byte) []byte {
	r := g.r
	switch p := r.Float64(); {
	case p < 0.62:
		return g.worded(dst)
	case p < 0.68:
		return g.walk(dst)
	case p < 0.82:
		return g.digits(dst)
	default:
		return g.random(dst)
	}
}

// worded appends a base word (or two), transformed, with a suffix.
func (g *passwordGen) worded(dst []byte) []byte {
	r := g.r
	start := len(dst)
	dst = append(dst, g.word()...)
	if r.Float64() < 0.08 {
		dst = append(dst, g.word()...)
	}
	w := dst[start:]
	switch p := r.Float64(); {
	case p < 0.22:
		w[0] = upper(w[0])
	case p < 0.27:
		for i := range w {
			w[i] = upper(w[i])
		}
	}
	if r.Float64() < 0.12 {
		share := 0.4 + 0.6*r.Float64()
		for i, c := range w {
			if subs, ok := g.leetFrom[c]; ok && r.Float64() < share {
				w[i] = subs[r.IntN(len(subs))]
			}
		}
	}
	if r.Float64() < 0.70 {
		dst = g.suffix(dst)
	}
	return dst
}

// suffix appends digits, a year, symbols, or digits and a symbol.
func (g *passwordGen) suffix(dst []byte) []byte {
	r := g.r
	switch p := r.Float64(); {
	case p < 0.45:
		switch r.IntN(6) {
		case 0:
			return append(dst, '1')
		case 1:
			return append(dst, "12"...)
		case 2:
			return append(dst, "123"...)
		case 3:
			return append(dst, "1234"...)
		default:
			for n := 1 + r.IntN(4); n > 0; n-- {
				dst = append(dst, byte('0'+r.IntN(10)))
			}
			return dst
		}
	case p < 0.75:
		year := 1950 + r.IntN(76)
		if r.IntN(3) == 0 {
			year %= 100
			if year < 10 {
				dst = append(dst, '0')
			}
		}
		return strconv.AppendInt(dst, int64(year), 10)
	case p < 0.9:
		for n := 1 + r.IntN(2); n > 0; n-- {
			dst = append(dst, symbols[r.IntN(len(symbols))])
		}
		return dst
	default:
		dst = strconv.AppendInt(dst, int64(r.IntN(100)), 10)
		return append(dst, symbols[r.IntN(len(symbols))])
	}
}

// walk appends a keyboard walk of 4 to 12 keys.
func (g *passwordGen) walk(dst []byte) []byte {
	r := g.r
	row := keyboardRows[r.IntN(len(keyboardRows))]
	n := min(4+r.IntN(9), len(row))
	from := r.IntN(len(row) - n + 1)
	if r.IntN(2) == 0 {
		from = 0 // most walks start at the row's beginning
	}
	start := len(dst)
	dst = append(dst, row[from:from+n]...)
	if r.IntN(8) == 0 {
		dst[start] = upper(dst[start])
	}
	if r.IntN(4) == 0 {
		dst = g.suffix(dst)
	}
	return dst
}

// digits appends a digit-only password: a sequence, a repeat, a date or a
// random digit string.
func (g *passwordGen) digits(dst []byte) []byte {
	r := g.r
	switch r.IntN(4) {
	case 0:
		n := 4 + r.IntN(7)
		from := r.IntN(3)
		for i := 0; i < n; i++ {
			dst = append(dst, byte('0'+(from+1+i)%10))
		}
		return dst
	case 1:
		c := byte('0' + r.IntN(10))
		for n := 4 + r.IntN(5); n > 0; n-- {
			dst = append(dst, c)
		}
		return dst
	case 2:
		d, m, y := 1+r.IntN(28), 1+r.IntN(12), 1950+r.IntN(76)
		dst = append(dst, byte('0'+d/10), byte('0'+d%10), byte('0'+m/10), byte('0'+m%10))
		if r.IntN(2) == 0 {
			return strconv.AppendInt(dst, int64(y), 10)
		}
		return append(dst, byte('0'+y/10%10), byte('0'+y%10))
	default:
		for n := 6 + r.IntN(5); n > 0; n-- {
			dst = append(dst, byte('0'+r.IntN(10)))
		}
		return dst
	}
}

// random appends an unrelated random string of 6 to 14 characters.
func (g *passwordGen) random(dst []byte) []byte {
	const lower = "abcdefghijklmnopqrstuvwxyz0123456789"
	const all = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" + symbols
	r := g.r
	set := lower
	if r.IntN(3) == 0 {
		set = all
	}
	for n := 6 + r.IntN(9); n > 0; n-- {
		dst = append(dst, set[r.IntN(len(set))])
	}
	return dst
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
