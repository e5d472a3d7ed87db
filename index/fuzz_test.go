package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// fuzzSeeds builds a small exact index with a checkpoint and returns its
// files' bytes by kind prefix.
func fuzzSeeds(f *testing.F) map[string][]byte {
	old := flushMin
	flushMin = 4
	defer func() { flushMin = old }()
	dir := f.TempDir()
	ix, err := Create(dir, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	if err != nil {
		f.Fatal(err)
	}
	for b := 0; b < 6; b++ {
		var texts [][]byte
		for _, s := range crashStream(1, b) {
			texts = append(texts, textOf(s))
		}
		if _, err := ix.Insert(context.Background(), texts, prefix.Threshold{}); err != nil {
			f.Fatal(err)
		}
	}
	ix.Delete([]ID{1, 6})
	ix.Close()
	out := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		for _, p := range []string{"MANIFEST", "seg-", "dict-", "wal-"} {
			if strings.HasPrefix(e.Name(), p) {
				out[p], _ = os.ReadFile(filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

// FuzzWAL replays arbitrary bytes as the write-ahead log of an empty exact
// index: Open succeeds (cutting a torn tail) or returns a *CorruptError
// naming the log, and never panics.
func FuzzWAL(f *testing.F) {
	seeds := fuzzSeeds(f)
	f.Add(seeds["wal-"])
	f.Add([]byte("SJIXWAL\x00\x01\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		ix, err := Create(dir, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
		wal := filepath.Join(dir, "wal-1.log")
		os.WriteFile(wal, data, 0o644)
		ix, err = Open(dir, OpenOptions{})
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != wal {
				t.Fatalf("got %v, want a *CorruptError naming %s", err, wal)
			}
			return
		}
		ix.Search(context.Background(), [][]byte{[]byte("w1 w2 w3")}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}})
		ix.Close()
	})
}

// FuzzBlockFile opens arbitrary bytes as a segment and as a dictionary:
// a *CorruptError naming the file or success, never a panic.
func FuzzBlockFile(f *testing.F) {
	seeds := fuzzSeeds(f)
	f.Add(seeds["seg-"])
	f.Add(seeds["dict-"])
	cfg := exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "seg-1.sj")
		os.WriteFile(path, data, 0o644)
		s, err := openSegment(dir, "seg-1.sj", &cfg, true)
		if err == nil {
			s.unref()
		} else if ce := (*CorruptError)(nil); !errors.As(err, &ce) || ce.File != path {
			t.Fatalf("segment: %v", err)
		}
		d, err := openDict(path, true)
		if err == nil {
			d.file.unref()
		} else if ce := (*CorruptError)(nil); !errors.As(err, &ce) || ce.File != path {
			t.Fatalf("dict: %v", err)
		}
	})
}
