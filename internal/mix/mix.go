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
