package pipeline

import (
	"encoding/binary"
	"errors"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// A record id packs the input file's index (in the sorted list of input
// files) above its 1-based line number, so that comparing ids compares input
// order: (file, line). With --files the line part is 0.
const lineBits = 40

// maxLine is the largest line number an id can carry.
const maxLine = 1<<lineBits - 1

// MakeID returns the id of line (1-based; 0 for a whole-file record) of file
// number file.
func MakeID(file int, line int64) uint64 { return uint64(file)<<lineBits | uint64(line) }

// SplitID returns the file number and line of an id.
func SplitID(id uint64) (file int, line int64) { return int(id >> lineBits), int64(id & maxLine) }

// Record is one input record: its id and its token set as the shingle package
// makes it (64-bit keys, sorted ascending, distinct). An empty Keys is an
// empty record, which never joins.
type Record struct {
	ID   uint64
	Keys []uint64
}

// Unit is a distinct non-empty set of the LSH path with the ids of the
// records that hold it, ascending; ID is the first of them.
type Unit struct {
	ID      uint64
	Records []uint64
	Keys    []uint64
}

// Member is a unit in one band bucket, with the keys of all its bands (so
// that a bucket can tell whether an earlier band already paired two units)
// and the number of records it stands for.
type Member struct {
	ID    uint64
	Bands []uint64
}

// BucketKey names a band bucket: the band and the 64-bit key of its bytes.
type BucketKey struct {
	Band uint32
	Key  uint64
}

// Pair is one result pair in record ids, A < B (R-S: A the R record), with the
// exact overlap and the two set sizes from which the similarity follows.
type Pair struct {
	A, B            uint64
	Overlap, SA, SB uint32
}

var errCorrupt = errors.New("pipeline: corrupt element")

func init() {
	beam.RegisterCoder(reflect.TypeFor[Record](), encRecord, decRecord)
	beam.RegisterCoder(reflect.TypeFor[Unit](), encUnit, decUnit)
	beam.RegisterCoder(reflect.TypeFor[Member](), encMember, decMember)
	beam.RegisterCoder(reflect.TypeFor[BucketKey](), encBucketKey, decBucketKey)
	beam.RegisterCoder(reflect.TypeFor[Pair](), encPair, decPair)
}

// The coders below write ids and counts as uvarints and token keys as 8
// little-endian bytes (they are hashes: no shorter form helps). Their sizes
// are what the shuffle metrics count.

func appendKeys(b []byte, keys []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = binary.LittleEndian.AppendUint64(b, k)
	}
	return b
}

// keysSize is the encoded size of a key list.
func keysSize(n int) int { return uvarintLen(uint64(n)) + 8*n }

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// reader decodes what the coders wrote; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *reader) keys() []uint64 {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b))/8 < n {
		r.err = errCorrupt
		return nil
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = binary.LittleEndian.Uint64(r.b[8*i:])
	}
	r.b = r.b[8*n:]
	return keys
}

func (r *reader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errCorrupt
		return 0
	}
	x := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return x
}

func (r *reader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errCorrupt
	}
	return r.err
}

func encRecord(v Record) []byte {
	return appendKeys(binary.AppendUvarint(make([]byte, 0, recordSize(v)), v.ID), v.Keys)
}

func recordSize(v Record) int { return uvarintLen(v.ID) + keysSize(len(v.Keys)) }

func decRecord(b []byte) (Record, error) {
	r := reader{b: b}
	v := Record{ID: r.uvarint(), Keys: r.keys()}
	return v, r.done()
}

func unitSize(v Unit) int { return uvarintLen(v.ID) + keysSize(len(v.Records)) + keysSize(len(v.Keys)) }

func encUnit(v Unit) []byte {
	b := binary.AppendUvarint(make([]byte, 0, unitSize(v)), v.ID)
	b = appendKeys(b, v.Records)
	return appendKeys(b, v.Keys)
}

func decUnit(b []byte) (Unit, error) {
	r := reader{b: b}
	v := Unit{ID: r.uvarint(), Records: r.keys(), Keys: r.keys()}
	return v, r.done()
}

func memberSize(v Member) int { return uvarintLen(v.ID) + keysSize(len(v.Bands)) }

func encMember(v Member) []byte {
	return appendKeys(binary.AppendUvarint(make([]byte, 0, memberSize(v)), v.ID), v.Bands)
}

func decMember(b []byte) (Member, error) {
	r := reader{b: b}
	v := Member{ID: r.uvarint(), Bands: r.keys()}
	return v, r.done()
}

func encBucketKey(v BucketKey) []byte {
	return binary.LittleEndian.AppendUint64(binary.AppendUvarint(make([]byte, 0, 12), uint64(v.Band)), v.Key)
}

func decBucketKey(b []byte) (BucketKey, error) {
	r := reader{b: b}
	v := BucketKey{Band: uint32(r.uvarint())}
	v.Key = r.u64()
	return v, r.done()
}

func encPair(v Pair) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 24), v.A)
	b = binary.AppendUvarint(b, v.B)
	b = binary.AppendUvarint(b, uint64(v.Overlap))
	b = binary.AppendUvarint(b, uint64(v.SA))
	return binary.AppendUvarint(b, uint64(v.SB))
}

func decPair(b []byte) (Pair, error) {
	r := reader{b: b}
	v := Pair{A: r.uvarint(), B: r.uvarint(), Overlap: uint32(r.uvarint()), SA: uint32(r.uvarint()), SB: uint32(r.uvarint())}
	return v, r.done()
}
