package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// TestReadWhileWriterHolds opens an index read-only, verifies it and backs
// it up, over and over, while another Index holds it for writing and
// inserts with checkpoints and compactions replacing its files: each
// read-only open sees every record acknowledged before it began (and finds
// the last of them), Verify finds nothing wrong, and each backup opens,
// verifies and holds every record acknowledged before it began.
func TestReadWhileWriterHolds(t *testing.T) {
	smallCheckpoints(t)
	ctx := context.Background()
	w, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	var acked atomic.Int64 // records acknowledged: ids 1..acked
	stop, ready := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer w.Close()
		for b := 0; ; b++ {
			select {
			case <-stop:
				return
			default:
			}
			recs := [][]byte{[]byte(fmt.Sprintf("rec%d a", b)), []byte(fmt.Sprintf("rec%d b", b))}
			outs, err := w.Insert(ctx, recs, prefix.Threshold{})
			if err != nil {
				t.Errorf("insert: %v", err)
				return
			}
			acked.Store(int64(outs[1].ID))
			if b == 25 {
				close(ready)
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	<-ready
	for round := range 30 {
		before := acked.Load()
		r, err := Open(dir, OpenOptions{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: read-only open while a writer holds the index: %v", round, err)
		}
		st := r.Stats()
		last := fmt.Sprintf("rec%d b", before/2-1)
		res, err := r.Search(ctx, [][]byte{[]byte(last)}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}})
		r.Close()
		if err != nil || st.Live < uint64(before) || len(res[0]) != 1 || res[0][0].ID != ID(before) {
			t.Fatalf("round %d: %d acknowledged before the open; it holds %d live, finds %q as %v (%v)", round, before, st.Live, last, res, err)
		}
		if err := Verify(dir); err != nil {
			t.Fatalf("round %d: Verify while a writer holds the index: %v", round, err)
		}
		if round%5 == 0 {
			linkFiles = round%10 == 0 // hard links and copies
			before := acked.Load()
			dest := filepath.Join(t.TempDir(), "copy")
			var err error
			if round%2 == 0 {
				_, err = Backup(dir, dest) // as another process does
			} else {
				_, err = w.Backup(dest) // the writer's own
			}
			linkFiles = true
			if err != nil {
				t.Fatalf("round %d: Backup while a writer inserts: %v", round, err)
			}
			checkBackup(t, dest, before)
		}
	}
}

// checkBackup checks a backup: it verifies, opens for writing, and holds
// the records 1..acked (their ids and texts, as TestReadWhileWriterHolds
// inserts them).
func checkBackup(t *testing.T, dest string, acked int64) {
	t.Helper()
	if err := Verify(dest); err != nil {
		t.Fatalf("Verify of the backup: %v", err)
	}
	ix, err := Open(dest, OpenOptions{})
	if err != nil {
		t.Fatalf("open of the backup: %v", err)
	}
	defer ix.Close()
	var qs [][]byte
	for id := int64(1); id <= acked; id++ {
		qs = append(qs, []byte(fmt.Sprintf("rec%d %s", (id-1)/2, []string{"a", "b"}[(id-1)%2])))
	}
	res, err := ix.Search(context.Background(), qs, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for i, hits := range res {
		if len(hits) != 1 || hits[0].ID != ID(i+1) {
			t.Fatalf("the backup lacks record %d (%q), acknowledged before it began: %v", i+1, qs[i], hits)
		}
	}
}

// TestOpenAfterCheckpoint: a read-only open of a directory a writer holds,
// whose writer compacts (replacing every file) between the open's reading
// of the manifest and its opening of the files, starts again from the new
// manifest and holds every record, also those of the compaction's batch.
func TestOpenAfterCheckpoint(t *testing.T) {
	ctx := context.Background()
	w, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	defer w.Close()
	if _, err := w.Insert(ctx, [][]byte{[]byte("a b"), []byte("c d")}, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	calls := 0
	manifestRead = func() {
		if calls++; calls == 1 {
			if _, err := w.Insert(ctx, [][]byte{[]byte("e f")}, prefix.Threshold{}); err != nil {
				t.Error(err)
			}
			if err := w.Compact(ctx); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { manifestRead = nil }()
	r, err := Open(dir, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open across a compaction: %v", err)
	}
	defer r.Close()
	if st := r.Stats(); calls != 2 || st.Live != 3 {
		t.Errorf("%d reads of the manifest, %d live records; want 2 and 3", calls, st.Live)
	}
}

// TestBackupRules: a backup goes into a new or empty directory only; a
// directory without an index is refused; a log whose last batch is partial
// is copied without it, one damaged before its end is refused (no files
// left in dest), and a backup of an index of format version 1 opens.
func TestBackupRules(t *testing.T) {
	ctx := context.Background()
	w, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	for b := range 3 {
		if _, err := w.Insert(ctx, [][]byte{[]byte(fmt.Sprintf("rec%d a", b)), []byte(fmt.Sprintf("rec%d b", b))}, prefix.Threshold{}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	if _, err := Backup(dir, full); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("backup into a directory holding a file: %v", err)
	}
	if _, err := Backup(t.TempDir(), filepath.Join(t.TempDir(), "c")); !errors.Is(err, ErrNotIndex) {
		t.Errorf("backup of a directory without an index: %v", err)
	}
	wal := filepath.Join(dir, "wal-1.log")
	data, _ := os.ReadFile(wal)
	blocks := walBlocks(data)
	// A partial last batch: cut from the copy.
	os.WriteFile(wal, data[:len(data)-3], 0o644)
	dest := filepath.Join(t.TempDir(), "c")
	if _, err := Backup(dir, dest); err != nil {
		t.Fatalf("backup of a log with a partial last batch: %v", err)
	}
	checkBackup(t, dest, 4)
	// A damaged batch before the last: refused, nothing left.
	bad := append([]byte{}, data...)
	bad[blocks[1]+9] ^= 1
	os.WriteFile(wal, bad, 0o644)
	dest = filepath.Join(t.TempDir(), "c")
	var wd *WALDamage
	if _, err := Backup(dir, dest); !errors.As(err, &wd) || wd.Torn {
		t.Errorf("backup of a damaged log: %v", err)
	}
	if ents, _ := os.ReadDir(dest); len(ents) != 0 {
		t.Errorf("a refused backup left %d files", len(ents))
	}
	v1 := copyDir(t, filepath.Join("testdata", "v1", "lsh"))
	dest = filepath.Join(t.TempDir(), "c")
	if _, err := Backup(v1, dest); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dest); err != nil {
		t.Errorf("backup of a version 1 index: %v", err)
	}
}
