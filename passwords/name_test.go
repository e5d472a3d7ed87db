package passwords

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadName: with ReadOptions.Name every error of Read names the list, a
// line's error its line too; without, a line's error names the line only.
func TestReadName(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		opt      ReadOptions
		want     string
		line     int
		is       error
	}{
		{"", "3\tok\nx\tbad\n", ReadOptions{Counts: CountFirst}, "line 2: count is not an unsigned integer", 2, ErrBadCount},
		{"list.txt", "3\tok\nx\tbad\n", ReadOptions{Counts: CountFirst}, "list.txt:2: count is not an unsigned integer", 2, ErrBadCount},
		{"<stdin>", "short\ntoo long\n", ReadOptions{MaxLine: 5}, "<stdin>:2: line longer than the limit: more than 5 bytes", 2, ErrLineTooLong},
	} {
		tc.opt.Name = tc.name
		_, _, err := Read(strings.NewReader(tc.in), tc.opt)
		var le *LineError
		if !errors.As(err, &le) || le.Line != tc.line || le.Name != tc.name || !errors.Is(err, tc.is) || err.Error() != tc.want {
			t.Errorf("Read named %q: %v, want %q", tc.name, err, tc.want)
		}
	}
	boom := errors.New("boom")
	_, _, err := Read(iotest.ErrReader(boom), ReadOptions{Name: "list.txt"})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 0 || !errors.Is(err, boom) || err.Error() != "list.txt: boom" {
		t.Errorf("a read error: %v, want list.txt: boom", err)
	}
	if l, _, err := Read(strings.NewReader("a\nb\n"), ReadOptions{Name: "list.txt"}); err != nil || l.Len() != 2 {
		t.Errorf("a good list: %v", err)
	}
}
