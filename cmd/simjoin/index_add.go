package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/rows"
	"github.com/simjoin/simjoin/prefix"
)

func newIndexAddCmd(e *env) *cobra.Command {
	var dedup bool
	var threshold string
	var format formatFlag
	var batch, workers int
	cmd := &cobra.Command{
		Use:   "add DIR [--dedup -t T] INPUT",
		Short: "Insert the records of INPUT, or with --dedup only those not already held",
		Long: `Insert each line of INPUT ("-" for stdin) as a record, and print one line
per input record:

  LINE<TAB>inserted<TAB>ID
  LINE<TAB>duplicate<TAB>ID<TAB>SIM

LINE is the 1-based line of INPUT. With --dedup -t T, search before insert: a
record is inserted only when no record already held, nor an earlier record of
this input, reaches T; otherwise it is reported as a duplicate of the held
record it matches best (ID) at similarity SIM. T must be at least the index's
minimum threshold. For an exact index the records kept are exactly those of a
sequential greedy dedup; for LSH, up to the banding's recall.

Records go in batches of at most --batch lines, fewer when the input has no
more lines ready (a batch never waits for input that has not arrived); a
batch's lines are printed only once it is durable (synced to the write-ahead
log), so whatever was printed before a crash is in the index after it. On SIGINT, SIGTERM or SIGHUP the
command stops before the next batch (a batch is held whole or not at all) and
exits with status 128 plus the signal's number.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := format.parse()
			if err != nil {
				return err
			}
			if batch < 1 {
				return usagef("--batch %d: want >= 1", batch)
			}
			if threshold != "" && !dedup {
				return usagef("-t applies to --dedup")
			}
			if dedup && threshold == "" {
				return usagef("--dedup needs -t/--threshold")
			}
			return runIndexAdd(cmd.Context(), e, args[0], args[1], dedup, threshold, f, batch, workers)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&dedup, "dedup", false, "search before insert: skip records that reach -t against a held record")
	fs.StringVarP(&threshold, "threshold", "t", "", "--dedup threshold, at least the index's minimum, such as 0.8 or 4/5")
	format.add(fs)
	fs.IntVar(&batch, "batch", addBatch, "most records inserted, synced and printed at a time")
	addWorkersFlag(fs, &workers, "worker goroutines (0: one per core); results do not depend on it")
	return cmd
}

func runIndexAdd(ctx context.Context, e *env, dir, input string, dedup bool, threshold string, f fieldenc.Format, batch, workers int) error {
	return withIndex(dir, workers, func(ix *index.Index) error {
		cfg := ix.Config()
		var t prefix.Threshold
		var err error
		if dedup {
			if t, err = searchThreshold(ix, threshold); err != nil {
				return err
			}
		}
		in, err := e.open(input, nil, nil)
		if err != nil {
			return err
		}
		defer in.Close()
		w := rows.NewOutcomes(e.stdout, f, cfg)
		err = ix.InsertLines(ctx, in, simjoin.BatchOptions{Name: in.Name, MaxLines: batch}, t, func(first int, outs []index.Outcome) error {
			for k, o := range outs {
				w.Write(first+k, o)
			}
			// The batch is durable: its lines go out now.
			return w.Flush()
		})
		return indexError(err, "-t")
	})
}
