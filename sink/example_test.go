package sink_test

import (
	"context"
	"fmt"
	"os"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/sink"
)

// The pairs of a join written as the simjoin command writes them: CSV with
// a header, the records named by their ids, sorted by (id_a, id_b).
func ExamplePairWriter() {
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt"}
	docs := []string{"the quick brown fox", "lorem ipsum dolor", "the quick brown dog", "the quick brown fox"}
	pw := sink.NewPairWriter(os.Stdout, sink.CSV, false, false, names, nil)
	st := sink.NewStream(true, pw.WritePair, pw.Flush)
	_, err := simjoin.Run(context.Background(), records.Strings(docs), records.Source{},
		simjoin.Options{Threshold: simjoin.Threshold{Num: 1, Den: 2}}, st.Add)
	if err == nil {
		err = st.Close() // writes the held pairs in order and flushes
	}
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// id_a,id_b,similarity
	// a.txt,c.txt,0.6
	// a.txt,d.txt,1
	// c.txt,d.txt,0.6
}

// The clusters of a dedup: every record with the number of its cluster.
func ExampleWriteClusters() {
	docs := []string{"the quick brown fox", "lorem ipsum dolor", "the quick brown dog", "lorem ipsum dolor sit"}
	in, err := simjoin.Load(context.Background(), records.Strings(docs), records.Source{}, simjoin.Options{Threshold: simjoin.Threshold{Num: 3, Den: 5}})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _, err := in.Dedup(context.Background(), nil)
	if err == nil {
		err = sink.WriteClusters(os.Stdout, sink.TSV, f, nil, true)
	}
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1	1
	// 2	2
	// 3	1
	// 4	2
}
