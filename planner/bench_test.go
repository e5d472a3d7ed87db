package planner

import (
	"context"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// benchWorkloads are the workloads the planning benchmarks run on: short
// skewed sets, long rare shingles, long frequent tokens.
var benchWorkloads = []workload{suite[0], suite[2], suite[9], suite[11]}

// BenchmarkCollect measures the statistics pass.
func BenchmarkCollect(b *testing.B) {
	for _, w := range benchWorkloads {
		c := w.collection(b)
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(c.Tokens()) * 4)
			for b.Loop() {
				Collect(c)
			}
		})
	}
}

// BenchmarkSelfWork measures the exact prefix-posting count.
func BenchmarkSelfWork(b *testing.B) {
	for _, w := range benchWorkloads {
		c := w.collection(b)
		bounds := prefix.NewBounds(prefix.Jaccard, w.threshold(b))
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(c.Tokens()) * 4)
			var ew ExactWork
			for b.Loop() {
				ew = SelfWork(c, bounds)
			}
			b.ReportMetric(float64(ew.Postings), "postings")
		})
	}
}

// BenchmarkNew measures planning as a whole: statistics, postings, both
// samples, random pairs.
func BenchmarkNew(b *testing.B) {
	ctx := context.Background()
	for _, w := range benchWorkloads {
		c := w.collection(b)
		opt := Options{Threshold: w.threshold(b)}
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(ctx, c, nil, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
