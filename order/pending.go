package order

import (
	"math"
	"math/bits"

	"github.com/simjoin/simjoin/internal/keymap"
)

// Keys wait before they are entered. A vocabulary's tables that start small
// and double as keys arrive rehash every key about once more and, doubling
// into fresh memory, touch twice the pages they end with (the Go tree's
// shingles written as their 64-bit hashes: 4.0M distinct keys, tables of
// 16 bytes a slot, 240 MB allocated on the way to 90). So the keys of the
// records AddBatch and Add take are copied aside (8 bytes a token) while a
// sketch of their hashes counts the distinct ones, and only when the order
// is built (or when pendingCap keys wait) are the tables made, once, at the
// length the count asks for, and the keys entered in the order they came:
// the provisional ids, and with them the order, are those of entering them
// at once.

// pendingCap is the number of keys (8 bytes each: 64 MiB) that may wait:
// beyond it they are entered, the tables sized for the distinct keys so
// far with room to double one after another, and later records entered as
// they come. Can change for testing.
var pendingCap = 1 << 23

// pending holds the records whose keys wait, with the sketch of their
// hashes. Its zero value holds none.
type pending struct {
	// chunks hold the waiting keys, record after record (each record's
	// sorted and distinct); no record spans two chunks, and the chunks
	// grow as the Input's do (appendChunk).
	chunks [][]uint64
	// first[k] is the record whose keys start chunks[k], ascending
	// strictly (a chunk starts only with a record that has keys).
	first  []int
	n      int     // keys held
	sketch *sketch // nil while n is 0
}

// hold adds the keys of records from record onward (keys, the records'
// keys one after another, not empty), copied.
func (p *pending) hold(record int, keys []uint64) {
	k := len(p.chunks) - 1
	if k < 0 || len(p.chunks[k])+len(keys) > cap(p.chunks[k]) {
		p.chunks = appendChunk(p.chunks, len(keys))
		p.first = append(p.first, record)
		k++
	}
	if p.sketch == nil {
		p.sketch = new(sketch)
	}
	p.chunks[k] = append(p.chunks[k], keys...)
	p.sketch.addAll(keys)
	p.n += len(keys)
}

// flush enters the keys waiting, if any: the tables sized for the distinct
// keys the sketch counts (spread as vocab.size takes it), then each record's
// ids reserved and its keys entered in the order they came.
func (in *Input) flush(spread float64) {
	p := &in.pend
	if p.n == 0 {
		return
	}
	// A key's shard is three bits of its hash: each takes an eighth of
	// the keys, give or take a few standard deviations (√(d/8)), and the
	// estimate is high or low by about 0.8% (sketchError).
	d := p.sketch.estimate() * (1 + 5*sketchError)
	var counts [shards]int
	for s := range counts {
		counts[s] = int(d/shards + 4*math.Sqrt(d/shards))
	}
	in.voc.size(&counts, spread)
	for k, keys := range p.chunks {
		in.voc.addBatch(keys, in.reserveAt(p.first[k], len(keys)), in.Workers)
		p.chunks[k] = nil // its memory is free for what comes next
	}
	*p = pending{}
}

// sketch counts distinct 64-bit keys approximately: HyperLogLog (Flajolet,
// Fusy, Gandouet and Meunier, "HyperLogLog: the analysis of a near-optimal
// cardinality estimation algorithm", AofA 2007) over keymap.Hash, with
// 2^sketchBits one-byte registers (16 KiB) and linear counting below 2.5
// registers a key, as the article prescribes for small counts. Its standard
// error is sketchError. Cost: a hash, a shift and a compare a key.
type sketch [1 << sketchBits]uint8

const (
	sketchBits  = 14
	sketchError = 1.04 / (1 << (sketchBits / 2)) // 1.04/√m: 0.81%
)

// addAll adds keys.
func (s *sketch) addAll(keys []uint64) {
	for _, k := range keys {
		h := keymap.Hash(k)
		// The top bits choose the register; the rank is the position of
		// the first 1 among the bits below them (1 for a leading 1).
		rank := uint8(bits.LeadingZeros64(h<<sketchBits|1<<(sketchBits-1)) + 1)
		if r := &s[h>>(64-sketchBits)]; rank > *r {
			*r = rank
		}
	}
}

// estimate returns the estimated number of distinct keys added.
func (s *sketch) estimate() float64 {
	const m = float64(len(s))
	sum, zeros := 0.0, 0
	for _, r := range s {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	alpha := 0.7213 / (1 + 1.079/m)
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return e
}
