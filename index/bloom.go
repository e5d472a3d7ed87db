package index

import "math"

// The band filters of an LSH segment: one Bloom filter per band over the
// band keys of its rows, so that a search skips the band tables of the
// segments that cannot hold its keys (Milvus's
// mh_lsh_bloom_false_positive_prob). Each is a split-block Bloom filter
// (Putze, Sanders and Singler, "Cache-, hash-, and space-efficient Bloom
// filters", 2007, in the layout of Apache Parquet's): blocks of 256 bits,
// eight 32-bit words; a key picks one block by the high 32 bits of its hash
// and sets one bit in each of its words, picked by the low 32 bits times
// eight odd constants, so that a lookup reads one cache line. A band key is
// already a 64-bit hash (approx.BandKey), used as it is.
//
// Departure: the number of blocks is not a power of two; a key's block is
// (hi · blocks) >> 32 (Lemire's multiply-shift range reduction), so that a
// filter's size follows the rows it holds.

// bloomBlockBytes is the size of a block.
const bloomBlockBytes = 32

// DefaultBloomFPP is the false-positive probability of an LSH index's band
// filters when Config.BloomFPP is zero; MinBloomFPP and MaxBloomFPP bound
// the others, and NoBloom (1: every lookup passes) asks for none.
const (
	DefaultBloomFPP = 0.01
	MinBloomFPP     = 0.001
	MaxBloomFPP     = 0.1
	NoBloom         = 1
)

var bloomSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// bloomFPP returns the false-positive probability of a split-block filter
// with bitsPerKey bits a key: the mean over the blocks' loads (Poisson, of
// mean 256/bitsPerKey) of the chance that the eight bits a key tests are
// all set.
func bloomFPP(bitsPerKey float64) float64 {
	lambda := 256 / bitsPerKey
	p, sum := math.Exp(-lambda), 0.0 // Poisson(k; lambda), from k = 0
	for k := 0; k < 2000; k++ {
		sum += p * math.Pow(1-math.Pow(1-1.0/32, float64(k)), 8)
		p *= lambda / float64(k+1)
		if k > int(lambda) && p < 1e-18 {
			break
		}
	}
	return sum
}

// bloomBlocks returns the number of blocks of a filter of n keys whose
// false-positive probability is at most fpp: the fewest bits a key, in
// tenths, that reach it.
func bloomBlocks(n int, fpp float64) int {
	bits := 4.0
	for bloomFPP(bits) > fpp && bits < 64 {
		bits += 0.1
	}
	return max(1, int(math.Ceil(float64(n)*bits/256)))
}

// bloomAdd sets key's bits in a filter of len(words)/8 blocks.
func bloomAdd(words []uint32, key uint64) {
	blk := words[bloomBlock(len(words)/8, key)*8:]
	lo := uint32(key)
	for i, salt := range bloomSalt {
		blk[i] |= 1 << ((lo * salt) >> 27)
	}
}

// bloomHas reports whether key's bits are all set: false means key was
// never added.
func bloomHas(words []uint32, key uint64) bool {
	blk := words[bloomBlock(len(words)/8, key)*8:]
	blk = blk[:8]
	lo := uint32(key)
	for i, salt := range bloomSalt {
		if blk[i]&(1<<((lo*salt)>>27)) == 0 {
			return false
		}
	}
	return true
}

func bloomBlock(blocks int, key uint64) int {
	return int((key >> 32) * uint64(blocks) >> 32)
}

// buildBlooms returns the band filters of a segment of n rows whose band
// j keys are key(j, r), each of blocks blocks, as one array: band j's filter
// is words[j·8·blocks : (j+1)·8·blocks].
func buildBlooms(bands, n int, fpp float64, key func(j, r int) uint64) []uint32 {
	blocks := bloomBlocks(n, fpp)
	words := make([]uint32, bands*blocks*8)
	for j := range bands {
		f := words[j*blocks*8 : (j+1)*blocks*8]
		for r := range n {
			bloomAdd(f, key(j, r))
		}
	}
	return words
}
