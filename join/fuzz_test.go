package join_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// FuzzJoin decodes fuzz bytes into a small collection, a measure and a
// threshold, and compares SelfJoin and RSJoin with the nested-loop oracle,
// pair by pair with overlaps, and checks the Stats identities. The seed
// corpus is the fixture table, so plain `go test` runs it; explore with
//
//	go test -run '^$' -fuzz '^FuzzJoin$' -fuzztime 120s ./join
func FuzzJoin(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, fx := range jointest.Fixtures(1) {
		data := encodeSets(fx.Sets)
		for mi, m := range measures {
			ths := jointest.Thresholds(m, fx.Sets, r)
			// Two thresholds per fixture and measure keep the seed corpus
			// quick: a fixed one and one that a pair sits on exactly.
			for _, th := range []prefix.Threshold{ths[1], ths[len(ths)-1]} {
				if th.Den > 1<<16 {
					continue
				}
				f.Add(data, uint8(mi), uint16(th.Num-1), uint16(th.Den-1), uint8(len(fx.Sets)/2), uint8(mi))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mb uint8, pb, qb uint16, split, workers uint8) {
		sets := decodeSets(data)
		m := prefix.Measure(mb % 4)
		var th prefix.Threshold
		var err error
		if m == prefix.Overlap {
			th, err = prefix.ParseThreshold(m, fmt.Sprint(1+pb%8))
		} else {
			q := uint64(qb) + 1
			p := 1 + uint64(pb)%q
			th, err = prefix.ParseThreshold(m, fmt.Sprintf("%d/%d", p, q))
		}
		if err != nil {
			t.Fatal(err)
		}
		w := 1 + int(workers%4)
		name := fmt.Sprintf("%d sets, %s t=%s, %d workers", len(sets), m, th, w)

		c, err := order.New(jointest.Input(sets))
		if err != nil {
			t.Fatal(err)
		}
		var got []jointest.Pair
		var pairs []join.Pair
		st, err := join.SelfJoin(context.Background(), c, join.Options{Measure: m, Threshold: th, Workers: w}, func(p join.Pair) bool {
			got = append(got, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
			pairs = append(pairs, p)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, name+" self", st, pairs, sets, nil)
		jointest.Sort(got)
		if want := jointest.SelfJoin(sets, m, th); !slices.Equal(got, want) {
			t.Fatalf("%s: self-join %d pairs, oracle %d\n%s\nsets %v", name, len(got), len(want), pairDiff(got, want), sets)
		}

		k := min(int(split), len(sets))
		rs, ss := sets[:k], sets[k:]
		cs, err := order.Build(jointest.Input(rs), jointest.Input(ss))
		if err != nil {
			t.Fatal(err)
		}
		got, pairs = got[:0], pairs[:0]
		st, err = join.RSJoin(context.Background(), cs[0], cs[1], join.Options{Measure: m, Threshold: th, Workers: w}, func(p join.Pair) bool {
			got = append(got, jointest.Pair{A: p.A, B: p.B, Overlap: p.Overlap})
			pairs = append(pairs, p)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, name+" rs", st, pairs, rs, ss)
		jointest.Sort(got)
		if want := jointest.RSJoin(rs, ss, m, th); !slices.Equal(got, want) {
			t.Fatalf("%s: R-S join (split at %d) %d pairs, oracle %d\n%s\nsets %v", name, k, len(got), len(want), pairDiff(got, want), sets)
		}
	})
}

// maxFuzzSets bounds the decoded collection, so that the oracle stays quick.
const maxFuzzSets = 120

// decodeSets reads sets from bytes: 0xFF ends a set, any other byte is a
// token (so tokens are 0..254 and repeats are allowed; the joins and the
// oracle both ignore them).
func decodeSets(data []byte) [][]uint32 {
	var sets [][]uint32
	cur := []uint32{}
	for _, b := range data {
		if b == 0xFF {
			sets = append(sets, cur)
			cur = []uint32{}
			if len(sets) == maxFuzzSets {
				return sets
			}
			continue
		}
		cur = append(cur, uint32(b))
	}
	if len(cur) > 0 {
		sets = append(sets, cur)
	}
	return sets
}

// encodeSets writes sets for decodeSets, tokens folded into 0..254.
func encodeSets(sets [][]uint32) []byte {
	var out []byte
	for _, s := range sets[:min(len(sets), maxFuzzSets)] {
		for _, w := range s {
			out = append(out, byte(w%255))
		}
		out = append(out, 0xFF)
	}
	return out
}

// TestFuzzCodec checks that decodeSets reads back what encodeSets writes,
// empty sets included, so that the seed corpus is the fixture table.
func TestFuzzCodec(t *testing.T) {
	sets := [][]uint32{{1, 2, 254}, {}, {7}, nil, {0, 0}}
	got := decodeSets(encodeSets(sets))
	if len(got) != len(sets) {
		t.Fatalf("decoded %d sets, want %d", len(got), len(sets))
	}
	for i := range sets {
		if !slices.Equal(got[i], sets[i]) && !(len(got[i]) == 0 && len(sets[i]) == 0) {
			t.Fatalf("set %d: %v, want %v", i, got[i], sets[i])
		}
	}
}
