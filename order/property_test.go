package order_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/order"
)

// unmix inverts mix.Mix64 (the splitmix64 finaliser is a bijection), so
// that a test can choose where keys land in a hash table.
func unmix(z uint64) uint64 {
	unxorshift := func(x uint64, s uint) uint64 {
		y := x
		for k := s; k < 64; k += s {
			y = x ^ (y >> s)
		}
		return y
	}
	inverse := func(a uint64) uint64 { // a odd: Newton's iteration mod 2^64
		x := a
		for range 6 {
			x *= 2 - a*x
		}
		return x
	}
	z = unxorshift(z, 31)
	z *= inverse(0x94d049bb133111eb)
	z = unxorshift(z, 27)
	z *= inverse(0xbf58476d1ce4e5b9)
	return unxorshift(z, 30)
}

// TestAdversarialKeys builds collections from keys chosen to collide in any
// table up to 2^20 slots (their mixed values share the top 23 bits, which
// choose the shard and, scaled to a table's length, the slot), keys whose
// mixed values share the low 20 bits instead, plus the extreme keys 0 and
// MaxUint64, and checks every set and document frequency against a direct
// count.
func TestAdversarialKeys(t *testing.T) {
	for _, k := range []uint64{0, 1, 12345, math.MaxUint64} {
		if mix.Mix64(unmix(k)) != k {
			t.Fatalf("unmix(%d) does not invert Mix64", k)
		}
	}
	seed := uint64(77)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	var keys []uint64
	for i := range 3000 {
		keys = append(keys, unmix(uint64(i)<<20|0xABCDE), unmix(0x5ABCDE<<41|uint64(i)))
	}
	keys = append(keys, 0, math.MaxUint64, unmix(0), unmix(math.MaxUint64))
	var rsets, ssets [][]uint64
	for range 400 {
		var set []uint64
		for range r.IntN(15) {
			set = append(set, keys[r.IntN(len(keys))])
		}
		if r.IntN(2) == 0 {
			rsets = append(rsets, set)
		} else {
			ssets = append(ssets, set)
		}
	}
	rin, sin := new(order.Input), new(order.Input)
	for _, s := range rsets {
		rin.Add(s)
	}
	for _, s := range ssets {
		sin.AddSorted(s) // mostly unsorted: AddSorted must fall back to Add
	}
	cs, err := order.Build(rin, sin)
	if err != nil {
		t.Fatal(err)
	}
	d := cs[0].Dict()
	df := map[uint64]int{}
	for _, s := range slices.Concat(rsets, ssets) {
		for _, k := range slices.Compact(slices.Sorted(slices.Values(s))) {
			df[k]++
		}
	}
	if d.Len() != len(df) {
		t.Fatalf("dictionary holds %d keys, want %d", d.Len(), len(df))
	}
	for k, n := range df {
		id, ok := d.Lookup(k)
		if !ok || d.Key(id) != k || d.DF(id) != n {
			t.Fatalf("key %x: id %d, %v, DF %d; want DF %d", k, id, ok, d.DF(id), n)
		}
	}
	for _, k := range []uint64{unmix(3001<<20 | 0xABCDE), 42} {
		if _, ok := d.Lookup(k); ok && df[k] == 0 {
			t.Errorf("Lookup(%x) finds a key never added", k)
		}
	}
	for side, c := range cs {
		raw := [][][]uint64{rsets, ssets}[side]
		for i := range c.Len() {
			var got []uint64
			for _, id := range c.Set(i) {
				got = append(got, d.Key(id))
			}
			slices.Sort(got)
			want := slices.Compact(slices.Sorted(slices.Values(raw[c.ID(i)])))
			if !slices.Equal(got, want) {
				t.Fatalf("side %d record %d holds %v, want %v", side, c.ID(i), got, want)
			}
		}
	}
}

// TestIdenticalAdjacent checks that identical sets end up adjacent (the
// joins group them), for many copies at many sizes, whatever the order in
// which the copies were added.
func TestIdenticalAdjacent(t *testing.T) {
	seed := uint64(5)
	t.Logf("Using rng seed %d.", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	var distinct [][]uint64
	for size := 1; size <= 12; size++ {
		for range 8 {
			set := make([]uint64, size)
			for j := range set {
				set[j] = uint64(r.IntN(30))
			}
			distinct = append(distinct, set)
		}
	}
	in := new(order.Input)
	var which []int // which distinct set each record copies
	for range 2000 {
		k := r.IntN(len(distinct))
		which = append(which, k)
		set := slices.Clone(distinct[k])
		r.Shuffle(len(set), func(a, b int) { set[a], set[b] = set[b], set[a] })
		in.Add(set)
	}
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	canon := func(k int) string { return fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(distinct[k])))) }
	seen := map[string]bool{}
	prev := ""
	for i := range c.Len() {
		key := canon(which[c.ID(i)])
		if key != prev && seen[key] {
			t.Fatalf("copies of set %s are not adjacent (position %d)", key, i)
		}
		seen[key] = true
		prev = key
		if i > 0 && slices.Equal(c.Set(i), c.Set(i-1)) && c.ID(i) < c.ID(i-1) {
			t.Fatalf("identical sets at %d and %d are not in input order", i-1, i)
		}
	}
}

// TestMapQuery checks that Map gives a stored set's own ids for its keys,
// and ids past the vocabulary, distinct and sorted, for unknown keys.
func TestMapQuery(t *testing.T) {
	in := new(order.Input)
	in.Add([]uint64{10, 20, 30})
	in.Add([]uint64{20, 40})
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Dict()
	for i := range c.Len() {
		var keys []uint64
		for _, id := range c.Set(i) {
			keys = append(keys, d.Key(id))
		}
		slices.Sort(keys)
		if got := d.Map(nil, keys); !slices.Equal(got, c.Set(i)) {
			t.Errorf("Map of record %d's keys = %v, want %v", c.ID(i), got, c.Set(i))
		}
	}
	got := d.Map([]uint32{7}, []uint64{99, 20, 98, 97})
	id20, _ := d.Lookup(20)
	n := uint32(d.Len())
	if want := []uint32{7, id20, n, n + 1, n + 2}; !slices.Equal(got, want) {
		t.Errorf("Map with unknown keys = %v, want %v", got, want)
	}
	var empty order.Input
	ce, err := order.New(&empty)
	if err != nil || ce.Len() != 0 || ce.Records() != 0 || ce.Dict().Len() != 0 {
		t.Errorf("empty input: %v, %d sets", err, ce.Len())
	}
	if _, ok := ce.Dict().Lookup(0); ok {
		t.Error("empty dictionary finds key 0")
	}
}
