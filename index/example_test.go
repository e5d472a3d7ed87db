package index_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// The dedup workflow: create an index once, then stream records through
// search-before-insert; each answer says inserted (with the new id) or a
// duplicate of a held record (with the similarity). The index survives
// restarts: reopen it and search.
func Example() {
	dir, err := os.MkdirTemp("", "index-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t := prefix.Threshold{Num: 4, Den: 5} // Jaccard >= 0.8
	ix, err := index.Create(dir, index.Config{
		Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Method: index.Exact,
		Measure: prefix.Jaccard, MinThreshold: t,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	batch := [][]byte{[]byte("password1"), []byte("password12"), []byte("letmein"), []byte("Password1")}
	out, err := ix.Insert(ctx, batch, t)
	if err != nil {
		log.Fatal(err)
	}
	for i, o := range out {
		if o.Inserted {
			fmt.Printf("%s\tinserted\t%d\n", batch[i], o.ID)
		} else {
			fmt.Printf("%s\tduplicate\t%d\t%.3f\n", batch[i], o.ID, o.Sim)
		}
	}
	ix.Close()

	ix, err = index.Open(dir, index.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(ctx, [][]byte{[]byte("password123")}, index.SearchOptions{TopK: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits[0] {
		fmt.Printf("password123\t%d\t%.3f\n", h.ID, h.Sim)
	}
	st := ix.Stats()
	fmt.Println("records", st.Records, "live", st.Live)
	// Output:
	// password1	inserted	1
	// password12	duplicate	1	0.889
	// letmein	inserted	2
	// Password1	inserted	3
	// password123	1	0.800
	// records 3 live 3
}

// Search-before-insert over a stream of lines: each batch's outcomes come
// back once the batch is durable, numbered by input line; a line that does
// not tokenize is named by its line, and its batch is not inserted.
func ExampleIndex_InsertLines() {
	dir, err := os.MkdirTemp("", "index-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t := prefix.Threshold{Num: 4, Den: 5}
	ix, err := index.Create(dir, index.Config{
		Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Method: index.Exact,
		Measure: prefix.Jaccard, MinThreshold: t,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	in := strings.NewReader("password1\npassword12\nletmein\nlet\xffme\n")
	err = ix.InsertLines(context.Background(), in, records.BatchOptions{Name: "new.txt", MaxLines: 2}, index.LinesText, index.InsertOptions{Dedup: t},
		func(first int, outs []index.Outcome) error {
			for k, o := range outs {
				fmt.Printf("line %d: inserted %v, id %d\n", first+k, o.Inserted, o.ID)
			}
			return nil
		})
	fmt.Println(err)
	// Line 4 does not tokenize: its batch (lines 3 and 4) is not inserted.
	// Output:
	// line 1: inserted true, id 1
	// line 2: inserted false, id 1
	// new.txt:4: invalid UTF-8
}
