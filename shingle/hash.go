package shingle

import "github.com/simjoin/simjoin/internal/mix"

// The token hash is FNV-1a over the bytes followed by the splitmix64
// finaliser. It is fixed: keys are the same on every machine and run, so that
// signatures and orders built from them are reproducible. Collisions between
// distinct tokens happen with probability about m²/2⁶⁵ for m distinct tokens
// (under 3·10⁻⁶ for ten million); a collision merges two tokens into one.

const (
	hashInit  = 14695981039346656037
	hashPrime = 1099511628211
)

// HashString returns the 64-bit key of a token.
func HashString(s string) uint64 { return finish(hashFrom(hashInit, s)) }

// HashBytes returns the same key as HashString(string(b)) without converting.
func HashBytes(b []byte) uint64 { return finish(hashFrom(hashInit, b)) }

// hashFrom feeds text into the running FNV-1a state h.
func hashFrom[T string | []byte](h uint64, text T) uint64 {
	for i := 0; i < len(text); i++ {
		h = (h ^ uint64(text[i])) * hashPrime
	}
	return h
}

// hashRune feeds the UTF-8 encoding of r into h.
func hashRune(h uint64, r rune) uint64 {
	var buf [4]byte
	n := encodeRune(&buf, r)
	for _, c := range buf[:n] {
		h ^= uint64(c)
		h *= hashPrime
	}
	return h
}

func encodeRune(p *[4]byte, r rune) int {
	switch {
	case r < 0x80:
		p[0] = byte(r)
		return 1
	case r < 0x800:
		p[0] = 0xC0 | byte(r>>6)
		p[1] = 0x80 | byte(r)&0x3F
		return 2
	case r < 0x10000:
		p[0] = 0xE0 | byte(r>>12)
		p[1] = 0x80 | byte(r>>6)&0x3F
		p[2] = 0x80 | byte(r)&0x3F
		return 3
	default:
		p[0] = 0xF0 | byte(r>>18)
		p[1] = 0x80 | byte(r>>12)&0x3F
		p[2] = 0x80 | byte(r>>6)&0x3F
		p[3] = 0x80 | byte(r)&0x3F
		return 4
	}
}

func finish(h uint64) uint64 { return mix.Mix64(h) }
