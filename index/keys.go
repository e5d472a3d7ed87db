package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/simjoin/simjoin/shingle"
)

// KeyKind is what names the records of an index to its users, fixed at
// Create (Config.Keys).
type KeyKind uint8

const (
	// NoKeys: records are named by their ID, which the index assigns.
	NoKeys KeyKind = 0
	// IntKeys: each record carries the user's key, a signed 64-bit integer.
	IntKeys KeyKind = 1
	// StringKeys: each record carries the user's key, a string.
	StringKeys KeyKind = 2
)

// String returns the command-line name of k: "none", "int" or "string".
func (k KeyKind) String() string {
	switch k {
	case NoKeys:
		return "none"
	case IntKeys:
		return "int"
	case StringKeys:
		return "string"
	}
	return fmt.Sprintf("KeyKind(%d)", uint8(k))
}

// ParseKeyKind reads a KeyKind by its String.
func ParseKeyKind(s string) (KeyKind, error) {
	for _, k := range []KeyKind{NoKeys, IntKeys, StringKeys} {
		if s == k.String() {
			return k, nil
		}
	}
	return 0, fmt.Errorf("index: unknown key kind %q: want none, int or string", s)
}

// Key is a record's key as its user gave it, in its one text form: for
// IntKeys a decimal int64 without a plus sign or leading zeros ("-7",
// "42"); for StringKeys 1 to MaxKeyBytes bytes of UTF-8 text without
// control characters (C0, DEL or C1), so that it prints on one line of any
// output format. A key names at most one live record: inserting a record
// under a key a live record holds is an error, or replaces it, or is
// skipped (Conflict).
type Key string

// MaxKeyBytes is the longest string key.
const MaxKeyBytes = 256

// ErrKey is wrapped by the error of a key that breaks the rules of its kind.
var ErrKey = errors.New("not a key")

// ParseKey checks s as a key of kind k (Key's rules) and returns it. An
// index without keys (NoKeys) takes none. The error wraps ErrKey and does
// not quote s.
func ParseKey(k KeyKind, s string) (Key, error) {
	switch k {
	case IntKeys:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || strconv.FormatInt(v, 10) != s {
			return "", fmt.Errorf("%w: want a decimal integer from -2^63 to 2^63-1, no plus sign or leading zeros", ErrKey)
		}
	case StringKeys:
		if len(s) == 0 || len(s) > MaxKeyBytes {
			return "", fmt.Errorf("%w: want 1 to %d bytes, have %d", ErrKey, MaxKeyBytes, len(s))
		}
		if !utf8.ValidString(s) {
			return "", fmt.Errorf("%w: invalid UTF-8", ErrKey)
		}
		for _, r := range s {
			if r < 0x20 || r >= 0x7f && r < 0xa0 {
				return "", fmt.Errorf("%w: a control character (U+%04X)", ErrKey, r)
			}
		}
	default:
		return "", fmt.Errorf("%w: the index names its records by id (it was created without keys)", ErrKey)
	}
	return Key(s), nil
}

// appendKeyBytes appends the stored form of key, one of kind k (checked):
// an int as 8 little-endian bytes, a string as its bytes.
func appendKeyBytes(b []byte, k KeyKind, key Key) []byte {
	if k == IntKeys {
		v, _ := strconv.ParseInt(string(key), 10, 64)
		return binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return append(b, key...)
}

// keyFromBytes returns the key whose stored form is b.
func keyFromBytes(k KeyKind, b []byte) Key {
	if k == IntKeys && len(b) == 8 {
		return Key(strconv.FormatInt(int64(binary.LittleEndian.Uint64(b)), 10))
	}
	return Key(b)
}

// checkKeyBytes reports whether b is the stored form of a key of kind k.
func checkKeyBytes(k KeyKind, b []byte) bool {
	if k == IntKeys {
		return len(b) == 8
	}
	_, err := ParseKey(k, string(b))
	return err == nil
}

// keyHash is the hash of a stored key that the key tables use.
func keyHash(b []byte) uint64 { return shingle.HashBytes(b) }

// Conflict is what InsertRecords does with a record whose key a live
// record holds (or an earlier record of the same batch, as if the batch's
// records came one at a time).
type Conflict uint8

const (
	// ConflictError fails the batch with a *KeyError before anything is
	// written.
	ConflictError Conflict = iota
	// ConflictReplace deletes the live record and inserts the new one,
	// atomically (one batch of the write-ahead log); with a dedup threshold
	// the new one is inserted, and the old one deleted, only when it is no
	// near-duplicate of another held record.
	ConflictReplace
	// ConflictSkip leaves the live record and skips the new one
	// (Outcome.Exists).
	ConflictSkip
)

// String returns the command-line name of c: "error", "replace" or "skip".
func (c Conflict) String() string {
	switch c {
	case ConflictError:
		return "error"
	case ConflictReplace:
		return "replace"
	case ConflictSkip:
		return "skip"
	}
	return fmt.Sprintf("Conflict(%d)", uint8(c))
}

// ParseConflict reads a Conflict by its String.
func ParseConflict(s string) (Conflict, error) {
	for _, c := range []Conflict{ConflictError, ConflictReplace, ConflictSkip} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("index: unknown conflict rule %q: want error, replace or skip", s)
}

// ErrKeyExists is wrapped by a *KeyError.
var ErrKeyExists = errors.New("index: key held by a live record")

// KeyError reports a record of InsertRecords whose key a live record holds
// (or an earlier record of its batch) under ConflictError: the batch was
// not written.
type KeyError struct {
	Index int // 0-based position in the batch
	Key   Key
	// ID is the live record that holds the key (0 when it is an earlier
	// record of the batch).
	ID ID
}

func (e *KeyError) Error() string {
	if e.ID == 0 {
		return fmt.Sprintf("index: record %d: key %q given twice in one batch", e.Index+1, e.Key)
	}
	return fmt.Sprintf("index: record %d: key %q is held by a live record", e.Index+1, e.Key)
}

func (e *KeyError) Unwrap() error { return ErrKeyExists }

// keyTable is a segment's table from stored keys to rows: 2^k slots at
// most 3/4 full, a key's first slot its keyHash mod 2^k, then linear
// probing; a slot holds row+1 (0: empty) and the hash's high 32 bits, so
// that a probe reads a key only when its hash matches.
type keySlot struct {
	row1 uint32
	tag  uint32
}

// buildKeyTable returns the key table of n rows whose stored keys key(r)
// gives (distinct).
func buildKeyTable(n int, key func(r int) []byte) []keySlot {
	if n == 0 {
		return nil
	}
	size := 1
	for size*3 < n*4 {
		size *= 2
	}
	tab := make([]keySlot, size)
	mask := uint64(size - 1)
	for r := 0; r < n; r++ {
		h := keyHash(key(r))
		i := h & mask
		for tab[i].row1 != 0 {
			i = (i + 1) & mask
		}
		tab[i] = keySlot{row1: uint32(r) + 1, tag: uint32(h >> 32)}
	}
	return tab
}

// lookupKeyTable returns the row of the stored key b in tab, whose rows'
// keys key(r) gives.
func lookupKeyTable(tab []keySlot, b []byte, key func(r int) []byte) (int, bool) {
	if len(tab) == 0 {
		return 0, false
	}
	h := keyHash(b)
	mask := uint64(len(tab) - 1)
	tag := uint32(h >> 32)
	for i, probes := h&mask, 0; probes < len(tab); i, probes = (i+1)&mask, probes+1 {
		s := tab[i]
		if s.row1 == 0 {
			return 0, false
		}
		if s.tag == tag && string(key(int(s.row1-1))) == string(b) {
			return int(s.row1 - 1), true
		}
	}
	return 0, false
}
