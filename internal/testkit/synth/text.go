package synth

import (
	"math/rand/v2"
	"strings"
)

// TextConfig describes a collection of documents of words: each draws its
// words by Zipf rank from a vocabulary of made-up pronounceable words, and
// a share of them are near-duplicates of an earlier document (a copy with
// some of its words replaced, inserted or dropped), as syndicated news or
// mirrored pages are.
type TextConfig struct {
	N           int     // number of documents
	MinWords    int     // document length, uniform in [MinWords, MaxWords]
	MaxWords    int     //
	Vocabulary  int     // distinct words
	Zipf        float64 // exponent of the words' frequencies (0: uniform)
	DupFraction float64 // share of documents that are near-duplicates of an earlier one
	Edit        float64 // share of a near-duplicate's words edited
	Seed        uint64
}

// Text generates the documents cfg describes, one string each, words
// separated by spaces; the same seed gives the same documents on every
// machine. Cost: about 50 ns a word.
func Text(cfg TextConfig) []string {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x7e47))
	vocab := make([]string, max(cfg.Vocabulary, 1))
	seen := map[string]bool{}
	for i := range vocab {
		for {
			w := madeUpWord(r)
			if !seen[w] {
				seen[w] = true
				vocab[i] = w
				break
			}
		}
	}
	rank := sampler(r, len(vocab), cfg.Zipf)
	draw := func() int { return min(int(rank()), len(vocab)-1) }
	docs := make([]string, 0, cfg.N)
	var words []string
	var b strings.Builder
	for i := 0; i < cfg.N; i++ {
		words = words[:0]
		if i > 0 && r.Float64() < cfg.DupFraction {
			src := strings.Fields(docs[r.IntN(i)])
			for _, w := range src {
				switch x := r.Float64(); {
				case x < cfg.Edit/3:
					// dropped
				case x < 2*cfg.Edit/3:
					words = append(words, vocab[draw()])
				case x < cfg.Edit:
					words = append(words, w, vocab[draw()])
				default:
					words = append(words, w)
				}
			}
		} else {
			n := cfg.MinWords
			if cfg.MaxWords > cfg.MinWords {
				n += r.IntN(cfg.MaxWords - cfg.MinWords + 1)
			}
			for range n {
				words = append(words, vocab[draw()])
			}
		}
		b.Reset()
		for k, w := range words {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		docs = append(docs, b.String())
	}
	return docs
}

// madeUpWord returns a pronounceable word of two to four syllables.
func madeUpWord(r *rand.Rand) string {
	const cons, vow = "bcdfghjklmnprstvwz", "aeiou"
	var b strings.Builder
	for range 2 + r.IntN(3) {
		b.WriteByte(cons[r.IntN(len(cons))])
		b.WriteByte(vow[r.IntN(len(vow))])
		if r.IntN(3) == 0 {
			b.WriteByte(cons[r.IntN(len(cons))])
		}
	}
	return b.String()
}
