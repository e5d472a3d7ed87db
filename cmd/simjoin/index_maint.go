package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/rows"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
)

func newIndexDeleteCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete DIR ID...",
		Short: "Delete records by id, or by key (\"-\": one a line on stdin)",
		Long:  help("index delete"),
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withIndex(e, args[0], index.OpenOptions{}, func(ix *index.Index) error {
				r, err := readRefs(ix.Config().Keys, args[1:], e.stdin)
				if err != nil {
					return err
				}
				n := 0
				if r.keys != nil {
					n, err = ix.DeleteKeys(r.keys)
				} else {
					n, err = ix.Delete(r.ids)
				}
				if err == nil {
					_, err = fmt.Fprintf(e.stdout, "deleted %d of %d %s\n", n, r.len(), plural(r.len(), ix.Config().Keys))
				}
				return err
			})
		},
	}
	return cmd
}

// plural names records by what names them on an index of key kind k: ids
// or keys ("deleted 1 of 1 ids" counts the names given).
func plural(_ int, k index.KeyKind) string {
	if k != index.NoKeys {
		return "keys"
	}
	return "ids"
}

func newIndexGetCmd(e *env) *cobra.Command {
	var format formatFlag
	var output string
	cmd := &cobra.Command{
		Use:   "get DIR ID...",
		Short: "Print the records stored under ids, or keys (\"-\": one a line on stdin): id, text, payload",
		Long:  help("index get"),
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			outFmt, err := format.parse()
			if err != nil {
				return err
			}
			e.outs.ProtectDir(args[0])
			out, err := e.create(output)
			if err != nil {
				return err
			}
			return withIndex(e, args[0], index.OpenOptions{ReadOnly: true}, func(ix *index.Index) error {
				cfg := ix.Config()
				r, err := readRefs(cfg.Keys, args[1:], e.stdin)
				if err != nil {
					return err
				}
				var found []index.Stored
				var missing []string
				get := func(s index.Stored, ok bool, err error, name string) error {
					if ok {
						found = append(found, s)
					} else if err == nil {
						missing = append(missing, name)
					}
					return err
				}
				for _, id := range r.ids {
					s, ok, err := ix.Get(id)
					if err := get(s, ok, err, fmt.Sprint(id)); err != nil {
						return err
					}
				}
				for _, k := range r.keys {
					s, ok, err := ix.GetKey(k)
					if err := get(s, ok, err, fmt.Sprintf("%q", k)); err != nil {
						return err
					}
				}
				if len(missing) > 0 {
					return fmt.Errorf("no live record %s (%d of %d %s)", missing[0], len(missing), r.len(), plural(r.len(), cfg.Keys))
				}
				w := rows.NewStored(out, outFmt, cfg)
				for _, s := range found {
					w.Write(s)
				}
				return w.Flush()
			})
		},
	}
	format.add(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the records to `FILE` (written whole or not at all) instead of stdout")
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

func newIndexBackupCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "backup DIR DEST",
		Short: "Copy the index in DIR to the new directory DEST, consistently, also while simjoin serve holds it",
		Long:  help("index backup"),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, dest := args[0], args[1]
			if inside(dest, dir) {
				return usagef("%s is inside the index %s: back it up elsewhere", dest, dir)
			}
			st, err := index.Backup(dir, dest)
			switch {
			case errors.Is(err, index.ErrNotEmpty):
				return usagef("%s is not empty: give a new directory", dest)
			case err != nil:
				return openError(dir, err)
			}
			_, err = fmt.Fprintf(e.stdout, "backed up %s to %s: %d files (%d hard-linked), %d bytes\n", dir, dest, st.Files, st.Linked, st.Bytes)
			return err
		},
	}
}

// inside reports whether path is dir or lies under it (lexically, after
// making both absolute).
func inside(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}
