package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/prefix"
)

// heapWriter is a ResponseWriter that keeps no body: it counts the bytes
// and, every few writes, measures the live heap (after a collection), so a
// test sees the most memory a handler held while it answered.
type heapWriter struct {
	h      http.Header
	status int
	bytes  int
	writes int
	peak   uint64
	head   []byte // the first bytes of the body
	tail   []byte // the last bytes of the body
}

func (w *heapWriter) Header() http.Header { return w.h }
func (w *heapWriter) WriteHeader(s int)   { w.status = s }
func (w *heapWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if len(w.head) < 64 {
		w.head = append(w.head, p[:min(len(p), 64-len(w.head))]...)
	}
	w.tail = append(w.tail, p...)
	w.tail = w.tail[max(0, len(w.tail)-64):]
	w.bytes += len(p)
	if w.writes++; w.writes%8 == 1 {
		w.sample()
	}
	return len(p), nil
}

func (w *heapWriter) sample() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.peak = max(w.peak, m.HeapAlloc)
}

// TestSearchBounded searches an index of 2,000 copies of one record with
// many copies of it as queries: every query matches every record. The
// answer stops at MaxHits with "truncated": true and one list a query; and
// it is streamed: the live heap while the server writes 1,200,000 hits
// (about 23 MB of JSON) is no larger than while it writes a quarter of
// them, and far below the answer's size.
func TestSearchBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	ix, err := index.Create(dir, exactCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	const copies = 2000
	recs := make([][]byte, copies)
	for i := range recs {
		recs[i] = []byte("alpha beta gamma delta")
	}
	if _, err := ix.Insert(context.Background(), recs, prefix.Threshold{}); err != nil {
		t.Fatal(err)
	}
	request := func(queries int) *http.Request {
		q := strings.Repeat(`"alpha beta gamma delta",`, queries)
		body := `{"queries": [` + strings.TrimSuffix(q, ",") + `], "threshold": 0.5}`
		return httptest.NewRequest(http.MethodPost, "/v1/search", strings.NewReader(body))
	}
	// The bound: 37 queries would answer 74,000 hits.
	srv := httpapi.New(ix, httpapi.Options{MaxHits: 5000})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, request(37))
	var resp httpapi.SearchResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("%d %v: %.200s", rec.Code, err, rec.Body.String())
	}
	total := 0
	for _, l := range resp.Results {
		total += len(l)
	}
	if !resp.Truncated || total != 5000 || len(resp.Results) != 37 || len(resp.Results[0]) != copies || len(resp.Results[2]) != 1000 || len(resp.Results[3]) != 0 {
		t.Errorf("answer over the bound: truncated %v, %d hits in %d lists (%d, %d, %d first), want truncated, 5000 in 37 (2000, 2000, 1000)",
			resp.Truncated, total, len(resp.Results), len(resp.Results[0]), len(resp.Results[1]), len(resp.Results[2]))
	}
	// Under the bound, no flag; the same bytes as encoding/json writes.
	rec = httptest.NewRecorder()
	httpapi.New(ix, httpapi.Options{MaxHits: 4000}).ServeHTTP(rec, request(2))
	resp = httpapi.SearchResponse{}
	json.Unmarshal(rec.Body.Bytes(), &resp)
	want, _ := json.Marshal(resp)
	if rec.Body.String() != string(want)+"\n" || resp.Truncated || len(resp.Results[1]) != copies {
		t.Errorf("answer at the bound: %.200s, want %.200s", rec.Body.String(), want)
	}
	if testing.Short() {
		t.Log("-short: the memory measure (1.2M hits) is left out")
		return
	}
	// Memory: a quarter of the answer, then all of it.
	srv = httpapi.New(ix, httpapi.Options{MaxHits: 1 << 30})
	var peaks [2]uint64
	var sizes [2]int
	for k, queries := range []int{600 / 4, 600} {
		w := &heapWriter{h: http.Header{}}
		w.sample()
		base := w.peak
		srv.ServeHTTP(w, request(queries))
		if w.status != http.StatusOK || !strings.HasPrefix(string(w.head), `{"results":[[{"id":`) || !strings.HasSuffix(string(w.tail), "]]}\n") {
			t.Fatalf("%d queries: %d %q ... %q", queries, w.status, w.head, w.tail)
		}
		peaks[k], sizes[k] = w.peak-min(base, w.peak), w.bytes
	}
	t.Logf("live heap above the start: %d KiB for %d KiB of answer, %d KiB for %d KiB", peaks[0]>>10, sizes[0]>>10, peaks[1]>>10, sizes[1]>>10)
	if peaks[1] > peaks[0]+2<<20 || peaks[1] > uint64(sizes[1]/4) {
		t.Errorf("the live heap grows with the answer: %d bytes for %d of answer, %d for %d", peaks[0], sizes[0], peaks[1], sizes[1])
	}
}
