package main

import (
	"bufio"
	"context"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/fieldenc"
	rpt "github.com/simjoin/simjoin/internal/report"
)

func init() { register(newDedupCmd) }

func newDedupCmd(e *env) *cobra.Command {
	var cfg joinConfig
	var clusters bool
	cmd := &cobra.Command{
		Use:   "dedup [flags] INPUT",
		Short: "Cluster near-duplicates and keep one record of each cluster",
		Long: `Join INPUT with itself as join does, and cluster the records: two records
are in one cluster when a chain of pairs at or above the threshold links them
(the connected components of the pairs). Print the id of one kept record per
cluster, the first in input order, in input order: records with no
near-duplicate are clusters of one and are kept. With --clusters, print
id<TAB>cluster for every record instead, clusters numbered from 1 in order of
their first record. Ids are line numbers, or paths with --files. Empty records
are clusters of one; files dropped by --min-tokens are not records.

--stats adds the distribution of cluster sizes to the report.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.command = "dedup"
			if err := cfg.parse(); err != nil {
				return err
			}
			if err := cfg.docs.checkArgs(args); err != nil {
				return err
			}
			if cfg.against != "" {
				return usagef("dedup clusters one collection: --against is not allowed")
			}
			return runDedup(cmd.Context(), e, &cfg, clusters)
		},
	}
	cfg.addFlags(cmd.Flags())
	dropFlags(cmd, "dedup clusters one collection and writes ids in input order", "against", "sort")
	cmd.Flags().BoolVar(&clusters, "clusters", false, "print id<TAB>cluster for every record instead of the kept ids")
	return cmd
}

// runDedup loads INPUT, joins it with the method asked for, clusters the
// pairs and writes the kept ids or every id with its cluster.
func runDedup(ctx context.Context, e *env, cfg *joinConfig, all bool) error {
	ctx, out, l, err := start(ctx, e, cfg, cfg.docs.args[0])
	if err != nil {
		return err
	}
	rep := l.rep
	sink := newPairSink(newPairWriter(io.Discard, formatTSV, false), cfg, l)
	tm := rep.phase("join+cluster")
	in, err := planned(ctx, cfg, l, nil)
	if err != nil {
		return err
	}
	f, st, err := in.Dedup(ctx, nil)
	if err == nil {
		err = joined(e, cfg, l, st, sink)
	}
	if err != nil {
		return err
	}
	tm.done("join+cluster")
	tm = rep.phase("write")
	sec := rpt.NewClusters(f, l.names)
	rep.addSection("clusters", "clusters", sec, sec.Rows())
	if err := writeClusters(out, cfg.outFmt, f, l.names, all); err != nil {
		return err
	}
	tm.done("write")
	return finishReport(e, cfg, rep, sink)
}

// writeClusters writes the kept ids (all false) or every id with its cluster
// number from 1 (all true), in input order. names are the ids of --files
// records; nil means 1-based line numbers.
func writeClusters(w io.Writer, f format, forest *cluster.Forest, names []string, all bool) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if f == formatCSV {
		if all {
			bw.WriteString("id,cluster\n")
		} else {
			bw.WriteString("id\n")
		}
	}
	var buf []byte
	var num [20]byte
	line := func(i, label int) error {
		var id []byte
		if names == nil {
			id = strconv.AppendInt(num[:0], int64(i+1), 10)
		} else {
			id = []byte(names[i])
		}
		b := buf[:0]
		switch f {
		case formatCSV:
			b = fieldenc.AppendCSV(b, id)
		case formatJSONL:
			b = appendJSONID(append(b, '{'), "id", id, names == nil)
		default:
			b = fieldenc.AppendTSV(b, id)
		}
		if all {
			switch f {
			case formatCSV:
				b = append(b, ',')
			case formatJSONL:
				b = append(b, `,"cluster":`...)
			default:
				b = append(b, '\t')
			}
			b = strconv.AppendInt(b, int64(label), 10)
		}
		if f == formatJSONL {
			b = append(b, '}')
		}
		b = append(b, '\n')
		buf = b
		_, err := bw.Write(b)
		return err
	}
	if all {
		for i, l := range forest.Labels() {
			if err := line(i, l+1); err != nil {
				return err
			}
		}
	} else {
		for _, i := range forest.Firsts() {
			if err := line(i, 0); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
