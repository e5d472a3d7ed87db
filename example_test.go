package simjoin_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// Passwords compared as sets of character bigrams: which ones are near
// copies of each other?
func ExampleSelfJoin() {
	passwords := []string{"password", "dragon", "password1", "passw0rd", "letmein", "dragon12", "letmein!"}
	pairs, stats, err := simjoin.SelfJoin(context.Background(), passwords, simjoin.Options{
		Tokens:    shingle.Spec{Kind: shingle.QGram, N: 2},
		Threshold: simjoin.Threshold{Num: 7, Den: 10},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pairs {
		fmt.Printf("%-9s %-9s %.3f\n", passwords[p.A], passwords[p.B], p.Sim)
	}
	fmt.Println("records:", stats.Records, "pairs:", stats.Results)
	// Output:
	// password  password1 0.875
	// dragon    dragon12  0.714
	// letmein   letmein!  0.857
	// records: 7 pairs: 3
}

// Run streams the pairs of an R-S join to a callback as they are found
// (none is held; returning false stops the join): which new passwords are
// too close to a leaked one? Pairs are (index in r, index in s).
func ExampleRun() {
	leaked := []string{"sunshine", "iloveyou", "princess"}
	proposed := []string{"sunshine7", "correct horse", "Princess", "iloveyou2"}
	st, err := simjoin.Run(context.Background(), records.Strings(leaked), records.Strings(proposed), simjoin.Options{
		Tokens:    shingle.Spec{Kind: shingle.QGram, N: 3},
		Measure:   simjoin.Dice,
		Threshold: simjoin.Threshold{Num: 4, Den: 5},
	}, func(p simjoin.Pair) bool {
		fmt.Printf("%s ~ %s  dice=%.3f\n", leaked[p.A], proposed[p.B], p.Sim)
		return true
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pairs:", st.Results)
	// Unordered output:
	// sunshine ~ sunshine7  dice=0.923
	// iloveyou ~ iloveyou2  dice=0.923
	// princess ~ Princess  dice=0.833
	// pairs: 3
}

// Ready token sets, here tags, in a self-join (the zero Source as the second
// side). Duplicates within a set are ignored; an empty set never joins.
func ExampleRun_sets() {
	tags := [][]string{
		{"go", "database", "sql"},
		{"go", "web", "http"},
		{"sql", "go", "database", "orm"},
		{"http", "web", "go", "go"},
		{},
	}
	st, err := simjoin.Run(context.Background(), records.Sets(tags), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 4}},
		func(p simjoin.Pair) bool {
			fmt.Printf("%d %d overlap=%d jaccard=%.2f\n", p.A, p.B, p.Overlap, p.Sim)
			return true
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("skipped:", st.Skipped)
	// Unordered output:
	// 0 2 overlap=3 jaccard=0.75
	// 1 3 overlap=3 jaccard=1.00
	// skipped: 1
}

// Integer token ids and the overlap measure: pairs sharing at least two
// tokens.
func ExampleRun_overlap() {
	r := [][]uint32{{1, 2, 3}, {7, 8}}
	s := [][]uint32{{3, 2, 9}, {1, 9}, {8, 7, 6, 5}}
	_, err := simjoin.Run(context.Background(), records.Sets(r), records.Sets(s), simjoin.Options{
		Measure:   simjoin.Overlap,
		Threshold: simjoin.Threshold{Num: 2, Den: 1},
	}, func(p simjoin.Pair) bool {
		fmt.Println(p.A, p.B, p.Overlap)
		return true
	})
	if err != nil {
		fmt.Println(err)
	}
	// Unordered output:
	// 0 0 2
	// 1 2 2
}

// Bad options come back as typed errors.
func ExampleOptions_errors() {
	ctx := context.Background()
	recs := []string{"a b", "a b c"}
	_, _, err := simjoin.SelfJoin(ctx, recs, simjoin.Options{}) // no threshold
	fmt.Println(errors.Is(err, simjoin.ErrNoThreshold))
	_, _, err = simjoin.SelfJoin(ctx, recs, simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 2}})
	fmt.Println(errors.Is(err, simjoin.ErrThreshold))
	_, _, err = simjoin.SelfJoin(ctx, recs, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.QGram}})
	fmt.Println(errors.Is(err, simjoin.ErrTokens))
	_, _, err = simjoin.SelfJoin(ctx, []string{"ok", "caf\xe9"}, simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Words}})
	var re *records.RecordError
	fmt.Println(errors.Is(err, simjoin.ErrUTF8), errors.As(err, &re) && re.Index == 1)
	fmt.Println(err)
	// In an R-S join the error names the record's side too.
	_, err = simjoin.Run(ctx, records.Strings([]string{"ok"}), records.Strings([]string{"caf\xe9"}),
		simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}, Tokens: shingle.Spec{Kind: shingle.Words}}, func(simjoin.Pair) bool { return true })
	fmt.Println(errors.As(err, &re) && re.Side == records.SideS && re.Index == 0)
	fmt.Println(err)
	// Output:
	// true
	// true
	// true
	// true true
	// simjoin: record 1: invalid UTF-8
	// true
	// simjoin: record s[0]: invalid UTF-8
}
