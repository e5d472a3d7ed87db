package fileset

import (
	"errors"
	"testing"
)

// TestFlagsCheck: each mistake in the file selection flags gets its message,
// the first in the order Filter documents; good flags give the globs' filter.
func TestFlagsCheck(t *testing.T) {
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{MinTokens: -1, Files: true}, "--min-tokens must be >= 0"},
		{Flags{MinTokens: -1, Include: []string{"x"}}, "--min-tokens must be >= 0"},
		{Flags{Include: []string{"x"}, Exclude: []string{"y"}}, "--include needs --files"},
		{Flags{Exclude: []string{"y"}}, "--exclude needs --files"},
		{Flags{MinTokens: 2}, "--min-tokens needs --files"},
		{Flags{KeepGoing: true}, "--keep-going needs --files"},
		{Flags{Files: true, Include: []string{"["}}, `bad glob "[": malformed [class]`},
	} {
		if _, err := tc.f.Filter(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.f, err, tc.want)
		}
	}
	if _, err := (Flags{Files: true, Exclude: []string{"[a"}}).Filter(); !errors.Is(err, ErrBadGlob) {
		t.Errorf("a bad exclude glob: %v, want ErrBadGlob", err)
	}
	for _, f := range []Flags{{}, {Files: true}, {Files: true, MinTokens: 3, KeepGoing: true}} {
		if filter, err := f.Filter(); err != nil || filter != nil {
			t.Errorf("%+v: %v, %v; want no filter and no error", f, filter, err)
		}
	}
	filter, err := Flags{Files: true, Include: []string{"*.go"}, Exclude: []string{"*_test.go"}}.Filter()
	if err != nil || !filter.Keep("a/b.go") || filter.Keep("a/b_test.go") || filter.Keep("a/b.txt") {
		t.Errorf("the filter of *.go without *_test.go: %v", err)
	}
}
