package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkInts compares AppendInts with Set's keys on record: when it accepts
// the record, IntKey of its values are appendFields' keys, in order, and
// every field is the canonical spelling of its value; when it refuses, some
// field is not.
func checkInts(t *testing.T, record string) {
	t.Helper()
	prefix := []uint32{42}
	vals, ok := AppendInts(prefix, record)
	fields := strings.FieldsFunc(record, func(r rune) bool { return r < 256 && isSpace(byte(r)) })
	canonical := true
	for _, f := range fields {
		v, err := strconv.ParseUint(f, 10, 32)
		if err != nil || v >= IntLimit || strconv.FormatUint(v, 10) != f {
			canonical = false
		}
	}
	if ok != canonical {
		t.Fatalf("AppendInts(%q) reports %v; canonical fields: %v", record, ok, canonical)
	}
	if !ok {
		if !slices.Equal(vals, prefix) {
			t.Fatalf("AppendInts(%q) refused but returned %v", record, vals)
		}
		return
	}
	if len(record) > PieceBytes {
		// A long record gives its distinct values, sorted.
		var want []uint32
		for _, f := range fields {
			v, _ := strconv.ParseUint(f, 10, 32)
			want = append(want, uint32(v))
		}
		slices.Sort(want)
		if want = slices.Compact(want); !slices.Equal(vals[1:], want) || vals[0] != 42 {
			t.Fatalf("AppendInts of a record of %d bytes: %d values, want %d distinct", len(record), len(vals)-1, len(want))
		}
		return
	}
	keys := appendFields(nil, record)
	if len(vals) != 1+len(keys) || vals[0] != 42 {
		t.Fatalf("AppendInts(%q) = %v, want 42 then %d values", record, vals, len(keys))
	}
	for i, v := range vals[1:] {
		if IntKey(v) != keys[i] {
			t.Fatalf("AppendInts(%q): value %d is %d, key %x; Set's key %x", record, i, v, IntKey(v), keys[i])
		}
		if strconv.FormatUint(uint64(v), 10) != fields[i] {
			t.Fatalf("AppendInts(%q): value %d is %d, field %q", record, i, v, fields[i])
		}
	}
}

func TestAppendInts(t *testing.T) {
	for _, rec := range []string{
		"", " ", "\t\n", "0", "7", "0 1 2", " 12  345\t6789 ", "16777215", "16777216", "99999999",
		"123456789", "00", "01", "0 01", "-1", "+1", "1a", "a1", "1.5", "1\x00", "1\v2\f3\r",
		"4294967296", "18446744073709551616", "10 10 10", "\xff", "٣",
	} {
		checkInts(t, rec)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			switch rng.IntN(20) {
			case 0:
				b.WriteString("0")
			case 1:
				b.WriteString("0" + strconv.Itoa(rng.IntN(100)))
			case 2:
				b.WriteString(strconv.Itoa(IntLimit - 2 + rng.IntN(4)))
			case 3:
				b.WriteString("x")
			default:
				b.WriteString(strconv.Itoa(rng.IntN(1 << (rng.IntN(24) + 1))))
			}
			b.WriteString([]string{" ", "\t", "  ", "\r\n"}[rng.IntN(4)])
		}
		checkInts(t, b.String())
	}
}

// TestAppendIntsLong checks records longer than PieceBytes: their distinct
// values, sorted, with a refusal found in any piece.
func TestAppendIntsLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, distinct := range []int{1, 1000, 200_000} {
		var b strings.Builder
		for b.Len() < 3*PieceBytes {
			b.WriteString(strconv.Itoa(rng.IntN(distinct)))
			b.WriteString(" ")
		}
		checkInts(t, b.String())
		checkInts(t, b.String()+" 01")
		checkInts(t, "x "+b.String())
	}
}

func FuzzAppendInts(f *testing.F) {
	for _, s := range []string{"", "0 1 2", "01", "16777216", " 5\t6 "} {
		f.Add(s)
	}
	f.Fuzz(checkInts)
}

// TestIntKeysDistinct checks what IntLimit promises: the keys of the values
// below it are distinct (with -long all of them, about 2 s; without it the
// first 2^20). A value stands for its field in order.Input.AddValues only
// because of this.
func TestIntKeysDistinct(t *testing.T) {
	n := uint32(1 << 20)
	if *long {
		n = IntLimit
	}
	keys := make([]uint64, n)
	for v := range n {
		keys[v] = IntKey(v)
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			t.Fatalf("two values below %d share the key %x", n, keys[i])
		}
	}
}

func BenchmarkAppendInts(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	var lines []string
	bytes := 0
	for range 2000 {
		var sb strings.Builder
		for range 10 + rng.IntN(41) {
			sb.WriteString(strconv.Itoa(rng.IntN(1_000_000)))
			sb.WriteByte(' ')
		}
		lines = append(lines, sb.String())
		bytes += sb.Len()
	}
	for _, impl := range []string{"ints", "keys"} {
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(bytes))
			vals := make([]uint32, 0, 64)
			keys := make([]uint64, 0, 64)
			for b.Loop() {
				for _, l := range lines {
					if impl == "ints" {
						vals, _ = AppendInts(vals[:0], l)
					} else {
						keys = appendFields(keys[:0], l)
					}
				}
			}
		})
	}
}

func BenchmarkIntKey(b *testing.B) {
	var sink uint64
	for _, top := range []uint32{1000, 4_000_000} {
		b.Run(fmt.Sprintf("below=%d", top), func(b *testing.B) {
			v := uint32(0)
			for b.Loop() {
				sink += IntKey(v)
				v++
				if v == top {
					v = 0
				}
			}
		})
	}
	_ = sink
}

// checkGramValues compares AppendGramValues with AppendQGrams on record:
// when it accepts the record, GramValues{n}.Key of its values are
// AppendQGrams's keys, in order (for a record longer than PieceBytes, the
// distinct keys, by value); when it refuses, the record is not ASCII or n
// is out of range.
func checkGramValues(t *testing.T, record string, n int) {
	t.Helper()
	prefix := []uint32{42}
	vals, ok := AppendGramValues(prefix, record, n)
	ascii := n >= 1 && n <= MaxGramValues
	for i := 0; i < len(record); i++ {
		ascii = ascii && record[i] < 0x80
	}
	if ok != ascii {
		t.Fatalf("AppendGramValues(%q, %d) reports %v; want %v", record, n, ok, ascii)
	}
	if !ok {
		if !slices.Equal(vals, prefix) {
			t.Fatalf("AppendGramValues(%q, %d) refused but returned %v", record, n, vals)
		}
		return
	}
	keys := AppendQGrams(nil, record, n)
	if len(record) > PieceBytes {
		var want []uint32
		for i := 0; i+n <= len(record); i++ {
			v := uint32(0)
			for _, c := range []byte(record[i : i+n]) {
				v = v<<7 | uint32(c)
			}
			want = append(want, v)
		}
		slices.Sort(want)
		if want = slices.Compact(want); !slices.Equal(vals[1:], want) {
			t.Fatalf("AppendGramValues of a record of %d bytes: %d values, want %d distinct", len(record), len(vals)-1, len(want))
		}
		for _, v := range vals[1:] {
			if !slices.Contains(keys, GramValues{N: n}.Key(v)) {
				t.Fatalf("value %d's key %x is no gram's key", v, GramValues{N: n}.Key(v))
			}
		}
		return
	}
	if len(vals) != 1+len(keys) || vals[0] != 42 {
		t.Fatalf("AppendGramValues(%q, %d) = %d values, want 42 then %d", record, n, len(vals), len(keys))
	}
	for i, v := range vals[1:] {
		if k := (GramValues{N: n}).Key(v); k != keys[i] {
			t.Fatalf("AppendGramValues(%q, %d): value %d is %d, key %x; AppendQGrams's key %x", record, n, i, v, k, keys[i])
		}
	}
}

func TestAppendGramValues(t *testing.T) {
	for _, rec := range []string{"", "a", "ab", "abc", "abcd", "hello world", "\x00\x7f\x01", "caf\u00e9", "\x80", "ab\xffc", "P@ssw0rd!"} {
		for n := 0; n <= MaxGramValues+1; n++ {
			checkGramValues(t, rec, n)
		}
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for range 1000 {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(0x80))
			if rng.IntN(200) == 0 {
				b[i] = 0xc3
			}
		}
		checkGramValues(t, string(b), 1+rng.IntN(MaxGramValues))
	}
	var long strings.Builder
	for long.Len() < 2*PieceBytes+5 {
		long.WriteByte(byte('a' + rng.IntN(20)))
	}
	for n := 1; n <= MaxGramValues; n++ {
		checkGramValues(t, long.String(), n)
	}
	checkGramValues(t, long.String()+"\u00e9", 2)
}

func FuzzAppendGramValues(f *testing.F) {
	f.Add("password", 2)
	f.Add("caf\u00e9", 3)
	f.Fuzz(func(t *testing.T, record string, n int) {
		if n < -1 || n > MaxN {
			return
		}
		checkGramValues(t, record, n)
	})
}
