package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/prefix"
)

// BenchmarkCheck measures a cross-check of planted documents: the exact
// join, each banding's runs and their measurement, with and without a floor
// and a pair sample (plot's work) and with several seeds.
func BenchmarkCheck(b *testing.B) {
	c := planted(b, 3000, 600, 0.3, 0.95, 12)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.5")
	lsh, err := approx.Options{Measure: prefix.Jaccard, Threshold: th, K: 48}.Resolve()
	if err != nil {
		b.Fatal(err)
	}
	shapes := []approx.Shape{{B: 12, R: 4}, {B: 16, R: 3}}
	for _, bc := range []struct {
		floor  float64
		sample int
		seeds  int
	}{{0, 0, 1}, {0.1, 20000, 1}, {0.1, 20000, 3}} {
		b.Run(fmt.Sprintf("floor=%v/sample=%d/seeds=%d", bc.floor, bc.sample, bc.seeds), func(b *testing.B) {
			b.ReportAllocs()
			var cc *CrossCheck
			cpu0, _ := rusage.CPU()
			for b.Loop() {
				if cc, err = MeasureLSH(context.Background(), c, nil, CheckOptions{LSH: lsh, Shapes: shapes, Seeds: bc.seeds, Floor: bc.floor, PairSample: bc.sample}); err != nil {
					b.Fatal(err)
				}
			}
			if cpu1, ok := rusage.CPU(); ok {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
			b.ReportMetric(float64(cc.AboveFloor), "true-pairs")
			b.ReportMetric(float64(cc.Bandings[1].Runs[0].LSH.Candidates), "candidates")
		})
	}
}
