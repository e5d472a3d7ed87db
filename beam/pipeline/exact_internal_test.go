package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// each is an iterator over xs, as a runner hands a DoFn its inputs.
func each[T any](xs []T) func(*T) bool {
	i := 0
	return func(x *T) bool {
		if i == len(xs) {
			return false
		}
		*x = xs[i]
		i++
		return true
	}
}

// run is what runJoin measured: the result pairs (sorted by (A, B)), the
// members of every group, and the bytes written to the groups' shuffle
// (as shuffle_group_bytes counts them).
type run struct {
	pairs  []Pair
	groups map[groupKey]int
	bytes  int64
}

// runJoin runs the exact join in memory with the pipeline's own DoFns, in
// the order a runner runs them: records packed in batches of batch
// records (each batch a bundle), counted, the counts gathered by shard
// into the vocabulary, the batches ranked, the hot groups' sizes counted,
// the records sent to the partitions, and (with joined) every partition
// joined.
func runJoin(t *testing.T, j joinFn, recs []Record, batch int, joined bool) run {
	t.Helper()
	ctx := context.Background()
	var batches []Batch
	for lo := 0; lo < len(recs); lo += batch {
		bf := &batchFn{}
		for _, r := range recs[lo:min(lo+batch, len(recs))] {
			bf.ProcessElement(ctx, r, func(b Batch) { batches = append(batches, b) })
		}
		bf.FinishBundle(func(b Batch) { batches = append(batches, b) })
	}
	byShard := map[uint32][][]byte{}
	for _, b := range batches {
		cf := &countFn{}
		put := func(s uint32, c []byte) { byShard[s] = append(byShard[s], c) }
		cf.ProcessElement(ctx, b, put)
		cf.FinishBundle(ctx, put)
	}
	var vocab [][]byte
	for s, parts := range byShard {
		if err := vocabFn(ctx, s, each(parts), func(v []byte) { vocab = append(vocab, v) }); err != nil {
			t.Fatal(err)
		}
	}
	var ranked []RankBatch
	rf := &rankFn{BlockSize: j.BlockSize}
	for _, b := range batches {
		if err := rf.ProcessElement(ctx, b, each(vocab), func(rb RankBatch) { ranked = append(ranked, rb) }); err != nil {
			t.Fatal(err)
		}
	}
	var out run
	var sizes [][]byte
	for _, rb := range ranked {
		hf := &hotSizeFn{J: j}
		put := func(b []byte) { sizes = append(sizes, b); out.bytes += int64(len(b)) }
		hf.ProcessElement(rb, put)
		hf.FinishBundle(ctx, put)
	}
	byPart := map[uint32][][]byte{}
	for _, rb := range ranked {
		pf := &partitionFn{J: j}
		put := func(p uint32, c []byte) {
			byPart[p] = append(byPart[p], c)
			out.bytes += int64(len(c) + uvarintLen(uint64(p)))
		}
		if err := pf.ProcessElement(ctx, rb, each(sizes), put); err != nil {
			t.Fatal(err)
		}
		pf.FinishBundle(ctx, each(sizes), put)
	}
	out.groups = map[groupKey]int{}
	for p, chunks := range byPart {
		var pr partRecords
		var ms []member
		for _, c := range chunks {
			var err error
			if ms, err = pr.read(c, ms); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range ms {
			out.groups[m.g]++
		}
		if !joined {
			continue
		}
		if err := (&partJoinFn{J: j}).ProcessElement(ctx, p, each(chunks), func(q Pair) { out.pairs = append(out.pairs, q) }); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(out.pairs, func(a, b Pair) int { return cmp.Or(cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B)) })
	return out
}

// oracle is the single-machine exact join of package join on the same
// records (R-S: the records below j.SFrom against the rest), as Pairs.
func oracle(t *testing.T, j joinFn, recs []Record) []Pair {
	t.Helper()
	opt := join.Options{Measure: prefix.Measure(j.Measure), Threshold: prefix.Threshold{Num: j.Num, Den: j.Den}, Workers: 1}
	var out []Pair
	var err error
	if j.SFrom == 0 {
		in := new(order.Input)
		for _, r := range recs {
			in.Add(r.Keys)
		}
		c, e := order.New(in)
		if e != nil {
			t.Fatal(e)
		}
		_, err = join.SelfJoin(context.Background(), c, opt, func(p join.Pair) bool {
			a, b := recs[p.A], recs[p.B]
			if b.ID < a.ID {
				a, b = b, a
			}
			out = append(out, Pair{A: a.ID, B: b.ID, Overlap: uint32(p.Overlap), SA: uint32(len(a.Keys)), SB: uint32(len(b.Keys))})
			return true
		})
	} else {
		var rs, ss []Record
		inR, inS := new(order.Input), new(order.Input)
		for _, r := range recs {
			if j.isS(r.ID) {
				ss = append(ss, r)
				inS.Add(r.Keys)
			} else {
				rs = append(rs, r)
				inR.Add(r.Keys)
			}
		}
		cs, e := order.Build(inR, inS)
		if e != nil {
			t.Fatal(e)
		}
		_, err = join.RSJoin(context.Background(), cs[0], cs[1], opt, func(p join.Pair) bool {
			a, b := rs[p.A], ss[p.B]
			out = append(out, Pair{A: a.ID, B: b.ID, Overlap: uint32(p.Overlap), SA: uint32(len(a.Keys)), SB: uint32(len(b.Keys))})
			return true
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b Pair) int { return cmp.Or(cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B)) })
	return out
}

// key is a token's 64-bit key.
func key(tok string) uint64 {
	var h uint64 = 14695981039346656037
	for i := range len(tok) {
		h = (h ^ uint64(tok[i])) * 1099511628211
	}
	return mix.Mix64(h)
}

// record makes a Record of the given tokens.
func record(id uint64, toks []string) Record {
	keys := make([]uint64, 0, len(toks))
	for _, tok := range toks {
		keys = append(keys, key(tok))
	}
	slices.Sort(keys)
	return Record{ID: id, Keys: slices.Compact(keys)}
}

// hotSets is n records of 1 to 9 tokens drawn, skewed, from 16, a third of
// them with the token "g" (so that g is rarer than most tokens it comes
// with and heads their global order: its group holds records of every
// size, most of them indexed there), and every one with the token "h",
// the last of every record's order. Every fifth record is a near copy of
// an earlier one with one token more or less, so that pairs lie exactly at
// simple thresholds and at the bounds of the size filter.
func hotSets(n int, seed uint64) [][]string {
	rng := rand.New(rand.NewPCG(seed, 3))
	var out [][]string
	for i := range n {
		var toks []string
		if i%5 == 4 && i > 0 {
			toks = slices.Clone(out[rng.IntN(i)])
			toks = slices.DeleteFunc(toks, func(s string) bool { return s == "h" })
			if len(toks) > 1 && rng.IntN(2) == 0 {
				toks = toks[1:]
			} else {
				toks = append(toks, fmt.Sprintf("f%d", rng.IntN(16)))
			}
		} else {
			k := 1 + rng.IntN(9)
			for range k {
				u := rng.Float64()
				toks = append(toks, fmt.Sprintf("f%d", int(16*u*u)))
			}
			if i%3 == 0 {
				toks = append(toks, "g")
			}
		}
		out = append(out, append(toks, "h"))
	}
	return out
}

// exactlyAt reports whether sets of sizes x and y with overlap o have
// similarity exactly t.
func exactlyAt(b prefix.Bounds, o, x, y int) bool {
	t := b.Threshold()
	p, q := t.Num, t.Den
	uo, ux, uy := uint64(o), uint64(x), uint64(y)
	switch b.Measure() {
	case prefix.Jaccard:
		return q*uo == p*(ux+uy-uo)
	case prefix.Cosine:
		return q*q*uo*uo == p*p*ux*uy
	case prefix.Dice:
		return 2*q*uo == p*(ux+uy)
	default:
		return uo == p
	}
}

// TestHotGroupsInMemory: with a token in every record and groups split into
// blocks of 2 to 16 indexed records by set size, the exact join gives the
// single-machine join's pairs, each once, self and R-S, under every
// measure, pairs exactly at the threshold and at the bounds of the size
// filter among them.
func TestHotGroupsInMemory(t *testing.T) {
	sets := hotSets(300, 1)
	recs := make([]Record, len(sets))
	for i, s := range sets {
		recs[i] = record(uint64(i+1), s)
	}
	cases := []struct {
		m  prefix.Measure
		th string
	}{
		{prefix.Jaccard, "0.5"}, {prefix.Jaccard, "0.8"}, {prefix.Jaccard, "1/3"},
		{prefix.Cosine, "0.5"}, {prefix.Cosine, "0.8"},
		{prefix.Dice, "0.5"}, {prefix.Dice, "0.8"},
		{prefix.Overlap, "2"}, {prefix.Overlap, "4"},
	}
	for _, tc := range cases {
		thr, err := prefix.ParseThreshold(tc.m, tc.th)
		if err != nil {
			t.Fatal(err)
		}
		b := prefix.NewBounds(tc.m, thr)
		for _, sfrom := range []uint64{0, 121} {
			j := Join{Measure: tc.m, Threshold: thr, SFrom: sfrom}.fn()
			want := oracle(t, j, recs)
			var at, edge int
			for _, p := range want {
				if exactlyAt(b, int(p.Overlap), int(p.SA), int(p.SB)) {
					at++
				}
				if _, hi := b.SizeRange(int(min(p.SA, p.SB))); int(max(p.SA, p.SB)) == hi {
					edge++
				}
			}
			if len(want) < 50 || at == 0 || tc.m != prefix.Overlap && edge == 0 {
				t.Fatalf("%s %s from %d: %d pairs, %d at t, %d at the size bound: the fixture is wrong", tc.m, tc.th, sfrom, len(want), at, edge)
			}
			for k, bs := range []int{2, 5, 16} {
				j.BlockSize = bs
				// Bundles of one record, of some, of all.
				got := runJoin(t, j, recs, []int{1, 64, 1000}[k], true).pairs
				if !slices.Equal(got, want) {
					t.Errorf("%s %s from %d, block %d: %d pairs, want %d", tc.m, tc.th, sfrom, bs, len(got), len(want))
				}
			}
		}
	}
}

// TestPlanSizes: blocks hold consecutive sizes, at most bs indexed records
// unless one size has more, which then has blocks of its own; a probe
// skips the blocks of sizes it cannot meet.
func TestPlanSizes(t *testing.T) {
	p := newPlan([]int{3, 4, 5, 9, 12}, []uint64{2, 2, 9, 1, 1}, 4)
	want := []sizeBlock{{lo: 3, hi: 4, of: 1}, {lo: 5, hi: 5, sub: 0, of: 3}, {lo: 5, hi: 5, sub: 1, of: 3}, {lo: 5, hi: 5, sub: 2, of: 3}, {lo: 9, hi: 12, of: 1}}
	if !slices.Equal(p, want) {
		t.Fatalf("newPlan = %v, want %v", p, want)
	}
	for _, c := range []struct {
		n    int
		want uint32
	}{{3, 0}, {4, 0}, {9, 4}, {12, 4}} {
		if b := indexBlock(p, c.n, 7); b != c.want {
			t.Errorf("indexBlock(%d) = %d, want %d", c.n, b, c.want)
		}
	}
	if b := indexBlock(p, 5, 7); b < 1 || b > 3 {
		t.Errorf("indexBlock(5) = %d, want 1..3", b)
	}
	// Jaccard 0.8: a record of 12 tokens meets sizes 10 to 12 only.
	j := Join{Measure: prefix.Jaccard, Threshold: prefix.Threshold{Num: 4, Den: 5}, BlockSize: 4}.fn()
	var blocks []uint32
	j.send(9, 11, 12, 1, 0, map[uint32][]sizeBlock{1: p}, func(k groupKey, index bool) {
		blocks = append(blocks, k.Block)
		if index {
			t.Errorf("a record probing past its index prefix was marked indexed")
		}
	})
	if !slices.Equal(blocks, []uint32{4}) {
		t.Errorf("a probe of 12 tokens went to blocks %v, want [4]", blocks)
	}
}

// hotPairs is n records of one Zipf token each, with the token "h" when
// hot: at Jaccard 0.5 h is then in the probe prefix of every record (the
// smallest partner of a two-token set, one token, needs only one token in
// common) but in nobody's index prefix, as the most frequent token comes
// last; the records with the same Zipf token are the pairs, the same with
// h or without.
func hotPairs(n int, hot bool) []Record {
	rng := rand.New(rand.NewPCG(uint64(n), 4))
	z := rand.NewZipf(rng, 1.1, 1, 1<<20)
	recs := make([]Record, n)
	for i := range recs {
		toks := []string{fmt.Sprint(z.Uint64())}
		if hot {
			toks = append(toks, "h")
		}
		recs[i] = record(uint64(i+1), toks)
	}
	return recs
}

// TestHotGroupShuffle: 20,000 records sharing one token shuffle within 2x
// of the same records without it at any block size, where splitting the
// group into ⌈g/B⌉ blocks all paired sent each record ⌈g/B⌉ times. The
// count is the pipeline's own stage 2 in memory, so it holds whether a
// runner reports metrics or not.
func TestHotGroupShuffle(t *testing.T) {
	const n = 20000
	thr := prefix.Threshold{Num: 1, Den: 2}
	for _, bs := range []int{128, DefaultBlockSize} {
		j := Join{Measure: prefix.Jaccard, Threshold: thr, BlockSize: bs}.fn()
		without := runJoin(t, j, hotPairs(n, false), 4096, false)
		with := runJoin(t, j, hotPairs(n, true), 4096, false)
		t.Logf("block %d: %d bytes and %d groups without the token; %d bytes and %d groups with it", bs, without.bytes, len(without.groups), with.bytes, len(with.groups))
		if with.bytes > 2*without.bytes {
			t.Errorf("block %d: %d bytes with the token, over twice the %d without", bs, with.bytes, without.bytes)
		}
	}
	// The records are routed to h's group: the fixture does test the split.
	j := Join{Measure: prefix.Jaccard, Threshold: thr}.fn()
	rb := RankBatch{HotFrom: 0}
	routed := 0
	for _, r := range hotPairs(n, true) {
		rb.IDs, rb.Private, rb.Ends, rb.Ranks = []uint64{r.ID}, []uint32{1}, []uint32{1}, []uint32{0}
		j.routes(&rb, 0, func(int, uint32) { routed++ })
	}
	if routed != n {
		t.Fatalf("%d of %d records routed to the hot token: the fixture is wrong", routed, n)
	}
}
