package join

import (
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// TestIndexLeavesOutUniqueTokens checks that leaving the tokens held by one
// set out of the prefix index (CountPrefixesFrom at the dictionary's FirstShared) changes
// no figure: the ℓ-choice's estimate of the prefix postings is the one a
// count of every token gives, the index counts the same entries, and the
// lists it keeps are those of the full index; with one worker and two.
func TestIndexLeavesOutUniqueTokens(t *testing.T) {
	// A large universe: most tokens are held by one set.
	sets := synth.Sets(synth.SetsConfig{N: 3000, MinSize: 5, MaxSize: 60, Universe: 200_000, Zipf: 1,
		DupFraction: 0.3, Replace: 0.15, Seed: 4})
	c, err := order.New(jointest.Input(sets))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Dict()
	unique := d.FirstShared()
	if unique == 0 || unique == uint32(d.Len()) || d.DF(unique-1) != 1 || d.DF(unique) < 2 {
		t.Fatalf("FirstShared = %d of %d tokens; want the first held by two sets, after some held by one", unique, d.Len())
	}
	s := groupsOf(c)
	for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap} {
		ts := "0.6"
		if m == prefix.Overlap {
			ts = "3"
		}
		th, _ := prefix.ParseThreshold(m, ts)
		b := prefix.NewBounds(m, th)
		for _, workers := range []int{1, 2} {
			full := prefix.CountPrefixes(s.groups(), d.Len(), s.set, b.IndexPrefix, workers)
			from := prefix.CountPrefixesFrom(s.groups(), d.Len(), unique, s.set, b.IndexPrefix, workers)
			if got, want := prefixPostings(s, b, from), prefixPostings(s, b, full); got != want {
				t.Errorf("%s, %d workers: prefix postings estimated %d, want %d", m, workers, got, want)
			}
			fx, ix := from.Index(), full.Index()
			if fx.Counted() != ix.Len() || fx.Len() >= ix.Len() {
				t.Errorf("%s, %d workers: %d counted, %d held; want %d counted, fewer held", m, workers, fx.Counted(), fx.Len(), ix.Len())
			}
			for w := unique; w < uint32(d.Len()); w++ {
				if !slices.Equal(fx.Postings(w), ix.Postings(w)) {
					t.Fatalf("%s, %d workers: token %d's list differs", m, workers, w)
				}
			}
		}
	}
}
