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

// TestScattered checks the choice of placement: records whose prefix tokens
// are runs of consecutive ids are not scattered, records of ids spread over
// the vocabulary are, and so are records of one-token prefixes (no step to
// measure).
func TestScattered(t *testing.T) {
	const n, vocab = 10_000, 1 << 20
	runs := make([][]uint32, n)
	spread := make([][]uint32, n)
	single := make([][]uint32, n)
	for r := range n {
		first := uint32(r * 97 % (vocab - 20))
		for k := range uint32(10) {
			runs[r] = append(runs[r], first+k)
			spread[r] = append(spread[r], k*(vocab/10)+uint32(r)%(vocab/10))
		}
		single[r] = []uint32{first}
	}
	plen := func(size int) int { return (size + 1) / 2 }
	for _, tc := range []struct {
		name string
		sets [][]uint32
		want bool
	}{{"runs", runs, false}, {"spread", spread, true}, {"single", single, true}} {
		l := &Lengths{n: n, set: func(r int) []uint32 { return tc.sets[r] }, prefixLen: plen}
		if got := l.scattered(); got != tc.want {
			t.Errorf("%s: scattered() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
