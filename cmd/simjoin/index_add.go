package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

func newIndexAddCmd(e *env) *cobra.Command {
	var dedup bool
	var threshold string
	var format formatFlag
	var batch, workers int
	cmd := &cobra.Command{
		Use:   "add DIR [--dedup -t T] INPUT",
		Short: "Insert the records of INPUT, or with --dedup only those not already held",
		Long:  help("index add"),
		Args:  cobra.ExactArgs(2),
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
	return withIndex(e, dir, index.OpenOptions{Workers: workers}, func(ix *index.Index) error {
		cfg := ix.Config()
		var t prefix.Threshold
		var err error
		if dedup {
			if t, err = searchThreshold(ix, threshold); err != nil {
				return err
			}
		}
		in, err := e.open(input, nil)
		if err != nil {
			return err
		}
		defer in.Close()
		w := rows.NewOutcomes(e.stdout, f, cfg)
		err = ix.InsertLines(ctx, in, records.BatchOptions{Name: in.Name, MaxLines: batch}, t, w.WriteBatch)
		return indexError(err, "-t")
	})
}
