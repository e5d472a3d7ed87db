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

// kinds are the values the tests add, each with the largest universe they
// take: decimal integers (the keys shingle's Set gives their fields), and
// grams of two and three ASCII characters (the keys of AppendQGrams).
var kinds = []struct {
	name  string
	vk    order.Values
	limit uint32
}{
	{"ints", shingle.IntValues{}, shingle.IntLimit},
	{"grams2", shingle.GramValues{N: 2}, 1 << 14},
	{"grams3", shingle.GramValues{N: 3}, 1 << 21},
}

// vkOf is the values the tests add unless they name a kind.
var vkOf order.Values = shingle.IntValues{}

// keysOf returns the keys of rec's values.
func keysOf(rec []uint32, vk order.Values) []uint64 {
	keys := make([]uint64, len(rec))
	for i, v := range rec {
		keys[i] = vk.Key(v)
	}
	return keys
}

// byKeys is the reference: every record added by its keys.
func byKeys(recs [][]uint32, vk order.Values) *order.Input {
	in := new(order.Input)
	for _, rec := range recs {
		in.Add(keysOf(rec, vk))
	}
	return in
}

// addMixed adds recs to in in batches of random lengths, each batch as
// values of vk (AddValues) with probability intShare, else by keys (Add one
// by one).
func addMixed(r *rand.Rand, in *order.Input, recs [][]uint32, intShare float64, vk order.Values) {
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
			in.AddValues(vals, offs, vk)
		default:
			for _, rec := range recs[lo:hi] {
				in.Add(keysOf(rec, vk))
			}
		}
		lo = hi
	}
}

// TestAddValues checks that records added as values give exactly the
// collection and dictionary their keys give, for every kind of values, on
// the dense road and on the road that moves to keys part way (a batch by
// keys, or values too large for the array).
func TestAddValues(t *testing.T) {
	type shape struct {
		n, maxSize int
		universe   uint32
		intShare   float64
	}
	shapes := map[string]shape{
		"dense":          {3000, 30, 5000, 1},
		"dense-long":     {200, 400, 50_000, 1},
		"mixed":          {3000, 30, 5000, 0.7},
		"large-values":   {300, 10, 0, 1}, // the kind's limit
		"tiny-universe":  {2000, 20, 3, 1},
		"empty-records":  {500, 0, 10, 1},
		"one-value-each": {1000, 1, 100, 1},
	}
	for _, kind := range kinds {
		for name, s := range shapes {
			if s.universe == 0 || s.universe > kind.limit {
				s.universe = kind.limit
			}
			for seed := range uint64(3) {
				r := rand.New(rand.NewPCG(seed, 11))
				recs := intRecords(r, s.n, s.maxSize, s.universe)
				if name == "dense-long" && seed == 0 {
					recs[7] = make([]uint32, 20_000) // one huge set
					for i := range recs[7] {
						recs[7][i] = uint32(i) % kind.limit
					}
				}
				if name == "tiny-universe" && seed == 1 {
					for i := range recs {
						recs[i] = []uint32{2, 0, 1, 0} // every set identical
					}
				}
				want := byKeys(recs, kind.vk)
				got := new(order.Input)
				addMixed(r, got, recs, s.intShare, kind.vk)
				if got.Len() != want.Len() || got.Tokens() != want.Tokens() || got.Vocabulary() != want.Vocabulary() {
					t.Fatalf("%s seed %d: %d records, %d tokens, %d distinct; want %d, %d, %d", name, seed,
						got.Len(), got.Tokens(), got.Vocabulary(), want.Len(), want.Tokens(), want.Vocabulary())
				}
				wc, err1 := order.New(want)
				gc, err2 := order.New(got)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				sameCollection(t, fmt.Sprintf("%s %s seed %d", kind.name, name, seed), gc, wc)
			}
		}
	}
}

// TestAddValuesKinds checks an Input given values of one kind, then of
// another (moved to keys), then keys: the collection of the keys.
func TestAddValuesKinds(t *testing.T) {
	// An empty record added by keys between blocks of values.
	empty := new(order.Input)
	empty.AddValues([]uint32{3, 1}, []int{0, 2}, vkOf)
	empty.Add(nil)
	empty.AddValues([]uint32{1, 2}, []int{0, 2}, vkOf)
	ref := byKeys([][]uint32{{3, 1}, {}, {1, 2}}, vkOf)
	ec, err1 := order.New(empty)
	rc, err2 := order.New(ref)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	sameCollection(t, "empty record between values", ec, rc)

	r := rand.New(rand.NewPCG(3, 15))
	var recs [][]uint32
	var keys [][]uint64
	in := new(order.Input)
	for _, kind := range []int{0, 0, 1, 0, 2} {
		part := intRecords(r, 500, 20, min(kinds[kind].limit, 4000))
		addMixed(r, in, part, 1, kinds[kind].vk)
		for _, rec := range part {
			recs = append(recs, rec)
			keys = append(keys, keysOf(rec, kinds[kind].vk))
		}
	}
	want := new(order.Input)
	for _, k := range keys {
		want.Add(k)
	}
	wc, err1 := order.New(want)
	gc, err2 := order.New(in)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	sameCollection(t, "kinds", gc, wc)
}

// TestAddValuesBuild checks R-S builds: each side dense, by keys, or moved
// part way, against both sides by keys.
func TestAddValuesBuild(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 12))
		rr := intRecords(r, 1500, 25, 4000)
		sr := intRecords(r, 1000, 25, 6000)
		wr, ws := byKeys(rr, vkOf), byKeys(sr, vkOf)
		gr, gs := &order.Input{Workers: 1 + int(seed%3)}, new(order.Input)
		addMixed(r, gr, rr, []float64{1, 0.5, 0}[seed%3], vkOf)
		addMixed(r, gs, sr, []float64{1, 1, 0.5}[seed%3], vkOf)
		want, err1 := order.Build(wr, ws)
		got, err2 := order.Build(gr, gs)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		sameCollection(t, fmt.Sprintf("seed %d R", seed), got[0], want[0])
		sameCollection(t, fmt.Sprintf("seed %d S", seed), got[1], want[1])
	}
}

// TestAddValuesWorkers checks that a dense input builds the same collection
// for any number of workers.
func TestAddValuesWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 13))
	recs := intRecords(r, 20_000, 40, 30_000)
	var first *order.Collection
	for _, w := range []int{1, 2, 3, 8} {
		in := &order.Input{Workers: w}
		addMixed(rand.New(rand.NewPCG(1, 1)), in, recs, 1, vkOf)
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

func TestAddValuesRefusesLargeValue(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("AddValues took a value not below order.ValueLimit")
		}
	}()
	if shingle.IntLimit > order.ValueLimit || 1<<(7*shingle.MaxGramValues) > order.ValueLimit {
		t.Fatalf("shingle's values reach %d and %d, above order.ValueLimit %d", shingle.IntLimit, 1<<(7*shingle.MaxGramValues), order.ValueLimit)
	}
	new(order.Input).AddValues([]uint32{1, order.ValueLimit}, []int{0, 2}, vkOf)
}

// TestAddValuesGrow checks that Grow before values (its empty tables given
// up) and after them (ignored) leaves the collection the keys give.
func TestAddValuesGrow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 14))
	recs := intRecords(r, 2000, 20, 3000)
	want, err := order.New(byKeys(recs, vkOf))
	if err != nil {
		t.Fatal(err)
	}
	in := new(order.Input)
	in.Grow(50_000)
	addMixed(r, in, recs[:1000], 1, vkOf)
	in.Grow(50_000)
	addMixed(r, in, recs[1000:], 1, vkOf)
	got, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	sameCollection(t, "grown", got, want)
}
