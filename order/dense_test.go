package order_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// intRecords returns n records of values: sizes up to maxSize, values
// skewed towards 0 below universe, repeats within a record, and some empty
// records.
func intRecords(r *rand.Rand, n, maxSize int, universe uint32) [][]uint32 {
	recs := make([][]uint32, n)
	for i := range recs {
		rec := make([]uint32, r.IntN(maxSize+1))
		for j := range rec {
			// Half the values from the first sixteenth of the universe.
			u := universe
			if r.IntN(2) == 0 {
				u = max(1, universe/16)
			}
			rec[j] = r.Uint32N(u)
		}
		recs[i] = rec
	}
	return recs
}

// keysOf returns the keys of rec's values, the keys shingle's Set gives
// their decimal fields.
func keysOf(rec []uint32) []uint64 {
	keys := make([]uint64, len(rec))
	for i, v := range rec {
		keys[i] = shingle.IntKey(v)
	}
	return keys
}

// byKeys is the reference: every record added by its keys.
func byKeys(recs [][]uint32) *order.Input {
	in := new(order.Input)
	for _, rec := range recs {
		in.Add(keysOf(rec))
	}
	return in
}

// addMixed adds recs to in in batches of random lengths, each batch as
// values (AddInts) with probability intShare, else by keys (AddBatch, or
// Add one by one).
func addMixed(r *rand.Rand, in *order.Input, recs [][]uint32, intShare float64) {
	for lo := 0; lo < len(recs); {
		hi := min(len(recs), lo+1+r.IntN(300))
		switch {
		case r.Float64() < intShare:
			var vals []uint32
			offs := []int{0}
			for _, rec := range recs[lo:hi] {
				vals = append(vals, rec...)
				offs = append(offs, len(vals))
			}
			in.AddInts(vals, offs)
		default:
			for _, rec := range recs[lo:hi] {
				in.Add(keysOf(rec))
			}
		}
		lo = hi
	}
}

// TestAddInts checks that records added as values give exactly the
// collection and dictionary their keys give, on the dense road, on the
// road that moves to keys part way (a batch by keys, or values too large
// for the array), and in R-S builds.
func TestAddInts(t *testing.T) {
	type shape struct {
		n, maxSize int
		universe   uint32
		intShare   float64
	}
	shapes := map[string]shape{
		"dense":          {3000, 30, 5000, 1},
		"dense-long":     {200, 400, 50_000, 1},
		"mixed":          {3000, 30, 5000, 0.7},
		"large-values":   {300, 10, shingle.IntLimit, 1},
		"tiny-universe":  {2000, 20, 3, 1},
		"empty-records":  {500, 0, 10, 1},
		"one-value-each": {1000, 1, 100, 1},
	}
	for name, s := range shapes {
		for seed := range uint64(4) {
			r := rand.New(rand.NewPCG(seed, 11))
			recs := intRecords(r, s.n, s.maxSize, s.universe)
			if name == "dense-long" && seed == 0 {
				recs[7] = make([]uint32, 20_000) // one huge set
				for i := range recs[7] {
					recs[7][i] = uint32(i)
				}
			}
			if name == "tiny-universe" && seed == 1 {
				for i := range recs {
					recs[i] = []uint32{2, 0, 1, 0} // every set identical
				}
			}
			want := byKeys(recs)
			got := new(order.Input)
			addMixed(r, got, recs, s.intShare)
			if got.Len() != want.Len() || got.Tokens() != want.Tokens() || got.Vocabulary() != want.Vocabulary() {
				t.Fatalf("%s seed %d: %d records, %d tokens, %d distinct; want %d, %d, %d", name, seed,
					got.Len(), got.Tokens(), got.Vocabulary(), want.Len(), want.Tokens(), want.Vocabulary())
			}
			wc, err1 := order.New(want)
			gc, err2 := order.New(got)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			sameCollection(t, fmt.Sprintf("%s seed %d", name, seed), gc, wc)
		}
	}
}

// TestAddIntsBuild checks R-S builds: each side dense, by keys, or moved
// part way, against both sides by keys.
func TestAddIntsBuild(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 12))
		rr := intRecords(r, 1500, 25, 4000)
		sr := intRecords(r, 1000, 25, 6000)
		wr, ws := byKeys(rr), byKeys(sr)
		gr, gs := &order.Input{Workers: 1 + int(seed%3)}, new(order.Input)
		addMixed(r, gr, rr, []float64{1, 0.5, 0}[seed%3])
		addMixed(r, gs, sr, []float64{1, 1, 0.5}[seed%3])
		want, err1 := order.Build(wr, ws)
		got, err2 := order.Build(gr, gs)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		sameCollection(t, fmt.Sprintf("seed %d R", seed), got[0], want[0])
		sameCollection(t, fmt.Sprintf("seed %d S", seed), got[1], want[1])
	}
}

// TestAddIntsWorkers checks that a dense input builds the same collection
// for any number of workers.
func TestAddIntsWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 13))
	recs := intRecords(r, 20_000, 40, 30_000)
	var first *order.Collection
	for _, w := range []int{1, 2, 3, 8} {
		in := &order.Input{Workers: w}
		addMixed(rand.New(rand.NewPCG(1, 1)), in, recs, 1)
		c, err := order.New(in)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = c
			continue
		}
		sameCollection(t, fmt.Sprintf("workers=%d", w), c, first)
	}
}

func TestAddIntsRefusesLargeValue(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("AddInts took a value not below shingle.IntLimit")
		}
	}()
	new(order.Input).AddInts([]uint32{1, shingle.IntLimit}, []int{0, 2})
}

// TestAddIntsGrow checks that Grow before values (its empty tables given
// up) and after them (ignored) leaves the collection the keys give.
func TestAddIntsGrow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 14))
	recs := intRecords(r, 2000, 20, 3000)
	want, err := order.New(byKeys(recs))
	if err != nil {
		t.Fatal(err)
	}
	in := new(order.Input)
	in.Grow(50_000)
	addMixed(r, in, recs[:1000], 1)
	in.Grow(50_000)
	addMixed(r, in, recs[1000:], 1)
	got, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	sameCollection(t, "grown", got, want)
}
