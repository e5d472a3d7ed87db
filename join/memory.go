package join

// The peak memory of an exact join, by what it holds, from reading the input
// to the end of the join: the input's arena (4 bytes a token), the order's
// rewrite (8), the index's postings (at most 12 a token, prefixes only) and
// the collection (4); the vocabulary's table, frequencies and ranks; each
// record's offsets, sizes and ids. Measured peak RSS on the collections of
// BENCHMARKS.md is 12 to 18 bytes a token where the tokens come numbered
// (integer lines), and about 30 on the Go tree from source, whose 4.0M
// distinct shingles fill the vocabulary's table (GOGC 25).
const (
	MemPerToken      = 20
	MemPerVocabulary = 32
	MemPerRecord     = 48
)

// EstimateMemory returns about the peak bytes an exact join of records sets
// holding tokens tokens (summed set sizes) over a vocabulary of vocabulary
// distinct tokens needs, pairs streamed. It is for a check before the large
// allocations, not a bound. O(1).
func EstimateMemory(records, tokens, vocabulary int) int64 {
	return int64(tokens)*MemPerToken + int64(vocabulary)*MemPerVocabulary + int64(records)*MemPerRecord
}
