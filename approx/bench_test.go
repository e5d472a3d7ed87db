package approx_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// BenchmarkSign times one signature of a 300-key set.
func BenchmarkSign(b *testing.B) {
	d := synth.Documents(synth.DocsConfig{N: 1, MinSize: 300, MaxSize: 300, Seed: 1})
	for _, sc := range schemes {
		for _, k := range []int{64, 128, 256} {
			b.Run(fmt.Sprintf("scheme=%s/K=%d/size=300", sc, k), func(b *testing.B) {
				h, _ := approx.NewHasher(sc, k, 1)
				buf := make([]uint64, k)
				b.ReportAllocs()
				b.SetBytes(300 * 8)
				for b.Loop() {
					buf = h.Sign(buf, d.Sets[0])
				}
			})
		}
	}
}

// BenchmarkMatch times comparing two packed signatures, K = 128.
func BenchmarkMatch(b *testing.B) {
	for _, w := range []int{8, 16, 32, 64} {
		b.Run(fmt.Sprintf("K=128/bits=%d", w), func(b *testing.B) {
			s, _ := approx.NewSignatures(2, 128, w)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n += s.Match(0, s, 1)
			}
		})
	}
}

// BenchmarkIndexSelfJoin times Build plus SelfJoin on a scaled-down
// benchmark workload (the full one is in the bench module).
func BenchmarkIndexSelfJoin(b *testing.B) {
	cfg := synth.BenchDocs(1)
	cfg.N, cfg.Planted, cfg.Distractors = 4000, 400, 200
	d := synth.Documents(cfg)
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.8")
	for _, sc := range schemes {
		b.Run(fmt.Sprintf("scheme=%s/n=4000/t=0.8", sc), func(b *testing.B) {
			b.ReportAllocs()
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				bl, _ := approx.NewBuilder(approx.Options{Threshold: th, Scheme: sc})
				for _, s := range d.Sets {
					bl.Add(s)
				}
				ix, _ := bl.Build(context.Background())
				ix.SelfJoin(context.Background(), func(join.Pair) bool { return true })
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSelfJoinKeys times the LSH self-join from key sets: path=keys
// signs and verifies the keys (SelfJoinKeys); path=collection first builds
// the token order (order.New) and joins its collection (SelfJoin), as the
// CLI did before. Same pairs and statistics; n=4000 documents of about 300
// keys, t = 0.8, one-permutation signatures.
func BenchmarkSelfJoinKeys(b *testing.B) {
	cfg := synth.BenchDocs(1)
	cfg.N, cfg.Planted, cfg.Distractors = 4000, 400, 200
	d := synth.Documents(cfg)
	ks := &approx.KeySets{}
	for _, s := range d.Sets {
		ks.Add(s)
	}
	th, _ := prefix.ParseThreshold(prefix.Jaccard, "0.8")
	opt := approx.Options{Threshold: th}
	for _, path := range []string{"keys", "collection"} {
		b.Run(fmt.Sprintf("path=%s/n=4000/t=0.8", path), func(b *testing.B) {
			b.ReportAllocs()
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				if path == "keys" {
					approx.SelfJoinKeys(context.Background(), ks, opt, func(join.Pair) bool { return true })
					continue
				}
				in := new(order.Input)
				in.AddBatch(ks.Keys, ks.Offs)
				c, _ := order.New(in)
				approx.SelfJoin(context.Background(), c, opt, func(join.Pair) bool { return true })
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
