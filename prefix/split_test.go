package prefix

import "testing"

// TestSplitEvenTokens checks that CountPrefixes's parts cover the records in
// order and hold about as many prefix tokens each when the records come in
// size order (the later, the longer their prefixes), where parts even in
// records would not.
func TestSplitEvenTokens(t *testing.T) {
	const n = 200_000
	sets := make([][]uint32, n)
	for r := range sets {
		sets[r] = make([]uint32, 10+40*r/n) // sizes 10 to 49, ascending
	}
	plen := func(size int) int { return size/10 + 1 }
	l := &Lengths{n: n, set: func(r int) []uint32 { return sets[r] }, prefixLen: plen}
	for _, workers := range []int{1, 2, 3, 7} {
		parts := l.split(workers)
		if len(parts) != workers+1 || parts[0] != 0 || parts[workers] != n {
			t.Fatalf("workers=%d: parts %v, want %d parts from 0 to %d", workers, parts, workers, n)
		}
		tokens := make([]int, workers)
		total := 0
		for k := range workers {
			if parts[k] > parts[k+1] {
				t.Fatalf("workers=%d: parts %v out of order", workers, parts)
			}
			for r := parts[k]; r < parts[k+1]; r++ {
				tokens[k] += plen(len(sets[r]))
			}
			total += tokens[k]
		}
		for k, c := range tokens {
			if d := c - total/workers; d > total/100 || -d > total/100 {
				t.Errorf("workers=%d: part %d holds %d prefix tokens, want %d within 1%% (parts %v)", workers, k, c, total/workers, parts)
			}
		}
	}
}
