// Package mix holds the one 64-bit hash mixer of the project: the
// splitmix64 finaliser, which the tokenizer (token keys), the order
// (vocabulary tables, signatures of sets), MinHash (seeded hashes, band keys)
// and the joins (index keys) share. It is a fixed function: results are the
// same on every machine and run.
package mix

// Mix64 is the splitmix64 finaliser (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): a bijection on 64-bit words
// with good avalanche. Cost: five operations; no state.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SetHash is the fixed 64-bit hash of a set given as its sorted words (any
// sequence: the hash depends on the order): each word is folded in by
// Mix64, from a fixed seed. Identical sets get equal hashes, so records
// sorted by it put identical sets side by side (the order's collections,
// approx's key sets). Cost: one Mix64 a word; no allocation.
func SetHash[W uint32 | uint64](set []W) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, w := range set {
		h = Mix64(h ^ uint64(w))
	}
	return h
}
