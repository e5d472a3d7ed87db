package simjoin_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// The face the simjoin command uses: load the lines of a reader, let the
// planner choose the method, and join, the pairs streamed to a callback; the
// Stats say which method ran and why.
func ExampleLoad() {
	text := "the quick brown fox\nthe quick brown dog\na slow green turtle\nthe quick red fox\n"
	ctx := context.Background()
	in, err := simjoin.Load(ctx, records.Lines(strings.NewReader(text), "animals.txt"), records.Source{},
		simjoin.Options{Tokens: shingle.Spec{Kind: shingle.Words}, Threshold: simjoin.Threshold{Num: 1, Den: 2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := in.Join(ctx, func(p simjoin.Pair) bool {
		fmt.Printf("line %d ~ line %d: %.2f\n", p.A+1, p.B+1, p.Sim)
		return true
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("method:", st.Method, "(planned:", st.Plan != nil, ")", "records:", st.Records, "pairs:", st.Results)
	// Unordered output:
	// line 1 ~ line 2: 0.60
	// line 1 ~ line 4: 0.60
	// method: exact (planned: true ) records: 4 pairs: 2
}

// Dedup keeps one record of each cluster of near-duplicates: the first in
// input order.
func ExampleInput_Dedup() {
	names := []string{"Ada Lovelace", "ada lovelace", "Charles Babbage", "Lovelace, Ada", "Babbage, Charles", "Alan Turing"}
	ctx := context.Background()
	in, err := simjoin.Load(ctx, records.Strings(names), records.Source{},
		simjoin.Options{Tokens: shingle.Spec{Kind: shingle.Words}, Threshold: simjoin.Threshold{Num: 1, Den: 2}, Method: simjoin.Exact})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _, err := in.Dedup(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, i := range f.Firsts() {
		fmt.Println(names[i])
	}
	// Output:
	// Ada Lovelace
	// Charles Babbage
	// Alan Turing
}
