// Package order builds the global token order and the Collection that every
// join works on.
//
// There are two phases. First an Input gives every key of the raw token sets
// (64-bit keys from the shingle package) a provisional id in the vocabulary,
// a sharded open-addressing table (internal/keymap) that also counts each
// key's document frequency, and keeps the ids record by record in chunks
// filled in place. (The first keys, up to 8M, wait copied until the order
// is built, while a HyperLogLog sketch counts the distinct ones, so that
// the table is made once at its length instead of doubling as keys come;
// they are entered in the order they came, which leaves the order as it
// was.) Then New (or Build, for the two sides of an R-S join)
// assigns dense uint32 ids rare-first by a counting sort (document frequency
// ascending, ties by a fixed hash of the key and first appearance, so the
// order is deterministic), rewrites every set as sorted ids in one uint32
// arena with offsets, and orders the records by size. What stays alive is the
// arena, one offset and one original index per record, and the vocabulary:
// no per-record slice or map. Both phases run on the Input's Workers
// goroutines (0: GOMAXPROCS); the order does not depend on their number.
//
// Records whose tokens are small values (token ids numbered beforehand,
// shingle's AppendInts; the q-grams of ASCII text, AppendGramValues) can
// take a cheaper road in the first phase: Input.AddValues counts each value
// in an array indexed by it, with no table and no key, and the keys
// (Values.Key) are made once a distinct value when the order is built,
// entered in the order the table would have seen them. The
// collection and dictionary are exactly those the keys give, whichever road
// each batch took.
//
// Rare-first order is what makes prefix filtering cheap (Bayardo, Ma and
// Srikant 2007): the prefixes hold each set's rarest tokens, so their posting
// lists are short. Any total order keeps the filters correct; this one makes
// them fast.
//
// The package holds no similarity logic.
package order
