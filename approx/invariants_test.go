//go:build invariants

package approx

import (
	"strings"
	"testing"
)

// TestPutCheckPanics checks that Put refuses a signature whose length is not
// K, which it would otherwise cut short or overrun silently (this file
// builds only with -tags invariants).
func TestPutCheckPanics(t *testing.T) {
	s, err := NewSignatures(2, 4, 16)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(0, []uint64{1, 2, 3, 4})
	for _, sig := range [][]uint64{{1, 2, 3}, {1, 2, 3, 4, 5}} {
		func() {
			defer func() {
				if msg, ok := recover().(string); !ok || !strings.HasPrefix(msg, "approx: ") {
					t.Errorf("%d values: no invariant panic (got %v)", len(sig), msg)
				}
			}()
			s.Put(1, sig)
		}()
	}
}
