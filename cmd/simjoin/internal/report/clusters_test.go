package report

import (
	"fmt"
	"testing"

	"github.com/simjoin/simjoin/cluster"
)

// TestClusters: dedup's section counts the clusters, singletons and records
// removed, names the largest clusters by their first record (a path with
// --files), and AddClusters adds it under "clusters".
func TestClusters(t *testing.T) {
	f := cluster.New(6)
	f.Union(0, 2)
	f.Union(2, 5)
	f.Union(1, 3)
	s := NewClusters(f, nil)
	if s.Records != 6 || s.Clusters != 3 || s.Singletons != 1 || s.Removed != 3 || s.Largest != 3 {
		t.Errorf("section %+v", s)
	}
	if fmt.Sprint(s.Top) != "[{1 3} {2 2}]" {
		t.Errorf("top clusters %v", s.Top)
	}
	var r Report
	r.AddClusters(f, []string{"a", "b", "c", "d", "e", "f"})
	sec, ok := r.Sections["clusters"].(*Clusters)
	if !ok || sec.Top[0].First != "a" || len(r.extra) != 1 || r.extra[0].Title != "clusters" || r.extra[0].Rows[0] != [2]string{"records", "6"} {
		t.Errorf("added section %+v, text %+v", r.Sections["clusters"], r.extra)
	}
}
