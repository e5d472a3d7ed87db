package shingle_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/shingle"
)

// TestAppendBadLength checks that a Spec built by hand with a length outside
// 1..MaxN gets ErrSpec from Append, not a panic (shingle:0 once divided by
// zero, shingle:65 and qgram:65 indexed past a fixed-size ring) and not a
// silent empty set (qgram:0).
func TestAppendBadLength(t *testing.T) {
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
