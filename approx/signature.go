package approx

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/simjoin/simjoin/internal/invariants"
)

// Signatures holds the MinHash signatures of n sets in one packed arena:
// record i is Row(i), K values of Bits bits each, little-endian, K·Bits/8
// bytes (b-bit MinHash, Li and König 2010: only the low Bits bits of each
// minimum are kept). Rows are written by Put and read by Match, Estimate and
// Value. Put on distinct rows may run concurrently; reads are safe once
// writing is done.
type Signatures struct {
	k      int // values per signature, 1..MaxK
	bits   int // bits kept of each value: 8, 16, 32 or 64 (ValidBits)
	stride int // bytes of one signature: k·bits/8
	// data holds the signatures back to back: len(data) = Len()·stride.
	data []byte
}

// ValidBits reports whether w is a supported value width: 8, 16, 32 or 64.
func ValidBits(w int) bool { return w == 8 || w == 16 || w == 32 || w == 64 }

// NewSignatures allocates room for n signatures of k values of w bits
// (n·k·w/8 bytes, zeroed).
func NewSignatures(n, k, w int) (*Signatures, error) {
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("%w: K = %d, want 1..%d", ErrShape, k, MaxK)
	}
	if !ValidBits(w) {
		return nil, fmt.Errorf("%w: bits = %d, want 8, 16, 32 or 64", ErrShape, w)
	}
	s := &Signatures{k: k, bits: w, stride: k * w / 8}
	s.data = make([]byte, n*s.stride)
	return s, nil
}

// Len returns the number of signatures.
func (s *Signatures) Len() int { return len(s.data) / s.stride }

// K returns the number of values per signature.
func (s *Signatures) K() int { return s.k }

// Bits returns the width of a stored value.
func (s *Signatures) Bits() int { return s.bits }

// RowBytes returns the memory of one signature: K·Bits/8 bytes.
func (s *Signatures) RowBytes() int { return s.stride }

// Row returns the packed bytes of signature i. The slice aliases the arena.
func (s *Signatures) Row(i int) []byte { return s.data[i*s.stride : (i+1)*s.stride : (i+1)*s.stride] }

// Put stores the low Bits bits of each of the K values of sig as signature i.
// sig must hold exactly K values (checked under -tags invariants: a longer
// one would be cut short silently).
func (s *Signatures) Put(i int, sig []uint64) {
	if invariants.Enabled && (len(sig) != s.k || s.stride != s.k*s.bits/8 || len(s.data)%s.stride != 0) {
		panic(fmt.Sprintf("approx: signature of %d values put into rows of K = %d at %d bits (%d bytes a row, %d bytes)", len(sig), s.k, s.bits, s.stride, len(s.data)))
	}
	row := s.Row(i)
	switch s.bits {
	case 8:
		for j, v := range sig[:s.k] {
			row[j] = byte(v)
		}
	case 16:
		for j, v := range sig[:s.k] {
			binary.LittleEndian.PutUint16(row[2*j:], uint16(v))
		}
	case 32:
		for j, v := range sig[:s.k] {
			binary.LittleEndian.PutUint32(row[4*j:], uint32(v))
		}
	default:
		for j, v := range sig[:s.k] {
			binary.LittleEndian.PutUint64(row[8*j:], v)
		}
	}
}

// Value returns value j of signature i.
func (s *Signatures) Value(i, j int) uint64 { return valueAt(s.Row(i), s.bits, j) }

func valueAt(row []byte, w, j int) uint64 {
	switch w {
	case 8:
		return uint64(row[j])
	case 16:
		return uint64(binary.LittleEndian.Uint16(row[2*j:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(row[4*j:]))
	default:
		return binary.LittleEndian.Uint64(row[8*j:])
	}
}

// Match returns the number of positions at which signature i of s and
// signature j of t hold equal values. s and t must have the same K and Bits.
// Cost: O(K·Bits/64) word operations.
func (s *Signatures) Match(i int, t *Signatures, j int) int {
	return matches(s.Row(i), t.Row(j), s.bits)
}

// Estimate returns the estimated Jaccard similarity of sets i of s and j of t,
// corrected for chance matches of the low bits (see EstimateJaccard).
func (s *Signatures) Estimate(i int, t *Signatures, j int) float64 {
	return EstimateJaccard(s.Match(i, t, j), s.k, s.bits)
}

// EstimateJaccard turns m matching positions out of k values of w bits into
// an estimate of the Jaccard similarity. Two minima of different tokens still
// agree in their low w bits with probability c = 2⁻ʷ, so a position matches
// with probability J + (1-J)·c; the unbiased estimate is
// (m/k - c) / (1 - c), clamped to [0, 1] (Li and König 2010, for sets much
// smaller than the 2⁶⁴ hash range).
func EstimateJaccard(m, k, w int) float64 {
	p := float64(m) / float64(k)
	if w >= 64 {
		return p
	}
	c := math.Ldexp(1, -w)
	return min(max((p-c)/(1-c), 0), 1)
}

// Lane masks for counting equal w-bit lanes eight bytes at a time: after
// y = ((x & low) + low) | x the top bit of a lane of y is set iff that lane of
// x is not zero.
const (
	low8  = 0x7f7f7f7f7f7f7f7f
	low16 = 0x7fff7fff7fff7fff
	low32 = 0x7fffffff7fffffff
)

// matches counts equal w-bit lanes of two packed rows of equal length.
func matches(a, b []byte, w int) int {
	n := len(a)
	m := 0
	i := 0
	switch w {
	case 64:
		for ; i+8 <= n; i += 8 {
			if binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
				m++
			}
		}
		return m
	case 8, 16, 32:
		var lowMask uint64
		switch w {
		case 8:
			lowMask = low8
		case 16:
			lowMask = low16
		default:
			lowMask = low32
		}
		lanes := 64 / w
		for ; i+8 <= n; i += 8 {
			x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
			y := ((x & lowMask) + lowMask) | x
			m += lanes - bits.OnesCount64(y&^lowMask)
		}
	}
	// Tail: fewer than 8 bytes, whole lanes.
	step := w / 8
	for ; i < n; i += step {
		eq := true
		for k := i; k < i+step; k++ {
			if a[k] != b[k] {
				eq = false
				break
			}
		}
		if eq {
			m++
		}
	}
	return m
}
