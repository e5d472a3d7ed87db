package index

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// small checkpoint sizes make every test cross segments, checkpoints and
// compactions.
func smallCheckpoints(t testing.TB) {
	oldMin, oldMax, oldSeg := flushMin, flushMax, maxSegments
	flushMin, flushMax, maxSegments = 4, 16, 3
	t.Cleanup(func() { flushMin, flushMax, maxSegments = oldMin, oldMax, oldSeg })
}

// textOf writes a set as a record for the "set" tokenizer.
func textOf(s []uint32) []byte {
	var b strings.Builder
	for i, w := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "w%d", w)
	}
	return []byte(b.String())
}

func distinct(s []uint32) []uint32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// model is the oracle: the records held, by id, nil once deleted.
type model struct {
	m    prefix.Measure
	sets map[ID][]uint32
	next ID // the last id given
}

func newModel(m prefix.Measure) *model { return &model{m: m, sets: map[ID][]uint32{}} }

func (o *model) sim(a, b []uint32) float64 {
	return prefix.NewBounds(o.m, prefix.Threshold{Num: 1, Den: 1}).Similarity(jointest.Overlap(a, b), len(a), len(b))
}

// matches returns the held records reaching t, best first, ties by id.
func (o *model) matches(q []uint32, t prefix.Threshold) []Hit {
	var hits []Hit
	for id, s := range o.sets {
		if jointest.Reaches(o.m, t, jointest.Overlap(q, s), len(q), len(s)) {
			hits = append(hits, Hit{ID: id, Sim: o.sim(q, s)})
		}
	}
	sortHits(hits)
	return hits
}

// insert is the sequential greedy dedup: keep a record iff no held record
// reaches t (t.Den == 0: keep all).
func (o *model) insert(s []uint32, t prefix.Threshold) Outcome {
	if t.Den != 0 {
		if h := o.matches(s, t); len(h) > 0 {
			return Outcome{ID: h[0].ID, Sim: h[0].Sim}
		}
	}
	o.next++ // ids from 1
	id := o.next
	o.sets[id] = s
	return Outcome{Inserted: true, ID: id}
}

func mustCreate(t testing.TB, cfg Config) (*Index, string) {
	t.Helper()
	dir := t.TempDir()
	ix, err := Create(dir, cfg)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return ix, dir
}

func exactConfig(m prefix.Measure, min prefix.Threshold) Config {
	return Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: Exact, Measure: m, MinThreshold: min}
}

// checkSearch compares a threshold search of every query with the oracle.
func checkSearch(t *testing.T, ix *Index, o *model, queries [][]uint32, thr prefix.Threshold, what string) {
	t.Helper()
	texts := make([][]byte, len(queries))
	for i, q := range queries {
		texts[i] = textOf(q)
	}
	got, err := ix.Search(context.Background(), texts, SearchOptions{Threshold: thr})
	if err != nil {
		t.Fatalf("%s: Search: %v", what, err)
	}
	for i, q := range queries {
		want := o.matches(q, thr)
		if !slices.Equal(got[i], want) && !(len(got[i]) == 0 && len(want) == 0) {
			t.Fatalf("%s: query %d %v at %s:\n got %v\nwant %v", what, i, q, thr, got[i], want)
		}
	}
}

// TestDedupOracle streams every fixture through search-before-insert in
// random batches, at thresholds on pairs' exact similarities, and checks
// every outcome against the sequential greedy dedup, then searches, deletes,
// reopens and compacts, checking again after each step.
func TestDedupOracle(t *testing.T) {
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	ctx := context.Background()
	for k, fx := range jointest.Fixtures(seed) {
		for _, m := range []prefix.Measure{prefix.Jaccard, prefix.Cosine, prefix.Dice, prefix.Overlap} {
			if m != prefix.Jaccard && strings.HasPrefix(fx.Name, "random-") && k%2 == int(m)%2 {
				continue // half the random collections for the other measures: the package's tests stay fast
			}
			thrs := jointest.Thresholds(m, fx.Sets, r)
			thr := thrs[r.IntN(len(thrs))]
			// The index's minimum: the dedup threshold itself (the boundary) or
			// a lower one of the list; searches also run at every listed
			// threshold at or above the minimum.
			minT := thr
			if lower := thrs[r.IntN(len(thrs))]; below(lower, thr) && r.IntN(2) == 0 {
				minT = lower
			}
			var above []prefix.Threshold
			for _, x := range thrs {
				if !below(x, minT) {
					above = append(above, x)
				}
			}
			if testing.Short() && m != prefix.Jaccard {
				continue
			}
			pairKeys := []int{0, 3, 36, 1 << 20}[r.IntN(4)] // no pair index, some sizes, the default, every size with α >= 2
			name := fmt.Sprintf("%s/%v/t=%s/min=%s/pairs=%d", fx.Name, m, thr, minT, pairKeys)
			t.Run(name, func(t *testing.T) {
				defer func(old int) { maxPairKeys = old }(maxPairKeys)
				maxPairKeys = pairKeys
				ix, dir := mustCreate(t, exactConfig(m, minT))
				o := newModel(m)
				sets := make([][]uint32, len(fx.Sets))
				for i, s := range fx.Sets {
					sets[i] = distinct(s)
				}
				for lo := 0; lo < len(sets); {
					hi := min(len(sets), lo+1+r.IntN(12))
					texts := make([][]byte, 0, hi-lo)
					for _, s := range sets[lo:hi] {
						texts = append(texts, textOf(s))
					}
					got, err := ix.Insert(ctx, texts, thr)
					if err != nil {
						t.Fatal(err)
					}
					for i, s := range sets[lo:hi] {
						if want := o.insert(s, thr); got[i] != want {
							t.Fatalf("record %d %v: got %+v, want %+v", lo+i, s, got[i], want)
						}
					}
					lo = hi
				}
				queries := sets
				if len(queries) > 40 {
					queries = queries[:40]
				}
				for _, x := range above {
					checkSearch(t, ix, o, queries, x, "after inserts")
				}
				// Delete a third of the ids, some twice, some unknown.
				var del []ID
				for id := ID(0); id < o.next+3; id++ {
					if r.IntN(3) == 0 {
						del = append(del, id, id)
					}
				}
				n, err := ix.Delete(del)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				for _, id := range del {
					if _, ok := o.sets[id]; ok {
						delete(o.sets, id)
						want++
					}
				}
				if n != want {
					t.Fatalf("Delete: %d deleted, want %d", n, want)
				}
				for _, x := range above {
					checkSearch(t, ix, o, queries, x, "after deletes")
				}
				if err := ix.Close(); err != nil {
					t.Fatal(err)
				}
				if ix, err = Open(dir, OpenOptions{}); err != nil {
					t.Fatal(err)
				}
				defer ix.Close()
				for _, x := range above {
					checkSearch(t, ix, o, queries, x, "after reopen")
				}
				if err := ix.Verify(); err != nil {
					t.Fatal(err)
				}
				if err := ix.Compact(ctx); err != nil {
					t.Fatal(err)
				}
				for _, x := range above {
					checkSearch(t, ix, o, queries, x, "after compaction")
				}
				st := ix.Stats()
				if st.Live != uint64(len(o.sets)) || st.Records != uint64(o.next) {
					t.Fatalf("stats %+v, oracle holds %d of %d", st, len(o.sets), o.next)
				}
				// Dedup again after compaction: a copy of every held set is a duplicate.
				for _, s := range queries {
					got, err := ix.Insert(ctx, [][]byte{textOf(s)}, thr)
					if err != nil {
						t.Fatal(err)
					}
					if want := o.insert(s, thr); got[0] != want {
						t.Fatalf("after compaction %v: got %+v, want %+v", s, got[0], want)
					}
				}
			})
		}
	}
}

var _ = cmp.Compare[int]
