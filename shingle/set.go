package shingle

import (
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/keysort"
)

// PieceBytes is the length of the pieces AppendSet cuts a long record into.
const PieceBytes = 1 << 18

// AppendSet appends the keys of record as a set, sorted and distinct, to dst:
// the set of the keys Append would append. Errors are Append's.
//
// Memory per record is bounded by its distinct keys, not by its keys: a
// record longer than PieceBytes is tokenized in pieces of about PieceBytes,
// cut where no key can span the cut, each piece's keys entered in a hash set
// of the record's distinct keys (16 to 32 bytes a distinct key), so a
// one-line 200 MB record under qgram:2 holds a few thousand distinct grams,
// not 200M keys. The cuts:
//
//   - Set and Words: at a space, tab or line break, which no token spans;
//   - QGram: anywhere between code points, the next piece starting N-1 code
//     points before the cut, so every gram lies whole in one piece;
//   - Shingle: at a space, the next piece starting at a space at least N-1
//     words before the cut, so every N consecutive words lie in one piece;
//   - Go: none (a Go token or an inserted semicolon depends on what precedes
//     it); the record is tokenized whole.
//
// Cost: O(keys) for the pieces and O(distinct · log distinct) for the final
// sort. Safe for concurrent use.
func (s Spec) AppendSet(dst []uint64, record string) ([]uint64, error) {
	from := len(dst)
	if len(record) <= PieceBytes || s.Kind == Go {
		var err error
		if dst, err = s.Append(dst, record); err != nil {
			return dst[:from], err
		}
		return compact(dst, from), nil
	}
	record = trimBOM(record) // once: a piece may start with U+FEFF inside the record
	if s.Kind != Set && !utf8.ValidString(record) {
		return dst, ErrUTF8
	}
	var set keymap.Set
	// A piece has at most about one key a byte (QGram).
	piece := make([]uint64, 0, PieceBytes+PieceBytes/4)
	for start := 0; start < len(record); {
		end, next := s.cut(record, start)
		var err error
		if piece, err = s.append(piece[:0], record[start:end]); err != nil {
			return dst, err
		}
		for _, k := range piece {
			set.Add(k)
		}
		start = next
	}
	dst = set.AppendTo(dst)
	return compact(dst, from), nil
}

// compact sorts dst[from:] and drops its duplicates: a record of sortSmall
// keys or more by keysort's bucket sort on the keys' top bits (keys are
// hashes, so the buckets are even), shorter ones by slices.Sort.
func compact(dst []uint64, from int) []uint64 {
	rec := dst[from:]
	if len(rec) < sortSmall {
		slices.Sort(rec)
		return dst[:from+len(slices.Compact(rec))]
	}
	s := sorters.Get().(*keysort.Sorter)
	n := len(s.SortDistinct(rec))
	sorters.Put(s)
	return dst[:from+n]
}

// sortSmall is the record length from which compact sorts with a
// keysort.Sorter (below it, slices.Sort is as fast).
const sortSmall = 16

// sorters holds the scratch of compact's sorts, one per goroutine at a time.
var sorters = sync.Pool{New: func() any { return new(keysort.Sorter) }}

// cut returns the end of the piece of record that starts at start, and where
// the next piece starts (len(record) when this piece is the last).
func (s Spec) cut(record string, start int) (end, next int) {
	end = start + PieceBytes
	if end >= len(record) {
		return len(record), len(record)
	}
	switch s.Kind {
	case QGram:
		for end > start && !utf8.RuneStart(record[end]) {
			end--
		}
		next = end
		for k := 0; k < s.N-1 && next > start; k++ {
			_, w := utf8.DecodeLastRuneInString(record[start:next])
			next -= w
		}
		if next <= start { // a piece shorter than N code points: take it whole
			return len(record), len(record)
		}
		return end, next
	default: // Set, Words, Shingle: cut at a separator byte
		for end < len(record) && !isSpace(record[end]) {
			end++
		}
		if end == len(record) {
			return end, end
		}
		if s.Kind != Shingle {
			return end, end
		}
		// Back up to a space with at least N-1 words after it in the piece.
		// Words never span a space, so the words after each space back are
		// counted field by field.
		words := 0
		next = end
		for next > start && end-next <= PieceBytes/2 {
			prev := next - 1
			for prev > start && !isSpace(record[prev-1]) {
				prev--
			}
			words += len(appendWords(nil, record[prev:next], s.Norm))
			next = prev
			if words >= s.N-1 {
				return end, next
			}
		}
		return len(record), len(record) // too few words to back over: take the rest whole
	}
}
