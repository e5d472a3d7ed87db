package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// dirBytes returns the contents of every file of dir by name.
func dirBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// walDamageIndex creates an exact index of three batches of crashStream
// (seed 7) and two deletes, all in its log, closes it and returns its
// directory, its log's path and its statistics.
func walDamageIndex(t *testing.T) (dir, wal string, before Stats) {
	t.Helper()
	ix, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	for b := 0; b < 3; b++ {
		var texts [][]byte
		for _, s := range crashStream(7, b) {
			texts = append(texts, textOf(s))
		}
		if _, err := ix.Insert(context.Background(), texts, prefix.Threshold{}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := ix.Delete([]ID{1, 2}); err != nil || n != 2 {
		t.Fatal(n, err)
	}
	before = ix.Stats()
	ix.Close()
	return dir, filepath.Join(dir, "wal-1.log"), before
}

// walBlocks returns the offsets of the blocks of the log data.
func walBlocks(data []byte) []int {
	var offs []int
	for off := walHeaderSize; off+8 <= len(data); off += 8 + int(binary.LittleEndian.Uint32(data[off:])) {
		offs = append(offs, off)
	}
	return offs
}

// TestWALDamage damages the end of an index's log in each way it can be
// damaged and checks the rules: Verify and a read-only Open change nothing
// in the directory and report the damage (what would be lost, from where);
// an Open for writing cuts a partial last block by itself and refuses any
// other damage, naming the log; Repair cuts any damage and says what it
// cut; after a cut, Stats.WALTruncated counts the bytes in every later
// open, and no id the cut part may have assigned is assigned again.
func TestWALDamage(t *testing.T) {
	for _, c := range []struct {
		name string
		// damage changes the log (blocks: the offsets of its blocks) and
		// returns the offset where the damage starts.
		damage func(data []byte, blocks []int) ([]byte, int)
		torn   bool
		// skip is how many ids past the index's next the cut part takes.
		skip    int
		records int // records the report names
		deletes int // deletes the report names
	}{
		{"half a block header", func(d []byte, _ []int) ([]byte, int) { return append(d, 1, 0), len(d) }, true, 0, 0, 0},
		{"a payload cut short", func(d []byte, _ []int) ([]byte, int) { return append(d, 40, 0, 0, 0, 1, 2, 3, 4, 5), len(d) }, true, 0, 0, 0},
		{"a last block of a wrong checksum", func(d []byte, _ []int) ([]byte, int) {
			return append(d, 3, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3), len(d)
		}, false, 0, 0, 0},
		{"the log cut inside its second block", func(d []byte, b []int) ([]byte, int) {
			// The second insert's header survives: its ids are never
			// used again; the third insert and the delete are gone.
			return d[:b[1]+8+13+2], b[1]
		}, true, -1, -1, 0},
		{"a flipped bit in the second block", func(d []byte, b []int) ([]byte, int) {
			d[b[1]+8+20] ^= 4
			return d, b[1]
		}, false, -2, -2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, wal, before := walDamageIndex(t)
			data, _ := os.ReadFile(wal)
			blocks := walBlocks(data)
			if len(blocks) != 4 {
				t.Fatalf("%d blocks in the log, want 4", len(blocks))
			}
			hdr := func(i int) walBlock {
				h, _ := peekBlock(data[blocks[i]+8:])
				return h
			}
			damaged, at := c.damage(slices.Clone(data), blocks)
			os.WriteFile(wal, damaged, 0o644)
			// What the cut part held, from the undamaged log.
			// skipTo: the least ID the next record may get.
			wantRecords, wantFirst, skipTo := c.records, ID(0), ID(before.Records)+1
			switch c.skip {
			case -1: // the second block's header, read from the cut block
				wantRecords, wantFirst, skipTo = hdr(1).count, hdr(1).first.id(), (hdr(1).first + seq(hdr(1).count)).id()
			case -2: // the third block, whole: a flipped second block says nothing
				wantRecords, wantFirst, skipTo = hdr(2).count, hdr(2).first.id(), ID(before.Records)+1
			}
			snap := dirBytes(t, dir)
			checkDamage := func(what string, d *WALDamage) {
				t.Helper()
				if d == nil {
					t.Fatalf("%s: no damage reported", what)
				}
				if d.File != wal || d.Offset != int64(at) || d.Bytes != int64(len(damaged)-at) || d.Torn != c.torn ||
					d.Records != max(wantRecords, 0) || wantRecords > 0 && d.FirstID != wantFirst || d.Deletes != c.deletes {
					t.Errorf("%s: %+v; want offset %d, %d bytes, torn %v, %d records from %d, %d deletes", what, d, at, len(damaged)-at, c.torn, wantRecords, wantFirst, c.deletes)
				}
			}
			// Verify: read-only, the damage reported.
			err := Verify(dir)
			var ce *CorruptError
			var wd *WALDamage
			if !errors.As(err, &ce) || ce.File != wal || !errors.As(err, &wd) {
				t.Fatalf("Verify: %v, want a *CorruptError naming %s with a *WALDamage", err, wal)
			}
			checkDamage("Verify", wd)
			// A read-only Open: searches and stats, nothing written.
			ro, err := Open(dir, OpenOptions{ReadOnly: true})
			if c.torn {
				if err != nil {
					t.Fatalf("read-only Open of a torn log: %v", err)
				}
				if st := ro.Stats(); st.WALTorn != int64(len(damaged)-at) || st.WALTruncated != 0 {
					t.Errorf("read-only stats: %+v", st)
				}
				ro.Search(context.Background(), [][]byte{[]byte("w1 w2")}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}})
				if _, err := ro.Insert(context.Background(), [][]byte{[]byte("w1")}, prefix.Threshold{}); !errors.Is(err, ErrReadOnly) {
					t.Errorf("Insert into a read-only index: %v", err)
				}
				ro.Close()
			} else if !errors.As(err, &ce) || ce.File != wal {
				t.Fatalf("read-only Open of a damaged log: %v, want a *CorruptError naming %s", err, wal)
			}
			if got := dirBytes(t, dir); !maps.EqualFunc(got, snap, bytes.Equal) {
				t.Fatalf("Verify or a read-only Open changed the directory")
			}
			// An Open for writing: a torn tail cut, other damage refused.
			ix, err := Open(dir, OpenOptions{})
			if !c.torn {
				if !errors.As(err, &ce) || ce.File != wal || !errors.As(err, &wd) {
					t.Fatalf("Open of a damaged log: %v, want a *CorruptError naming %s", err, wal)
				}
				if got := dirBytes(t, dir); !maps.EqualFunc(got, snap, bytes.Equal) {
					t.Fatalf("a refused Open changed the directory")
				}
				d, err := Repair(dir)
				if err != nil {
					t.Fatal(err)
				}
				checkDamage("Repair", d)
				if ix, err = Open(dir, OpenOptions{}); err != nil {
					t.Fatal(err)
				}
			} else if err != nil {
				t.Fatalf("Open of a torn log: %v", err)
			}
			ix.Close()
			if err := Verify(dir); err != nil {
				t.Fatalf("Verify after the cut: %v", err)
			}
			if d, err := Repair(dir); d != nil || err != nil {
				t.Fatalf("Repair of a whole log: %v, %v", d, err)
			}
			// Every later open counts the bytes cut; the next id is past
			// every id the cut part held.
			ix, err = Open(dir, OpenOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			st := ix.Stats()
			ix.Close()
			if st.Records != st.Live+st.Deleted+st.Dropped {
				t.Errorf("stats after the cut do not add up: %+v", st)
			}
			if st.WALTruncated != int64(len(damaged)-at) || st.WALTorn != 0 {
				t.Errorf("stats after the cut: %+v", st)
			}
			if ID(st.Records)+1 < skipTo {
				t.Errorf("next id %d after the cut, want at least %d (before: %d records)", st.Records+1, skipTo, before.Records)
			}
			ix, err = Open(dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := ix.Insert(context.Background(), [][]byte{[]byte("w1 w2 w3")}, prefix.Threshold{})
			if err != nil || out[0].ID < skipTo {
				t.Errorf("insert after the cut: %+v %v, want an id of at least %d", out, err, skipTo)
			}
			ix.Close()
		})
	}
}

// TestStatsCounts: the counts of Stats add up (Records = Live + Deleted +
// Dropped) after inserts, deletes, a checkpoint and a compaction, and the
// deleted records a compaction drops move from Deleted to Dropped.
func TestStatsCounts(t *testing.T) {
	ix, _ := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	defer ix.Close()
	ctx := context.Background()
	check := func(what string, live, deleted, dropped uint64) {
		t.Helper()
		st := ix.Stats()
		if st.Records != 5 || st.Live != live || st.Deleted != deleted || st.Dropped != dropped || st.Records != st.Live+st.Deleted+st.Dropped {
			t.Errorf("%s: records %d, live %d, deleted %d, dropped %d; want 5, %d, %d, %d", what, st.Records, st.Live, st.Deleted, st.Dropped, live, deleted, dropped)
		}
	}
	if _, err := ix.Insert(ctx, [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e")}, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Delete([]ID{2, 4}); err != nil {
		t.Fatal(err)
	}
	check("after deletes", 3, 2, 0)
	if err := ix.checkpointNow(); err != nil {
		t.Fatal(err)
	}
	check("after a checkpoint", 3, 0, 2)
	if _, err := ix.Delete([]ID{5}); err != nil {
		t.Fatal(err)
	}
	check("after a delete in a segment", 2, 1, 2)
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a compaction", 2, 0, 3)
}
