package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/records"
)

// failing makes the index's writes of op fail with ENOSPC from now until the
// test ends (every op when op is "").
func failing(t *testing.T, op string) {
	injectFault = func(o, path string) error {
		if op == "" || o == op {
			return fmt.Errorf("%s %s: %w", o, path, syscall.ENOSPC)
		}
		return nil
	}
	t.Cleanup(func() { injectFault = nil })
}

// TestWriteFaultNotDurable fails the log's write or sync of an insert and of
// a delete: the call returns ErrFailed and no outcome, and after reopening
// the batch is not there, so a caller that retries it holds it once.
func TestWriteFaultNotDurable(t *testing.T) {
	one := prefix.Threshold{Num: 1, Den: 1}
	for _, op := range []string{"wal write", "wal sync"} {
		t.Run(op, func(t *testing.T) {
			ix, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
			ctx := context.Background()
			if _, err := ix.Insert(ctx, [][]byte{[]byte("w1 w2"), []byte("w3 w4")}, prefix.Threshold{}); err != nil {
				t.Fatal(err)
			}
			failing(t, op)
			out, err := ix.Insert(ctx, [][]byte{[]byte("retry me")}, prefix.Threshold{})
			if !errors.Is(err, ErrFailed) || out != nil {
				t.Fatalf("Insert with a failing %s: %v, %v", op, out, err)
			}
			if !strings.Contains(err.Error(), "not durable") {
				t.Errorf("Insert with a failing %s: %v, want it to say the batch is not durable", op, err)
			}
			ix.Close()
			if ix, err = Open(dir, OpenOptions{}); err != nil {
				t.Fatal(err)
			}
			if n, err := ix.Delete([]ID{1}); !errors.Is(err, ErrFailed) || n != 0 {
				t.Fatalf("Delete with a failing %s: %d, %v", op, n, err)
			}
			ix.Close()
			injectFault = nil
			if ix, err = Open(dir, OpenOptions{}); err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if st := ix.Stats(); st.Records != 2 || st.Live != 2 {
				t.Fatalf("after the failed batches: %+v, want the 2 records before them, live", st)
			}
			// The retry holds the record once.
			if _, err := ix.Insert(ctx, [][]byte{[]byte("retry me")}, prefix.Threshold{}); err != nil {
				t.Fatal(err)
			}
			hits, err := ix.Search(ctx, [][]byte{[]byte("retry me")}, SearchOptions{Threshold: one})
			if err != nil || len(hits[0]) != 1 {
				t.Fatalf("the retried record is held %d times (%v)", len(hits[0]), err)
			}
		})
	}
}

// TestCheckpointFaultDurable fails the checkpoint after a durable batch (a
// full disk where the new segment, dictionary or manifest does not fit):
// InsertLines still hands the batch's outcomes to its callback before it
// returns the error, the outcomes name the records the index holds after
// reopening, each once, and a retry of only the records not acknowledged
// holds every record once.
func TestCheckpointFaultDurable(t *testing.T) {
	for _, op := range []string{"file write", "file sync", "manifest"} {
		t.Run(op, func(t *testing.T) {
			smallCheckpoints(t) // a checkpoint after 4 records
			ix, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
			ctx := context.Background()
			failing(t, op)
			var in strings.Builder
			for i := range 10 {
				fmt.Fprintf(&in, "r%d s%d\n", i, i)
			}
			acked := 0
			err := ix.InsertLines(ctx, strings.NewReader(in.String()), records.BatchOptions{MaxLines: 3}, LinesText, InsertOptions{}, func(first int, outs []Outcome) error {
				for _, o := range outs {
					if !o.Inserted || o.ID != ID(acked)+1 {
						t.Errorf("line %d: %+v", first, o)
					}
					acked++
				}
				return nil
			})
			if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "durable") {
				t.Fatalf("InsertLines with a failing %s: %v", op, err)
			}
			if acked == 0 {
				t.Fatalf("no outcome acknowledged before the error")
			}
			ix.Close()
			injectFault = nil
			// Retry what was not acknowledged.
			if ix, err = Open(dir, OpenOptions{}); err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			rest := strings.SplitAfterN(in.String(), "\n", acked+1)[acked]
			if err := ix.InsertLines(ctx, strings.NewReader(rest), records.BatchOptions{}, LinesText, InsertOptions{}, func(int, []Outcome) error { return nil }); err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				hits, err := ix.Search(ctx, [][]byte{fmt.Appendf(nil, "r%d s%d", i, i)}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}})
				if err != nil || len(hits[0]) != 1 {
					t.Errorf("record %d held %d times (%v), acknowledged %d", i, len(hits[0]), err, acked)
				}
			}
		})
	}
}
