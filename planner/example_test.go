package planner_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// Plan a small self-join, then run the plan. Short sets at a high threshold
// have short prefixes, so the exact join is chosen and nothing is lost: the
// reason's code says it was within Prefer of LSH's predicted CPU time, which
// the reason holds beside exact's.
func ExampleNew() {
	in := new(order.Input)
	for _, line := range []string{"a b c d", "a b c e", "x y z", "x y w"} {
		var keys []uint64
		for _, tok := range strings.Fields(line) {
			keys = append(keys, shingle.HashString(tok))
		}
		in.Add(keys)
	}
	c, err := order.New(in)
	if err != nil {
		panic(err)
	}
	t, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	ctx := context.Background()
	p, err := planner.New(ctx, c, nil, planner.Options{Threshold: t})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Method, p.Recall, p.Reason.Code, p.Reason.ExactCPU <= p.Reason.Prefer*p.Reason.LSHCPU)
	_, err = p.Run(ctx, c, nil, func(pr join.Pair) bool {
		fmt.Println(pr.A, pr.B, pr.Sim)
		return true
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// exact 1 exact_within true
	// 2 3 0.5
	// 0 1 0.6
}

// The 95% Clopper–Pearson interval of a recall measured as 45 pairs found of
// 50.
func ExampleClopperPearson() {
	iv := planner.ClopperPearson(45, 50, 0.95)
	fmt.Printf("%.2f [%.3f, %.3f]\n", iv.Estimate, iv.Lo, iv.Hi)
	// Output:
	// 0.90 [0.782, 0.967]
}
