package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
)

func newIndexDeleteCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete DIR ID...",
		Short: "Delete records by id (\"-\": ids one a line on stdin)",
		Long: `Delete the records with the given ids; "-" reads the ids one a line from
stdin. The deletion is durable when the command returns. Ids that are not
live (never assigned, or already deleted) are not an error; the command
prints how many records it deleted.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var ids []index.ID
			for _, a := range args[1:] {
				if a == "-" {
					read, err := index.ReadIDs(e.stdin, "<stdin>")
					if err != nil {
						return err
					}
					ids = append(ids, read...)
					continue
				}
				id, err := index.ParseID(a)
				if err != nil {
					return usageError{err}
				}
				ids = append(ids, id)
			}
			ix, err := openIndex(args[0], 0)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			n, err := ix.Delete(ids)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "deleted %d of %d ids\n", n, len(ids))
			return err
		},
	}
	return cmd
}

func newIndexCompactCmd(e *env) *cobra.Command {
	var workers int
	cmd := &cobra.Command{
		Use:   "compact DIR",
		Short: "Merge the segments, drop deleted records and re-order tokens rare-first",
		Long: `Merge the index's segments and its recent inserts into one, drop deleted
records and order the tokens rare-first again (tokens first seen after the
last build are appended to the order, which keeps every answer right but
costs speed until compaction). Searches give the same answers before and
after. simjoin index stats shows the segments, tokens and bytes on disk.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ix, err := openIndex(args[0], workers)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			before := ix.Stats()
			if err := ix.Compact(cmd.Context()); err != nil {
				return err
			}
			after := ix.Stats()
			_, err = fmt.Fprintf(e.stdout, "compacted %s: %d live records of %d, %d deleted dropped\n",
				args[0], after.Live, after.Records, before.Deleted-after.Deleted)
			return err
		},
	}
	cmd.Flags().IntVarP(&workers, "workers", "j", 0, "worker goroutines (0: one per core)")
	return cmd
}

func newIndexStatsCmd(e *env) *cobra.Command {
	var formatName string
	cmd := &cobra.Command{
		Use:   "stats DIR",
		Short: "Print the index's configuration and statistics",
		Long: `Print the index's statistics, one key<TAB>value a line (--format jsonl: one
JSON object, the same that simjoin serve answers on GET /v1/stats).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			switch formatName {
			case "tsv", "jsonl":
			default:
				return usagef("unknown --format %q: want tsv or jsonl", formatName)
			}
			ix, err := openIndex(args[0], 0)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			st := ix.Stats()
			if formatName == "jsonl" {
				b, err := httpapi.MarshalStats(st)
				if err != nil {
					return err
				}
				_, err = e.stdout.Write(append(b, '\n'))
				return err
			}
			rows := append([][2]string{{"config", ix.Config().String()}}, statsRows(st)...)
			return writeRows(e.stdout, rows)
		},
	}
	cmd.Flags().StringVar(&formatName, "format", "tsv", "output format: tsv or jsonl")
	return cmd
}

// statsRows lists the index's statistics as (key, value) rows.
func statsRows(st index.Stats) [][2]string {
	var rows [][2]string
	for _, f := range httpapi.StatsFields(st) {
		b, err := json.Marshal(f.Value)
		if err != nil {
			continue
		}
		rows = append(rows, [2]string{f.Key, strings.Trim(string(b), `"`)})
	}
	return rows
}

func writeRows(w io.Writer, rows [][2]string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, r := range rows {
		bw.WriteString(r[0])
		bw.WriteByte('\t')
		bw.WriteString(r[1])
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func newIndexVerifyCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "verify DIR",
		Short: "Check every checksum of the index; exit status 1 naming the corrupt file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ix, err := openIndex(args[0], 0)
			if err != nil {
				return err
			}
			defer closeIndex(ix, &err)
			if err := ix.Verify(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%s: ok\n", args[0])
			return err
		},
	}
}
