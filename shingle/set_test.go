package shingle

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// setOf is the oracle: Append, then sort and deduplicate.
func setOf(t *testing.T, s Spec, record string) []uint64 {
	t.Helper()
	keys, err := s.Append(nil, record)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// randomRecord returns a record of at least n bytes of strings drawn from
// alphabet, with "word" now and then.
func randomRecord(r *rand.Rand, alphabet []string, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
		if r.IntN(50) == 0 {
			b.WriteString("word")
		}
	}
	return b.String()
}

// TestAppendSetPieces: on records longer than PieceBytes, cut into pieces,
// AppendSet gives exactly the set of Append's keys, for every kind that is
// cut.
func TestAppendSetPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	record := randomRecord(r, []string{"a", "b", "é", "字", " ", " ", "\t", ",", "x"}, 2*PieceBytes+12345)
	for _, s := range []Spec{
		{Kind: Set}, {Kind: Words}, {Kind: Words, Norm: KeepPunct},
		{Kind: QGram, N: 1}, {Kind: QGram, N: 2}, {Kind: QGram, N: 3}, {Kind: QGram, N: 7},
		{Kind: Shingle, N: 1}, {Kind: Shingle, N: 3}, {Kind: Shingle, N: 9, Norm: KeepPunct},
	} {
		want := setOf(t, s, record)
		got, err := s.AppendSet([]uint64{42}, record)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != 42 || !slices.Equal(got[1:], want) {
			t.Errorf("%s: AppendSet has %d keys, the set of Append %d", s, len(got)-1, len(want))
		}
	}
	if _, err := (Spec{Kind: QGram, N: 2}).AppendSet(nil, record+"\xff"); err != ErrUTF8 {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

// TestAppendSetLongWord: a record whose first word runs past a piece
// (PieceBytes) is cut where the next piece still advances: under Shingle
// the N-1 words to back over may reach back to the piece's start, and
// under Shingle of one word there is nothing to back over (both cut the
// record at its start again, for ever, before). The set is Append's, for
// the kinds that cut at spaces or between code points.
func TestAppendSetLongWord(t *testing.T) {
	long := strings.Repeat("x", PieceBytes+10)
	for _, rec := range []string{
		long + " y z",
		"a " + long + " y z " + long + "q r",
		strings.Repeat("w ", PieceBytes/2-3) + long + " y",
	} {
		for _, s := range []Spec{{Kind: Shingle, N: 1}, {Kind: Shingle, N: 2}, {Kind: Shingle, N: 3}, {Kind: Words}, {Kind: Set}, {Kind: QGram, N: 2}} {
			// Before, this call did not return (the test binary's
			// -timeout ends it).
			got, err := s.AppendSet(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if want := setOf(t, s, rec); !slices.Equal(got, want) {
				t.Errorf("%s: AppendSet has %d keys, the set of Append %d", s, len(got), len(want))
			}
		}
	}
}

// TestAppendSetMemory: a one-line record of L bytes with few distinct keys
// allocates at most L/8 bytes, where its keys alone would take up to 8·L (the measured allocation ratio, not a time).
func TestAppendSetMemory(t *testing.T) {
	const size = 32 << 20
	record := strings.Repeat("abcdefghij klmnopqrstuvwxyz ", size/28)
	for _, s := range []Spec{{Kind: QGram, N: 2}, {Kind: Set}, {Kind: Shingle, N: 2}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		keys, err := s.AppendSet(nil, record)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d distinct keys, %.2f bytes allocated per record byte", s, len(keys), float64(alloc)/float64(len(record)))
		if alloc > uint64(len(record)/8) {
			t.Errorf("%s: %d bytes allocated for a %d-byte record with %d distinct keys", s, alloc, len(record), len(keys))
		}
	}
}

// TestQGramKeysPacked pins the keys of short q-grams: the code points
// packed 21 bits each, first one highest (the keys a persisted index
// holds), for ASCII, multi-byte and invalid-looking (U+FFFD) code points.
func TestQGramKeysPacked(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "Pässwörd1", "日本語のテキスト", "a\uFFFDb\U0010FFFF"} {
		runes := []rune(s)
		for q := 1; q <= 3; q++ {
			var want []uint64
			for i := 0; i+q <= len(runes); i++ {
				var k uint64
				for _, r := range runes[i : i+q] {
					k = k<<21 | uint64(r)
				}
				want = append(want, k)
			}
			if got := AppendQGrams(nil, s, q); !slices.Equal(got, want) {
				t.Errorf("AppendQGrams(%q, %d) = %x, want %x", s, q, got, want)
			}
		}
	}
}

// TestSetBuilder: a record written to a SetBuilder in pieces of any size
// (cutting code points apart, one byte at a time) gives the set and the
// error AppendSet gives the whole record, for every kind; records of a
// token longer than what the builder holds, and with invalid UTF-8, too;
// and one builder serves record after record.
func TestSetBuilder(t *testing.T) {
	seed := uint64(3)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 4))
	record := randomRecord(r, []string{"a", "b", "é", "字", " ", " ", "\t", ",", "x", "(", "\"", "1"}, 2*PieceBytes+777)
	records := []string{
		"", "a b c", record, record + "\xff", "\xff" + record[:PieceBytes],
		strings.Repeat("x", 2*PieceBytes+10) + " y " + record[:PieceBytes], // a token longer than two pieces
		// Byte-order marks, which the record's start drops (trimBOM), in
		// writes as short as a byte.
		"\uFEFF" + record, "\uFEFF", "\uFEFFa b", "\uFEFF\uFEFFx y", "\xef", "\xef\xbb", "\xef\xbbx", "a\uFEFFb",
	}
	var sb SetBuilder
	for _, s := range []Spec{
		{Kind: Set}, {Kind: Words, Norm: KeepPunct}, {Kind: QGram, N: 3}, {Kind: QGram, N: 7},
		{Kind: Shingle, N: 1}, {Kind: Shingle, N: 4}, {Kind: Go, N: 3},
	} {
		for i, rec := range records {
			want, wantErr := s.AppendSet([]uint64{42}, rec)
			sb.Reset(s)
			for start := 0; start < len(rec); {
				n := 1 + r.IntN(1<<r.IntN(18))
				end := min(start+n, len(rec))
				sb.Write([]byte(rec[start:end]))
				start = end
			}
			got, err := sb.AppendTo([]uint64{42})
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slices.Equal(got, want) {
				t.Errorf("%s, record %d: builder gave %d keys, error %v; AppendSet %d, %v", s, i, len(got)-1, err, len(want)-1, wantErr)
			}
		}
	}
}

// TestSetBuilderMemory: a one-line record of L bytes with few distinct
// keys, written in blocks of 64 KiB, allocates at most L/4 bytes (about
// two pieces of text and one piece's keys): neither its text nor its keys
// are held (the measured allocation, not a time).
func TestSetBuilderMemory(t *testing.T) {
	const size = 32 << 20
	record := []byte(strings.Repeat("abcdefghij klmnopqrstuvwxyz ", size/28))
	for _, s := range []Spec{{Kind: QGram, N: 2}, {Kind: Set}, {Kind: Words}, {Kind: Shingle, N: 2}} {
		var sb SetBuilder
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sb.Reset(s)
		for start := 0; start < len(record); start += 64 << 10 {
			sb.Write(record[start:min(start+64<<10, len(record))])
		}
		keys, err := sb.AppendTo(nil)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(record)/4) {
			t.Errorf("%s: %d bytes allocated for a %d-byte record with %d distinct keys", s, alloc, len(record), len(keys))
		}
	}
}
