package records_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/shingle"
)

// BenchmarkReadLines reads the Zipf sets of BENCHMARKS.md (200,000 lines of
// 10 to 50 tokens, 26 MB) from memory as Load's Lines source does: into an
// order.Input (sink=order) or as key sets for LSH (sink=keys), on one worker
// and on all cores.
//
//	go test -run '^$' -bench ReadLines -benchtime 5x .
func BenchmarkReadLines(b *testing.B) {
	cfg := synth.SetsConfig{N: 200_000, MinSize: 10, MaxSize: 50, Universe: 200_000, Zipf: 1, DupFraction: 0.3, Replace: 0.1, Seed: 1}
	var text []byte
	for _, set := range synth.Sets(cfg) {
		for i, w := range set {
			if i > 0 {
				text = append(text, ' ')
			}
			text = strconv.AppendUint(text, uint64(w), 10)
		}
		text = append(text, '\n')
	}
	for _, sink := range []string{"order", "keys"} {
		for _, workers := range []int{1, 0} {
			b.Run(fmt.Sprintf("sink=%s/workers=%d", sink, workers), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(text)))
				opts := lineOpts{Workers: workers}
				for b.Loop() {
					var err error
					if sink == "order" {
						_, err = readLines(bytes.NewReader(text), shingle.Spec{}, opts)
					} else {
						_, err = readKeySets(bytes.NewReader(text), shingle.Spec{}, opts)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
