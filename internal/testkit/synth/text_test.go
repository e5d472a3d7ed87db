package synth

import (
	"slices"
	"strings"
	"testing"
)

// TestText: the same seed gives the same documents; fresh documents have
// MinWords to MaxWords words of the vocabulary; near-duplicates share most
// of their words with an earlier document, fresh ones little.
func TestText(t *testing.T) {
	cfg := TextConfig{N: 400, MinWords: 50, MaxWords: 80, Vocabulary: 5000, Zipf: 0.8, DupFraction: 0.3, Edit: 0.1, Seed: 3}
	docs := Text(cfg)
	if again := Text(cfg); !slices.Equal(docs, again) || len(docs) != cfg.N {
		t.Fatalf("%d documents, not the same on a second call", len(docs))
	}
	vocab := map[string]bool{}
	near := 0
	for i, d := range docs {
		words := strings.Fields(d)
		if len(words) == 0 || len(words) > cfg.MaxWords+cfg.MaxWords/4 {
			t.Fatalf("document %d has %d words", i, len(words))
		}
		for _, w := range words {
			vocab[w] = true
		}
		set := map[string]bool{}
		for _, w := range words {
			set[w] = true
		}
		for _, e := range docs[:i] {
			shared := 0
			for _, w := range strings.Fields(e) {
				if set[w] {
					shared++
				}
			}
			if shared*2 >= len(words) && len(words) > 10 {
				near++
				break
			}
		}
	}
	if len(vocab) > cfg.Vocabulary {
		t.Errorf("%d distinct words, vocabulary %d", len(vocab), cfg.Vocabulary)
	}
	if want := int(cfg.DupFraction * float64(cfg.N)); near < want/2 || near > 2*want {
		t.Errorf("%d documents share half their words with an earlier one, want about %d", near, want)
	}
}
