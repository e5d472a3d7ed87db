package approx

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/simjoin/simjoin/internal/mix"
)

// Scheme is a way of computing MinHash signatures.
type Scheme uint8

const (
	// OnePerm is one-permutation hashing with optimal densification (Li, Owen
	// and Zhang 2012; Shrivastava 2017): one hash per token, K bins, empty
	// bins filled from other bins along a fixed probe sequence. O(S + K) for
	// a set of S tokens. The default.
	OnePerm Scheme = iota
	// Classic is the article's scheme: every token folded to 32 bits by
	// CRC-32, then K splitmix64 hash functions with K seeds, the minimum of
	// each over the set. O(K·S) for a set of S tokens.
	Classic
)

var schemeNames = [...]string{OnePerm: "oneperm", Classic: "classic"}

// String returns the command-line name of s: "oneperm" or "classic".
func (s Scheme) String() string {
	if int(s) < len(schemeNames) {
		return schemeNames[s]
	}
	return "scheme(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText returns the command-line name of s, so that JSON shows
// "oneperm".
func (s Scheme) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a name as ParseScheme does.
func (s *Scheme) UnmarshalText(b []byte) error {
	v, err := ParseScheme(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseScheme reads "oneperm" or "classic".
func ParseScheme(name string) (Scheme, error) {
	for i, n := range schemeNames {
		if strings.EqualFold(name, n) {
			return Scheme(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q: want oneperm or classic", ErrScheme, name)
}

// ErrScheme is returned (wrapped) for an unknown scheme.
var ErrScheme = errors.New("approx: unknown MinHash scheme")

// MaxK is the largest signature length accepted.
const MaxK = 1024

// gamma is the splitmix64 increment (the golden ratio in 64-bit fixed point).
const gamma = 0x9e3779b97f4a7c15

// SeedWord returns the i-th word of the splitmix64 sequence started at seed:
// Mix64(seed + (i+1)·γ) with γ = 0x9e3779b97f4a7c15. Every seeded hash of the
// package derives from these words (see Hasher).
func SeedWord(seed uint64, i int) uint64 { return mix.Mix64(seed + uint64(i+1)*gamma) }

// Fold32 folds a 64-bit token key to 32 bits: the CRC-32 (IEEE polynomial,
// hash/crc32.ChecksumIEEE) of the key's 8 little-endian bytes. The classic
// scheme hashes these folds, as the article does.
// It is computed byte by byte from crc32.IEEETable, which gives the same
// value as crc32.ChecksumIEEE without that call's allocation per key.
func Fold32(key uint64) uint32 {
	crc := ^uint32(0)
	for i := 0; i < 8; i++ {
		crc = crc32.IEEETable[byte(crc)^byte(key>>(8*i))] ^ crc>>8
	}
	return ^crc
}

// Hasher computes MinHash signatures of K minima, the same on every machine
// and run for the same scheme, K and seed. Exactly:
//
//	σ_i = SeedWord(seed, i) = Mix64(seed + (i+1)·γ)             i = 0, 1, …
//	Classic: sig[i] = min over keys k of Mix64(uint64(Fold32(k)) ^ σ_i)     i < K
//	OnePerm: h(k) = Mix64(k ^ σ_0); bin(k) = ⌊h(k)·K / 2⁶⁴⌋ (the high bits);
//	         sig[i] = min of h(k) over the keys in bin i; an empty bin i takes
//	         the value of bin j_a(i) = ⌊Mix64(σ_1 ^ (i·2³² + a))·K / 2⁶⁴⌋ for the
//	         first a = 1, 2, … whose bin is not empty.
//
// where Mix64 is mix.Mix64, the splitmix64 finaliser. In both schemes the
// i-th values of two sets A and B are equal with probability J(A, B) (up to
// collisions of the 32-bit folds in the classic scheme, about m²/2³³ for m
// distinct tokens). In the one-permutation scheme a value belongs to exactly
// one bin (the bins split the 64-bit range), so a value copied from bin j
// never equals a value of bin i unless both sets copied from j: this is what
// keeps the collision probability at J (Shrivastava 2017, theorem 3.1).
//
// A Hasher is immutable and safe for concurrent use.
type Hasher struct {
	scheme Scheme
	k      int
	seed   uint64
	sigma  []uint64 // classic: K seeds; one-permutation: σ_0, σ_1
}

// NewHasher returns a hasher for scheme with signatures of k values,
// 1 <= k <= MaxK.
func NewHasher(scheme Scheme, k int, seed uint64) (*Hasher, error) {
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("%w: K = %d, want 1..%d", ErrShape, k, MaxK)
	}
	h := &Hasher{scheme: scheme, k: k, seed: seed}
	switch scheme {
	case Classic:
		h.sigma = make([]uint64, k)
	case OnePerm:
		h.sigma = make([]uint64, 2)
	default:
		return nil, fmt.Errorf("%w: %d", ErrScheme, scheme)
	}
	for i := range h.sigma {
		h.sigma[i] = SeedWord(seed, i)
	}
	return h, nil
}

// K returns the signature length.
func (h *Hasher) K() int { return h.k }

// Scheme returns the scheme.
func (h *Hasher) Scheme() Scheme { return h.scheme }

// Seed returns the seed.
func (h *Hasher) Seed() uint64 { return h.seed }

// TokenHash returns the per-token word the scheme minimises over: the CRC-32
// fold for Classic, h(k) for OnePerm. Signing from precomputed token words
// (SignWords) gives the same signature as Sign on the keys.
func (h *Hasher) TokenHash(key uint64) uint64 {
	if h.scheme == Classic {
		return uint64(Fold32(key))
	}
	return mix.Mix64(key ^ h.sigma[0])
}

// Sign writes the signature of the set of keys into dst[:K] and returns it.
// Duplicate keys do not change the result. An empty set gets the all-ones
// signature (every value math.MaxUint64), which never equals a non-empty
// set's in the classic scheme. Cost: O(K·S) for Classic, O(S + K) expected for
// OnePerm (plus O(K²/S) probing for sets much smaller than K). No allocation
// when cap(dst) >= K.
func (h *Hasher) Sign(dst []uint64, keys []uint64) []uint64 {
	dst, _ = h.signKeys(dst, keys)
	return dst
}

// signKeys is Sign, and returns the probes densification made.
func (h *Hasher) signKeys(dst []uint64, keys []uint64) ([]uint64, int) {
	dst = initSig(dst, h.k)
	if h.scheme == Classic {
		for _, k := range keys {
			h.classicWord(dst, uint64(Fold32(k)))
		}
		return dst, 0
	}
	for _, k := range keys {
		h.binWord(dst, mix.Mix64(k^h.sigma[0]))
	}
	return dst, h.densify(dst)
}

// SignWords is Sign over precomputed token words (TokenHash of each key),
// looked up through ids: words[id] for each id. It is how a collection's sets
// of token ids are signed without hashing a token more than once.
func (h *Hasher) SignWords(dst []uint64, words []uint64, ids []uint32) []uint64 {
	dst, _ = h.signWords(dst, words, ids)
	return dst
}

// signWords is SignWords, and returns the probes densification made.
func (h *Hasher) signWords(dst []uint64, words []uint64, ids []uint32) ([]uint64, int) {
	dst = initSig(dst, h.k)
	if h.scheme == Classic {
		for _, id := range ids {
			h.classicWord(dst, words[id])
		}
		return dst, 0
	}
	for _, id := range ids {
		h.binWord(dst, words[id])
	}
	return dst, h.densify(dst)
}

func initSig(dst []uint64, k int) []uint64 {
	if cap(dst) < k {
		dst = make([]uint64, k)
	}
	dst = dst[:k]
	for i := range dst {
		dst[i] = math.MaxUint64
	}
	return dst
}

// classicWord folds one token's 32-bit word into the K minima.
func (h *Hasher) classicWord(dst []uint64, x uint64) {
	sigma := h.sigma[:len(dst)]
	for i, s := range sigma {
		if z := mix.Mix64(x ^ s); z < dst[i] {
			dst[i] = z
		}
	}
}

// binWord puts one token's hash into its bin.
func (h *Hasher) binWord(dst []uint64, v uint64) {
	bin, _ := bits.Mul64(v, uint64(len(dst)))
	if v < dst[bin] {
		dst[bin] = v
	}
}

// densify fills the empty bins by optimal densification: an empty bin i
// copies the value of the first originally non-empty bin j_a(i) of its own
// probe sequence. Bins are empty while they hold MaxUint64 (a real value is
// that large with probability K·2⁻⁶⁴). A set with no tokens keeps every bin
// empty. No allocation: the emptiness bitmap lives on the stack. It
// returns the number of probes made (the cost that grows as sets shrink
// below K: a set of S tokens leaves about K·e^(-S/K) bins empty, each
// probing 1/(1-e^(-S/K)) bins on average).
func (h *Hasher) densify(dst []uint64) int {
	var empty [MaxK / 64]uint64
	n := 0
	for i, v := range dst {
		if v == math.MaxUint64 {
			empty[i>>6] |= 1 << (i & 63)
			n++
		}
	}
	if n == 0 || n == len(dst) {
		return 0
	}
	k := uint64(len(dst))
	probes := 0
	for i := range dst {
		if empty[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		for a := uint64(1); ; a++ {
			probes++
			j, _ := bits.Mul64(mix.Mix64(h.sigma[1]^(uint64(i)<<32|a)), k)
			if empty[j>>6]&(1<<(j&63)) == 0 {
				dst[i] = dst[j]
				break
			}
		}
	}
	return probes
}
