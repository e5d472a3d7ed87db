package shingle_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/shingle"
)

// TestBugAppendBadLengthPanics: Spec.Append checks the length only for Go
// (AppendGo returns ErrSpec); for QGram and Shingle a Spec built by hand
// with N outside 1..MaxN panics (shingle:0 divides by zero, shingle:65 and
// qgram:65 index past a fixed-size ring) instead of returning ErrSpec.
// qgram:0 silently yields no keys.
func TestBugAppendBadLengthPanics(t *testing.T) {
	for _, spec := range []shingle.Spec{
		{Kind: shingle.Shingle, N: 0},
		{Kind: shingle.Shingle, N: shingle.MaxN + 1},
		{Kind: shingle.QGram, N: shingle.MaxN + 1},
		{Kind: shingle.QGram, N: 0},
		{Kind: shingle.QGram, N: -1},
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			_, err = spec.Append(nil, strings.Repeat("word ", 100))
			return err
		}()
		if !errors.Is(err, shingle.ErrSpec) {
			t.Errorf("Spec{%s, N: %d}.Append: %v; want ErrSpec", spec.Kind, spec.N, err)
		}
	}
}
