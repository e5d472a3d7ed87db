package index

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// crashStream is the record stream of the crash test: batch b of it, the
// same in the parent and the child.
func crashStream(seed uint64, b int) [][]uint32 {
	r := rand.New(rand.NewPCG(seed, uint64(b)))
	out := make([][]uint32, 1+r.IntN(8))
	for i := range out {
		s := make([]uint32, 1+r.IntN(6))
		for j := range s {
			s[j] = uint32(r.IntN(30))
		}
		out[i] = distinct(s)
	}
	return out
}

const crashThreshold = "0.6"

// TestCrashChild is the child of TestCrash: it opens the index named by the
// environment and inserts batches of the stream, printing "ack B" once batch B is durable, until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("SIMJOIN_INDEX_CRASH_DIR")
	if dir == "" {
		t.Skip("run by TestCrash")
	}
	flushMin, flushMax, maxSegments = 4, 16, 3
	seed, _ := strconv.ParseUint(os.Getenv("SIMJOIN_INDEX_CRASH_SEED"), 10, 64)
	start, _ := strconv.Atoi(os.Getenv("SIMJOIN_INDEX_CRASH_START"))
	ix, err := Open(dir, OpenOptions{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	thr, _ := prefix.ParseThreshold(prefix.Jaccard, crashThreshold)
	for b := start; ; b++ {
		var texts [][]byte
		for _, s := range crashStream(seed, b) {
			texts = append(texts, textOf(s))
		}
		if _, err := ix.Insert(context.Background(), texts, thr); err != nil {
			fmt.Println("insert:", err)
			os.Exit(3)
		}
		fmt.Println("ack", b)
	}
}

// TestCrash kills a child process (SIGKILL) at random points of a stream of
// inserts and deletes, many times, reopening the index each time: every
// acknowledged batch is there, at most the one batch in flight is there too
// and then whole, and the index equals the oracle's replay of the batches
// it holds: the same ids, and every search the same answer.
func TestCrash(t *testing.T) {
	if os.Getenv("SIMJOIN_INDEX_CRASH_DIR") != "" {
		t.Skip("in the child")
	}
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	dir := t.TempDir()
	ix, err := Create(dir, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	thr, _ := prefix.ParseThreshold(prefix.Jaccard, crashThreshold)
	rounds := 16
	if testing.Short() {
		rounds = 8
	}
	next := 0 // first batch the next child inserts
	o := newModel(prefix.Jaccard)
	done := 0 // batches applied to the oracle
	for round := 0; round < rounds; round++ {
		acked := killChild(t, dir, seed, next, r)
		// The oracle: the batches up to acked, plus possibly the one in flight.
		ix, err := Open(dir, OpenOptions{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		for ; done <= acked; done++ {
			for _, s := range crashStream(seed, done) {
				o.insert(s, thr)
			}
		}
		st := ix.Stats()
		if st.WALTruncated > 0 {
			t.Logf("round %d: %d bytes of a torn batch cut", round, st.WALTruncated)
		}
		if uint64(o.next) != st.Records {
			for _, s := range crashStream(seed, done) {
				o.insert(s, thr)
			}
			done++
			acked++
			if uint64(o.next) != st.Records {
				t.Fatalf("round %d: %d records after acknowledging batch %d, want %d (or without the batch in flight)", round, st.Records, acked-1, o.next)
			}
		}
		// Deletes between the rounds, in the oracle too.
		var del []ID
		for id := range o.sets {
			if r.IntN(10) == 0 {
				del = append(del, id)
			}
		}
		if _, err := ix.Delete(del); err != nil {
			t.Fatal(err)
		}
		for _, id := range del {
			delete(o.sets, id)
		}
		if st := ix.Stats(); st.Live != uint64(len(o.sets)) {
			t.Fatalf("round %d: %d live records, oracle %d", round, st.Live, len(o.sets))
		}
		var queries [][]uint32
		for b := max(0, done-10); b < done+1; b++ {
			queries = append(queries, crashStream(seed, b)...)
		}
		checkSearch(t, ix, o, queries, thr, fmt.Sprintf("round %d", round))
		if err := ix.Verify(); err != nil {
			t.Fatal(err)
		}
		ix.Close()
		next = acked + 1
	}
}

// killChild runs TestCrashChild on dir from batch next, kills it (SIGKILL)
// after a random time and returns the last batch it acknowledged.
func killChild(t *testing.T, dir string, seed uint64, next int, r *rand.Rand) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SIMJOIN_INDEX_CRASH_DIR="+dir,
		"SIMJOIN_INDEX_CRASH_SEED="+strconv.FormatUint(seed, 10),
		"SIMJOIN_INDEX_CRASH_START="+strconv.Itoa(next))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := next - 1
	var wg sync.WaitGroup
	wg.Go(func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if b, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				acked, _ = strconv.Atoi(b)
			} else if !strings.HasPrefix(sc.Text(), "=== RUN") {
				t.Errorf("child: %s", sc.Text())
			}
		}
	})
	time.Sleep(time.Duration(20+r.IntN(120)) * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	wg.Wait()
	cmd.Wait()
	return acked
}

// TestCrashLSH is TestCrash for an LSH index without raw sets (its WAL holds
// signatures): the oracle is a second index that never crashes, fed the
// same batches and deletes; after every kill the two hold the same records
// and answer every search alike.
func TestCrashLSH(t *testing.T) {
	if os.Getenv("SIMJOIN_INDEX_CRASH_DIR") != "" {
		t.Skip("in the child")
	}
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 10))
	cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
		Perm: 32, Bands: 8, Bits: 16, Seed: seed}
	dir := t.TempDir()
	ix, err := Create(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	ref, _ := mustCreate(t, cfg)
	defer ref.Close()
	thr, _ := prefix.ParseThreshold(prefix.Jaccard, crashThreshold)
	ctx := context.Background()
	feed := func(b int) {
		var texts [][]byte
		for _, s := range crashStream(seed, b) {
			texts = append(texts, textOf(s))
		}
		if _, err := ref.Insert(ctx, texts, thr); err != nil {
			t.Fatal(err)
		}
	}
	next, done := 0, 0
	for round := 0; round < 6; round++ {
		acked := killChild(t, dir, seed, next, r)
		ix, err := Open(dir, OpenOptions{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		for ; done <= acked; done++ {
			feed(done)
		}
		if ix.Stats().Records != ref.Stats().Records {
			feed(done)
			done++
			acked++
		}
		if a, b := ix.Stats(), ref.Stats(); a.Records != b.Records || a.Live != b.Live {
			t.Fatalf("round %d: crashed index %+v, reference %+v", round, a, b)
		}
		del := []ID{ID(r.IntN(int(ref.Stats().Records) + 1))}
		for _, x := range []*Index{ix, ref} {
			if _, err := x.Delete(del); err != nil {
				t.Fatal(err)
			}
		}
		var queries [][]byte
		for b := max(0, done-10); b < done+1; b++ {
			for _, s := range crashStream(seed, b) {
				queries = append(queries, textOf(s))
			}
		}
		for _, opt := range []SearchOptions{{Threshold: thr}, {TopK: 3}} {
			got, err1 := ix.Search(ctx, queries, opt)
			want, err2 := ref.Search(ctx, queries, opt)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range got {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("round %d query %d: %v, reference %v", round, i, got[i], want[i])
				}
			}
		}
		if err := ix.Verify(); err != nil {
			t.Fatal(err)
		}
		ix.Close()
		next = acked + 1
	}
}

// TestCorruption truncates and flips bytes in every kind of file of an index
// (manifest, dictionary, segment, tombstones, write-ahead log): Verify on the
// index open at the time, and Open (or Verify after it) afterwards, report a
// *CorruptError naming that file, never an answer. The seed is random and
// logged; SIMJOIN_INDEX_CORRUPT_SEED replays one.
func TestCorruption(t *testing.T) {
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	if v := os.Getenv("SIMJOIN_INDEX_CORRUPT_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	build := func(t *testing.T) string {
		t.Helper()
		ix, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
		for b := 0; b < 14; b++ {
			var texts [][]byte
			for _, s := range crashStream(seed, b) {
				texts = append(texts, textOf(s))
			}
			if _, err := ix.Insert(context.Background(), texts, prefix.Threshold{}); err != nil {
				t.Fatal(err)
			}
		}
		// A checkpoint after the inserts writes the tombstones of the
		// segments that hold the deleted records (one during the inserts
		// could merge those segments and drop their tombstones), and
		// merges nothing, its mutable part being empty; the next two deletes
		// put two blocks in the log in force (damage to the last block
		// could be a torn write, not corruption).
		if _, err := ix.Delete([]ID{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if err := ix.checkpointNow(); err != nil {
			t.Fatal(err)
		}
		for _, id := range []ID{4, 5} {
			if n, err := ix.Delete([]ID{id}); err != nil || n != 1 {
				t.Fatal(id, n, err)
			}
		}
		ix.Close()
		return dir
	}
	orig := build(t)
	for _, kind := range []string{"MANIFEST", "dict-", "seg-", "tomb-", "wal-"} {
		for _, damage := range []string{"flip", "truncate"} {
			for try := 0; try < 8; try++ {
				dir := t.TempDir()
				ents, _ := os.ReadDir(orig)
				for _, e := range ents {
					data, _ := os.ReadFile(filepath.Join(orig, e.Name()))
					os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644)
				}
				var name string
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), kind) {
						name = e.Name()
					}
				}
				if name == "" {
					t.Fatalf("no %s file in %v", kind, ents)
				}
				path := filepath.Join(dir, name)
				data, _ := os.ReadFile(path)
				switch {
				case damage == "truncate" && kind == "wal-":
					// A cut inside the header: a cut at a block boundary is a
					// valid shorter log, one inside the last block a torn write.
					data = data[:walHeaderSize-3]
				case damage == "truncate":
					data = data[:r.IntN(len(data))]
				case kind == "wal-":
					// Inside the first block: the last could be a torn write.
					data[walHeaderSize+8+r.IntN(int(binary.LittleEndian.Uint32(data[walHeaderSize:])))] ^= 1 << r.IntN(8)
				default:
					data[r.IntN(len(data))] ^= 1 << r.IntN(8)
				}
				// Damage under an open index: Verify re-reads the files.
				open, err := Open(dir, OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(path, data, 0o644)
				verr := open.Verify()
				open.Close()
				// And at the next Open.
				ix, err := Open(dir, OpenOptions{})
				if err == nil {
					err = ix.Verify()
					ix.Close()
				}
				for _, e := range []error{verr, err} {
					var ce *CorruptError
					if !errors.As(e, &ce) {
						t.Fatalf("%s %s: got %v, want a *CorruptError", damage, name, e)
					}
					if ce.File != path {
						t.Fatalf("%s %s: the error names %s", damage, name, ce.File)
					}
				}
			}
		}
	}
}

// checkpointNow forces a checkpoint (tests).
func (ix *Index) checkpointNow() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	return ix.checkpoint()
}

// TestConcurrentSearch runs searches while a writer inserts and deletes,
// under the race detector in CI: every batch is two copies of one set, so a
// search at threshold 1 sees both copies or neither, never half a batch; and
// a batch acknowledged before a search starts is always seen.
func TestConcurrentSearch(t *testing.T) {
	smallCheckpoints(t)
	ix, _ := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	defer ix.Close()
	ctx := context.Background()
	one := prefix.Threshold{Num: 1, Den: 1}
	const batches = 150
	var mu sync.Mutex
	acked := -1
	var wg sync.WaitGroup
	wg.Go(func() {
		for b := 0; b < batches; b++ {
			s := textOf([]uint32{uint32(b), uint32(b) + 1000, uint32(b) + 2000})
			if _, err := ix.Insert(ctx, [][]byte{s, s}, prefix.Threshold{}); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			acked = b
			mu.Unlock()
		}
	})
	for g := 0; g < 3; g++ {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for i := 0; i < 300; i++ {
				mu.Lock()
				a := acked
				mu.Unlock()
				b := r.IntN(batches)
				got, err := ix.Search(ctx, [][]byte{textOf([]uint32{uint32(b), uint32(b) + 1000, uint32(b) + 2000})}, SearchOptions{Threshold: one})
				if err != nil {
					t.Error(err)
					return
				}
				if n := len(got[0]); n != 0 && n != 2 || b <= a && n != 2 {
					t.Errorf("batch %d (acknowledged up to %d): %d hits", b, a, n)
					return
				}
			}
		})
	}
	wg.Wait()
	if st := ix.Stats(); st.Records != 2*batches || !slices.Contains([]int{0, 1, 2, 3, 4}, st.Segments) && st.Segments > 20 {
		t.Fatalf("stats %+v", st)
	}
}
