package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// loadConfig is a bounded load on a server: Clients goroutines send
// Requests requests in all, each an insert of Batch records with a dedup
// threshold of 0.8 or, every SearchEvery-th request, a search of Batch
// queries at threshold 0.8. It stops after Requests requests or Timeout,
// whichever comes first.
type loadConfig struct {
	Clients, Requests, Batch, SearchEvery int
	Seed                                  uint64
	Timeout                               time.Duration // 0: one minute
	Token                                 string        // sent as a bearer token when not ""
}

// loadResult is what a load measured.
type loadResult struct {
	acked              []ackedRecord // records inserted, as acknowledged
	inserts, searches  []time.Duration
	records, dups      int
	wall               time.Duration
	requests, failures int
}

// record returns the text of record k of client c: words of a 2,000-word
// vocabulary, a fifth of them near-copies of an earlier record of the same
// client (one word changed), so that dedup has work.
func record(r *rand.Rand, prev []string) string {
	if len(prev) > 0 && r.IntN(5) == 0 {
		w := strings.Fields(prev[r.IntN(len(prev))])
		w[r.IntN(len(w))] = fmt.Sprintf("w%d", r.IntN(2000))
		return strings.Join(w, " ")
	}
	w := make([]string, 8+r.IntN(8))
	for i := range w {
		w[i] = fmt.Sprintf("w%d", r.IntN(2000))
	}
	return strings.Join(w, " ")
}

// runLoad drives the server at url as cfg says and returns what it
// measured; requests that fail are errors of the test.
func runLoad(t testing.TB, url string, cfg loadConfig) loadResult {
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Clients}}
	defer hc.CloseIdleConnections()
	var mu sync.Mutex
	var res loadResult
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cfg.Clients {
		n := cfg.Requests / cfg.Clients
		if c < cfg.Requests%cfg.Clients {
			n++
		}
		wg.Go(func() {
			r := rand.New(rand.NewPCG(cfg.Seed, uint64(c)))
			var prev []string
			for i := 0; i < n && ctx.Err() == nil; i++ {
				batch := make([]string, cfg.Batch)
				for k := range batch {
					batch[k] = record(r, prev)
				}
				search := cfg.SearchEvery > 0 && i%cfg.SearchEvery == cfg.SearchEvery-1
				var body map[string]any
				path := "/v1/records"
				if search {
					path, body = "/v1/search", map[string]any{"queries": batch, "threshold": 0.8}
				} else {
					body = map[string]any{"records": batch, "dedup_threshold": 0.8}
					prev = append(prev, batch...)
				}
				b, _ := json.Marshal(body)
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+path, bytes.NewReader(b))
				if cfg.Token != "" {
					req.Header.Set("Authorization", "Bearer "+cfg.Token)
				}
				resp, err := hc.Do(req)
				var data []byte
				if err == nil {
					data, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s: %d %s", path, resp.StatusCode, data)
					}
				}
				lat := time.Since(t0)
				mu.Lock()
				res.requests++
				if err != nil {
					res.failures++
					mu.Unlock()
					if ctx.Err() == nil {
						t.Errorf("client %d request %d: %v", c, i, err)
					}
					return
				}
				if search {
					res.searches = append(res.searches, lat)
				} else {
					res.inserts = append(res.inserts, lat)
					var ir httpapi.InsertResponse
					if err := json.Unmarshal(data, &ir); err != nil || len(ir.Results) != len(batch) {
						t.Errorf("insert answer %s: %v", data, err)
					}
					for k, rr := range ir.Results {
						res.records++
						if rr.Status == "inserted" {
							res.acked = append(res.acked, ackedRecord{batch[k], idOf(rr.ID)})
						} else {
							res.dups++
						}
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.wall = time.Since(start)
	return res
}

// percentile returns the p-th percentile (0 < p <= 1) of d, sorted in place.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(p*float64(len(d))+0.5) - 1
	return d[max(0, min(i, len(d)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkServerLoad is the bounded load test on loopback: b.N requests
// from concurrent clients, three inserts (10 records each, dedup at 0.8) for
// every search (10 queries at 0.8), on an exact index of word sets that
// starts empty. It reports throughput and the p50 and p99 latency of each
// kind of request; it stops after b.N requests or a minute. commit=group
// merges concurrent inserts into one synced batch (the server's way);
// commit=serial inserts each request on its own, for comparison.
// batch=1 is 16 clients inserting one record a request (no search),
// auth=bearer with a bearer token checked on each (Options.AuthToken).
func BenchmarkServerLoad(b *testing.B) {
	for _, clients := range []int{1, 4, 16} {
		for _, group := range []bool{true, false} {
			name := fmt.Sprintf("clients=%d/batch=10/search=1in4/commit=%s", clients, map[bool]string{true: "group", false: "serial"}[group])
			b.Run(name, func(b *testing.B) {
				benchLoad(b, group, loadConfig{Clients: clients, Batch: 10, SearchEvery: 4, Seed: 1})
			})
		}
	}
	for _, token := range []string{"", "a-token-of-32-characters-or-more"} {
		name := map[bool]string{false: "none", true: "bearer"}[token != ""]
		b.Run("clients=16/batch=1/search=none/commit=group/auth="+name, func(b *testing.B) {
			benchLoad(b, true, loadConfig{Clients: 16, Batch: 1, Seed: 1, Token: token})
		})
	}
}

// benchLoad runs b.N requests of load on a new server (a bearer token
// required when load.Token is given).
func benchLoad(b *testing.B, group bool, load loadConfig) {
	defer httpapi.SetGroupCommit(httpapi.SetGroupCommit(group))
	b.ReportAllocs()
	cfg := index.Config{
		Tokens:       shingle.Spec{Kind: shingle.Set},
		Method:       index.Exact,
		Measure:      prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 4, Den: 5},
	}
	s := startServer(b, cfg, httpapi.Options{AuthToken: load.Token})
	b.ResetTimer()
	load.Requests = b.N
	res := runLoad(b, s.url, load)
	b.StopTimer()
	b.ReportMetric(float64(res.requests)/res.wall.Seconds(), "req/s")
	b.ReportMetric(float64(res.records)/res.wall.Seconds(), "records/s")
	b.ReportMetric(ms(percentile(res.inserts, 0.5)), "insert-p50-ms")
	b.ReportMetric(ms(percentile(res.inserts, 0.99)), "insert-p99-ms")
	if load.SearchEvery > 0 {
		b.ReportMetric(ms(percentile(res.searches, 0.5)), "search-p50-ms")
		b.ReportMetric(ms(percentile(res.searches, 0.99)), "search-p99-ms")
	}
}
