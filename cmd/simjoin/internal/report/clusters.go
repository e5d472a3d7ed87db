package report

import (
	"strconv"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/numfmt"
)

// Clusters is the "clusters" section of the report of simjoin dedup.
type Clusters struct {
	Records    int          `json:"records"`
	Clusters   int          `json:"clusters"`
	Singletons int          `json:"singletons"`
	Removed    int          `json:"removed"` // records - clusters
	Largest    int          `json:"largest"`
	Unions     int64        `json:"unions"` // pairs the clustering handled
	Sizes      []SizeBin    `json:"sizes"`
	Top        []TopCluster `json:"largest_clusters,omitempty"`
}

// TopCluster is one of the largest clusters: its first record and size.
type TopCluster struct {
	First string `json:"first"`
	Size  int    `json:"size"`
}

// SizeBin is cluster.SizeBin under the report's JSON names.
type SizeBin struct {
	From     int `json:"from"`
	To       int `json:"to"`
	Clusters int `json:"clusters"`
	Records  int `json:"records"`
}

// topClusters is the number of largest clusters the report names.
const topClusters = 5

// NewClusters summarises the clusters of f; names are the record ids of
// --files (nil: 1-based line numbers).
func NewClusters(f *cluster.Forest, names []string) *Clusters {
	sum := f.Summary()
	s := &Clusters{Records: sum.Records, Clusters: sum.Clusters, Singletons: sum.Singletons,
		Removed: sum.Records - sum.Clusters, Largest: sum.Largest, Unions: sum.Unions}
	for _, b := range sum.Sizes {
		s.Sizes = append(s.Sizes, SizeBin(b))
	}
	for k, c := range f.Clusters(2) {
		if k == topClusters {
			break
		}
		id := strconv.Itoa(c[0] + 1)
		if names != nil {
			id = names[c[0]]
		}
		s.Top = append(s.Top, TopCluster{id, len(c)})
	}
	return s
}

// AddClusters adds the section "clusters" of dedup on the clusters of f
// (NewClusters; names as there).
func (r *Report) AddClusters(f *cluster.Forest, names []string) {
	sec := NewClusters(f, names)
	r.AddSection("clusters", "clusters", sec, sec.Rows())
}

// Rows is the text of the section.
func (s *Clusters) Rows() [][2]string {
	rows := [][2]string{
		{"records", numfmt.Group(int64(s.Records))},
		{"clusters", numfmt.Group(int64(s.Clusters))},
		{"singletons", numfmt.Group(int64(s.Singletons))},
		{"removed", numfmt.Group(int64(s.Removed)) + Pct(int64(s.Removed), int64(s.Records)) + " (records less clusters)"},
		{"largest", numfmt.Group(int64(s.Largest))},
	}
	for _, b := range s.Sizes {
		k := "size " + strconv.Itoa(b.From)
		if b.To > b.From {
			k += "-" + strconv.Itoa(b.To)
		}
		rows = append(rows, [2]string{k, Plural(int64(b.Clusters), "cluster", "clusters") + ", " + Plural(int64(b.Records), "record", "records")})
	}
	for k, c := range s.Top {
		key := ""
		if k == 0 {
			key = "largest clusters"
		}
		rows = append(rows, [2]string{key, Plural(int64(c.Size), "record", "records") + ", first " + c.First})
	}
	return rows
}
