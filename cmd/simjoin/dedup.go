package main

import (
	"bufio"
	"context"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/numfmt"
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

// clusterSection is the "clusters" section of the report.
type clusterSection struct {
	Records    int          `json:"records"`
	Clusters   int          `json:"clusters"`
	Singletons int          `json:"singletons"`
	Removed    int          `json:"removed"` // records - clusters
	Largest    int          `json:"largest"`
	Unions     int64        `json:"unions"` // pairs the clustering handled
	Sizes      []sizeBin    `json:"sizes"`
	Top        []topCluster `json:"largest_clusters,omitempty"`
}

// topCluster is one of the largest clusters: its first record and size.
type topCluster struct {
	First string `json:"first"`
	Size  int    `json:"size"`
}

// sizeBin counts clusters whose size lies in [From, To].
type sizeBin struct {
	From     int `json:"from"`
	To       int `json:"to"`
	Clusters int `json:"clusters"`
	Records  int `json:"records"`
}

// sizeBins groups a size distribution in bins 1, 2, 3-4, 5-8, 9-16, ...
func sizeBins(sizes []cluster.SizeCount) []sizeBin {
	var out []sizeBin
	for _, sc := range sizes {
		from, to := 1, 1
		for to < sc.Size {
			from, to = to+1, 2*to
		}
		if len(out) == 0 || out[len(out)-1].From != from {
			out = append(out, sizeBin{From: from, To: to})
		}
		b := &out[len(out)-1]
		b.Clusters += sc.Clusters
		b.Records += sc.Clusters * sc.Size
	}
	return out
}

// topClusters is the number of largest clusters the report names.
const topClusters = 5

func newClusterSection(f *cluster.Forest, names []string) *clusterSection {
	sizes := f.Sizes()
	s := &clusterSection{Records: f.Len(), Sizes: sizeBins(sizes), Unions: f.Unions()}
	for k, c := range f.Clusters(2) {
		if k == topClusters {
			break
		}
		id := strconv.Itoa(c[0] + 1)
		if names != nil {
			id = names[c[0]]
		}
		s.Top = append(s.Top, topCluster{id, len(c)})
	}
	for _, sc := range sizes {
		s.Clusters += sc.Clusters
		if sc.Size == 1 {
			s.Singletons = sc.Clusters
		}
		s.Largest = max(s.Largest, sc.Size)
	}
	s.Removed = s.Records - s.Clusters
	return s
}

func (s *clusterSection) rows() [][2]string {
	rows := [][2]string{
		{"records", numfmt.Group(int64(s.Records))},
		{"clusters", numfmt.Group(int64(s.Clusters))},
		{"singletons", numfmt.Group(int64(s.Singletons))},
		{"removed", numfmt.Group(int64(s.Removed)) + pct(int64(s.Removed), int64(s.Records)) + " (records less clusters)"},
		{"largest", numfmt.Group(int64(s.Largest))},
	}
	for _, b := range s.Sizes {
		k := "size " + strconv.Itoa(b.From)
		if b.To > b.From {
			k += "-" + strconv.Itoa(b.To)
		}
		rows = append(rows, [2]string{k, plural(int64(b.Clusters), "cluster", "clusters") + ", " + plural(int64(b.Records), "record", "records")})
	}
	for k, c := range s.Top {
		key := ""
		if k == 0 {
			key = "largest clusters"
		}
		rows = append(rows, [2]string{key, plural(int64(c.Size), "record", "records") + ", first " + c.First})
	}
	return rows
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
	sec := newClusterSection(f, l.names)
	rep.addSection("clusters", "clusters", sec, sec.rows())
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
