package join_test

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// The whole pipeline by hand: tokenize, order, join. Pairs stream to the
// callback; their ids are the records' input indices.
func ExampleSelfJoin() {
	records := []string{"a b c d e", "x y z", "a b c d f", "a b c d e", "x y z w"}
	in := new(order.Input)
	for _, rec := range records {
		keys, _ := shingle.Spec{}.Append(nil, rec) // whitespace tokens
		in.Add(keys)
	}
	c, err := order.New(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.6")
	st, err := join.SelfJoin(context.Background(), c, join.Options{Threshold: th}, func(p join.Pair) bool {
		fmt.Printf("%d %d overlap=%d sim=%.3f\n", p.A, p.B, p.Overlap, p.Sim)
		return true
	})
	fmt.Println(st.Results, "pairs,", st.Groups, "distinct sets,", err)
	// Unordered output:
	// 0 3 overlap=5 sim=1.000
	// 0 2 overlap=4 sim=0.667
	// 2 3 overlap=4 sim=0.667
	// 1 4 overlap=3 sim=0.750
	// 4 pairs, 4 distinct sets, <nil>
}

// An R-S join needs both sides ordered together, by one order.Build call.
func ExampleRSJoin() {
	r := [][]uint64{{1, 2, 3}, {4, 5}}
	s := [][]uint64{{1, 2, 3, 9}, {4, 5, 6}, {7}}
	rin, sin := new(order.Input), new(order.Input)
	for _, k := range r {
		rin.Add(k)
	}
	for _, k := range s {
		sin.Add(k)
	}
	cs, err := order.Build(rin, sin)
	if err != nil {
		fmt.Println(err)
		return
	}
	th, _ := prefix.ParseThreshold(prefix.Cosine, "0.8")
	_, err = join.RSJoin(context.Background(), cs[0], cs[1], join.Options{Measure: prefix.Cosine, Threshold: th}, func(p join.Pair) bool {
		fmt.Printf("r%d s%d cosine=%.3f\n", p.A, p.B, p.Sim)
		return true
	})
	fmt.Println(err)
	// Unordered output:
	// r0 s0 cosine=0.866
	// r1 s1 cosine=0.816
	// <nil>
}

// Verify decides one candidate pair exactly, as the LSH path does.
func ExampleVerify() {
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "4/5")
	b := prefix.NewBounds(prefix.Jaccard, th)
	x := []uint32{1, 2, 3, 4, 5}
	fmt.Println(join.Verify(b, x, []uint32{1, 2, 3, 4})) // 4/5: exactly at t
	_, ok := join.Verify(b, x, []uint32{1, 2, 3, 4, 6})  // 4/6: below; the overlap is not computed in full
	fmt.Println(ok)
	fmt.Println(join.Overlap(x, []uint32{2, 4, 6}))
	// Output:
	// 4 true
	// false
	// 2
}
