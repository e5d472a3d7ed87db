package simjoin_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// Passwords compared as sets of character bigrams: which ones are near
// copies of each other?
func ExampleSelfJoin() {
	passwords := []string{"password", "dragon", "password1", "passw0rd", "letmein", "dragon12", "letmein!"}
	pairs, stats, err := simjoin.SelfJoin(context.Background(), passwords, simjoin.Options{
		Tokens:    shingle.Spec{Kind: shingle.QGram, N: 2},
		Threshold: 0.7,
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

// Streaming: the pairs go to a callback as they are found and are not held;
// returning false stops the join.
func ExampleSelfJoinFunc() {
	lines := []string{"a b c d", "a b c e", "a b c d", "x y z", "a b c d e"}
	n := 0
	_, err := simjoin.SelfJoinFunc(context.Background(), lines, simjoin.Options{Threshold: 0.6},
		func(p simjoin.Pair) bool {
			n++
			return true
		})
	fmt.Println(n, err)
	// Output:
	// 6 <nil>
}

// An R-S join: which new passwords are too close to a leaked one? Pairs are
// (index in r, index in s).
func ExampleJoin() {
	leaked := []string{"sunshine", "iloveyou", "princess"}
	proposed := []string{"sunshine7", "correct horse", "Princess", "iloveyou2"}
	pairs, _, err := simjoin.Join(context.Background(), leaked, proposed, simjoin.Options{
		Tokens:    shingle.Spec{Kind: shingle.QGram, N: 3},
		Measure:   prefix.Dice,
		Threshold: 0.8,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pairs {
		fmt.Printf("%s ~ %s  dice=%.3f\n", leaked[p.A], proposed[p.B], p.Sim)
	}
	// Output:
	// sunshine ~ sunshine7  dice=0.923
	// iloveyou ~ iloveyou2  dice=0.923
	// princess ~ Princess  dice=0.833
}

// Ready token sets, here tags. Duplicates within a set are ignored.
func ExampleSelfJoinSets() {
	tags := [][]string{
		{"go", "database", "sql"},
		{"go", "web", "http"},
		{"sql", "go", "database", "orm"},
		{"http", "web", "go", "go"},
		{},
	}
	pairs, stats, err := simjoin.SelfJoinSets(context.Background(), tags, simjoin.Options{Threshold: 0.75})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pairs {
		fmt.Printf("%d %d overlap=%d jaccard=%.2f\n", p.A, p.B, p.Overlap, p.Sim)
	}
	fmt.Println("skipped:", stats.Skipped)
	// Output:
	// 0 2 overlap=3 jaccard=0.75
	// 1 3 overlap=3 jaccard=1.00
	// skipped: 1
}

// Integer token ids and the overlap measure: pairs sharing at least two
// tokens.
func ExampleJoinSets() {
	r := [][]uint32{{1, 2, 3}, {7, 8}}
	s := [][]uint32{{3, 2, 9}, {1, 9}, {8, 7, 6, 5}}
	pairs, _, err := simjoin.JoinSets(context.Background(), r, s, simjoin.Options{
		Measure:   prefix.Overlap,
		Threshold: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pairs {
		fmt.Println(p.A, p.B, p.Overlap)
	}
	// Output:
	// 0 0 2
	// 1 2 2
}

// Bad options come back as typed errors.
func ExampleOptions_errors() {
	ctx := context.Background()
	recs := []string{"a b", "a b c"}
	_, _, err := simjoin.SelfJoin(ctx, recs, simjoin.Options{})
	fmt.Println(errors.Is(err, simjoin.ErrThreshold))
	_, _, err = simjoin.SelfJoin(ctx, recs, simjoin.Options{Threshold: 1.5})
	fmt.Println(errors.Is(err, simjoin.ErrThreshold))
	_, _, err = simjoin.SelfJoin(ctx, recs, simjoin.Options{Threshold: 0.5, Tokens: shingle.Spec{Kind: shingle.QGram}})
	fmt.Println(errors.Is(err, simjoin.ErrTokens))
	_, _, err = simjoin.SelfJoin(ctx, []string{"ok", "caf\xe9"}, simjoin.Options{Threshold: 0.5, Tokens: shingle.Spec{Kind: shingle.Words}})
	var re *records.RecordError
	fmt.Println(errors.Is(err, simjoin.ErrUTF8), errors.As(err, &re) && re.Index == 1)
	fmt.Println(err)
	// In an R-S join the error names the record's side too.
	_, _, err = simjoin.Join(ctx, []string{"ok"}, []string{"caf\xe9"}, simjoin.Options{Threshold: 0.5, Tokens: shingle.Spec{Kind: shingle.Words}})
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
