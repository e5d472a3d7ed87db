// Command gen writes seeded synthetic collections for tests, benchmarks and
// the README, one set a line, tokens as decimal integers.
//
//	go run ./internal/testkit/cmd/gen sets -n 1000000 -min 10 -max 50 -universe 1000000 -zipf 1 -dup 0.3 -replace 0.1 -seed 1 > sets.txt
//	go run ./internal/testkit/cmd/gen docs -seed 1 > docs.txt   # synth.BenchDocs: 20,000 documents of ~300 shingles
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/simjoin/simjoin/internal/testkit/synth"
)

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "docs" {
		docs()
		return
	}
	if len(os.Args) < 2 || os.Args[1] != "sets" {
		fmt.Fprintln(os.Stderr, "usage: gen sets|docs [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("sets", flag.ExitOnError)
	var cfg synth.SetsConfig
	fs.IntVar(&cfg.N, "n", 1000, "number of sets")
	fs.IntVar(&cfg.MinSize, "min", 10, "smallest set size")
	fs.IntVar(&cfg.MaxSize, "max", 50, "largest set size")
	fs.IntVar(&cfg.Universe, "universe", 1000, "number of distinct tokens")
	fs.Float64Var(&cfg.Zipf, "zipf", 0, "Zipf exponent of token frequencies (0: uniform)")
	fs.Float64Var(&cfg.DupFraction, "dup", 0, "share of sets that are near-duplicates of an earlier one")
	fs.Float64Var(&cfg.Replace, "replace", 0.1, "share of tokens a near-duplicate replaces")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	fs.Parse(os.Args[2:])
	if cfg.N < 0 || cfg.MinSize < 0 || cfg.MaxSize < cfg.MinSize || cfg.Universe < 1 {
		fmt.Fprintln(os.Stderr, "gen: need n >= 0, 0 <= min <= max, universe >= 1")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var buf []byte
	for _, set := range synth.Sets(cfg) {
		buf = buf[:0]
		for i, tok := range set {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendUint(buf, uint64(tok), 10)
		}
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// docs writes synth.BenchDocs(seed) (with -n documents), one document a line,
// its shingle keys as decimal integers.
func docs() {
	fs := flag.NewFlagSet("docs", flag.ExitOnError)
	seed := fs.Uint64("seed", 1, "random seed")
	n := fs.Int("n", 20000, "number of documents")
	fs.Parse(os.Args[2:])
	cfg := synth.BenchDocs(*seed)
	cfg.N = *n
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var buf []byte
	for _, set := range synth.Documents(cfg).Sets {
		buf = buf[:0]
		for i, k := range set {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendUint(buf, k, 10)
		}
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
