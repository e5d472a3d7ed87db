package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/records"
)

// indexAddFlags are the flags of index add.
type indexAddFlags struct {
	dedup           bool
	threshold       string
	format          formatFlag
	input, conflict string
	batch, workers  int
}

func newIndexAddCmd(e *env) *cobra.Command {
	var f indexAddFlags
	cmd := &cobra.Command{
		Use:   "add DIR [--dedup -t T] INPUT",
		Short: "Insert the records of INPUT, or with --dedup only those not already held",
		Long:  help("index add"),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIndexAdd(cmd.Context(), e, args[0], args[1], &f)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.dedup, "dedup", false, "search before insert: skip records that reach -t against a held record")
	fs.StringVarP(&f.threshold, "threshold", "t", "", "--dedup threshold, at least the index's minimum, such as 0.8 or 4/5")
	fs.StringVar(&f.input, "input-format", "lines", "how a line of INPUT is a record: lines (its text), tsv (KEY<TAB>TEXT) or jsonl ({\"id\": KEY, \"text\": ..., \"payload\": {...}})")
	fs.StringVar(&f.conflict, "on-conflict", "error", "a record whose key a live record holds: error (nothing of its batch is inserted), replace (delete the held one, insert it) or skip")
	f.format.add(fs)
	fs.IntVar(&f.batch, "batch", addBatch, "most records inserted, synced and printed at a time")
	addWorkersFlag(fs, &f.workers, "worker goroutines (0: one per core); results do not depend on it")
	return cmd
}

// options checks the flags of add, before the index is opened.
func (f *indexAddFlags) options() (fieldenc.Format, index.LineFormat, index.Conflict, error) {
	out, err := f.format.parse()
	if err != nil {
		return 0, 0, 0, err
	}
	in, err := index.ParseLineFormat(f.input)
	if err != nil {
		return 0, 0, 0, usagef("unknown --input-format %q: want lines, tsv or jsonl", f.input)
	}
	conflict, err := index.ParseConflict(f.conflict)
	switch {
	case err != nil:
		return 0, 0, 0, usagef("unknown --on-conflict %q: want error, replace or skip", f.conflict)
	case f.batch < 1:
		return 0, 0, 0, usagef("--batch %d: want >= 1", f.batch)
	case f.threshold != "" && !f.dedup:
		return 0, 0, 0, usagef("-t applies to --dedup")
	case f.dedup && f.threshold == "":
		return 0, 0, 0, usagef("--dedup needs -t/--threshold")
	}
	return out, in, conflict, nil
}

func runIndexAdd(ctx context.Context, e *env, dir, input string, f *indexAddFlags) error {
	outFmt, in, conflict, err := f.options()
	if err != nil {
		return err
	}
	return withIndex(e, dir, index.OpenOptions{Workers: f.workers}, func(ix *index.Index) error {
		cfg := ix.Config()
		opt := index.InsertOptions{OnConflict: conflict}
		if f.dedup {
			if opt.Dedup, err = searchThreshold(ix, f.threshold); err != nil {
				return err
			}
		}
		switch {
		case cfg.Keys == index.NoKeys && in != index.LinesText && in != index.LinesJSON:
			return usagef("--input-format %s: %s has no keys (it names records by id): give lines or jsonl", in, dir)
		case cfg.Keys != index.NoKeys && in == index.LinesText:
			return usagef("%s takes a %s key with each record: give --input-format tsv (KEY<TAB>TEXT) or jsonl", dir, cfg.Keys)
		}
		r, err := e.open(input, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		w := rows.NewOutcomes(e.stdout, outFmt, cfg)
		err = ix.InsertLines(ctx, r, records.BatchOptions{Name: r.Name, MaxLines: f.batch}, in, opt, w.WriteBatch)
		if errors.Is(err, index.ErrKeyExists) {
			return fmt.Errorf("%w (--on-conflict replace or skip takes it)", err)
		}
		return indexError(err, "-t")
	})
}
