package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// lshPasswordConfig is an LSH index of passwords as q = 2 sets, minimum
// Jaccard 0.8, with raw sets (exact similarities) and band filters at fpp.
func lshPasswordConfig(fpp float64) Config {
	return Config{Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Method: LSH, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 4, Den: 5}, RawSets: true, BloomFPP: fpp}
}

// nearCandidates returns n records of recs, each with one byte changed.
func nearCandidates(recs [][]byte, n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 1))
	cands := make([][]byte, n)
	for i := range cands {
		c := slices.Clone(recs[r.IntN(len(recs))])
		c[r.IntN(len(c))] = byte('a' + r.IntN(26))
		cands[i] = c
	}
	return cands
}

// buildLSH creates an LSH index of recs in dir in segments, and closes it:
// two thirds of recs inserted in one batch and checkpointed, then two
// thirds of the rest, and so on down to 2,000 records, so that no
// checkpoint merges a segment into the larger one before it.
func buildLSH(b *testing.B, dir string, recs [][]byte, fpp float64) {
	ix, err := Create(dir, lshPasswordConfig(fpp))
	if err != nil {
		b.Fatal(err)
	}
	for lo := 0; lo < len(recs); {
		hi := len(recs)
		if rest := len(recs) - lo; rest > 2000 {
			hi = lo + rest*2/3
		}
		if _, err := ix.Insert(context.Background(), recs[lo:hi], prefix.Threshold{}); err != nil {
			b.Fatal(err)
		}
		lo = hi
		if err := ix.checkpointNow(); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLSHParams measures what each of the Milvus guide's search
// parameters buys on an LSH index of n passwords (q = 2, Jaccard >= 0.8,
// raw sets; 100,000, or 1M with SIMJOIN_INDEX_BENCH): one search of a
// password with one byte changed a op, unless said otherwise.
//
//   - bloom: band filters at 0.01 against none (mh_lsh_bloom_false_positive_prob),
//     with the segments and the bytes on disk of each index;
//   - memory: the segments mapped against read into memory
//     (mh_lsh_code_in_mem), with the resident memory, anonymous and
//     file-backed, gained by the open and the searches;
//   - jaccard: candidates verified against their sets, or the estimates
//     alone (mh_search_with_jaccard);
//   - refine: top-10 verifying 10 against 100 candidates (refine_k);
//   - batch: searches of 1,000 queries against searches of one
//     (mh_lsh_batch_search), one worker; an op is one query.
func BenchmarkLSHParams(b *testing.B) {
	n := 100_000
	if heavy() {
		n = 1_000_000
	}
	recs := passwordList(n)
	cands := nearCandidates(recs, 1000)
	t := prefix.Threshold{Num: 4, Den: 5}
	// dir returns the index with band filters at fpp ("0.01" or "none"),
	// built by sub on first use and kept for the others.
	dirs := map[string]string{}
	parent := b
	dir := func(sub *testing.B, fpp string) string {
		if dirs[fpp] == "" {
			dirs[fpp] = parent.TempDir()
			buildLSH(sub, dirs[fpp], recs, map[string]float64{"0.01": DefaultBloomFPP, "none": NoBloom}[fpp])
		}
		return dirs[fpp]
	}

	open := func(b *testing.B, dir string, opt OpenOptions) *Index {
		ix, err := Open(dir, opt)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ix.Close() })
		return ix
	}
	name := fmt.Sprintf("n=%d", n)

	for _, fpp := range []string{"0.01", "none"} {
		b.Run("param=bloom/fpp="+fpp+"/"+name, func(b *testing.B) {
			ix := open(b, dir(b, fpp), OpenOptions{})
			st := ix.Stats()
			benchSearches(b, ix, cands, SearchOptions{Threshold: t})
			b.ReportMetric(float64(st.Segments), "segments")
			b.ReportMetric(float64(st.BytesOnDisk)/(1<<20), "disk-MiB")
		})
	}
	for _, mem := range []bool{false, true} {
		b.Run(fmt.Sprintf("param=memory/in-memory=%v/%s", mem, name), func(b *testing.B) {
			d := dir(b, "0.01")
			debug.FreeOSMemory() // the build's garbage out of the figure
			before := rssKinds()
			ix := open(b, d, OpenOptions{InMemory: mem})
			benchSearches(b, ix, cands, SearchOptions{Threshold: t})
			after := rssKinds()
			b.ReportMetric(float64(after[0]-before[0])/(1<<20), "anon-gain-MiB")
			b.ReportMetric(float64(after[1]-before[1])/(1<<20), "file-gain-MiB")
		})
	}
	for _, est := range []bool{false, true} {
		b.Run(fmt.Sprintf("param=jaccard/estimate=%v/%s", est, name), func(b *testing.B) {
			benchSearches(b, open(b, dir(b, "0.01"), OpenOptions{}), cands, SearchOptions{Threshold: t, Estimate: est})
		})
	}
	for _, rk := range []int{10, 100} {
		b.Run(fmt.Sprintf("param=refine/top-k=10/refine-k=%d/%s", rk, name), func(b *testing.B) {
			benchSearches(b, open(b, dir(b, "0.01"), OpenOptions{}), cands, SearchOptions{TopK: 10, RefineK: rk})
		})
	}
	for _, batch := range []bool{false, true} {
		b.Run(fmt.Sprintf("param=batch/batched=%v/%s", batch, name), func(b *testing.B) {
			ix := open(b, dir(b, "0.01"), OpenOptions{Workers: 1}) // the lookups shared, not the cores
			opt := SearchOptions{Threshold: t}
			// Warm, both ways, so that neither pays page faults.
			for _, qs := range append([][][]byte{cands}, slices.Collect(slices.Chunk(cands, 1))...) {
				if _, err := ix.Search(context.Background(), qs, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, flt0 := cpuTime(), faults()
			for i := 0; i < b.N; i += len(cands) {
				qs := cands[:min(len(cands), b.N-i)]
				if batch {
					if _, err := ix.Search(context.Background(), qs, opt); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, c := range qs {
					if _, err := ix.Search(context.Background(), [][]byte{c}, opt); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCPU(b, cpu0, flt0)
		})
	}
}
