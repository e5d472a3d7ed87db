//go:build invariants

package approx

import (
	"fmt"
	"testing"

	"github.com/simjoin/simjoin/internal/invariants/invtest"
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
		invtest.Panics(t, fmt.Sprintf("%d values", len(sig)), "approx: ", func() { s.Put(1, sig) })
	}
}
