//go:build invariants

package join

import "testing"

// TestIdentityCheckPanics checks that the invariant check catches a broken
// Stats identity (this file builds only with -tags invariants).
func TestIdentityCheckPanics(t *testing.T) {
	ok := Stats{Postings: 9, Candidates: 5, Positional: 1, BoundPruned: 1, BitmapPruned: 1, Verified: 2}
	ok.checkIdentity()
	for _, bad := range []Stats{
		{Postings: 9, Candidates: 5, Verified: 2},
		{Postings: 3, Candidates: 5, Verified: 5},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", bad)
				}
			}()
			bad.checkIdentity()
		}()
	}
}
