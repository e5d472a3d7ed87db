package shingle

import "slices"

// Records of small decimal integers (token ids numbered beforehand, as the
// set-similarity literature's datasets and a language model's tokenizer
// give them) have a cheaper road into the order than hashing every field:
// their values can index an array directly (order.Input.AddValues). The road
// must lead to the same tokens as Set's keys, so it takes only fields that
// are one integer's one spelling: a field "7" is the value 7, whose key is
// HashString("7"); a field "07" or "+7" is another token of its own and
// takes the keys' road.

// IntLimit bounds the values of AppendInts: every value is below it. No two
// values below it have the same key (IntKey), which the long tests check,
// so a value stands for its field exactly as the field's key does.
const IntLimit = 1 << 24

// AppendInts appends the value of every whitespace-separated field of record
// (Set's fields) to dst and reports true when each field is the canonical
// decimal spelling of an integer below IntLimit: digits only, no leading
// zero but in "0". Otherwise it reports false, and dst is returned as it
// was given. IntKey of each value appended is the key Set gives its field,
// in the same order; a record longer than PieceBytes gives its distinct
// values instead, sorted, and holds no more than about twice as many at a
// time as it has distinct ones, plus a piece's (as AppendSet holds a long
// record's distinct keys). Cost: O(len(record)), and for a long record a
// sort of its values now and then; no allocation beyond dst's growth.
func AppendInts(dst []uint32, record string) ([]uint32, bool) {
	record = trimBOM(record) // as Set drops it
	if len(record) <= PieceBytes {
		return appendInts(dst, record)
	}
	from, compacted := len(dst), 0
	for start := 0; start < len(record); {
		end, next := Spec{Kind: Set}.cut(record, start)
		var ok bool
		if dst, ok = appendInts(dst, record[start:end]); !ok {
			return dst[:from], false
		}
		if n := len(dst) - from; n > max(PieceBytes/2, 2*compacted) || next == len(record) {
			slices.Sort(dst[from:])
			dst = dst[:from+len(slices.Compact(dst[from:]))]
			compacted = len(dst) - from
		}
		start = next
	}
	return dst, true
}

// appendInts is AppendInts for a record of any length, every value kept.
func appendInts(dst []uint32, record string) ([]uint32, bool) {
	from := len(dst)
	i, n := 0, len(record)
	for {
		for i < n && isSpace(record[i]) {
			i++
		}
		if i == n {
			return dst, true
		}
		c := record[i]
		if c-'0' > 9 || c == '0' && i+1 < n && !isSpace(record[i+1]) {
			return dst[:from], false
		}
		v := uint32(c - '0')
		i++
		// IntLimit has 8 digits: a ninth makes the field too long.
		for d := 1; i < n; d++ {
			c = record[i]
			if c-'0' > 9 {
				if !isSpace(c) {
					return dst[:from], false
				}
				break
			}
			if d == 8 {
				return dst[:from], false
			}
			v = v*10 + uint32(c-'0')
			i++
		}
		if v >= IntLimit {
			return dst[:from], false
		}
		dst = append(dst, v)
	}
}

// IntKey returns the key of the token spelled by v in decimal: HashString
// of its canonical decimal text, the key Set gives such a field.
func IntKey(v uint32) uint64 {
	var buf [10]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return HashBytes(buf[i:])
}

// IntValues says which key each value of AppendInts stands for (an
// order.Values): IntKey.
type IntValues struct{}

// Key returns IntKey(v).
func (IntValues) Key(v uint32) uint64 { return IntKey(v) }

// GramValues says which key each value of AppendGramValues stands for (an
// order.Values): the key AppendQGrams gives the gram of N ASCII characters
// the value packs.
type GramValues struct{ N int }

// Key returns the key of the gram packed in v: its characters, 7 bits each
// in v, at 21 bits each in the key (AppendQGrams's packing of code points).
func (g GramValues) Key(v uint32) uint64 {
	var k uint64
	for i := g.N - 1; i >= 0; i-- {
		k = k<<21 | uint64(v>>(7*i)&0x7f)
	}
	return k
}

// MaxGramValues is the longest gram AppendGramValues packs: three 7-bit
// characters, 21 bits, below 2^24.
const MaxGramValues = 3

// AppendGramValues appends the q-grams of record (n characters each, with
// repeats, as AppendQGrams gives them) as values, each gram's n bytes
// packed 7 bits apiece, and reports true when every byte of record is
// ASCII and n is 1 to MaxGramValues; otherwise it reports false and
// returns dst as given. GramValues{n}.Key of a value is the key
// AppendQGrams gives its gram. A record longer than PieceBytes gives its
// distinct values instead, sorted, holding about twice as many at a time
// as it has distinct ones (as AppendInts). Cost: O(len(record)).
func AppendGramValues(dst []uint32, record string, n int) ([]uint32, bool) {
	if n < 1 || n > MaxGramValues {
		return dst, false
	}
	record = trimBOM(record) // as QGram drops it
	from, compacted := len(dst), 0
	mask := uint32(1)<<(7*n) - 1
	var v uint32
	for i := 0; i < len(record); i++ {
		c := record[i]
		if c >= 0x80 {
			return dst[:from], false
		}
		v = (v<<7 | uint32(c)) & mask
		if i+1 >= n {
			dst = append(dst, v)
		}
		if len(record) > PieceBytes && (i+1)%PieceBytes == 0 && len(dst)-from > max(PieceBytes/2, 2*compacted) {
			slices.Sort(dst[from:])
			dst = dst[:from+len(slices.Compact(dst[from:]))]
			compacted = len(dst) - from
		}
	}
	if len(record) > PieceBytes {
		slices.Sort(dst[from:])
		dst = dst[:from+len(slices.Compact(dst[from:]))]
	}
	return dst, true
}
