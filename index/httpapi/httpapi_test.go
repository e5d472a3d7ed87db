package httpapi_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// These tests start the real server on a loopback port and drive it with
// net/http's client, against an exact index whose records are whitespace
// token sets, so that a brute-force oracle over the same sets decides every
// answer in exact arithmetic.

// server is a running server over a fresh index.
type server struct {
	t    testing.TB
	url  string
	dir  string
	ix   *index.Index
	stop func() error // cancels Serve and waits for it
	hc   *http.Client
}

// startServer creates an index in a temporary directory with cfg and serves
// it on 127.0.0.1:0.
func startServerOpts(t testing.TB, opt httpapi.Options) *server {
	return startServer(t, exactCfg, opt)
}

func startServer(t testing.TB, cfg index.Config, opt httpapi.Options) *server {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ix")
	ix, err := index.Create(dir, cfg)
	if err != nil {
		t.Fatalf("index.Create: %v", err)
	}
	return serveIndex(t, dir, ix, opt)
}

func serveIndex(t testing.TB, dir string, ix *index.Index, opt httpapi.Options) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.New(ix, opt).Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	s := &server{t: t, url: "http://" + ln.Addr().String(), dir: dir, ix: ix, hc: &http.Client{}}
	s.stop = func() error {
		once.Do(func() {
			cancel()
			serr = <-done
			if err := ix.Close(); err != nil && serr == nil {
				serr = err
			}
		})
		return serr
	}
	t.Cleanup(func() {
		// A test that leaves a request unanswered checks stop's result.
		if err := s.stop(); err != nil && !errors.As(err, new(*httpapi.UnansweredError)) {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

// do sends a request and returns the status and body.
func (s *server) do(method, path, body string) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	return resp.StatusCode, b
}

// post sends v as JSON and decodes a 200 answer into out.
func (s *server) post(path string, v, out any) {
	s.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	code, body := s.do(http.MethodPost, path, string(b))
	if code != http.StatusOK {
		s.t.Fatalf("POST %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		s.t.Fatalf("POST %s: %v in %s", path, err, body)
	}
}

var exactCfg = index.Config{
	Tokens:       shingle.Spec{Kind: shingle.Set},
	Method:       index.Exact,
	Measure:      prefix.Jaccard,
	MinThreshold: prefix.Threshold{Num: 1, Den: 2},
}

// texts renders token sets as records of the set tokenizer.
func texts(sets [][]uint32) []string {
	out := make([]string, len(sets))
	for i, s := range sets {
		var b strings.Builder
		for k, tok := range s {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("t" + strconv.Itoa(int(tok)))
		}
		out[i] = b.String()
	}
	return out
}

// oracle is the brute-force model of an exact index: the held sets, the
// record of id i at i-1.
type oracle struct {
	sets [][]uint32
	live []bool
}

// best returns the live held record most similar to x among those reaching
// t (highest similarity, then lowest id), or ok false.
func (o *oracle) best(x []uint32, t prefix.Threshold) (id int, o2, y int, ok bool) {
	for i, s := range o.sets {
		if !o.live[i] {
			continue
		}
		ov := jointest.Overlap(x, s)
		if !jointest.Reaches(prefix.Jaccard, t, ov, len(x), len(s)) {
			continue
		}
		// ov/(|x|+|s|-ov) > o2/(|x|+y-o2), compared in integers.
		if !ok || ov*(len(x)+y-o2) > o2*(len(x)+len(s)-ov) {
			id, o2, y, ok = i, ov, len(s), true
		}
	}
	return id, o2, y, ok
}

func jaccard(o, x, y int) float64 { return float64(o) / float64(x+y-o) }

// insert is a sequential greedy dedup: each record is kept iff no kept
// record reaches t (t zero: kept always).
func (o *oracle) insert(x []uint32, t prefix.Threshold) httpapi.RecordResult {
	if t.Den != 0 {
		if id, ov, y, ok := o.best(x, t); ok {
			return httpapi.RecordResult{Status: "duplicate", ID: num(uint64(id) + 1), Sim: jaccard(ov, len(x), y)}
		}
	}
	o.sets = append(o.sets, x)
	o.live = append(o.live, true)
	return httpapi.RecordResult{Status: "inserted", ID: num(uint64(len(o.sets)))} // ids from 1
}

// search returns every live record reaching t, best first, ties by id.
func (o *oracle) search(x []uint32, t prefix.Threshold) []httpapi.Hit {
	hits := []httpapi.Hit{}
	type h struct{ id, o, y int }
	var hs []h
	for i, s := range o.sets {
		ov := jointest.Overlap(x, s)
		if o.live[i] && jointest.Reaches(prefix.Jaccard, t, ov, len(x), len(s)) {
			hs = append(hs, h{i, ov, len(s)})
		}
	}
	slices.SortFunc(hs, func(a, b h) int {
		// b's similarity against a's, cross-multiplied.
		if c := cmp.Compare(b.o*(len(x)+a.y-a.o), a.o*(len(x)+b.y-b.o)); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	for _, v := range hs {
		hits = append(hits, httpapi.Hit{ID: num(uint64(v.id) + 1), Sim: jaccard(v.o, len(x), v.y)})
	}
	return hits
}

// sameSim compares an answered similarity, rounded to six decimals, with
// the oracle's.
func sameSim(a, b float64) bool { return a-b <= 5e-7 && b-a <= 5e-7 }

func sameHits(a, b []httpapi.Hit) bool {
	return slices.EqualFunc(a, b, func(x, y httpapi.Hit) bool { return idOf(x.ID) == idOf(y.ID) && sameSim(x.Sim, y.Sim) })
}

// num is the JSON of id n, as a RecordResult or Hit names a record of an
// index without keys.
func num(n uint64) json.RawMessage { return json.RawMessage(strconv.FormatUint(n, 10)) }

// idOf reads the id of a RecordResult or Hit (0: not an id).
func idOf(raw json.RawMessage) uint64 {
	n, _ := strconv.ParseUint(string(raw), 10, 64)
	return n
}

// TestDedupAgainstOracle inserts a collection with planted near-duplicates
// in batches through POST /v1/records with a dedup threshold and checks each
// answer against the sequential greedy dedup, then checks searches by
// threshold and top-k against the brute-force search of the kept records.
func TestDedupAgainstOracle(t *testing.T) {
	const seed = 11
	t.Logf("seed %d", seed)
	sets := synth.Sets(synth.SetsConfig{N: 400, MinSize: 3, MaxSize: 12, Universe: 60, Zipf: 0.8, DupFraction: 0.4, Replace: 0.15, Seed: seed})
	recs := texts(sets)
	s := startServer(t, exactCfg, httpapi.Options{})
	var o oracle
	dedup := prefix.Threshold{Num: 7, Den: 10}
	inserted := 0
	for start := 0; start < len(recs); {
		n := min(1+start%37, len(recs)-start)
		var resp httpapi.InsertResponse
		s.post("/v1/records", map[string]any{"records": recs[start : start+n], "dedup_threshold": 0.7}, &resp)
		if len(resp.Results) != n {
			t.Fatalf("records %d..%d: %d results", start, start+n, len(resp.Results))
		}
		for k, got := range resp.Results {
			want := o.insert(sets[start+k], dedup)
			if got.Status != want.Status || idOf(got.ID) != idOf(want.ID) || !sameSim(got.Sim, want.Sim) {
				t.Fatalf("record %d: got %+v, want %+v", start+k, got, want)
			}
			if want.Status == "inserted" {
				inserted++
			}
		}
		start += n
	}
	if inserted == len(recs) || inserted < len(recs)/4 {
		t.Fatalf("dedup kept %d of %d records: the data tests nothing", inserted, len(recs))
	}
	// Searches: the first 50 records as queries, at two thresholds, and top-k.
	queries := recs[:50]
	for _, th := range []string{"0.5", "0.8", "1"} {
		tt, _ := prefix.ParseThreshold(prefix.Jaccard, th)
		var resp httpapi.SearchResponse
		s.post("/v1/search", map[string]any{"queries": queries, "threshold": json.Number(th)}, &resp)
		for q := range queries {
			if want := o.search(sets[q], tt); !sameHits(resp.Results[q], want) {
				t.Errorf("threshold %s, query %d: got %v, want %v", th, q, resp.Results[q], want)
			}
		}
	}
	var resp httpapi.SearchResponse
	s.post("/v1/search", map[string]any{"queries": queries, "top_k": 2, "refine_k": 10}, &resp)
	for q := range queries {
		want := o.search(sets[q], exactCfg.MinThreshold)
		want = want[:min(2, len(want))]
		if !sameHits(resp.Results[q], want) {
			t.Errorf("top_k 2, query %d: got %v, want %v", q, resp.Results[q], want)
		}
	}
	// Stats count what was inserted.
	code, body := s.do(http.MethodGet, "/v1/stats", "")
	var st map[string]any
	if code != http.StatusOK || json.Unmarshal(body, &st) != nil {
		t.Fatalf("GET /v1/stats: %d %s", code, body)
	}
	if st["records"] != float64(inserted) || st["live"] != float64(inserted) || st["method"] != "exact" {
		t.Errorf("stats %s: want %d records, all live, method exact", body, inserted)
	}
}

// TestDeleteAndRestrict deletes records over HTTP and checks that searches
// no longer find them, and that only/exclude restrict a search.
func TestDeleteAndRestrict(t *testing.T) {
	s := startServer(t, exactCfg, httpapi.Options{})
	var ins httpapi.InsertResponse
	s.post("/v1/records", map[string]any{"records": []string{"a b c d", "a b c d e", "a b c", "x y z"}}, &ins)
	for i, r := range ins.Results {
		if r.Status != "inserted" || idOf(r.ID) != uint64(i)+1 {
			t.Fatalf("insert without dedup: result %d is %+v", i, r)
		}
	}
	search := func(body map[string]any) []httpapi.Hit {
		t.Helper()
		body["queries"] = []string{"a b c d"}
		body["threshold"] = 0.5
		var resp httpapi.SearchResponse
		s.post("/v1/search", body, &resp)
		return resp.Results[0]
	}
	want := []httpapi.Hit{{ID: num(1), Sim: 1}, {ID: num(2), Sim: 0.8}, {ID: num(3), Sim: 0.75}}
	if got := search(map[string]any{}); !sameHits(got, want) {
		t.Fatalf("search: got %v, want %v", got, want)
	}
	if got := search(map[string]any{"only": []int{2, 4}}); !sameHits(got, want[1:2]) {
		t.Errorf("only [2 4]: got %v, want %v", got, want[1:2])
	}
	if got := search(map[string]any{"exclude": []int{1}}); !sameHits(got, want[1:]) {
		t.Errorf("exclude [1]: got %v, want %v", got, want[1:])
	}
	if got := search(map[string]any{"exclude": []int{}}); !sameHits(got, want) {
		t.Errorf("exclude []: got %v, want %v", got, want)
	}
	if code, body := s.do(http.MethodDelete, "/v1/records/2", ""); code != http.StatusOK || string(body) != `{"id":2,"deleted":true}`+"\n" {
		t.Fatalf("DELETE /v1/records/2: %d %s", code, body)
	}
	if got := search(map[string]any{}); !sameHits(got, []httpapi.Hit{want[0], want[2]}) {
		t.Errorf("after delete: got %v", got)
	}
	for _, path := range []string{"/v1/records/2", "/v1/records/99"} {
		if code, body := s.do(http.MethodDelete, path, ""); code != http.StatusNotFound {
			t.Errorf("DELETE %s: %d %s, want 404", path, code, body)
		}
	}
	// Ids are never reused.
	s.post("/v1/records", map[string]any{"records": []string{"p q"}}, &ins)
	if idOf(ins.Results[0].ID) != 5 {
		t.Errorf("insert after delete: id %s, want 5", ins.Results[0].ID)
	}
}

// TestBadRequests checks that each kind of bad input gets its 4xx status
// and a JSON error naming the problem, and changes nothing.
func TestBadRequests(t *testing.T) {
	s := startServer(t, exactCfg, httpapi.Options{MaxBodyBytes: 1 << 10, MaxRecords: 5})
	big := `{"records": ["` + strings.Repeat("a ", 600) + `"]}`
	for _, c := range []struct {
		method, path, body string
		code               int
		msg                string // a part of the error
	}{
		{"POST", "/v1/records", `{"records": ["a b"`, 400, "malformed JSON"},
		{"POST", "/v1/records", ``, 400, "empty request body"},
		{"POST", "/v1/records", `{"records": ["a"]} {}`, 400, "after the object"},
		{"POST", "/v1/records", `{"records": ["a"], "dedup": 0.8}`, 400, `unknown field "dedup"`},
		{"POST", "/v1/records", `{"records": []}`, 400, "non-empty list"},
		{"POST", "/v1/records", `{"records": "a b"}`, 400, "malformed JSON"},
		{"POST", "/v1/records", `{"records": ["a"], "dedup_threshold": 1.5}`, 400, "dedup_threshold"},
		{"POST", "/v1/records", `{"records": ["a"], "dedup_threshold": "x"}`, 400, "dedup_threshold"},
		{"POST", "/v1/records", `{"records": ["a"], "dedup_threshold": 0.3}`, 400, "below the index's minimum"},
		{"POST", "/v1/records", `{"records": ["a","b","c","d","e","f"]}`, 413, "at most 5"},
		{"POST", "/v1/records", big, 413, "over 1024 bytes"},
		{"POST", "/v1/search", `{"queries": ["a"]}`, 400, "missing threshold or top_k"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "top_k": 3}`, 400, "not both"},
		{"POST", "/v1/search", `{"queries": ["a"], "refine_k": 3, "threshold": 0.8}`, 400, "refine_k needs top_k"},
		{"POST", "/v1/search", `{"queries": ["a"], "top_k": 0}`, 400, "top_k 0"},
		{"POST", "/v1/search", `{"queries": ["a"], "top_k": 5, "refine_k": 2}`, 400, "refine_k 2"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "top_k": 0}`, 400, "give threshold or top_k, not both"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "refine_k": 0}`, 400, "refine_k needs top_k"},
		{"POST", "/v1/search", `{"queries": ["a"], "top_k": -2}`, 400, "top_k -2: want 1 to "},
		{"POST", "/v1/search", `{"queries": ["a"], "top_k": 5, "refine_k": 0}`, 400, "refine_k 0: want top_k (5) to "},
		{"POST", "/v1/search", `{"queries": ["a"], "top_k": 100000}`, 400, "top_k 100000: want 1 to "},
		{"POST", "/v1/search", `{"queries": ["a"], "top_k": 5, "refine_k": 100000}`, 400, "refine_k 100000: want top_k (5) to "},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "only": [1], "exclude": [2]}`, 400, "not both"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0}`, 400, "threshold"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "only": [-1]}`, 400, "only: -1 is not a record id"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "only": ["1"]}`, 400, `only: "1" is not a record id`},
		{"GET", "/v1/search", ``, 405, "want POST"},
		{"PUT", "/v1/records/3", ``, 405, "want DELETE, GET"},
		{"DELETE", "/v1/records/x", ``, 400, `record id "x"`},
		{"DELETE", "/v1/records/-1", ``, 400, "record id"},
		{"GET", "/v2/health", ``, 404, "no such endpoint"},
		// One rule with the command line: text is UTF-8, ids are canonical
		// and from 1, "only" is not empty; no redirect, no HTML.
		{"POST", "/v1/records", "{\"records\": [\"a \xff b\"]}", 400, "invalid UTF-8"},
		{"POST", "/v1/records", `{"records": ["a \ud800 b"]}`, 400, `lone surrogate \ud800`},
		{"POST", "/v1/records", `{"records": ["a \udc00\ud800 b"]}`, 400, `lone surrogate \udc00`},
		{"POST", "/v1/search", `{"queries": ["a \uD83D"], "threshold": 0.8}`, 400, `lone surrogate \uD83D`},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "only": []}`, 400, "only: want at least one id"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "only": [0]}`, 400, "only: 0 is not a record id"},
		{"POST", "/v1/search", `{"queries": ["a"], "threshold": 0.8, "exclude": [3, 0]}`, 400, "exclude: 0 is not a record id"},
		{"DELETE", "/v1/records/01", ``, 400, `record id "01" is not a record id`},
		{"DELETE", "/v1/records/0", ``, 400, `record id "0" is not a record id`},
		{"DELETE", "/v1/records/+1", ``, 400, "is not a record id"},
		{"DELETE", "/v1/records/1/", ``, 404, "no such endpoint"},
		{"GET", "//v1/health", ``, 404, "no such endpoint"},
		{"GET", "/v1/./stats", ``, 404, "no such endpoint"},
		{"GET", "/v1/x/../stats", ``, 404, "no such endpoint"},
	} {
		code, body := s.do(c.method, c.path, c.body)
		var e struct{ Error string }
		if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
			t.Errorf("%s %s %.40q: body %s is not a JSON error", c.method, c.path, c.body, body)
		}
		if code != c.code || !strings.Contains(e.Error, c.msg) {
			t.Errorf("%s %s %.40q: %d %q, want %d and an error containing %q", c.method, c.path, c.body, code, e.Error, c.code, c.msg)
		}
	}
	// Nothing was inserted by the requests refused.
	code, body := s.do(http.MethodGet, "/v1/stats", "")
	if code != http.StatusOK || !strings.Contains(string(body), `"records":0`) {
		t.Errorf("stats after bad requests: %d %s", code, body)
	}
	if code, body := s.do(http.MethodGet, "/v1/health", ""); code != http.StatusOK || string(body) != `{"status":"ok"}`+"\n" {
		t.Errorf("health: %d %s", code, body)
	}
}

// TestTokenizerError checks that a record the index's tokenizer rejects is
// a 400 naming no text, also when its request is merged with good ones.
func TestTokenizerError(t *testing.T) {
	cfg := exactCfg
	cfg.Tokens = shingle.Spec{Kind: shingle.Go, N: 2}
	s := startServer(t, cfg, httpapi.Options{})
	code, body := s.do(http.MethodPost, "/v1/records", `{"records": ["x := \"secret"]}`)
	if code != http.StatusBadRequest || bytes.Contains(body, []byte("secret")) {
		t.Errorf("unterminated Go string: %d %s, want 400 without the text", code, body)
	}
	// Concurrent requests, every fifth with a bad record: only those fail.
	var wg sync.WaitGroup
	var mu sync.Mutex
	good := 0
	for i := range 40 {
		wg.Go(func() {
			rec := fmt.Sprintf("x%d := y + %d", i, i)
			if i%5 == 0 {
				rec = "x := \"secret"
			}
			b, _ := json.Marshal(map[string]any{"records": []string{rec}})
			r, err := http.Post(s.url+"/v1/records", "application/json", bytes.NewReader(b))
			if err != nil {
				t.Error(err)
				return
			}
			r.Body.Close()
			if want := map[bool]int{true: 400, false: 200}[i%5 == 0]; r.StatusCode != want {
				t.Errorf("request %d: %d, want %d", i, r.StatusCode, want)
			}
			if r.StatusCode == 200 {
				mu.Lock()
				good++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if st := s.ix.Stats(); st.Records != uint64(good) {
		t.Errorf("%d records held, %d inserts answered 200", st.Records, good)
	}
}

// TestConcurrentClients runs inserting and searching clients at once (run
// it under -race), their inserts merged by group commit, and checks
// afterwards that every acknowledged record is found by a search for its
// own text at similarity 1, under its id, and that the records inserted are
// a greedy dedup in id order.
func TestConcurrentClients(t *testing.T) {
	s := startServer(t, exactCfg, httpapi.Options{})
	res := runLoad(t, s.url, loadConfig{Clients: 4, Requests: 80, Batch: 5, SearchEvery: 2, Seed: 3})
	if res.requests != 80 || res.failures != 0 || res.dups == 0 {
		t.Errorf("load: %d requests, %d failed, %d duplicates; want 80, 0, some", res.requests, res.failures, res.dups)
	}
	checkAcked(t, s.url, res.acked)
	checkGreedy(t, res.acked, prefix.Threshold{Num: 4, Den: 5})
}

// checkGreedy checks the invariant of search-before-insert however the
// requests interleaved: taken in id order, no inserted record reaches t
// with an earlier one.
func checkGreedy(t *testing.T, acked []ackedRecord, th prefix.Threshold) {
	t.Helper()
	ids := map[string]uint32{}
	sets := make(map[uint64][]uint32, len(acked))
	for _, a := range acked {
		var set []uint32
		for _, w := range strings.Fields(a.text) {
			if _, ok := ids[w]; !ok {
				ids[w] = uint32(len(ids))
			}
			set = append(set, ids[w])
		}
		slices.Sort(set)
		sets[a.id] = slices.Compact(set)
	}
	order := slices.Sorted(maps.Keys(sets))
	for i, a := range order {
		for _, b := range order[:i] {
			x, y := sets[a], sets[b]
			if jointest.Reaches(prefix.Jaccard, th, jointest.Overlap(x, y), len(x), len(y)) {
				t.Errorf("records %d and %d were both inserted but reach %s", b, a, th)
			}
		}
	}
}

// TestGracefulShutdown stops the server while clients insert and checks
// that every insert acknowledged before the stop is in the index after it
// is reopened.
func TestGracefulShutdown(t *testing.T) {
	s := startServer(t, exactCfg, httpapi.Options{})
	var acked []ackedRecord
	var mu sync.Mutex
	var wg sync.WaitGroup
	started := make(chan struct{})
	var once sync.Once
	for c := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				text := fmt.Sprintf("client%d rec%d tok%d", c, i, i%7)
				var resp httpapi.InsertResponse
				b, _ := json.Marshal(map[string]any{"records": []string{text}})
				r, err := http.Post(s.url+"/v1/records", "application/json", bytes.NewReader(b))
				if err != nil {
					return // the server has stopped accepting
				}
				body, _ := io.ReadAll(r.Body)
				r.Body.Close()
				if r.StatusCode != http.StatusOK {
					return
				}
				if err := json.Unmarshal(body, &resp); err != nil {
					t.Errorf("answer %s: %v", body, err)
					return
				}
				mu.Lock()
				acked = append(acked, ackedRecord{text, idOf(resp.Results[0].ID)})
				n := len(acked)
				mu.Unlock()
				if n >= 20 {
					once.Do(func() { close(started) })
				}
			}
		})
	}
	<-started
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	ix, err := index.Open(s.dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s2 := serveIndex(t, s.dir, ix, httpapi.Options{})
	checkAcked(t, s2.url, acked)
}

// ackedRecord is a record whose insert was answered 200.
type ackedRecord struct {
	text string
	id   uint64
}

// checkAcked searches for every acknowledged record's text and checks that
// its id is among the hits at similarity 1.
func checkAcked(t *testing.T, url string, acked []ackedRecord) {
	t.Helper()
	if len(acked) == 0 {
		t.Fatal("no insert was acknowledged")
	}
	seen := map[uint64]bool{}
	for start := 0; start < len(acked); start += 100 {
		part := acked[start:min(start+100, len(acked))]
		qs := make([]string, len(part))
		for i, a := range part {
			qs[i] = a.text
			if seen[a.id] {
				t.Fatalf("id %d acknowledged twice", a.id)
			}
			seen[a.id] = true
		}
		b, _ := json.Marshal(map[string]any{"queries": qs, "threshold": 1})
		r, err := http.Post(url+"/v1/search", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var resp httpapi.SearchResponse
		err = json.NewDecoder(r.Body).Decode(&resp)
		r.Body.Close()
		if err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("search: %d %v", r.StatusCode, err)
		}
		for i, a := range part {
			if !slices.ContainsFunc(resp.Results[i], func(h httpapi.Hit) bool { return idOf(h.ID) == a.id && h.Sim == 1 }) {
				t.Errorf("acknowledged record %d not found: hits %v", a.id, resp.Results[i])
			}
		}
	}
	t.Logf("%d acknowledged records all found", len(acked))
}

// TestShutdownSlowClient checks that a client that never finishes its
// request does not hold up Serve beyond ShutdownTimeout, that Serve then
// says the request went unanswered (an *UnansweredError, nothing logged),
// and that an insert answered before the shutdown stays acknowledged.
func TestShutdownSlowClient(t *testing.T) {
	var logged bytes.Buffer
	s := startServerOpts(t, httpapi.Options{ShutdownTimeout: 50 * time.Millisecond, ErrorLog: log.New(&logged, "", 0)})
	var ins httpapi.InsertResponse
	s.post("/v1/records", map[string]any{"records": []string{"a b c"}}, &ins)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	started := make(chan struct{}, 1)
	httpapi.OnHandlerStart(func() { started <- struct{}{} })
	defer httpapi.OnHandlerStart(nil)
	// Headers and half a body: the handler waits for the rest.
	fmt.Fprintf(conn, "POST /v1/records HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"rec")
	<-started
	done := make(chan error, 1)
	go func() { done <- s.stop() }()
	select {
	case err := <-done:
		var ue *httpapi.UnansweredError
		if !errors.As(err, &ue) || ue.Requests != 1 {
			t.Errorf("shutdown: %v, want 1 request unanswered", err)
		}
	case <-time.After(30 * time.Second): // the request's own timeout is a minute
		t.Fatal("Serve waited for the slow client past ShutdownTimeout")
	}
	if logged.Len() != 0 {
		t.Errorf("Serve logged %q", logged.String())
	}
	ix, err := index.Open(s.dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if st := ix.Stats(); st.Records != 1 {
		t.Errorf("%d records after the shutdown, want the 1 acknowledged", st.Records)
	}
}

// TestLSHEstimates serves an LSH index without raw sets: similarities are
// estimates and say so, dedup and top-k work on them, and the index's
// minimum threshold does not bind (it only chose the banding).
func TestLSHEstimates(t *testing.T) {
	cfg := index.Config{
		Tokens:       shingle.Spec{Kind: shingle.Set},
		Method:       index.LSH,
		Measure:      prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2},
		Perm:         64, Bands: 16, Bits: 32, Seed: 1,
	}
	s := startServer(t, cfg, httpapi.Options{})
	var ins httpapi.InsertResponse
	s.post("/v1/records", map[string]any{"records": []string{"a b c d e f g h", "a b c d e f g h", "p q r s t u v w"}, "dedup_threshold": 0.9}, &ins)
	want := []httpapi.RecordResult{{Status: "inserted", ID: num(1)}, {Status: "duplicate", ID: num(1), Sim: 1, Estimated: true}, {Status: "inserted", ID: num(2)}}
	if fmt.Sprint(ins.Results) != fmt.Sprint(want) {
		t.Fatalf("insert: %+v, want %+v", ins.Results, want)
	}
	var resp httpapi.SearchResponse
	s.post("/v1/search", map[string]any{"queries": []string{"a b c d e f g h", "p q r s t u v w"}, "top_k": 1, "refine_k": 5}, &resp)
	for q, id := range []uint64{1, 2} {
		if len(resp.Results[q]) != 1 || fmt.Sprint(resp.Results[q][0]) != fmt.Sprint(httpapi.Hit{ID: num(id), Sim: 1, Estimated: true}) {
			t.Errorf("top_k 1, query %d: %+v, want id %d at an estimated 1", q, resp.Results[q], id)
		}
	}
	// Below the minimum threshold is allowed for LSH.
	if code, body := s.do(http.MethodPost, "/v1/search", `{"queries": ["a b c"], "threshold": 0.3}`); code != http.StatusOK {
		t.Errorf("LSH search at 0.3: %d %s", code, body)
	}
}

// TestTopKMinThreshold: a top_k answer says the index's minimum threshold
// ("min_threshold"), below which top-k considers no record, also when it is
// empty; a threshold search's answer does not; GET /v1/stats gives the
// predicted recall at the minimum and each tenth above it.
func TestTopKMinThreshold(t *testing.T) {
	s := startServerOpts(t, httpapi.Options{})
	s.post("/v1/records", map[string]any{"records": []string{"a b c d"}}, new(httpapi.InsertResponse))
	for _, c := range []struct{ body, want string }{
		{`{"queries": ["a b c d", "x y"], "top_k": 3}`, `{"results":[[{"id":1,"sim":1}],[]],"min_threshold":0.5}`},
		{`{"queries": [], "top_k": 3}`, `{"error":"queries: want a non-empty list of strings"}`},
		{`{"queries": ["a b c d"], "threshold": 0.5}`, `{"results":[[{"id":1,"sim":1}]]}`},
	} {
		if _, b := s.do("POST", "/v1/search", c.body); strings.TrimSpace(string(b)) != c.want {
			t.Errorf("%s: %s, want %s", c.body, b, c.want)
		}
	}
	_, b := s.do("GET", "/v1/stats", "")
	if !strings.Contains(string(b), `"predicted_recall":{"0.5":1,"0.6":1,"0.7":1,"0.8":1,"0.9":1}`) {
		t.Errorf("stats: %s", b)
	}
}

// TestKeysAndFields drives an index with string keys and stored text over
// HTTP: records in with their keys and payloads, every answer naming them
// by key; a key held is 409 unless on_conflict replaces or skips it; GET
// /v1/records/{key} returns the text and payload (a key percent-encoded);
// DELETE by key; a search returns the fields asked for and takes only and
// exclude by key; and an index of integer keys takes and answers them as
// JSON numbers.
func TestKeysAndFields(t *testing.T) {
	cfg := exactCfg
	cfg.Keys, cfg.StoreText = index.StringKeys, true
	s := startServer(t, cfg, httpapi.Options{})
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/v1/records", `{"records": [{"id": "doc 1/é", "text": "a b c d", "payload": {"src": "web", "n": [1, 2]}}, {"id": "d2", "text": "x y z"}]}`,
			`{"results":[{"status":"inserted","id":"doc 1/é"},{"status":"inserted","id":"d2"}]}`},
		{"POST", "/v1/records", `{"records": [{"id": "d3", "text": "a b c d e"}], "dedup_threshold": 0.8}`,
			`{"results":[{"status":"duplicate","id":"doc 1/é","sim":0.8}]}`},
		{"POST", "/v1/records", `{"records": [{"id": "d3", "text": "p q"}, {"id": "d2", "text": "x y"}]}`,
			`{"error":"records[1]: key \"d2\" is held by a live record (on_conflict \"replace\" or \"skip\" takes it)"}`},
		{"POST", "/v1/records", `{"records": [{"id": "d2", "text": "x y"}], "on_conflict": "skip"}`,
			`{"results":[{"status":"exists","id":"d2"}]}`},
		{"POST", "/v1/records", `{"records": [{"id": "d2", "text": "x y w", "payload": {"v": 2}}], "on_conflict": "replace"}`,
			`{"results":[{"status":"replaced","id":"d2"}]}`},
		{"POST", "/v1/records", `{"records": ["a b"]}`, `{"error":"records[0]: the index takes a string key with each record: want {\"id\": KEY, \"text\": ...}"}`},
		{"POST", "/v1/records", `{"records": [{"id": 7, "text": "a b"}]}`, `{"error":"records[0]: \"id\": not a key: want a JSON string"}`},
		{"POST", "/v1/records", `{"records": [{"id": "e", "text": "a"}], "on_conflict": "upsert"}`, `{"error":"on_conflict \"upsert\": want error, replace or skip"}`},
		{"GET", "/v1/records/doc%201%2F%C3%A9", ``, `{"id":"doc 1/é","text":"a b c d","payload":{"src":"web","n":[1,2]}}`},
		{"GET", "/v1/records/d2", ``, `{"id":"d2","text":"x y w","payload":{"v":2}}`},
		{"GET", "/v1/records/d3", ``, `{"error":"no live record \"d3\""}`},
		{"POST", "/v1/search", `{"queries": ["a b c d", "x y w"], "threshold": 0.5, "fields": ["text", "payload"]}`,
			`{"results":[[{"id":"doc 1/é","sim":1,"text":"a b c d","payload":{"src":"web","n":[1,2]}}],[{"id":"d2","sim":1,"text":"x y w","payload":{"v":2}}]]}`},
		{"POST", "/v1/search", `{"queries": ["x y z"], "threshold": 0.5, "fields": ["text"], "exclude": ["doc 1/é"]}`,
			`{"results":[[{"id":"d2","sim":0.5,"text":"x y w"}]]}`},
		{"POST", "/v1/search", `{"queries": ["x y w"], "threshold": 0.5, "only": ["doc 1/é"]}`, `{"results":[[]]}`},
		{"POST", "/v1/search", `{"queries": ["x y w"], "threshold": 0.5, "only": [3]}`, `{"error":"only: 3 is not a key: want a JSON string"}`},
		{"POST", "/v1/search", `{"queries": ["x"], "top_k": 1, "fields": ["txt"]}`, `{"error":"fields: \"txt\": want \"text\" or \"payload\""}`},
		{"DELETE", "/v1/records/d2", ``, `{"id":"d2","deleted":true}`},
		{"DELETE", "/v1/records/d2", ``, `{"error":"no live record \"d2\""}`},
	} {
		if _, b := s.do(c.method, c.path, c.body); strings.TrimSpace(string(b)) != c.want {
			t.Errorf("%s %s %s:\n got %s\nwant %s", c.method, c.path, c.body, b, c.want)
		}
	}
	if code, _ := s.do("POST", "/v1/records", `{"records": [{"id": "d2", "text": "a"}, {"id": "d2", "text": "b"}]}`); code != http.StatusConflict {
		t.Errorf("a key given twice: %d, want 409", code)
	}

	icfg := exactCfg
	icfg.Keys = index.IntKeys
	si := startServer(t, icfg, httpapi.Options{})
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/v1/records", `{"records": [{"id": -9007199254740993, "text": "a b"}, {"id": 12, "text": "c d"}]}`,
			`{"results":[{"status":"inserted","id":-9007199254740993},{"status":"inserted","id":12}]}`},
		{"POST", "/v1/records", `{"records": [{"id": "12", "text": "a b"}]}`, `{"error":"records[0]: \"id\": not a key: want a JSON number"}`},
		{"POST", "/v1/records", `{"records": [{"id": 1.5, "text": "a b"}]}`, `{"error":"records[0]: \"id\": not a key: want a decimal integer from -2^63 to 2^63-1, no plus sign or leading zeros"}`},
		{"POST", "/v1/records", `{"records": [{"id": 5, "text": "a", "payload": {}}]}`, `{"error":"records[0]: payload: want a JSON object, on an index that stores text"}`},
		{"POST", "/v1/search", `{"queries": ["a b"], "top_k": 2}`, `{"results":[[{"id":-9007199254740993,"sim":1}]],"min_threshold":0.5}`},
		{"GET", "/v1/records/-9007199254740993", ``, `{"id":-9007199254740993}`},
		{"GET", "/v1/records/012", ``, `{"error":"record key \"012\" is not a key: want a decimal integer from -2^63 to 2^63-1, no plus sign or leading zeros"}`},
		{"POST", "/v1/search", `{"queries": ["a b"], "threshold": 0.5, "fields": ["text"]}`, `{"error":"fields: the index stores no text (create it with --store text)"}`},
		{"DELETE", "/v1/records/12", ``, `{"id":12,"deleted":true}`},
	} {
		if _, b := si.do(c.method, c.path, c.body); strings.TrimSpace(string(b)) != c.want {
			t.Errorf("%s %s %s:\n got %s\nwant %s", c.method, c.path, c.body, b, c.want)
		}
	}
}
