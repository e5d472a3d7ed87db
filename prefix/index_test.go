package prefix_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// TestIndex checks NewIndex against a map of postings: every prefix token
// of every record is listed once under its token, in ascending record
// order, with its position; tokens outside the vocabulary have no postings.
// The collections are small and large enough for one worker and for
// several (each counting and placing a range of records), the last with
// more token ids than stay in cache (placed by bucket), and every number of
// workers must give the same index.
func TestIndex(t *testing.T) {
	seed := uint64(9)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	// runs: each set is a run of consecutive ids (a document's own tokens),
	// which a large vocabulary places straight into the lists, not by bucket.
	for _, tc := range []struct {
		n, vocab int
		runs     bool
	}{{200, 50, false}, {100_000, 3_000, false}, {100_000, 50_000, false}, {100_000, 50_000, true}} {
		sets := make([][]uint32, tc.n)
		for i := range sets {
			s := make([]uint32, 0, 10)
			first := r.IntN(tc.vocab - 10)
			for k := range 1 + r.IntN(10) {
				if tc.runs {
					s = append(s, uint32(first+k))
				} else {
					s = append(s, uint32(r.IntN(tc.vocab)))
				}
			}
			slices.Sort(s)
			sets[i] = slices.Compact(s)
		}
		set := func(rec int) []uint32 { return sets[rec] }
		plen := func(size int) int { return (size + 1) / 2 }
		want := map[uint32][]prefix.Posting{}
		total := 0
		for rec, s := range sets {
			for pos, w := range s[:plen(len(s))] {
				want[w] = append(want[w], prefix.Posting{Rec: uint32(rec), Pos: uint32(pos), Size: uint32(len(s))})
				total++
			}
		}
		for _, workers := range []int{1, 2, 3} {
			name := fmt.Sprintf("n=%d/vocab=%d/runs=%v/workers=%d", tc.n, tc.vocab, tc.runs, workers)
			ix := prefix.NewIndex(len(sets), tc.vocab, set, plen, workers)
			if ix.Len() != total {
				t.Errorf("%s: Len() = %d, want %d", name, ix.Len(), total)
			}
			lengths := prefix.CountPrefixes(len(sets), tc.vocab, set, plen, workers)
			for w := uint32(0); w < uint32(tc.vocab); w++ {
				if got := ix.Postings(w); !slices.Equal(got, want[w]) {
					t.Fatalf("%s: Postings(%d) = %v, want %v", name, w, got, want[w])
				}
				if lo, hi := ix.Span(w); !slices.Equal(ix.Entries()[lo:hi], want[w]) {
					t.Fatalf("%s: Span(%d) = [%d, %d) holds %v, want %v", name, w, lo, hi, ix.Entries()[lo:hi], want[w])
				}
				if lengths.Len(w) != len(want[w]) {
					t.Fatalf("%s: Lengths.Len(%d) = %d, want %d", name, w, lengths.Len(w), len(want[w]))
				}
			}
			if from := lengths.Index(); !slices.Equal(from.Entries(), ix.Entries()) {
				t.Errorf("%s: Lengths.Index: %d postings, not those of NewIndex (%d)", name, from.Len(), ix.Len())
			}
			if ix.Counted() != total || ix.From() != 0 {
				t.Errorf("%s: Counted() = %d, From() = %d; want %d, 0", name, ix.Counted(), ix.From(), total)
			}
			// From a third of the ids on: those below get no list, the
			// others theirs, and Counted still counts every posting.
			from := uint32(tc.vocab / 3)
			dropped := 0
			for w := range from {
				dropped += len(want[w])
			}
			for _, layout := range []bool{false, true} {
				l := prefix.CountPrefixesFrom(len(sets), tc.vocab, from, set, plen, workers)
				var fx *prefix.Index
				if layout {
					fx = l.Layout()
				} else {
					fx = l.Index()
				}
				if fx.Counted() != total || fx.Len() != total-dropped || fx.From() != from || fx.Tokens() != tc.vocab {
					t.Fatalf("%s: from %d, layout %v: %d counted, %d held, from %d, %d tokens; want %d, %d, %d, %d", name, from, layout,
						fx.Counted(), fx.Len(), fx.From(), fx.Tokens(), total, total-dropped, from, tc.vocab)
				}
				for w := uint32(0); w < uint32(tc.vocab); w++ {
					switch {
					case w < from && fx.Postings(w) != nil:
						t.Fatalf("%s: from %d, layout %v: token %d has postings %v, want none", name, from, layout, w, fx.Postings(w))
					case w >= from:
						lo, hi := fx.Span(w)
						if int(hi-lo) != len(want[w]) || !layout && !slices.Equal(fx.Postings(w), want[w]) {
							t.Fatalf("%s: from %d, layout %v: token %d has [%d, %d) holding %v, want %v", name, from, layout, w, lo, hi, fx.Postings(w), want[w])
						}
					}
				}
			}
			// Layout leaves room for every list; placing the postings in
			// record order into it gives NewIndex's index.
			lay := prefix.CountPrefixes(len(sets), tc.vocab, set, plen, workers).Layout()
			if lay.Len() != ix.Len() || lay.Tokens() != ix.Tokens() {
				t.Fatalf("%s: Layout: %d postings over %d tokens, want %d over %d", name, lay.Len(), lay.Tokens(), ix.Len(), ix.Tokens())
			}
			next := make([]uint32, tc.vocab)
			for w := range next {
				next[w], _ = lay.Span(uint32(w))
			}
			for rec, s := range sets {
				for pos, w := range s[:plen(len(s))] {
					lay.Entries()[next[w]] = prefix.Posting{Rec: uint32(rec), Pos: uint32(pos), Size: uint32(len(s))}
					next[w]++
				}
			}
			for w := range next {
				if lo, hi := lay.Span(uint32(w)); next[w] != hi || !slices.Equal(lay.Entries()[lo:hi], want[uint32(w)]) {
					t.Fatalf("%s: Layout: token %d's room [%d, %d) filled to %d with %v, want %v", name, w, lo, hi, next[w], lay.Entries()[lo:hi], want[uint32(w)])
				}
			}
			for _, w := range []uint32{uint32(tc.vocab), uint32(tc.vocab) + 1, 1 << 31} {
				if got := ix.Postings(w); got != nil {
					t.Errorf("%s: Postings(%d) outside the vocabulary = %v, want nil", name, w, got)
				}
			}
		}
	}
	if empty := prefix.NewIndex(0, 0, nil, nil, 2); empty.Len() != 0 || empty.Postings(0) != nil {
		t.Errorf("empty index: Len %d, Postings(0) %v", empty.Len(), empty.Postings(0))
	}
}

// BenchmarkNewIndex measures building the index of the 1M Zipf sets' shape
// at Jaccard 0.9 (scripts/bench-exact.sh): 1M records in size order with
// prefixes of 2 to 6 tokens drawn skewed over 1M token ids, 4M postings.
// With several workers the lists' ends do not stay in cache, and the
// postings are placed by bucket (Lengths.placeStaged).
//
//	go test ./prefix -run '^$' -bench NewIndex -benchtime 5x
func BenchmarkNewIndex(b *testing.B) {
	const n, vocab = 1_000_000, 1_000_000
	r := rand.New(rand.NewPCG(5, 5))
	sets := make([][]uint32, n)
	for i := range sets {
		s := make([]uint32, 0, 6)
		for range 2 + 5*i/n {
			u := r.Float64()
			s = append(s, uint32(float64(vocab)*u*u))
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	set := func(rec int) []uint32 { return sets[rec] }
	plen := func(size int) int { return size }
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				prefix.NewIndex(n, vocab, set, plen, workers)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime returns the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
