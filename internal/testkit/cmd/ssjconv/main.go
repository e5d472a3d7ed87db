// Command ssjconv writes the token sets of a line input, tokenized and ordered
// exactly as `simjoin join --tokens SPEC` sees them, for the C++ joins that
// scripts/cpp-compare.sh runs beside simjoin. Every set is a list of int32
// ids, rare first (document frequency ascending, the order package's ids),
// sorted ascending, and records come ordered by size ascending. Empty
// records are left out, as simjoin leaves them out of the join. Two formats:
//
//   - -format bin (the default), the input of the token-based joins of
//     Tsinghua's Similarity-Search-and-Join (ppjoin-token, adaptjoin): for
//     every record, little-endian int32 id, int32 size, then its tokens;
//   - -format text, the raw integer input of Mann, Augsten and Bouros's
//     set_sim_join (VLDB 2016): one record a line, its ids in decimal
//     separated by single spaces (that program numbers records by line, so
//     its pairs are compared with simjoin's by count);
//   - -format keys, the same lines with each token's 64-bit key (its
//     hash, as the tokenizer makes it) in place of its id: the sets as a
//     user who hashed their own tokens would write them, for timing
//     simjoin's order on hash-valued integers rather than on ids already
//     numbered.
//
// With -files, INPUT is one or more files or directories and each file is a
// record, selected as simjoin's --files selects them (-include, -exclude,
// -min-tokens). It prints the number of records, tokens and distinct tokens
// on stderr.
//
//	go run ./internal/testkit/cmd/ssjconv -tokens qgram:2 passwords.txt > passwords.bin
//	go run ./internal/testkit/cmd/ssjconv -format text sets.txt > sets.ints
//
// scripts/cpp-compare.sh runs it before timing the C++ joins beside simjoin.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// globs is a repeatable string flag.
type globs []string

func (g *globs) String() string     { return fmt.Sprint(*g) }
func (g *globs) Set(v string) error { *g = append(*g, v); return nil }

func main() {
	tokens := flag.String("tokens", "set", "how a record becomes a set, as simjoin's --tokens: set, words, qgram:N, shingle:N or go:N")
	format := flag.String("format", "bin", "bin (Tsinghua's int32 records), text (set_sim_join's integer lines) or keys (the tokens' 64-bit keys as integer lines)")
	files := flag.Bool("files", false, "INPUT is one or more files or directories, each file a record (as simjoin's --files)")
	var fo records.FileOptions
	flag.Var((*globs)(&fo.Include), "include", "with -files: take only files matching GLOB (repeatable)")
	flag.Var((*globs)(&fo.Exclude), "exclude", "with -files: leave out files matching GLOB (repeatable)")
	flag.IntVar(&fo.MinTokens, "min-tokens", 0, "with -files: drop files with fewer distinct tokens")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: ssjconv [-tokens SPEC] [-format bin|text|keys] [-files [-include GLOB] [-exclude GLOB] [-min-tokens N]] INPUT... > OUTPUT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 || !*files && flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	spec, err := shingle.Parse(*tokens)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ssjconv:", err)
		os.Exit(2)
	}
	if *format != "bin" && *format != "text" && *format != "keys" {
		fmt.Fprintf(os.Stderr, "ssjconv: -format %q: want bin, text or keys\n", *format)
		os.Exit(2)
	}
	var src records.Source
	if *files {
		src = records.Files(flag.Args()...)
	} else {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "ssjconv:", err)
			os.Exit(1)
		}
		defer f.Close()
		src = records.Lines(f, flag.Arg(0))
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	opts := records.Options{Tokens: spec, Files: fo}
	err = convert(w, src, opts, *format)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ssjconv:", err)
		os.Exit(1)
	}
}

// convert reads src with opts and orders its sets as the exact join does
// (records, then order) and writes them to w in format: bin, text or keys
// (see the package comment).
func convert(w io.Writer, src records.Source, opts records.Options, format string) error {
	in := &order.Input{Workers: opts.Workers}
	if _, err := records.NewReader(opts).Read(context.Background(), src, 0, in); err != nil {
		return err
	}
	c, err := order.New(in)
	if err != nil {
		return err
	}
	var buf []byte
	for i := range c.Len() {
		set := c.Set(i)
		buf = buf[:0]
		if format != "bin" {
			for j, t := range set {
				if j > 0 {
					buf = append(buf, ' ')
				}
				v := uint64(t)
				if format == "keys" {
					v = c.Dict().Key(t)
				}
				buf = strconv.AppendUint(buf, v, 10)
			}
			buf = append(buf, '\n')
		} else {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(c.ID(i)))
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(set)))
			for _, t := range set {
				buf = binary.LittleEndian.AppendUint32(buf, t)
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "%d records (%d empty left out), %d tokens, %d distinct\n",
		c.Len(), c.Skipped(), c.Tokens(), c.Dict().Len())
	return nil
}
