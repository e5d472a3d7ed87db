//go:build invariants

package join

import (
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/testkit/invtest"
	"github.com/simjoin/simjoin/order"
)

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

// TestKeyIndexCheckPanics checks that the key index's invariant check
// catches a run out of group order, a mask that is not its group's, and a
// key placed where its hash slot does not lead.
func TestKeyIndexCheckPanics(t *testing.T) {
	sets := [][]uint64{{1, 2, 3}, {1, 2, 4}, {1, 2, 3, 5}, {2, 3, 4, 5}, {1, 3, 4, 5}}
	in := new(order.Input)
	for _, s := range sets {
		in.Add(s)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	s := groupsOf(c)
	masks := make([]uint64, s.groups())
	for g := range masks {
		masks[g] = TokenMask(s.set(g))
	}
	build := func() *keyIndex {
		ix, m, err := newKeyIndex(s, c.Dict().Len(), 2, func(n int) int { return n }, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m, masks) {
			t.Fatalf("newKeyIndex's group masks %x, want %x", m, masks)
		}
		return ix
	}
	build().check(masks)
	lens := []int32{0, 1, 2, 3, 4}
	build().checkIntro(s, lens)
	ix := build()
	ix.intro[len(ix.intro)-1] ^= 1
	invtest.Panics(t, "intro off", "join: ", func() { ix.checkIntro(s, lens) })
	for name, breakIt := range map[string]func(ix *keyIndex){
		"groups not ascending": func(ix *keyIndex) {
			for _, s := range ix.table.Slots() {
				if sl := unpackRun(s.Val); sl.end-sl.start >= 2 {
					ix.groups[sl.start], ix.groups[sl.start+1] = ix.groups[sl.start+1], ix.groups[sl.start]
					return
				}
			}
			t.Fatal("no run of two groups")
		},
		"mask not the group's": func(ix *keyIndex) { ix.masks[0] ^= 1 },
		"key off its slot": func(ix *keyIndex) {
			slots := ix.table.Slots()
			n := uint64(len(slots))
			for k, sl := range slots {
				if sl.Val != 0 {
					to := (uint64(k) + n/2) % n
					if slots[to].Val == 0 && uint64(ix.table.Home(keyHash(sl.Key))) != to {
						slots[to], slots[k] = sl, keymap.Slot[uint64]{}
						return
					}
				}
			}
			t.Fatal("no free slot to move a key to")
		},
	} {
		ix := build()
		breakIt(ix)
		invtest.Panics(t, name, "join: ", func() { ix.check(masks) })
	}
}

// TestSideCheckPanics checks that the check of a side's sizes catches a
// size table out of order and a wrong first group by size.
func TestSideCheckPanics(t *testing.T) {
	in := new(order.Input)
	for _, s := range [][]uint64{{1}, {1, 2}, {1, 2, 3}, {2, 3, 4}} {
		in.Add(s)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	groupsOf(c).check()
	s := groupsOf(c)
	s.size[0], s.size[1] = s.size[1], s.size[0]
	invtest.Panics(t, "sizes decreasing", "join: ", s.check)
	s = groupsOf(c)
	s.bySize[2]++
	invtest.Panics(t, "bySize off", "join: ", s.check)
}
