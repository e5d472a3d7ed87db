package invtest

import (
	"testing"
)

// recorder is a testing.TB that records whether the test failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

// TestPanics checks that Panics passes a panic with the prefix and fails
// on no panic, on another message and on a panic that is not a string.
func TestPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		fail bool
	}{
		{"invariant panic", func() { panic("join: broken") }, false},
		{"no panic", func() {}, true},
		{"another package", func() { panic("order: broken") }, true},
		{"not a string", func() { panic(42) }, true},
	} {
		r := &recorder{}
		Panics(r, tc.name, "join: ", tc.f)
		if r.failed != tc.fail {
			t.Errorf("%s: failed = %v, want %v", tc.name, r.failed, tc.fail)
		}
	}
}
