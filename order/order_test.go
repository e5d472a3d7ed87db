package order_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/order"
)

// TestBuild checks the collection against a direct computation: ids are
// rare-first, sets sorted and distinct, records by size, original ids kept,
// and every set holds the same keys it was given.
func TestBuild(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		var raw [][]uint64
		in, in2 := new(order.Input), new(order.Input)
		for i := r.IntN(300); i > 0; i-- {
			var keys []uint64
			for k := r.IntN(12); k > 0; k-- {
				keys = append(keys, uint64(r.IntN(40))*0x9e3779b97f4a7c15)
			}
			raw = append(raw, keys)
			in.Add(keys)
			in2.Add(keys)
		}
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		if in.Len() != 0 {
			t.Fatalf("seed %d: input not consumed", seed)
		}
		d := c.Dict()
		for id := 1; id < d.Len(); id++ {
			a, b := d.DF(uint32(id-1)), d.DF(uint32(id))
			if a > b {
				t.Fatalf("seed %d: ids %d, %d not rare-first", seed, id-1, id)
			}
		}
		// FirstShared is the first id of document frequency 2 or more.
		if fs := int(d.FirstShared()); fs > d.Len() || fs < d.Len() && d.DF(uint32(fs)) < 2 || fs > 0 && d.DF(uint32(fs-1)) != 1 {
			t.Fatalf("seed %d: FirstShared %d of %d tokens", seed, fs, d.Len())
		}
		if c.Records() != len(raw) {
			t.Fatalf("seed %d: %d records, want %d", seed, c.Records(), len(raw))
		}
		empty := 0
		for _, k := range raw {
			if len(k) == 0 {
				empty++
			}
		}
		if c.Skipped() != empty {
			t.Fatalf("seed %d: skipped %d, want %d", seed, c.Skipped(), empty)
		}
		for i := 0; i < c.Len(); i++ {
			set := c.Set(i)
			if !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
				t.Fatalf("seed %d: set %d not sorted and distinct: %v", seed, i, set)
			}
			if i > 0 && c.Size(i) < c.Size(i-1) {
				t.Fatalf("seed %d: records not by size", seed)
			}
			want := slices.Clone(raw[c.ID(i)])
			slices.Sort(want)
			want = slices.Compact(want)
			var got []uint64
			for _, id := range set {
				got = append(got, d.Key(id))
				if k, ok := d.Lookup(d.Key(id)); !ok || k != id {
					t.Fatalf("seed %d: Lookup(Key(%d)) = %d, %v", seed, id, k, ok)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: record %d holds %v, want %v", seed, c.ID(i), got, want)
			}
		}
		// The same input gives the same collection.
		c2, _ := order.New(in2)
		for i := 0; i < c.Len(); i++ {
			if c.ID(i) != c2.ID(i) || !slices.Equal(c.Set(i), c2.Set(i)) {
				t.Fatalf("seed %d: build not deterministic at %d", seed, i)
			}
		}
	}
}

// TestBuildShared checks that R and S share one order whose frequencies count
// both, and that Map places unknown keys past the vocabulary.
func TestBuildShared(t *testing.T) {
	r, s := new(order.Input), new(order.Input)
	r.Add([]uint64{1, 2, 3})
	r.Add([]uint64{3})
	s.Add([]uint64{3, 4})
	s.Add(nil)
	cs, err := order.Build(r, s)
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].Dict() != cs[1].Dict() {
		t.Fatal("collections do not share a dictionary")
	}
	d := cs[0].Dict()
	id3, _ := d.Lookup(3)
	if d.DF(id3) != 3 || d.Len() != 4 || int(id3) != d.Len()-1 {
		t.Fatalf("key 3: id %d df %d of %d tokens; want the last id with df 3", id3, d.DF(id3), d.Len())
	}
	if cs[1].Skipped() != 1 || cs[1].Len() != 1 {
		t.Fatalf("S: %d stored, %d skipped", cs[1].Len(), cs[1].Skipped())
	}
	got := d.Map(nil, []uint64{99, 3, 98})
	if len(got) != 3 || got[0] != id3 || got[1] != uint32(d.Len()) || got[2] != uint32(d.Len()+1) {
		t.Fatalf("Map = %v", got)
	}
}

// TestAddBatch checks that entering records in parallel batches gives the
// same collection as entering them one by one.
func TestAddBatch(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 6))
		one, batched := new(order.Input), new(order.Input)
		for b := 0; b < 8; b++ {
			var keys []uint64
			offs := []int{0}
			for i := r.IntN(3000); i > 0; i-- {
				rec := make([]uint64, 0, 20)
				for k := r.IntN(20); k > 0; k-- {
					rec = append(rec, uint64(r.IntN(5000)))
				}
				slices.Sort(rec)
				rec = slices.Compact(rec)
				one.AddSorted(rec)
				keys = append(keys, rec...)
				offs = append(offs, len(keys))
			}
			batched.AddBatch(keys, offs)
		}
		a, err1 := order.New(one)
		b, err2 := order.New(batched)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a.Len() != b.Len() || a.Dict().Len() != b.Dict().Len() {
			t.Fatalf("seed %d: %d/%d records, %d/%d tokens", seed, a.Len(), b.Len(), a.Dict().Len(), b.Dict().Len())
		}
		for i := 0; i < a.Len(); i++ {
			if a.ID(i) != b.ID(i) || !slices.Equal(a.Set(i), b.Set(i)) {
				t.Fatalf("seed %d: record %d differs", seed, i)
			}
		}
		for id := uint32(0); id < uint32(a.Dict().Len()); id++ {
			if a.Dict().Key(id) != b.Dict().Key(id) {
				t.Fatalf("seed %d: token %d differs", seed, id)
			}
		}
	}
}

// TestSubset checks that a subset keeps the parent's sets, ids, dictionary
// and size order.
func TestSubset(t *testing.T) {
	in := new(order.Input)
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 500; i++ {
		var keys []uint64
		for k := r.IntN(15); k > 0; k-- {
			keys = append(keys, uint64(r.IntN(100)))
		}
		in.Add(keys)
	}
	c, _ := order.New(in)
	var pos []int
	for p := 0; p < c.Len(); p += 1 + r.IntN(4) {
		pos = append(pos, p)
	}
	s := c.Subset(pos)
	if s.Dict() != c.Dict() || s.Len() != len(pos) || s.Records() != len(pos) || s.Skipped() != 0 {
		t.Fatalf("subset: dict shared %v, %d records of %d", s.Dict() == c.Dict(), s.Len(), len(pos))
	}
	for k, p := range pos {
		if s.ID(k) != c.ID(p) || !slices.Equal(s.Set(k), c.Set(p)) {
			t.Fatalf("subset record %d differs from parent position %d", k, p)
		}
		if k > 0 && s.Size(k) < s.Size(k-1) {
			t.Fatal("subset not in size order")
		}
	}
}

// TestGroups checks the groups of identical sets on collections with many
// copies, and on a Subset: every group holds one set with ids ascending,
// adjacent groups differ, and there is one group per distinct non-empty set.
func TestGroups(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		in := new(order.Input)
		distinct := map[string]bool{}
		for range 2000 {
			n := r.IntN(5)
			set := make([]uint64, 0, n)
			for range n {
				set = append(set, uint64(r.IntN(6)))
			}
			in.Add(set)
			if k := fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(set)))); n > 0 {
				distinct[k] = true
			}
		}
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, c *order.Collection, want int) {
			t.Helper()
			if c.Groups() != want && want >= 0 {
				t.Fatalf("%s: %d groups, want %d distinct sets", what, c.Groups(), want)
			}
			next := 0
			for g := range c.Groups() {
				lo, hi := c.Group(g)
				if lo != next || hi <= lo {
					t.Fatalf("%s: group %d is [%d, %d), want it to start at %d", what, g, lo, hi, next)
				}
				for i := lo + 1; i < hi; i++ {
					if !slices.Equal(c.Set(i), c.Set(lo)) || c.ID(i) <= c.ID(i-1) {
						t.Fatalf("%s: group %d: position %d differs or ids not ascending", what, g, i)
					}
				}
				if g > 0 && slices.Equal(c.Set(lo), c.Set(lo-1)) {
					t.Fatalf("%s: groups %d and %d hold the same set", what, g-1, g)
				}
				next = hi
			}
			if next != c.Len() {
				t.Fatalf("%s: groups cover %d of %d positions", what, next, c.Len())
			}
		}
		check("collection", c, len(distinct))
		var pos []int
		for i := 0; i < c.Len(); i += 1 + r.IntN(3) {
			pos = append(pos, i)
		}
		check("subset", c.Subset(pos), -1)
	}
}

// TestAddBatchAnyCores checks that the batches entered by one, two or three
// goroutines (each taking its shards of every window of keys) give the same
// collection.
func TestAddBatchAnyCores(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	var keys []uint64
	offs := []int{0}
	for range 4000 {
		rec := make([]uint64, 0, 30)
		for k := 1 + r.IntN(30); k > 0; k-- {
			rec = append(rec, r.Uint64N(20000)*0x9e3779b97f4a7c15)
		}
		slices.Sort(rec)
		rec = slices.Compact(rec)
		keys = append(keys, rec...)
		offs = append(offs, len(keys))
	}
	build := func(procs int) *order.Collection {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		in := new(order.Input)
		in.AddBatch(keys[:offs[2000]], offs[:2001])
		rest := slices.Clone(offs[2000:])
		for i := range rest {
			rest[i] -= offs[2000]
		}
		in.AddBatch(keys[offs[2000]:], rest)
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	want := build(1)
	for _, procs := range []int{2, 3} {
		got := build(procs)
		if got.Len() != want.Len() || got.Dict().Len() != want.Dict().Len() {
			t.Fatalf("%d cores: %d records, %d tokens; one core: %d, %d", procs, got.Len(), got.Dict().Len(), want.Len(), want.Dict().Len())
		}
		for i := range want.Len() {
			if got.ID(i) != want.ID(i) || !slices.Equal(got.Set(i), want.Set(i)) {
				t.Fatalf("%d cores: record %d differs", procs, i)
			}
		}
		for id := range uint32(want.Dict().Len()) {
			if got.Dict().Key(id) != want.Dict().Key(id) || got.Dict().DF(id) != want.Dict().DF(id) {
				t.Fatalf("%d cores: token %d differs", procs, id)
			}
		}
	}
}

// TestSameForAnyWorkers checks that Input.Workers changes nothing: a self
// collection (New) and an R-S pair (Build), entered in batches large enough
// to be split over the workers, are identical for 1, 2 and 3 workers
// (GOMAXPROCS raised to 4 meanwhile, so that 3 goroutines do run): the
// dictionary (keys, frequencies, lookups) and every record, set and group.
func TestSameForAnyWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
	const seed = 13
	t.Logf("rng seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	type batch struct {
		keys []uint64
		offs []int
	}
	var batches [3]batch // self, then R and S
	for b := range batches {
		batches[b].offs = []int{0}
		for range 5000 {
			rec := make([]uint64, 0, 40)
			for k := r.IntN(40); k > 0; k-- {
				rec = append(rec, r.Uint64N(30000)*0x9e3779b97f4a7c15)
			}
			if r.IntN(10) == 0 && b > 0 { // copies, within and across R and S
				rec = append(rec[:0], 1, 2, 3)
			}
			slices.Sort(rec)
			rec = slices.Compact(rec)
			batches[b].keys = append(batches[b].keys, rec...)
			batches[b].offs = append(batches[b].offs, len(batches[b].keys))
		}
	}
	input := func(workers int, b batch) *order.Input {
		in := &order.Input{Workers: workers}
		half := len(b.offs) / 2
		rest := slices.Clone(b.offs[half:])
		for i := range rest {
			rest[i] -= b.offs[half]
		}
		in.AddBatch(b.keys[:b.offs[half]], b.offs[:half+1])
		in.Add([]uint64{7, 5, 7}) // one record on its own, unsorted
		in.AddBatch(b.keys[b.offs[half]:], rest)
		return in
	}
	build := func(workers int) []*order.Collection {
		self, err := order.New(input(workers, batches[0]))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := order.Build(input(workers, batches[1]), input(workers, batches[2]))
		if err != nil {
			t.Fatal(err)
		}
		return []*order.Collection{self, rs[0], rs[1]}
	}
	want := build(1)
	for _, workers := range []int{2, 3} {
		got := build(workers)
		for k := range want {
			sameCollection(t, fmt.Sprintf("%d workers, collection %d", workers, k), got[k], want[k])
		}
	}
}

// sameCollection fails t unless got and want are the same collection over
// the same dictionary, exactly.
func sameCollection(t *testing.T, name string, got, want *order.Collection) {
	t.Helper()
	gd, wd := got.Dict(), want.Dict()
	if gd.Len() != wd.Len() {
		t.Fatalf("%s: %d tokens, want %d", name, gd.Len(), wd.Len())
	}
	for id := range uint32(wd.Len()) {
		if gd.Key(id) != wd.Key(id) || gd.DF(id) != wd.DF(id) {
			t.Fatalf("%s: token %d: key %#x df %d, want %#x df %d", name, id, gd.Key(id), gd.DF(id), wd.Key(id), wd.DF(id))
		}
		if got, ok := gd.Lookup(wd.Key(id)); !ok || got != id {
			t.Fatalf("%s: Lookup of token %d's key: %d, %v", name, id, got, ok)
		}
	}
	if got.Len() != want.Len() || got.Records() != want.Records() || got.Tokens() != want.Tokens() || got.Groups() != want.Groups() {
		t.Fatalf("%s: %d/%d records, %d tokens, %d groups; want %d/%d, %d, %d", name, got.Len(), got.Records(), got.Tokens(), got.Groups(),
			want.Len(), want.Records(), want.Tokens(), want.Groups())
	}
	for i := range want.Len() {
		if got.ID(i) != want.ID(i) || got.Offset(i) != want.Offset(i) || !slices.Equal(got.Set(i), want.Set(i)) {
			t.Fatalf("%s: record %d differs", name, i)
		}
	}
	for g := range want.Groups() {
		glo, ghi := got.Group(g)
		wlo, whi := want.Group(g)
		if glo != wlo || ghi != whi {
			t.Fatalf("%s: group %d is [%d, %d), want [%d, %d)", name, g, glo, ghi, wlo, whi)
		}
	}
}
