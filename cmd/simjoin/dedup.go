package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/sink"
)

func init() { register(newDedupCmd) }

func newDedupCmd(e *env) *cobra.Command {
	var cfg joinConfig
	var clusters bool
	cmd := joinCommand(&cobra.Command{
		Use:   "dedup [flags] INPUT",
		Short: "Cluster near-duplicates and keep one record of each cluster",
		Long:  help("dedup"),
	}, &cfg, nil, func(ctx context.Context) error { return runDedup(ctx, e, &cfg, clusters) })
	dropFlags(cmd, "dedup clusters one collection and writes ids in input order", "against", "sort")
	cmd.Flags().BoolVar(&clusters, "clusters", false, "print id<TAB>cluster for every record instead of the kept ids")
	return cmd
}

// runDedup loads INPUT, joins it with the method asked for, clusters the
// pairs and writes the kept ids or every id with its cluster.
func runDedup(ctx context.Context, e *env, cfg *joinConfig, all bool) error {
	return runJoined(ctx, e, cfg, "join+cluster", func(ctx context.Context, in *simjoin.Input, out *outfile.File, l *loaded, _ bool) (simjoin.Stats, func() error, error) {
		f, st, err := in.Dedup(ctx, nil)
		return st, func() error {
			l.rep.AddClusters(f, l.names)
			return sink.WriteClusters(out, cfg.outFmt, f, l.names, all)
		}, err
	})
}
