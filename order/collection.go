package order

import (
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/internal/invariants"
)

// Collection holds token sets over a Dictionary's ids: each set sorted
// ascending (rare first) and de-duplicated, all sets in one uint32 arena with
// offsets, records ordered by size ascending, then by a fixed 64-bit hash of
// their tokens, then by original index, so that identical sets are adjacent
// (a hash collision between different sets of one size could separate
// copies; that costs a join only a probe, never a pair). Empty records are not
// stored; they are counted by Skipped. A Collection is immutable and safe for
// concurrent use.
type Collection struct {
	dict    *Dictionary
	tokens  []uint32 // every set, sorted ascending, one after another
	offs    []int    // set i is tokens[offs[i]:offs[i+1]]; offs[0] = 0, sizes non-decreasing
	ids     []uint32 // original 0-based record index, by position
	records int      // records given, empty ones included
	// group holds the first position of every run of identical sets, then
	// Len(): group g is positions group[g]..group[g+1]-1, all with one set,
	// whose ids ascend; adjacent groups hold different sets (computed once,
	// when the collection is built).
	group []uint32
}

// Dict returns the dictionary the collection's ids refer to.
func (c *Collection) Dict() *Dictionary { return c.dict }

// Len returns the number of non-empty records stored.
func (c *Collection) Len() int { return len(c.ids) }

// Records returns the number of records given, empty ones included.
func (c *Collection) Records() int { return c.records }

// Skipped returns the number of empty records, which never join.
func (c *Collection) Skipped() int { return c.records - len(c.ids) }

// Tokens returns the number of tokens stored, summed over all sets.
func (c *Collection) Tokens() int { return len(c.tokens) }

// Set returns the set at position i (0 <= i < Len()), in size order. The slice
// aliases the arena and must not be modified.
func (c *Collection) Set(i int) []uint32 { return c.tokens[c.offs[i]:c.offs[i+1]:c.offs[i+1]] }

// Arena returns every set, one after another in position order: Set(i) is
// Arena()[Offset(i) : Offset(i)+Size(i)]. For callers that keep their own
// offsets into it (a join keeps one per group, so that a set costs one
// lookup, not three). The slice aliases the collection and must not be
// modified.
func (c *Collection) Arena() []uint32 { return c.tokens }

// Offset returns where the set at position i begins in Arena.
func (c *Collection) Offset(i int) int { return c.offs[i] }

// Size returns len(Set(i)) without slicing.
func (c *Collection) Size(i int) int { return c.offs[i+1] - c.offs[i] }

// ID returns the original 0-based index of the record at position i.
func (c *Collection) ID(i int) int { return int(c.ids[i]) }

// Groups returns the number of runs of identical sets: the distinct
// non-empty sets (a hash collision between different sets of one size could
// split one set's copies into two runs; that costs a join a probe, never a
// pair).
func (c *Collection) Groups() int { return len(c.group) - 1 }

// Group returns the positions lo..hi-1 of group g (0 <= g < Groups()): its
// records all hold the set Set(lo), their ids ascending. Cost: O(1).
func (c *Collection) Group(g int) (lo, hi int) { return int(c.group[g]), int(c.group[g+1]) }

// findGroups computes c.group from the sets.
func (c *Collection) findGroups() {
	n := c.Len()
	c.group = make([]uint32, 0, n+1)
	for i := 0; i < n; i++ {
		if i == 0 || c.Size(i) != c.Size(i-1) || !slices.Equal(c.Set(i), c.Set(i-1)) {
			c.group = append(c.group, uint32(i))
		}
	}
	c.group = append(c.group, uint32(n))
	if invariants.Enabled {
		c.checkGroups()
	}
}

// checkGroups panics unless every group holds one set with ids ascending and
// no set stands in two groups: identical sets are adjacent (checked under
// -tags invariants; a hash collision between different sets of one size
// could in principle separate copies).
func (c *Collection) checkGroups() {
	seen := make(map[string]int, c.Groups())
	for g := range c.Groups() {
		lo, hi := c.Group(g)
		for i := lo + 1; i < hi; i++ {
			if !slices.Equal(c.Set(i), c.Set(lo)) || c.ids[i] <= c.ids[i-1] {
				panic(fmt.Sprintf("order: group %d: position %d holds another set or ids do not ascend", g, i))
			}
		}
		key := fmt.Sprint(c.Set(lo))
		if h, ok := seen[key]; ok {
			panic(fmt.Sprintf("order: groups %d and %d hold the same set: identical sets not adjacent", h, g))
		}
		seen[key] = g
	}
}

// Subset returns the collection of the records at positions pos (ascending,
// each 0 <= p < Len()) over the same Dictionary: the same ids and order, the
// sets copied into a new arena, ID(i) the parent's original index of the
// record. Records() is len(pos) and Skipped() zero. It serves to join a
// sample exactly as the whole would be joined. Cost: O(tokens of the subset).
func (c *Collection) Subset(pos []int) *Collection {
	n := 0
	for k, p := range pos {
		if k > 0 && p <= pos[k-1] {
			panic("order: Subset positions not ascending")
		}
		n += c.Size(p)
	}
	s := &Collection{
		dict:    c.dict,
		tokens:  make([]uint32, 0, n),
		offs:    make([]int, 1, len(pos)+1),
		ids:     make([]uint32, len(pos)),
		records: len(pos),
	}
	for k, p := range pos {
		s.tokens = append(s.tokens, c.Set(p)...)
		s.offs = append(s.offs, len(s.tokens))
		s.ids[k] = c.ids[p]
	}
	s.findGroups()
	return s
}
