package planner_test

import (
	"context"
	"fmt"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// Measure two LSH bandings against the exact join on documents with planted
// near-duplicates: the true pairs each found, beside the recall the S-curve
// predicts for them.
func ExampleMeasureLSH() {
	in := new(order.Input)
	docs := synth.Documents(synth.DocsConfig{N: 600, MinSize: 60, MaxSize: 100, Planted: 200, PlantedLo: 0.5, PlantedHi: 0.9, Seed: 1})
	for _, s := range docs.Sets {
		in.Add(s)
	}
	c, err := order.New(in)
	if err != nil {
		panic(err)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	lsh, err := approx.Options{Threshold: th, K: 64}.Resolve()
	if err != nil {
		panic(err)
	}
	cc, err := planner.MeasureLSH(context.Background(), c, nil, planner.CheckOptions{
		LSH:    lsh,
		Shapes: []approx.Shape{{B: 8, R: 8}, {B: 21, R: 3}},
	})
	if err != nil {
		panic(err)
	}
	for _, b := range cc.Bandings {
		run := b.Runs[0]
		fmt.Printf("%v: found %d of %d true pairs, recall %.2f; S-curve predicts %.2f\n", b.Shape, run.Recall.K, cc.Pairs, run.Recall.Estimate, b.Predicted)
	}
	// Output:
	// 8x8: found 71 of 198 true pairs, recall 0.36; S-curve predicts 0.42
	// 21x3: found 195 of 198 true pairs, recall 0.98; S-curve predicts 0.99
}
