package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// The heavy workloads (a million passwords, the 20,000-document set) are
// opt-in: SIMJOIN_INDEX_BENCH=1. Without it the benchmarks run on small
// inputs, so that `go test -bench .` stays quick.
func heavy() bool { return os.Getenv("SIMJOIN_INDEX_BENCH") != "" }

func passwordList(n int) [][]byte {
	var out [][]byte
	for pw := range synth.Passwords(synth.PasswordsConfig{N: n, Seed: 1, Distinct: true}) {
		out = append(out, slices.Clone(pw))
	}
	return out
}

func passwordConfig() Config {
	return Config{Tokens: shingle.Spec{Kind: shingle.QGram, N: 2}, Method: Exact, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 4, Den: 5}}
}

// streamInto inserts records in batches of batch with dedup t and returns
// the number inserted.
func streamInto(b *testing.B, ix *Index, recs [][]byte, batch int, t prefix.Threshold) int {
	kept := 0
	for lo := 0; lo < len(recs); lo += batch {
		out, err := ix.Insert(context.Background(), recs[lo:min(lo+batch, len(recs))], t)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range out {
			if o.Inserted {
				kept++
			}
		}
	}
	return kept
}

// BenchmarkStream streams generated passwords through search-before-insert
// (q = 2, Jaccard >= 0.8, batches of 1,000) into a new index: the figure is
// records/s, WAL fsync per batch, checkpoints and compactions included.
// keys=string/store=text gives each record a string key ("u" and its line
// number) and keeps its text (Config.Keys, Config.StoreText), and reports
// the bytes on disk after a compaction beside the plain index's.
func BenchmarkStream(b *testing.B) {
	n := 100_000
	if heavy() {
		n = 1_000_000
	}
	recs := passwordList(n)
	t := prefix.Threshold{Num: 4, Den: 5}
	for _, keyed := range []bool{false, true} {
		name := "keys=none/store=none"
		if keyed {
			name = "keys=string/store=text"
		}
		b.Run(fmt.Sprintf("data=passwords/n=%d/q=2/t=0.8/batch=1000/%s", n, name), func(b *testing.B) {
			b.ReportAllocs()
			cfg := passwordConfig()
			if keyed {
				cfg.Keys, cfg.StoreText = StringKeys, true
			}
			batch := make([]Record, 0, 1000)
			for b.Loop() {
				dir := b.TempDir()
				ix, err := Create(dir, cfg)
				if err != nil {
					b.Fatal(err)
				}
				start, cpu0 := time.Now(), cpuTime()
				kept := 0
				if !keyed {
					kept = streamInto(b, ix, recs, 1000, t)
				}
				for lo := 0; keyed && lo < len(recs); lo += 1000 {
					batch = batch[:0]
					for i, pw := range recs[lo:min(lo+1000, len(recs))] {
						batch = append(batch, Record{Key: Key("u" + strconv.Itoa(lo+i+1)), Text: pw})
					}
					out, err := ix.InsertRecords(context.Background(), batch, InsertOptions{Dedup: t})
					if err != nil {
						b.Fatal(err)
					}
					for _, o := range out {
						if o.Inserted {
							kept++
						}
					}
				}
				b.ReportMetric(float64(n)/time.Since(start).Seconds(), "records/s")
				b.ReportMetric(float64(n)/(cpuTime()-cpu0).Seconds(), "records/cpu-s")
				b.ReportMetric(float64(kept), "kept")
				if err := ix.Compact(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(ix.Stats().BytesOnDisk)/(1<<20), "disk-MiB")
				ix.Close()
				os.RemoveAll(dir)
			}
		})
	}
}

// benchSearches runs one search of one query a op, the queries of cands in
// turn, after every query once (warm), and reports the CPU and the faults.
func benchSearches(b *testing.B, ix *Index, cands [][]byte, opt SearchOptions) {
	b.ReportAllocs()
	q := make([][]byte, 1)
	for _, c := range cands {
		q[0] = c
		if _, err := ix.Search(context.Background(), q, opt); err != nil {
			b.Fatal(err)
		}
	}
	k := 0
	cpu0, flt0 := cpuTime(), faults()
	for b.Loop() {
		q[0] = cands[k%len(cands)]
		if _, err := ix.Search(context.Background(), q, opt); err != nil {
			b.Fatal(err)
		}
		k++
	}
	reportCPU(b, cpu0, flt0)
}

// BenchmarkCheck times one search at t = 0.8 against n held passwords (after
// a compaction), beside passwords.Index.Lookup on the same list in the same
// run.
func BenchmarkCheck(b *testing.B) {
	n := 100_000
	if heavy() {
		n = 1_000_000
	}
	recs := passwordList(n)
	cands := nearCandidates(recs, 1000)
	t := prefix.Threshold{Num: 4, Den: 5}
	dir := b.TempDir()
	ix, err := Create(dir, passwordConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for lo := 0; lo < len(recs); lo += 10000 {
		if _, err := ix.Insert(context.Background(), recs[lo:min(lo+10000, len(recs))], prefix.Threshold{}); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Compact(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("impl=index/held=%d/q=2/t=0.8", n), func(b *testing.B) {
		benchSearches(b, ix, cands, SearchOptions{Threshold: t})
	})
	l := new(passwords.List)
	for _, pw := range recs {
		l.Add(pw, 1, l.Len()+1)
	}
	pix, err := passwords.NewIndex(l, passwords.Options{Threshold: passwords.DefaultThreshold()})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("impl=passwords.Index/held=%d/q=2/t=0.8", n), func(b *testing.B) {
		b.ReportAllocs()
		var ms []passwords.Match
		k := 0
		for _, c := range cands {
			ms = pix.Lookup(ms[:0], c)
		}
		cpu0, flt0 := cpuTime(), faults()
		for b.Loop() {
			ms = pix.Lookup(ms[:0], cands[k%len(cands)])
			k++
		}
		reportCPU(b, cpu0, flt0)
	})
}

func docTexts(d synth.Docs) [][]byte {
	out := make([][]byte, len(d.Sets))
	for i, s := range d.Sets {
		var sb strings.Builder
		for j, k := range s {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(strconv.FormatUint(k, 36))
		}
		out[i] = []byte(sb.String())
	}
	return out
}

// BenchmarkDocs streams the document workload (synth.BenchDocs: 20,000
// documents of about 300 shingles) through LSH search-before-insert at
// Jaccard >= 0.6, beside the batch dedup (approx.SelfJoin and clusters) of the
// same sets, in the same run; both report the records kept.
func BenchmarkDocs(b *testing.B) {
	cfg := synth.BenchDocs(1)
	if !heavy() {
		cfg.N, cfg.Planted, cfg.Distractors = 2000, 200, 100
	}
	docs := synth.Documents(cfg)
	texts := docTexts(docs)
	t := prefix.Threshold{Num: 3, Den: 5}
	name := fmt.Sprintf("docs=%d/t=0.6", cfg.N)
	b.Run("impl=index-lsh/"+name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dir := b.TempDir()
			ix, err := Create(dir, Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: LSH, Measure: prefix.Jaccard,
				MinThreshold: t, Bits: 32, RawSets: true})
			if err != nil {
				b.Fatal(err)
			}
			cpu0 := cpuTime()
			kept := streamInto(b, ix, texts, 1000, t)
			b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s")
			b.ReportMetric(float64(kept), "kept")
			ix.Close()
			os.RemoveAll(dir)
		}
	})
	b.Run("impl=batch-dedup/"+name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			// The batch path from the same texts: tokenize, order, LSH self-join, clusters.
			cpu0 := cpuTime()
			var in order.Input
			spec := shingle.Spec{Kind: shingle.Set}
			var keys []uint64
			for _, tx := range texts {
				keys, _ = spec.Append(keys[:0], string(tx))
				in.Add(keys)
			}
			c, err := order.New(&in)
			if err != nil {
				b.Fatal(err)
			}
			f, err := cluster.Join(c.Records(), func(yield func(join.Pair) bool) error {
				_, err := approx.SelfJoin(context.Background(), c, approx.Options{Threshold: t}, yield)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s")
			b.ReportMetric(float64(len(f.Firsts())), "kept")
		}
	})
}

// BenchmarkReopen opens an index of n passwords (compacted, plus a WAL of
// recent inserts) and runs one search; it reports the time to open, the
// resident memory the process gained, and the index's size on disk.
func BenchmarkReopen(b *testing.B) {
	n := 100_000
	if heavy() {
		n = 1_000_000
	}
	recs := passwordList(n)
	dir := b.TempDir()
	ix, err := Create(dir, passwordConfig())
	if err != nil {
		b.Fatal(err)
	}
	for lo := 0; lo < len(recs); lo += 10000 {
		if _, err := ix.Insert(context.Background(), recs[lo:min(lo+10000, len(recs))], prefix.Threshold{}); err != nil {
			b.Fatal(err)
		}
	}
	disk := ix.Stats().BytesOnDisk
	ix.Close()
	recs = nil
	b.Run(fmt.Sprintf("data=passwords/n=%d", n), func(b *testing.B) {
		for b.Loop() {
			runtime.GC()
			before, beforeKinds := rssBytes(), rssKinds()
			start := time.Now()
			ix, err := Open(dir, OpenOptions{})
			if err != nil {
				b.Fatal(err)
			}
			open := time.Since(start)
			opened := rssKinds()
			if _, err := ix.Search(context.Background(), [][]byte{[]byte("password123")}, SearchOptions{Threshold: prefix.Threshold{Num: 4, Den: 5}}); err != nil {
				b.Fatal(err)
			}
			after, afterKinds := rssBytes(), rssKinds()
			b.ReportMetric(open.Seconds()*1000, "open-ms")
			b.ReportMetric(float64(after-before)/(1<<20), "rss-gain-MiB")
			b.ReportMetric(float64(afterKinds[0]-beforeKinds[0])/(1<<20), "anon-gain-MiB")
			b.ReportMetric(float64(afterKinds[1]-beforeKinds[1])/(1<<20), "file-gain-MiB")
			b.ReportMetric(float64(afterKinds[1]-opened[1])/(1<<20), "search-file-MiB")
			b.ReportMetric(float64(ix.Stats().Segments), "segments")
			b.ReportMetric(float64(disk)/(1<<20), "disk-MiB")
			ix.Close()
		}
	})
}

// rssBytes returns the resident set size of the process (Linux).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(syscall.Getpagesize())
}

// cpuTime returns the user and system time of the process so far: on a
// shared machine it is disturbed less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// faults returns the process's minor and major page faults so far.
func faults() [2]int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return [2]int64{}
	}
	return [2]int64{ru.Minflt, ru.Majflt}
}

// reportCPU reports the CPU time and page faults per operation since cpu0
// and flt0: on a loaded machine CPU time is the steadier figure, and faults
// show what reading the mapped files costs.
func reportCPU(b *testing.B, cpu0 time.Duration, flt0 [2]int64) {
	n := float64(b.N)
	f := faults()
	b.ReportMetric(float64(cpuTime()-cpu0)/n, "cpu-ns/op")
	b.ReportMetric(float64(f[0]-flt0[0])/n, "minflt/op")
	b.ReportMetric(float64(f[1]-flt0[1])/n, "majflt/op")
}

// rssKinds returns the anonymous and the file-backed resident memory of the
// process (Linux /proc/self/status: RssAnon, RssFile).
func rssKinds() [2]int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return [2]int64{}
	}
	var out [2]int64
	for _, line := range strings.Split(string(b), "\n") {
		for i, key := range []string{"RssAnon:", "RssFile:"} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					kb, _ := strconv.ParseInt(f[0], 10, 64)
					out[i] = kb << 10
				}
			}
		}
	}
	return out
}

// BenchmarkBackup backs up an index of n passwords with keys and stored
// text (Index.Backup) while a writer goroutine goes on inserting batches of
// 1,000, then opens the copy, verifies it and checks that it holds every
// record acknowledged before the backup began. It reports the backup's time,
// its files and bytes (hard-linked ones included), the batches inserted
// meanwhile, and the time to verify the copy.
func BenchmarkBackup(b *testing.B) {
	n := 100_000
	if heavy() {
		n = 1_000_000
	}
	recs := passwordList(n + 200_000)
	cfg := passwordConfig()
	cfg.Keys, cfg.StoreText = StringKeys, true
	dir := b.TempDir()
	ix, err := Create(dir, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	next := 0 // records inserted (and acknowledged) so far: recs[:next], keys "u1" on
	insert := func(k int) {
		batch := make([]Record, 0, k)
		for i, pw := range recs[next : next+k] {
			batch = append(batch, Record{Key: Key("u" + strconv.Itoa(next+i+1)), Text: pw})
		}
		if _, err := ix.InsertRecords(context.Background(), batch, InsertOptions{}); err != nil {
			panic(err)
		}
		next += k
	}
	for next < n {
		insert(10_000)
	}
	b.Run(fmt.Sprintf("data=passwords/n=%d/keys=string/store=text/while=inserting", n), func(b *testing.B) {
		for b.Loop() {
			acked := next
			stop, done := make(chan struct{}), make(chan int)
			go func() { // the writer: batches of 1,000 until stopped
				batches := 0
				for {
					select {
					case <-stop:
						done <- batches
						return
					default:
					}
					if next+1000 > len(recs) {
						<-stop
						done <- batches
						return
					}
					insert(1000)
					batches++
				}
			}()
			dest := filepath.Join(b.TempDir(), "copy")
			start := time.Now()
			st, err := ix.Backup(dest)
			took := time.Since(start)
			close(stop)
			batches := <-done
			if err != nil {
				b.Fatal(err)
			}
			start = time.Now()
			if err := Verify(dest); err != nil {
				b.Fatal(err)
			}
			verify := time.Since(start)
			c, err := Open(dest, OpenOptions{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			for _, i := range []int{0, acked / 2, acked - 1} {
				if _, ok, err := c.GetKey(Key("u" + strconv.Itoa(i+1))); err != nil || !ok {
					b.Fatalf("the copy lacks record u%d, acknowledged before the backup: %v", i+1, err)
				}
			}
			if live := c.Stats().Live; live < uint64(acked) {
				b.Fatalf("the copy holds %d records, %d were acknowledged before the backup", live, acked)
			}
			c.Close()
			b.ReportMetric(took.Seconds()*1000, "backup-ms")
			b.ReportMetric(verify.Seconds()*1000, "verify-ms")
			b.ReportMetric(float64(st.Files), "files")
			b.ReportMetric(float64(st.Linked), "linked")
			b.ReportMetric(float64(st.Bytes)/(1<<20), "MiB")
			b.ReportMetric(float64(batches), "batches-meanwhile")
		}
	})
}
