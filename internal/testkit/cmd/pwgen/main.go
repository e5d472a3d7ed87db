// Command pwgen writes a seeded, generated password list (see
// synth.Passwords), one password a line, for benchmarks and experiments:
//
//	go run ./internal/testkit/cmd/pwgen -n 1000000 -seed 1 > /tmp/pw-1m.txt
//
// -distinct makes every password different (the generator redraws repeats);
// otherwise popular passwords recur, as in a raw leak.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/simjoin/simjoin/internal/testkit/synth"
)

func main() {
	var cfg synth.PasswordsConfig
	flag.IntVar(&cfg.N, "n", 100000, "number of passwords")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	flag.BoolVar(&cfg.Distinct, "distinct", true, "every password different")
	flag.Parse()
	if cfg.N < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: pwgen [-n N] [-seed S] [-distinct=false] > FILE")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for pw := range synth.Passwords(cfg) {
		w.Write(pw)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "pwgen:", err)
		os.Exit(1)
	}
}
