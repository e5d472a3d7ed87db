//go:build invariants

package cluster

import (
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/invtest"
)

// TestForestCheckPanics checks that the forest's invariant check catches a
// cycle of links, a link out of range, a root whose size is not its
// membership, and fewer unions than merged records (this file builds only
// with -tags invariants).
func TestForestCheckPanics(t *testing.T) {
	good := func() *Forest {
		f := New(6)
		f.Union(0, 1)
		f.Union(2, 3)
		f.Union(1, 3)
		return f
	}
	good().check()
	for name, breakIt := range map[string]func(f *Forest){
		"cycle": func(f *Forest) {
			r := uint32(f.Find(0))
			for i, p := range f.parent {
				if uint32(i) != r && p == r {
					f.parent[r] = uint32(i) // r and its child link to each other
					return
				}
			}
		},
		"out of range": func(f *Forest) { f.parent[4] = 6 },
		"size":         func(f *Forest) { f.size[f.Find(0)]-- },
		"unions":       func(f *Forest) { f.unions = 1 },
	} {
		f := good()
		breakIt(f)
		invtest.Panics(t, name, "cluster: ", func() { f.check() })
	}
}
