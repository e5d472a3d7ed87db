package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/infile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/records"
)

func newIndexDeleteCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete DIR ID...",
		Short: "Delete records by id (\"-\": ids one a line on stdin)",
		Long:  help("index delete"),
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := infile.IDs(args[1:], e.stdin)
			var le *records.LineError // stdin's; an argument's error is the user's
			if err != nil && !errors.As(err, &le) {
				return usageError{err}
			} else if err != nil {
				return err
			}
			return withIndex(e, args[0], index.OpenOptions{}, func(ix *index.Index) error {
				n, err := ix.Delete(ids)
				if err == nil {
					_, err = fmt.Fprintf(e.stdout, "deleted %d of %d ids\n", n, len(ids))
				}
				return err
			})
		},
	}
	return cmd
}

func newIndexCompactCmd(e *env) *cobra.Command {
	var workers int
	cmd := &cobra.Command{
		Use:   "compact DIR",
		Short: "Merge the segments, drop deleted records and re-order tokens rare-first",
		Long:  help("index compact"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withIndex(e, args[0], index.OpenOptions{Workers: workers}, func(ix *index.Index) error {
				before := ix.Stats()
				if err := ix.Compact(cmd.Context()); err != nil {
					return err
				}
				after := ix.Stats()
				_, err := fmt.Fprintf(e.stdout, "compacted %s: %d live records of %d, %d deleted dropped\n",
					args[0], after.Live, after.Records, before.Deleted-after.Deleted)
				return err
			})
		},
	}
	addWorkersFlag(cmd.Flags(), &workers, "worker goroutines (0: one per core)")
	return cmd
}

func newIndexStatsCmd(e *env) *cobra.Command {
	var format formatFlag
	cmd := &cobra.Command{
		Use:   "stats DIR",
		Short: "Print the index's configuration and statistics",
		Long:  help("index stats"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := format.parse()
			if err != nil {
				return err
			}
			return withIndex(e, args[0], index.OpenOptions{ReadOnly: true}, func(ix *index.Index) error {
				return rows.WriteIndexStats(e.stdout, ix.Config(), ix.Stats(), f == fieldenc.JSONL)
			})
		},
	}
	format.add(cmd.Flags(), fieldenc.TSV, fieldenc.JSONL)
	return cmd
}

func newIndexVerifyCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "verify DIR",
		Short: "Check every file of the index, changing nothing; exit status 1 naming what is damaged",
		Long:  help("index verify"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			var wd *index.WALDamage
			switch err := index.Verify(dir); {
			case errors.As(err, &wd):
				return fmt.Errorf("%w (simjoin index repair %s cuts it)", err, dir)
			case err != nil:
				return openError(dir, err)
			}
			_, err := fmt.Fprintf(e.stdout, "%s: ok\n", dir)
			return err
		},
	}
}

func newIndexRepairCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "repair DIR",
		Short: "Cut off the damaged end of the index's write-ahead log and say what it held",
		Long:  help("index repair"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			d, err := index.Repair(dir)
			if err != nil {
				return openError(dir, err)
			}
			if d == nil {
				_, err = fmt.Fprintf(e.stdout, "%s: ok, nothing to repair\n", dir)
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%s: cut %d bytes off %s from offset %d (%s): %s\n",
				dir, d.Bytes, filepath.Base(d.File), d.Offset, d.Reason, d.Held())
			return err
		},
	}
}
