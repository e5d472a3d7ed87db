//go:build invariants

package order

import "testing"

// TestGroupsCheckPanics checks that the invariant check catches identical
// sets that are not adjacent (this file builds only with -tags invariants).
func TestGroupsCheckPanics(t *testing.T) {
	c := &Collection{tokens: []uint32{1, 2, 1}, offs: []int{0, 1, 2, 3}, ids: []uint32{0, 1, 2}, records: 3}
	defer func() {
		if recover() == nil {
			t.Error("sets {1}, {2}, {1}: no panic")
		}
	}()
	c.findGroups()
}
