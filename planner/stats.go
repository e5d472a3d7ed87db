package planner

import (
	"math"

	"github.com/simjoin/simjoin/order"
)

// Stats describes a Collection: how many records and tokens it holds, how
// set sizes are distributed and how skewed token frequencies are. The
// planner's cost model reads it; explain prints it.
type Stats struct {
	Records  int   `json:"records"`         // records given, empty ones included
	Empty    int   `json:"empty"`           // records with an empty set, which never join
	Sets     int   `json:"sets"`            // non-empty sets
	Tokens   int64 `json:"tokens"`          // tokens summed over all sets
	Distinct int   `json:"distinct_tokens"` // distinct tokens that occur in the collection

	Size SizeDist `json:"size"`
	Freq FreqDist `json:"token_frequency"`
	// Sampled is the share of the distinct tokens whose frequencies Freq
	// and Distinct were counted from: 1 on the order; before it (NewKeys),
	// a hash sample of the keys, whose counts are scaled by 1/Sampled.
	Sampled float64 `json:"sampled"`
}

// SizeDist is the distribution of set sizes over the non-empty sets.
// Quantiles are nearest-rank: P50 is the size of the set at position
// ⌊0.5·(n-1)⌋ in size order.
type SizeDist struct {
	Min  int     `json:"min"`
	P10  int     `json:"p10"`
	P25  int     `json:"p25"`
	P50  int     `json:"p50"`
	P75  int     `json:"p75"`
	P90  int     `json:"p90"`
	P99  int     `json:"p99"`
	Max  int     `json:"max"`
	Mean float64 `json:"mean"`
}

// FreqDist describes the document frequencies of the distinct tokens: how
// many sets hold each token.
type FreqDist struct {
	Max  int     `json:"max"`  // the largest document frequency
	Mean float64 `json:"mean"` // Tokens / Distinct
	// Once is the share of distinct tokens that occur in one set only.
	Once float64 `json:"once"`
	// Top1 is the share of all token occurrences that fall on the most
	// frequent 1% of distinct tokens (at least one token): 0.01 for a flat
	// distribution over many tokens, near 1 for a heavy head.
	Top1 float64 `json:"top1"`
	// Zipf is the exponent s of a fit df ∝ rank^-s by least squares over
	// log-spaced ranks 1, 2, 4, …; 0 for a flat distribution.
	Zipf float64 `json:"zipf"`
}

// Collect computes the statistics of c: the sizes from its size order, and
// the token frequencies from its dictionary when the dictionary is c's
// alone, or else from one pass over its arena counting the document
// frequency of every token of c (so that for the two sides of an R-S join
// each side gets its own frequencies).
//
// Cost: O(dictionary + sets) time, plus O(Tokens) for one side of an R-S
// join; 8 bytes per set of scratch space, plus 4 per dictionary entry for
// one side of an R-S join. Safe for concurrent use (c is only read).
func Collect(c *order.Collection) Stats {
	n := c.Len()
	st := Stats{
		Records: c.Records(),
		Empty:   c.Skipped(),
		Sets:    n,
		Tokens:  int64(c.Tokens()),
		Sampled: 1,
	}
	if n > 0 {
		q := func(f float64) int { return c.Size(int(f * float64(n-1))) }
		st.Size = SizeDist{
			Min: c.Size(0), P10: q(0.10), P25: q(0.25), P50: q(0.50),
			P75: q(0.75), P90: q(0.90), P99: q(0.99), Max: c.Size(n - 1),
			Mean: float64(st.Tokens) / float64(n),
		}
	}
	// byDF[f] is the number of distinct tokens held by f sets (f <= n): a
	// counting sort of the frequencies. The dictionary's frequencies are c's
	// when they sum to c's tokens (it was built from c alone); otherwise c's
	// are counted over its arena.
	byDF := make([]int, n+1)
	d := c.Dict()
	var sum int64
	for id := 0; id < d.Len(); id++ {
		f := d.DF(uint32(id))
		sum += int64(f)
		if f <= n {
			byDF[f]++
		}
	}
	if sum != st.Tokens {
		clear(byDF)
		df := make([]uint32, d.Len())
		for i := 0; i < n; i++ {
			for _, w := range c.Set(i) {
				df[w]++
			}
		}
		for _, f := range df {
			byDF[f]++
		}
	}
	freqFromCounts(&st, byDF, 1)
	return st
}

// freqFromCounts sets st's distinct tokens and frequencies from byDF, the
// number of distinct tokens held by f sets for each f, counted over rate
// of the distinct tokens (1: all; less: a hash sample, whose counts and
// ranks stand for 1/rate as many).
func freqFromCounts(st *Stats, byDF []int, rate float64) {
	byDF[0] = 0
	sampled := 0
	var occurrences int64
	for f, k := range byDF {
		sampled += k
		occurrences += int64(f) * int64(k)
	}
	st.Distinct = int(math.Round(float64(sampled) / rate))
	if sampled == 0 {
		return
	}
	n := len(byDF) - 1
	fr := &st.Freq
	fr.Mean = float64(st.Tokens) / float64(st.Distinct)
	fr.Once = float64(byDF[1]) / float64(sampled)
	top := max(1, sampled/100)
	var head int64
	// Walk the frequencies from the top, rank by rank: the top-1% share, and
	// the frequency at ranks 1, 2, 4, … for the Zipf fit.
	var xs, ys []float64
	rank, next := 0, 1 // ranks seen so far; the next power of two wanted
	for f := n; f >= 1; f-- {
		k := byDF[f]
		if k == 0 {
			continue
		}
		if fr.Max == 0 {
			fr.Max = f
		}
		if rank < top {
			take := min(k, top-rank)
			head += int64(take) * int64(f)
		}
		for next <= rank+k {
			xs = append(xs, math.Log(float64(next)/rate))
			ys = append(ys, math.Log(float64(f)))
			next *= 2
		}
		rank += k
	}
	fr.Top1 = float64(head) / float64(occurrences)
	fr.Zipf = zipfFit(xs, ys)
}

// zipfFit returns the slope s of log df = c - s·log rank by least squares
// over the points given (ranks 1, 2, 4, …, so that each scale counts once and
// the long tail of rare tokens does not drown the head); 0 when flat or
// rising.
func zipfFit(xs, ys []float64) float64 {
	var sx, sy, sxx, sxy float64
	k := float64(len(xs))
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := k*sxx - sx*sx
	if k < 2 || d == 0 {
		return 0
	}
	return max(0, -(k*sxy-sx*sy)/d)
}
