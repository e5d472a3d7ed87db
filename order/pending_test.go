package order

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
)

// pendingRecords returns n records of sorted distinct keys: most keys held
// by one record (as hashes of shingles are), the rest from a shared pool,
// and some records empty.
func pendingRecords(seed uint64, n, size, pool int) [][]uint64 {
	r := rand.New(rand.NewPCG(seed, seed))
	recs := make([][]uint64, n)
	for i := range recs {
		if r.IntN(10) == 0 {
			continue
		}
		rec := make([]uint64, r.IntN(size+1))
		for j := range rec {
			if r.IntN(3) == 0 {
				rec[j] = mix.Mix64(uint64(r.IntN(pool)))
			} else {
				rec[j] = r.Uint64()
			}
		}
		slices.Sort(rec)
		recs[i] = slices.Compact(rec)
	}
	return recs
}

// addInBatches adds recs to in in batches of batch records (AddBatch).
func addInBatches(in *Input, recs [][]uint64, batch int) {
	for lo := 0; lo < len(recs); lo += batch {
		var keys []uint64
		offs := []int{0}
		for _, rec := range recs[lo:min(lo+batch, len(recs))] {
			keys = append(keys, rec...)
			offs = append(offs, len(keys))
		}
		in.AddBatch(keys, offs)
	}
}

// TestPendingSameOrder checks that keys that wait give the collection that
// entering them at once gives (a vocabulary sized by Grow), whether they are
// entered when the order is built or when pendingCap of them wait, added in
// batches or one record at a time, for 1 and 3 workers; and R-S builds of
// a waiting input with an entered one.
func TestPendingSameOrder(t *testing.T) {
	recs := pendingRecords(1, 3000, 60, 2000)
	build := func(name string, workers, capKeys int, batch int, grow bool) *Collection {
		t.Helper()
		defer func(c int) { pendingCap = c }(pendingCap)
		pendingCap = capKeys
		in := &Input{Workers: workers}
		if grow {
			in.Grow(1000) // tables made now: no key waits
		}
		if batch == 1 {
			for _, rec := range recs {
				in.AddSorted(rec)
			}
		} else {
			addInBatches(in, recs, batch)
		}
		if waiting := in.pend.n > 0; waiting != (!grow && capKeys > len(recs)*60) {
			t.Fatalf("%s: keys waiting %v before the build", name, waiting)
		}
		c, err := New(in)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	want := build("entered", 1, pendingCap, 64, true)
	for _, workers := range []int{1, 3} {
		for _, capKeys := range []int{1 << 30, 5000} {
			for _, batch := range []int{1, 64} {
				name := fmt.Sprintf("workers=%d/cap=%d/batch=%d", workers, capKeys, batch)
				sameOrder(t, name, build(name, workers, capKeys, batch, false), want)
			}
		}
	}
	// R-S: the first input's keys wait, the second's were entered.
	split := func(grow0, grow1 bool) []*Collection {
		ins := []*Input{{Workers: 2}, {Workers: 2}}
		for i, grow := range []bool{grow0, grow1} {
			if grow {
				ins[i].Grow(1000)
			}
		}
		addInBatches(ins[0], recs[:1000], 50)
		addInBatches(ins[1], recs[1000:], 50)
		cs, err := Build(ins...)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	rs := split(true, true)
	for _, g := range [][2]bool{{false, true}, {true, false}, {false, false}} {
		got := split(g[0], g[1])
		for k := range rs {
			sameOrder(t, fmt.Sprintf("R-S %v, collection %d", g, k), got[k], rs[k])
		}
	}
}

// sameOrder fails t unless got and want hold the same dictionary and the
// same sets in the same positions.
func sameOrder(t *testing.T, name string, got, want *Collection) {
	t.Helper()
	if !slices.Equal(got.Dict().keyList(), want.Dict().keyList()) || got.Dict().ones != want.Dict().ones ||
		!slices.Equal(got.Dict().df, want.Dict().df) {
		t.Fatalf("%s: dictionaries differ", name)
	}
	if !slices.Equal(got.tokens, want.tokens) || !slices.Equal(got.offs, want.offs) || !slices.Equal(got.ids, want.ids) {
		t.Fatalf("%s: collections differ", name)
	}
}

// TestPendingSizesOnce checks the length of the tables made for keys that
// waited: all the keys entered, and the tables together half to three
// quarters full (the sketch's count neither short, which would make them
// double, nor far over).
func TestPendingSizesOnce(t *testing.T) {
	for _, distinct := range []int{100, 30_000, 300_000} {
		in := new(Input)
		keys := make([]uint64, 0, distinct)
		for i := range distinct {
			keys = append(keys, mix.Mix64(uint64(i)+1))
		}
		// Every key twice, in records of 100.
		for range 2 {
			for lo := 0; lo < len(keys); lo += 100 {
				rec := slices.Clone(keys[lo:min(lo+100, len(keys))])
				slices.Sort(rec)
				in.AddSorted(rec)
			}
		}
		in.flush(0.125)
		slots := 0
		for s := range in.voc.tabs {
			slots += len(in.voc.tabs[s].Slots())
		}
		if in.voc.len() != distinct {
			t.Fatalf("distinct=%d: %d keys entered", distinct, in.voc.len())
		}
		if load := float64(distinct) / float64(slots); (load < 0.5 || load > 0.75) && distinct >= 30_000 {
			t.Errorf("distinct=%d: %d slots, %.2f full; want a table sized once, 0.5 to 0.75 full", distinct, slots, load)
		}
	}
}

// TestSketch checks the distinct count's estimate against the true count,
// within four standard errors (linear counting below 2.5 keys a register is
// closer still), on keys added once and on keys repeated.
func TestSketch(t *testing.T) {
	for _, n := range []int{0, 1, 100, 10_000, 40_000, 100_000, 1_000_000} {
		var s sketch
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(i) * 0x9e3779b97f4a7c15
		}
		s.addAll(keys)
		s.addAll(keys[:n/2]) // repeats count once
		got := s.estimate()
		if math.Abs(got-float64(n)) > 4*sketchError*float64(n)+1 {
			t.Errorf("%d distinct keys: estimated %.0f, off by more than 4 standard errors (%.1f%%)", n, got, 400*sketchError)
		}
	}
}

// TestPendingPeak checks that the tables a waiting Input makes are all the
// vocabulary allocates: the bytes allocated while adding the records and
// entering their keys are those of the waiting keys' chunks, the ids'
// chunks and the tables' final slots (16 bytes each), give or take 5%.
// (Tables that double from 256 slots allocate about twice their final
// length on the way.)
func TestPendingPeak(t *testing.T) {
	const distinct, size, batch = 400_000, 100, 2048
	var keys [][]uint64
	var offs [][]int
	for lo := 0; lo < distinct; lo += size * batch {
		ks, os := make([]uint64, 0, size*batch), []int{0}
		for r := lo; r < min(lo+size*batch, distinct); r += size {
			rec := make([]uint64, size)
			for j := range rec {
				rec[j] = mix.Mix64(uint64(r+j) + 1)
			}
			slices.Sort(rec)
			ks = append(ks, rec...)
			os = append(os, len(ks))
		}
		keys, offs = append(keys, ks), append(offs, os)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	in := new(Input)
	for i := range keys {
		in.AddBatch(keys[i], offs[i])
	}
	waiting := 0
	for _, c := range in.pend.chunks {
		waiting += 8 * cap(c)
	}
	in.flush(0.125)
	runtime.ReadMemStats(&after)
	want := waiting
	for _, c := range in.chunks {
		want += 4 * cap(c)
	}
	for s := range in.voc.tabs {
		want += 16 * len(in.voc.tabs[s].Slots())
	}
	if got := after.TotalAlloc - before.TotalAlloc; float64(got) > float64(want)*1.05+1<<18 {
		t.Errorf("adding %d distinct keys allocated %.1f MB, want %.1f (the waiting keys, the ids and the final tables)",
			distinct, float64(got)/1e6, float64(want)/1e6)
	}
}
