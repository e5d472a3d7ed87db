package index

import (
	"context"
	"errors"
	"fmt"
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
		ix := openWithLog(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}), data)
		if ix == nil {
			return
		}
		ix.Search(context.Background(), [][]byte{[]byte("w1 w2 w3")}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}})
		ix.Close()
	})
}

// openWithLog creates an index of cfg, puts data in place of its log and
// opens it: the index, or nil after a *CorruptError naming the log (any
// other error fails t).
func openWithLog(t *testing.T, cfg Config, data []byte) *Index {
	dir := t.TempDir()
	ix, err := Create(dir, cfg)
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
		return nil
	}
	return ix
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
		s, err := openSegment(dir, "seg-1.sj", &cfg, mapCold)
		if err == nil {
			s.unref()
		} else if ce := (*CorruptError)(nil); !errors.As(err, &ce) || ce.File != path {
			t.Fatalf("segment: %v", err)
		}
		d, err := openDict(path, mapCold)
		if err == nil {
			d.file.unref()
		} else if ce := (*CorruptError)(nil); !errors.As(err, &ce) || ce.File != path {
			t.Fatalf("dict: %v", err)
		}
	})
}

// keyedConfig is an exact index with string keys and stored text, for the
// fuzz targets of the records' formats.
func keyedConfig() Config {
	c := exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})
	c.Keys, c.StoreText = StringKeys, true
	return c
}

// keyedSeeds builds a small index of keyedConfig with a checkpoint, a
// replace and deletes, and returns its files' bytes by kind prefix.
func keyedSeeds(f *testing.F) map[string][]byte {
	old := flushMin
	flushMin = 4
	defer func() { flushMin = old }()
	dir := f.TempDir()
	ix, err := Create(dir, keyedConfig())
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	for b := 0; b < 3; b++ {
		var recs []Record
		for i, s := range crashStream(2, b) {
			recs = append(recs, Record{Key: Key(fmt.Sprintf("k%d-%d", b, i)), Text: textOf(s), Payload: []byte(`{"b":1}`)})
		}
		if _, err := ix.InsertRecords(ctx, recs, InsertOptions{}); err != nil {
			f.Fatal(err)
		}
	}
	ix.InsertRecords(ctx, []Record{{Key: "k0-0", Text: []byte("w1 w2")}}, InsertOptions{OnConflict: ConflictReplace})
	ix.DeleteKeys([]Key{"k1-1"})
	ix.Close()
	out := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		for _, p := range []string{"seg-", "wal-"} {
			if strings.HasPrefix(e.Name(), p) {
				out[p], _ = os.ReadFile(filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

// FuzzWALKeyed replays arbitrary bytes as the write-ahead log of an empty
// index with keys and stored text (batch blocks with keys, text, payloads
// and deletes): Open succeeds or returns a *CorruptError naming the log;
// what it replays reads back (GetKey, a search with fields), never a panic.
func FuzzWALKeyed(f *testing.F) {
	f.Add(keyedSeeds(f)["wal-"])
	f.Fuzz(func(t *testing.T, data []byte) {
		ix := openWithLog(t, keyedConfig(), data)
		if ix == nil {
			return
		}
		defer ix.Close()
		ix.GetKey("k0-0")
		ix.Search(context.Background(), [][]byte{[]byte("w1 w2 w3")}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}, Fields: FieldText | FieldPayload})
		if err := ix.Compact(context.Background()); err != nil {
			t.Fatalf("Compact of a replayed log: %v", err)
		}
	})
}

// FuzzSegmentKeyed opens arbitrary bytes as a segment of an index with keys
// and stored text: a *CorruptError naming the file or success, and a
// segment that opens answers its key lookups and stored fields without a
// panic.
func FuzzSegmentKeyed(f *testing.F) {
	f.Add(keyedSeeds(f)["seg-"])
	cfg := keyedConfig()
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "seg-1.sj")
		os.WriteFile(path, data, 0o644)
		s, err := openSegment(dir, "seg-1.sj", &cfg, mapCold)
		if err != nil {
			if ce := (*CorruptError)(nil); !errors.As(err, &ce) || ce.File != path {
				t.Fatalf("segment: %v", err)
			}
			return
		}
		defer s.unref()
		for r := range s.rows() {
			k := s.keyOf(r)
			if got, ok := s.lookupKey(k); !ok || string(s.keyOf(got)) != string(k) {
				t.Fatalf("row %d: its key %q looks up row %d, %v", r, k, got, ok)
			}
			s.textOf(r)
			s.payloadOf(r)
		}
		s.lookupKey([]byte("absent"))
	})
}
