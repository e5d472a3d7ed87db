package shingle

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

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
// of the record's distinct keys (16 to 32 bytes a distinct key; the set and
// the piece's keys are scratch kept for the next long record), so a
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
// A record read from a stream need not be held whole either: SetBuilder
// takes it in pieces. Cost: O(keys) for the pieces and O(distinct · log
// distinct) for the final sort. Safe for concurrent use.
func (s Spec) AppendSet(dst []uint64, record string) ([]uint64, error) {
	if s.Kind != Go {
		record = trimBOM(record) // once: a piece may start with U+FEFF inside the record
	}
	return s.appendSet(dst, record)
}

// appendSet is AppendSet for a record whose byte-order mark is gone (under
// Go, left to the lexer, which skips it).
func (s Spec) appendSet(dst []uint64, record string) ([]uint64, error) {
	from := len(dst)
	if len(record) <= PieceBytes || s.Kind == Go {
		var err error
		if dst, err = s.append(dst, record); err != nil {
			return dst[:from], err
		}
		return compact(dst, from), nil
	}
	p := pieceSets.Get().(*pieceSet)
	defer pieceSets.Put(p)
	for start := 0; start < len(record); {
		end, next := s.cut(record, start)
		if err := p.add(s, record[start:end]); err != nil {
			p.set.Drain(nil)
			return dst, err
		}
		start = next
	}
	return compact(p.set.Drain(dst), from), nil
}

// pieceSet is the scratch of a record tokenized in pieces: the keys of one
// piece, and the set of the record's distinct keys so far.
type pieceSet struct {
	piece []uint64
	set   keymap.Set
}

// pieceSets holds the scratch of AppendSet's long records, one per
// goroutine at a time.
var pieceSets = sync.Pool{New: func() any { return new(pieceSet) }}

// add enters the keys of piece, cut by cut, into p.set.
func (p *pieceSet) add(s Spec, piece string) error {
	if cap(p.piece) == 0 {
		// A piece has at most about one key a byte (QGram).
		p.piece = make([]uint64, 0, PieceBytes+PieceBytes/4)
	}
	var err error
	if p.piece, err = s.append(p.piece[:0], piece); err != nil {
		return err
	}
	for _, k := range p.piece {
		p.set.Add(k)
	}
	return nil
}

// SetBuilder makes the set of one record that arrives in pieces (a long
// line read from a stream), as AppendSet makes it of the whole record, and
// holds the record's distinct keys as AppendSet does and about two pieces
// (2·PieceBytes) of its text, not the record: each time it holds that
// much, it tokenizes up to the last cut (AppendSet's cuts) and keeps the
// rest. Under Go, whose tokens allow no cut, it holds the record whole;
// a token longer than what it holds (a word of megabytes) is held whole
// too. The zero value is ready for Reset. A SetBuilder is not safe for
// concurrent use.
type SetBuilder struct {
	spec  Spec
	text  []byte // the record's bytes written and not yet tokenized
	p     pieceSet
	retry int   // the length of text from which to look for a cut again
	err   error // the first error: the record is refused
	// head says that the record's first bytes are yet to be looked at for
	// a byte-order mark (AppendSet's trimBOM; not under Go, whose lexer
	// skips it).
	head bool
}

// Reset starts a record tokenized by spec, keeping b's buffers.
func (b *SetBuilder) Reset(spec Spec) {
	b.p.set.Drain(nil)
	b.spec, b.text, b.retry, b.err, b.head = spec, b.text[:0], 0, nil, spec.Kind != Go
}

// Write takes p, the next bytes of the record (not retained). Cost:
// O(len(p)) amortised, and a hash-set step a key.
func (b *SetBuilder) Write(p []byte) {
	if b.err != nil {
		return
	}
	if b.spec.Kind == Go {
		b.text = append(b.text, p...)
		return
	}
	if b.head {
		if len(b.text)+len(p) < len(bom) && strings.HasPrefix(bom, string(b.text)+string(p)) {
			b.text = append(b.text, p...) // the start of a mark, or of a short record
			return
		}
		b.head = false
		if len(b.text) > 0 {
			// The record's first bytes came in writes shorter than a mark.
			b.text = append(b.text, p...)
			p = nil
			if bytes.HasPrefix(b.text, []byte(bom)) {
				b.text = b.text[:copy(b.text, b.text[len(bom):])]
			}
		} else if bytes.HasPrefix(p, []byte(bom)) {
			p = p[len(bom):]
		}
	}
	// With no text held, p's pieces are tokenized where they are, and only
	// what is left after the last cut is copied.
	held := len(b.text) > 0
	if held {
		b.text = append(b.text, p...)
		p = b.text
	}
	text := unsafe.String(unsafe.SliceData(p), len(p))
	start := 0
	for len(text)-start >= max(2*PieceBytes, b.retry) {
		end, next := b.spec.cut(text, start)
		if end == len(text) {
			// No cut yet: a token longer than the text held. Look again
			// once the text has doubled.
			b.retry = 2 * (len(text) - start)
			break
		}
		if b.err = b.p.add(b.spec, text[start:end]); b.err != nil {
			return
		}
		start, b.retry = next, 0
	}
	if held {
		b.text = b.text[:copy(b.text, b.text[start:])]
	} else {
		b.text = append(b.text, p[start:]...)
	}
}

// AppendTo tokenizes the rest of the record and appends its set, sorted and
// distinct, to dst: the set and the error AppendSet gives the record's
// bytes written since Reset. b is then empty, as after Reset.
func (b *SetBuilder) AppendTo(dst []uint64) ([]uint64, error) {
	text := unsafe.String(unsafe.SliceData(b.text), len(b.text))
	if b.err == nil && (b.spec.Kind == Go || b.p.set.Len() == 0) {
		// Never cut: the whole record is held (its mark dropped).
		var err error
		dst, err = b.spec.appendSet(dst, text)
		b.Reset(b.spec)
		return dst, err
	}
	if b.err == nil {
		b.err = b.p.add(b.spec, text)
	}
	err := b.err
	from := len(dst)
	if dst = b.p.set.Drain(dst); err != nil {
		dst = dst[:from]
	}
	b.Reset(b.spec)
	return compact(dst, from), err
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
		if s.Kind != Shingle || s.N <= 1 {
			return end, end // no key spans a space
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
			if words >= s.N-1 && next > start {
				return end, next
			}
		}
		// Too few words to back over, or words that reach back to the
		// piece's start (the next piece would not advance): take the rest
		// whole.
		return len(record), len(record)
	}
}
