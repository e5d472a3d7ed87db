package approx_test

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// The S-curve of the article's banding, and the bandings chosen at t = 0.8
// with K = 128: the peers' equal weights, and ours for recall 0.95.
func ExampleChooseRecall() {
	s := approx.Shape{B: 12, R: 4}
	fmt.Printf("%s: P(0.2) = %.3f, P(0.5) = %.3f, P(0.8) = %.3f\n", s, s.P(0.2), s.P(0.5), s.P(0.8))
	peers, _ := approx.ChooseWeighted(0.8, 128, 0.5, 0.5)
	ours, _ := approx.ChooseRecall(0.8, 128, 0.95)
	fmt.Printf("equal weights: %s, P(0.8) = %.3f\n", peers, peers.P(0.8))
	fmt.Printf("recall 0.95:   %s, P(0.8) = %.3f\n", ours, ours.P(0.8))
	// Output:
	// 12x4: P(0.2) = 0.019, P(0.5) = 0.539, P(0.8) = 0.998
	// equal weights: 9x13, P(0.8) = 0.399
	// recall 0.95:   13x7, P(0.8) = 0.953
}

// An index of three sets, queried for the sets at Jaccard >= 0.5 and for the
// two nearest.
func ExampleIndex_Query() {
	t, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	b, _ := approx.NewBuilder(approx.Options{Threshold: t})
	b.Add([]uint64{1, 2, 3, 4, 5, 6, 7, 8})
	b.Add([]uint64{1, 2, 3, 4, 5, 6, 7, 9})
	b.Add([]uint64{20, 21, 22, 23})
	ix, _ := b.Build(context.Background())
	for _, m := range ix.Query(nil, []uint64{1, 2, 3, 4, 5, 6, 7, 8}) {
		fmt.Printf("set %d: overlap %d, jaccard %.3f\n", m.ID, m.Overlap, m.Sim)
	}
	// Output:
	// set 0: overlap 8, jaccard 1.000
	// set 1: overlap 7, jaccard 0.778
}

// A self-join of token keys, as package shingle makes them, without a token
// order: two near-copies pair, a copy pairs at 1, the odd set out does not.
func ExampleSelfJoinKeys() {
	t, _ := prefix.ParseThreshold(prefix.Jaccard, "0.7")
	var sets approx.KeySets
	sets.Add([]uint64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	sets.Add([]uint64{11, 12, 13, 14, 15, 16, 17, 18, 19, 21})
	sets.Add([]uint64{90, 91, 92})
	sets.Add([]uint64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11}) // set 0 again
	st, err := approx.SelfJoinKeys(context.Background(), &sets, approx.Options{Threshold: t}, func(p join.Pair) bool {
		fmt.Printf("%d %d overlap %d jaccard %.3f\n", p.A, p.B, p.Overlap, p.Sim)
		return true
	})
	fmt.Println(st.Units, "distinct sets,", st.Results, "pairs,", err)
	// Unordered output:
	// 0 3 overlap 10 jaccard 1.000
	// 0 1 overlap 9 jaccard 0.818
	// 1 3 overlap 9 jaccard 0.818
	// 3 distinct sets, 3 pairs, <nil>
}
