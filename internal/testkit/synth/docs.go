package synth

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DocsConfig describes a collection of long documents given as sets of 64-bit
// shingle keys, with pairs planted at known Jaccard similarity: the LSH
// benchmark workload. Unplanted documents draw fresh random keys, so any two of
// them share essentially nothing.
type DocsConfig struct {
	N                int     // number of documents
	MinSize, MaxSize int     // set size, uniform in [MinSize, MaxSize]
	Planted          int     // pairs planted with Jaccard in [PlantedLo, PlantedHi]
	PlantedLo        float64 // e.g. 0.6
	PlantedHi        float64 // e.g. 0.95
	Distractors      int     // pairs planted with Jaccard in [DistractLo, DistractHi]
	DistractLo       float64 // e.g. 0.2
	DistractHi       float64 // e.g. 0.6
	Seed             uint64
}

// BenchDocs is the benchmark workload: 20,000 documents of about 300
// shingles, 2,000 pairs planted with Jaccard in [0.6, 0.95] and 1,000
// distractor pairs in [0.2, 0.6].
func BenchDocs(seed uint64) DocsConfig {
	return DocsConfig{N: 20000, MinSize: 280, MaxSize: 320,
		Planted: 2000, PlantedLo: 0.6, PlantedHi: 0.95,
		Distractors: 1000, DistractLo: 0.2, DistractHi: 0.6, Seed: seed}
}

// PlantedPair is a planted pair of documents, A < B, with its exact Jaccard
// similarity (the nearest the set sizes allow to the drawn target).
type PlantedPair struct {
	A, B    int
	Overlap int
	J       float64
}

// Docs is a generated collection: Sets[i] is sorted and distinct, and Pairs
// lists the planted pairs (planted first, then distractors). Two documents of
// different pairs share a key with probability about 2⁻⁴⁵, so the planted
// pairs are, in practice, the only pairs with any similarity.
type Docs struct {
	Sets  [][]uint64
	Pairs []PlantedPair
}

// Documents generates the collection described by cfg; the same seed gives
// the same collection on every machine. Documents are shuffled so that the
// two halves of a pair are not adjacent.
func Documents(cfg DocsConfig) Docs {
	r := rand.New(rand.NewPCG(cfg.Seed, 0xd0c5))
	size := func() int {
		s := cfg.MinSize
		if cfg.MaxSize > cfg.MinSize {
			s += r.IntN(cfg.MaxSize - cfg.MinSize + 1)
		}
		return s
	}
	fresh := func(dst []uint64, k int) []uint64 {
		for ; k > 0; k-- {
			dst = append(dst, r.Uint64())
		}
		return dst
	}
	perm := r.Perm(cfg.N)
	sets := make([][]uint64, cfg.N)
	var pairs []PlantedPair
	next := 0
	plant := func(count int, lo, hi float64) {
		for ; count > 0 && next+1 < cfg.N; count-- {
			x, y := size(), size()
			target := lo + r.Float64()*(hi-lo)
			// J = o/(x+y-o)  <=>  o = J(x+y)/(1+J)
			o := int(math.Round(target * float64(x+y) / (1 + target)))
			o = min(max(o, 0), x, y)
			a := fresh(make([]uint64, 0, x), x)
			b := make([]uint64, 0, y)
			for _, i := range r.Perm(x)[:o] {
				b = append(b, a[i])
			}
			b = fresh(b, y-o)
			ia, ib := perm[next], perm[next+1]
			next += 2
			sets[ia], sets[ib] = a, b
			if ia > ib {
				ia, ib = ib, ia
			}
			pairs = append(pairs, PlantedPair{A: ia, B: ib, Overlap: o, J: float64(o) / float64(x+y-o)})
		}
	}
	plant(cfg.Planted, cfg.PlantedLo, cfg.PlantedHi)
	plant(cfg.Distractors, cfg.DistractLo, cfg.DistractHi)
	for ; next < cfg.N; next++ {
		sets[perm[next]] = fresh(nil, size())
	}
	for _, s := range sets {
		slices.Sort(s)
	}
	return Docs{Sets: sets, Pairs: pairs}
}
