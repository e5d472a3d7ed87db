package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// TestInMemory: an index opened with OpenOptions.InMemory holds its
// segments and dictionary in memory, also those a checkpoint or compaction
// writes while it is open, and answers every search as the same index
// mapped does.
func TestInMemory(t *testing.T) {
	smallCheckpoints(t)
	ctx := context.Background()
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	for _, cfg := range []Config{
		exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}),
		{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard, MinThreshold: prefix.Threshold{Num: 1, Den: 2},
			Perm: 64, Bands: 32, Rows: 2, RawSets: true, Keys: IntKeys, StoreText: true},
	} {
		t.Run(cfg.Method.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, uint64(cfg.Method)))
			created, dir := mustCreate(t, cfg)
			created.Close()
			ix, err := Open(dir, OpenOptions{InMemory: true})
			if err != nil {
				t.Fatal(err)
			}
			var queries [][]byte
			for b := range 8 {
				var recs []Record
				for i := range 20 {
					s := distinct([]uint32{uint32(r.IntN(40)), uint32(r.IntN(40)), uint32(r.IntN(40)), uint32(r.IntN(40))})
					rec := Record{Text: textOf(s)}
					if cfg.Keys != NoKeys {
						rec.Key = Key(fmt.Sprint(b*100 + i))
					}
					recs = append(recs, rec)
					queries = append(queries, rec.Text)
				}
				if _, err := ix.InsertRecords(ctx, recs, InsertOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := ix.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Insert(ctx, nil, prefix.Threshold{}); err != nil {
				t.Fatal(err)
			}
			snap, _ := ix.acquire()
			for _, s := range snap.segs {
				if !s.file.inMemory {
					t.Errorf("segment %s is mapped", s.name)
				}
			}
			if cfg.Method == Exact && !snap.dict.file.inMemory {
				t.Error("the dictionary is mapped")
			}
			ix.releaseSnap(snap)
			opt := SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}}
			if cfg.StoreText {
				opt.Fields = FieldText
			}
			got, err := ix.Search(ctx, queries, opt)
			if err != nil {
				t.Fatal(err)
			}
			ix.Close()
			mapped, err := Open(dir, OpenOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer mapped.Close()
			want, err := mapped.Search(ctx, queries, opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range queries {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("query %d: in memory %v, mapped %v", i, got[i], want[i])
				}
			}
		})
	}
}
