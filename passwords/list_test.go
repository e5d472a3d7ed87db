package passwords

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/join"
)

type entry struct {
	pw    string
	count uint64
	line  int
}

func entries(l *List) []entry {
	var out []entry
	for i := range l.Len() {
		out = append(out, entry{string(l.Password(i)), l.Count(i), l.Line(i)})
	}
	return out
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		opt  ReadOptions
		in   string
		want []entry
		st   ReadStats
	}{
		{"plain", ReadOptions{}, "a\nb\r\na\n\nc d\n\tx", []entry{{"a", 2, 1}, {"b", 1, 2}, {"c d", 1, 5}, {"\tx", 1, 6}},
			ReadStats{Lines: 6, Empty: 1, Duplicates: 1}},
		{"no final newline", ReadOptions{}, "x\ny", []entry{{"x", 1, 1}, {"y", 1, 2}}, ReadStats{Lines: 2}},
		{"empty input", ReadOptions{}, "", nil, ReadStats{}},
		{"only newline", ReadOptions{}, "\n", nil, ReadStats{Lines: 1, Empty: 1}},
		{"bytes kept", ReadOptions{}, "caf\xe9\n \n\r\r\n", []entry{{"caf\xe9", 1, 1}, {" ", 1, 2}, {"\r", 1, 3}}, ReadStats{Lines: 3}},
		{"count first", ReadOptions{Counts: CountFirst}, "10\tpassword\n  3\tpass\tword\n2\tpassword\n0\tzero\n", []entry{{"password", 12, 1}, {"pass\tword", 3, 2}, {"zero", 0, 4}},
			ReadStats{Lines: 4, Duplicates: 1}},
		{"count last", ReadOptions{Counts: CountLast}, "password\t10\npass\tword\t3 \n5\t\t7\n", []entry{{"password", 10, 1}, {"pass\tword", 3, 2}, {"5\t", 7, 3}},
			ReadStats{Lines: 3}},
		{"count, empty password", ReadOptions{Counts: CountFirst}, "4\t\n1\tx\n", []entry{{"x", 1, 2}}, ReadStats{Lines: 2, Empty: 1}},
		{"comments", ReadOptions{SkipComments: true}, "#!comment: hi\n#password\n#!comment:\n123\n", []entry{{"#password", 1, 2}, {"123", 1, 4}},
			ReadStats{Lines: 4, Comments: 2}},
		{"comments kept", ReadOptions{}, "#!comment: hi\n", []entry{{"#!comment: hi", 1, 1}}, ReadStats{Lines: 1}},
	}
	for _, tt := range tests {
		l, st, err := Read(strings.NewReader(tt.in), tt.opt)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := entries(l); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
		if st != tt.st {
			t.Errorf("%s: stats %+v, want %+v", tt.name, st, tt.st)
		}
	}
}

// TestReadErrors checks that malformed lines are reported by line number and
// cause, and that the message never holds the line's content.
func TestReadErrors(t *testing.T) {
	const secret = "Tr0ub4dor&3"
	tests := []struct {
		opt  ReadOptions
		in   string
		line int
		err  error
	}{
		{ReadOptions{Counts: CountFirst}, "1\tok\n" + secret + "\n", 2, ErrNoCount},
		{ReadOptions{Counts: CountFirst}, "x" + secret + "\t" + secret + "\n", 1, ErrBadCount},
		{ReadOptions{Counts: CountLast}, "ok\t1\n\n" + secret + "\t-3\n", 3, ErrBadCount},
		{ReadOptions{Counts: CountLast}, secret + "\t\n", 1, ErrBadCount},
		{ReadOptions{Counts: CountLast}, secret + "\t99999999999999999999999\n", 1, ErrBadCount},
		{ReadOptions{Counts: CountFirst}, "\n \n", 2, ErrNoCount},
	}
	for _, tt := range tests {
		_, _, err := Read(strings.NewReader(tt.in), tt.opt)
		var le *LineError
		if !errors.As(err, &le) || le.Line != tt.line || !errors.Is(err, tt.err) {
			t.Errorf("%q: error %v, want line %d: %v", tt.in, err, tt.line, tt.err)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "Tr0ub") {
			t.Errorf("error message leaks the password: %v", err)
		}
	}
}

func TestReadLongLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	l, st, err := Read(strings.NewReader("a\n"+long+"\nb\n"+long), ReadOptions{MaxLine: -1})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 3 || string(l.Password(1)) != long || l.Count(1) != 2 || st.Duplicates != 1 {
		t.Fatalf("got %d passwords, stats %+v", l.Len(), st)
	}
}

// TestListAgainstMap adds random passwords, many repeated, and compares the
// list with a map.
func TestListAgainstMap(t *testing.T) {
	seed := uint64(12345)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	var l List
	counts := map[string]uint64{}
	first := map[string]int{}
	var order []string
	for line := 1; line <= 50000; line++ {
		pw := fmt.Sprintf("%x", r.IntN(20000))
		if r.IntN(10) == 0 {
			pw += "\xff"
		}
		c := uint64(r.IntN(3))
		i, added, err := l.Add([]byte(pw), c, line)
		if err != nil {
			t.Fatal(err)
		}
		if _, seen := first[pw]; seen == added {
			t.Fatalf("line %d: added = %v for a password seen = %v", line, added, seen)
		}
		if added {
			first[pw] = line
			order = append(order, pw)
		}
		if string(l.Password(i)) != pw {
			t.Fatalf("line %d: index %d holds another password", line, i)
		}
		counts[pw] += c
	}
	if l.Len() != len(order) {
		t.Fatalf("%d passwords, want %d", l.Len(), len(order))
	}
	for i, pw := range order {
		if string(l.Password(i)) != pw || l.Count(i) != counts[pw] || l.Line(i) != first[pw] {
			t.Fatalf("password %d: %q ×%d line %d, want %q ×%d line %d", i, l.Password(i), l.Count(i), l.Line(i), pw, counts[pw], first[pw])
		}
		if j, ok := l.Index([]byte(pw)); !ok || j != i {
			t.Fatalf("Index(%q) = %d, %v; want %d", pw, j, ok, i)
		}
	}
	if _, ok := l.Index([]byte("not there")); ok {
		t.Fatal("Index found a password never added")
	}
}

func TestCountSaturates(t *testing.T) {
	var l List
	l.Add([]byte("x"), math.MaxUint64-1, 1)
	l.Add([]byte("x"), 5, 2)
	if l.Count(0) != math.MaxUint64 {
		t.Fatalf("count %d, want saturation", l.Count(0))
	}
}

// FuzzRead reads any input in every format: it either fails with a line
// error or holds exactly the non-empty passwords of the lines.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a\nb\r\na\n\n"), uint8(0))
	f.Add([]byte("3\tx\n4\tx\ty\n"), uint8(1))
	f.Add([]byte("x\t3\n\t4\n"), uint8(2))
	f.Add([]byte("#!comment: x\ny"), uint8(4))
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		opt := ReadOptions{Counts: Counts(mode % 3), SkipComments: mode&4 != 0}
		l, st, err := Read(bytes.NewReader(in), opt)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		var total uint64
		for i := range l.Len() {
			total += l.Count(i)
			if len(l.Password(i)) == 0 {
				t.Fatal("empty password kept")
			}
		}
		if opt.Counts == NoCounts {
			if int(total) != st.Lines-st.Empty-st.Comments {
				t.Fatalf("counts sum to %d for %+v", total, st)
			}
			if l.Len()+st.Duplicates+st.Empty+st.Comments != st.Lines {
				t.Fatalf("%d passwords do not add up with %+v", l.Len(), st)
			}
		}
	})
}

// repeatReader yields b over and over.
type repeatReader struct{ b []byte }

func (r repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], r.b)
	}
	return n, nil
}

// TestMaxLine: a line longer than MaxLine is an error naming its line and
// not its content, found without reading the line whole: memory stays
// bounded (a measured allocation ratio, not a time).
func TestMaxLine(t *testing.T) {
	in := "short\nalso short\n" + strings.Repeat("s3cret", 1000) + "\nafter\n"
	_, _, err := Read(strings.NewReader(in), ReadOptions{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err %v, want a LineError for line 3", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error shows the line: %v", err)
	}
	if _, _, err := Read(strings.NewReader(in), ReadOptions{MaxLine: -1}); err != nil {
		t.Errorf("no limit: %v", err)
	}
	if _, _, err := Read(strings.NewReader(in), ReadOptions{MaxLine: 6000}); err != nil {
		t.Errorf("a line of exactly MaxLine bytes: %v", err)
	}
	// A 64 MiB line: Read stops within its read buffer.
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = Read(io.LimitReader(repeatReader{[]byte("abcdefgh")}, size), ReadOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("64 MiB line: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/8 {
		t.Errorf("reading a %d-byte line allocated %d bytes, want at most 1/8 of it", size, alloc)
	}
}

// TestParseCounts: every Counts reads back from its name; "" is NoCounts;
// an unknown name is ErrCounts.
func TestParseCounts(t *testing.T) {
	for _, c := range []Counts{NoCounts, CountFirst, CountLast} {
		if got, err := ParseCounts(c.String()); got != c || err != nil {
			t.Errorf("ParseCounts(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if got, err := ParseCounts(""); got != NoCounts || err != nil {
		t.Errorf(`ParseCounts("") = %v, %v`, got, err)
	}
	if _, err := ParseCounts("middle"); !errors.Is(err, ErrCounts) {
		t.Errorf(`ParseCounts("middle"): %v, want ErrCounts`, err)
	}
}

// TestEstimateMemory: the estimate grows with the list's bytes and
// passwords, as join.EstimateMemory does with tokens and records.
func TestEstimateMemory(t *testing.T) {
	var l List
	if EstimateMemory(&l) != 0 {
		t.Errorf("empty list: %d bytes, want 0", EstimateMemory(&l))
	}
	l.Add([]byte("password1"), 1, 1)
	one := EstimateMemory(&l)
	l.Add([]byte("monkey12"), 1, 2)
	l.Add([]byte("password1"), 1, 3) // merged: no more bytes
	if two := EstimateMemory(&l); one <= 0 || two <= one || two != join.EstimateMemory(2, 17, 2) {
		t.Errorf("estimates %d then %d, want growing and join's for 2 passwords of 17 bytes", one, two)
	}
}

// TestListHashCollisions gives every password the same hash, so that all but
// the first go through the list's map of collided passwords, and checks Add
// and Index as for distinct hashes: indices in order of first appearance,
// counts summed, unknown passwords absent.
func TestListHashCollisions(t *testing.T) {
	defer func(h func(maphash.Seed, []byte) uint64) { hashOf = h }(hashOf)
	hashOf = func(maphash.Seed, []byte) uint64 { return 42 }
	var l List
	for n, pw := range []string{"a", "bb", "a", "ccc", "bb", "a"} {
		i, isNew, err := l.Add([]byte(pw), 1, n+1)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"a": 0, "bb": 1, "ccc": 2}[pw]
		if i != want || isNew != (n == 0 || n == 1 || n == 3) {
			t.Fatalf("Add(%q) = %d, %v; want %d, new %v", pw, i, isNew, want, n == 0 || n == 1 || n == 3)
		}
	}
	for pw, want := range map[string]int{"a": 0, "bb": 1, "ccc": 2} {
		if i, ok := l.Index([]byte(pw)); !ok || i != want {
			t.Errorf("Index(%q) = %d, %v; want %d", pw, i, ok, want)
		}
	}
	if _, ok := l.Index([]byte("dddd")); ok {
		t.Error("Index of a password never added found it")
	}
	if l.Len() != 3 || l.Count(0) != 3 || l.Count(1) != 2 || l.Count(2) != 1 || l.Line(2) != 4 {
		t.Errorf("Len %d, counts %d %d %d, line of ccc %d; want 3, 3 2 1, 4", l.Len(), l.Count(0), l.Count(1), l.Count(2), l.Line(2))
	}
}

// TestReadSizeHint checks that a list read with a size hint (too small,
// about right, far too large) holds the same passwords, counts and lines
// as one read without, that within the hint its arrays and table are not
// reallocated, and that Grow leaves a list that is not empty alone.
func TestReadSizeHint(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for range 20000 {
		fmt.Fprintf(&b, "%x\n", r.IntN(12000))
	}
	text := b.String()
	want, wst, err := Read(strings.NewReader(text), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, hint := range []int64{1, int64(len(text)) / 4, int64(len(text)), 1 << 30} {
		l, st, err := Read(strings.NewReader(text), ReadOptions{SizeHint: hint})
		if err != nil {
			t.Fatal(err)
		}
		if st != wst || fmt.Sprint(entries(l)) != fmt.Sprint(entries(want)) {
			t.Fatalf("hint %d: %d passwords (%+v), want %d (%+v)", hint, l.Len(), st, want.Len(), wst)
		}
	}
	var l List
	l.Grow(20000 * bytesPerPassword) // room for every line (they are shorter)
	ends, slots := cap(l.ends), len(l.byHash.Slots())
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if _, _, err := l.Add([]byte(line), 1, i+1); err != nil {
			t.Fatal(err)
		}
	}
	if cap(l.ends) != ends || len(l.byHash.Slots()) != slots {
		t.Errorf("within the hint: ends capacity %d -> %d, table %d -> %d slots; want unchanged", ends, cap(l.ends), slots, len(l.byHash.Slots()))
	}
	l.Grow(1 << 20)
	if cap(l.ends) != ends || l.Len() != want.Len() {
		t.Errorf("Grow of a list that is not empty changed it")
	}
}
