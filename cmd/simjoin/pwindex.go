package main

import (
	"context"
	"io"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// pwIndexFixed are the flags of passwords check that an index fixes at
// create (its tokenizer and measure) or that describe a list it does not
// read.
var pwIndexFixed = []string{"qgram", "measure", "fold-case", "fold-leet", "strip-suffix", "counts", "skip-comments"}

// runCheckIndex runs `simjoin passwords check --index DIR`: the candidates
// are searched in a persisted index (built with simjoin index create and
// add) instead of an index built from a list on every call. Matches are
// written as candidate<TAB>id<TAB>similarity, the id being the index's
// record id; the exit status is that of passwords check.
func runCheckIndex(ctx context.Context, e *env, cfg *pwConfig, fs *pflag.FlagSet, args []string) (err error) {
	for _, name := range pwIndexFixed {
		if fs.Changed(name) {
			return usagef("--%s: with --index the index's own tokenizer and measure apply (fixed at simjoin index create)", name)
		}
	}
	out, err := cfg.createOutputs(e, cfg.index, !cfg.silent)
	if err != nil {
		return err
	}
	ix, err := openIndex(cfg.index, cfg.workers)
	if err != nil {
		return err
	}
	defer closeIndex(ix, &err)
	icfg := ix.Config()
	t, err := prefix.ParseThreshold(icfg.Measure, cfg.threshold)
	if err != nil {
		return usageError{err}
	}
	if err := checkMin(icfg, t, "-t"); err != nil {
		return err
	}
	rep := &report{
		Command:   "passwords check",
		Input:     []string{"--index", cfg.index},
		Tokens:    icfg.Tokens.String(),
		Measure:   icfg.Measure.String(),
		Threshold: t.String(),
		Method:    "index: " + icfg.Method.String(),
		Workers:   cfg.workers,
	}
	var sink io.Writer = io.Discard
	if out != nil {
		sink = out
	}
	pw := newPairWriter(sink, cfg.outFmt, icfg.Measure == prefix.Overlap)
	simCol := "similarity"
	if icfg.Method == index.LSH && !icfg.RawSets {
		pw.simKey, simCol = "est", "estimate"
	}
	csvHeader(pw, sink, "candidate", "id", simCol)
	tm := rep.phase("check")
	var cs checkStats
	var hist histogram
	var abuf, bbuf []byte
	check := func(first int, batch [][]byte) error {
		res, err := ix.Search(ctx, batch, index.SearchOptions{Threshold: t})
		if err != nil {
			// The index's message numbers the record in the batch; it
			// never holds the text.
			return indexError(err, "-t")
		}
		for k, hits := range res {
			cs.candidates++
			if len(batch[k]) == 0 {
				cs.empty++
				continue
			}
			if len(hits) > 0 {
				cs.tooClose++
			}
			abuf = strconv.AppendInt(abuf[:0], int64(first+k), 10)
			for _, h := range hits {
				cs.matches++
				hist.add(h.Sim)
				bbuf = strconv.AppendUint(bbuf[:0], uint64(h.ID), 10)
				if err := pw.write(abuf, bbuf, true, h.Sim); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if len(args) > 0 {
		batch := make([][]byte, len(args))
		for i, a := range args {
			batch[i] = []byte(a)
		}
		err = check(1, batch)
	} else {
		err = lineBatches(e.stdin, "<stdin>", checkBatch, check)
	}
	if err != nil {
		return err
	}
	if err := pw.flush(); err != nil {
		return err
	}
	tm.done("check")
	rep.Results = cs.matches
	if icfg.Measure != prefix.Overlap {
		rep.Histogram = hist.bins()
	}
	st := ix.Stats()
	rep.Records = int(st.Live)
	rep.addSection("check", "candidates", struct {
		Candidates int `json:"candidates"`
		Empty      int `json:"empty"`
		TooClose   int `json:"too_close"`
		Known      int `json:"known_live"`
	}{cs.candidates, cs.empty, cs.tooClose, int(st.Live)}, [][2]string{
		{"known (live in the index)", group(int64(st.Live))},
		{"checked", group(int64(cs.candidates))},
		{"empty", group(int64(cs.empty))},
		{"too close", group(int64(cs.tooClose))},
		{"exit status", strconv.Itoa(map[bool]int{true: exitTooClose, false: exitOK}[cs.tooClose > 0])},
	})
	if err := finishPWReport(e, cfg, rep); err != nil {
		return err
	}
	if cs.tooClose > 0 {
		return exitError{code: exitTooClose}
	}
	return nil
}
