//go:build invariants

package order

import (
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/invtest"
)

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

// TestDictionaryCheckPanics checks that the dictionary's invariant check
// catches frequencies out of rare-first order and a key that does not map
// to its id.
func TestDictionaryCheckPanics(t *testing.T) {
	build := func() *Dictionary {
		in := new(Input)
		for _, s := range [][]uint64{{1, 2, 3, 5}, {2, 3, 5}, {3, 4}} {
			in.Add(s)
		}
		c, err := New(in)
		if err != nil {
			t.Fatal(err)
		}
		return c.Dict()
	}
	build().check()
	for name, breakIt := range map[string]func(d *Dictionary){
		"not rare first": func(d *Dictionary) { d.df[0], d.df[len(d.df)-1] = d.df[len(d.df)-1], d.df[0] },
		"key off its id": func(d *Dictionary) { d.keys[0], d.keys[1] = d.keys[1], d.keys[0] },
		"lengths":        func(d *Dictionary) { d.df = d.df[1:] },
	} {
		d := build()
		breakIt(d)
		invtest.Panics(t, name, "order: ", func() { d.check() })
	}
}
