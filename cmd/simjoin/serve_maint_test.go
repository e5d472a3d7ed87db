package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// inserter inserts records into a served index from a goroutine until
// stopped, and keeps what was acknowledged.
type inserter struct {
	mu      sync.Mutex // guards acked and running; more signals them
	more    *sync.Cond
	acked   []ackedText // in acknowledgement order
	running int         // clients still inserting
	stop    context.CancelFunc
	done    sync.WaitGroup
}

type ackedText struct {
	text string
	id   uint64
}

// startInserting starts clients inserting into p, one record a request.
func startInserting(t *testing.T, p *serveProc, clients int) *inserter {
	ctx, cancel := context.WithCancel(context.Background())
	in := &inserter{stop: cancel, running: clients}
	in.more = sync.NewCond(&in.mu)
	for c := range clients {
		in.done.Go(func() {
			defer func() {
				in.mu.Lock()
				in.running--
				in.more.Broadcast()
				in.mu.Unlock()
			}()
			for i := 0; ctx.Err() == nil; i++ {
				text := fmt.Sprintf("client%d record%d words", c, i)
				b, _ := json.Marshal(map[string]any{"records": []string{text}})
				req, _ := http.NewRequestWithContext(ctx, "POST", p.base+"/v1/records", strings.NewReader(string(b)))
				resp, err := p.hc.Do(req)
				if err != nil {
					return // stopped
				}
				var ir struct {
					Results []struct {
						Status string
						ID     uint64
					}
				}
				err = json.NewDecoder(resp.Body).Decode(&ir)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || err != nil || len(ir.Results) != 1 {
					if ctx.Err() == nil {
						t.Errorf("insert: %d %v", resp.StatusCode, err)
					}
					return
				}
				in.mu.Lock()
				in.acked = append(in.acked, ackedText{text, ir.Results[0].ID})
				in.more.Broadcast()
				in.mu.Unlock()
			}
		})
	}
	return in
}

// snapshot returns the records acknowledged so far.
func (in *inserter) snapshot() []ackedText {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]ackedText(nil), in.acked...)
}

// waitFor blocks until at least n records are acknowledged, or fails the
// test when the clients stopped before.
func (in *inserter) waitFor(t *testing.T, n int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.acked) < n {
		if in.running == 0 {
			t.Fatalf("the clients stopped after %d inserts", len(in.acked))
		}
		in.more.Wait()
	}
}

// checkCopy opens the index copy at dir, verifies it, and checks that it
// holds every record of acked (by an exact search of its text).
func checkCopy(t *testing.T, dir string, acked []ackedText) {
	t.Helper()
	if err := index.Verify(dir); err != nil {
		t.Fatalf("verify of the copy %s: %v", dir, err)
	}
	ix, err := index.Open(dir, index.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("open of the copy: %v", err)
	}
	defer ix.Close()
	checkHolds(t, ix, acked, "acknowledged before the backup began")
}

// checkHolds checks that ix holds every record of acked, each found by an
// exact search of its text under its id; what says when they were
// acknowledged.
func checkHolds(t *testing.T, ix *index.Index, acked []ackedText, what string) {
	t.Helper()
	qs := make([][]byte, len(acked))
	for i, a := range acked {
		qs[i] = []byte(a.text)
	}
	res, err := ix.Search(context.Background(), qs, index.SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range acked {
		if len(res[i]) != 1 || uint64(res[i][0].ID) != a.id {
			t.Errorf("record %d (%q), %s: search finds %v", a.id, a.text, what, res[i])
		}
	}
}

// TestServeMaintenance runs simjoin serve as a process and, while clients
// insert, asks it to compact, back up and verify, and runs the read-only
// commands on the directory it holds: each works while inserts go on; every
// backup (the server's and index backup's) opens, verifies and holds every
// record acknowledged before it began; a command that would write says how
// to ask the server; /metrics exports the requests, the index and the
// fsyncs; and deleting past --compact-deleted makes the server compact by
// itself.
func TestServeMaintenance(t *testing.T) {
	dir := newIndexDir(t)
	backups := t.TempDir()
	p := startServe(t, dir, "--addr", "127.0.0.1:0", "--backup-dir", backups, "--compact-deleted", "0.3")
	in := startInserting(t, p, 2)
	defer func() { in.stop(); in.done.Wait() }()
	in.waitFor(t, 50)

	if code, _, body := p.do("POST", "/v1/compact", ""); code != http.StatusOK || !strings.Contains(body, `"live":`) {
		t.Errorf("POST /v1/compact while inserting: %d %s", code, body)
	}
	before := in.snapshot()
	code, _, body := p.do("POST", "/v1/backup", `{"name": "b1"}`)
	if code != http.StatusOK {
		t.Fatalf("POST /v1/backup: %d %s", code, body)
	}
	checkCopy(t, filepath.Join(backups, "b1"), before)
	for _, c := range []struct{ body, want string }{
		{`{"name": "b1"}`, "already exists"},
		{`{"name": "../x"}`, "want a plain directory name"},
		{`{}`, "want a plain directory name"},
	} {
		if code, _, body := p.do("POST", "/v1/backup", c.body); code < 400 || !strings.Contains(body, c.want) {
			t.Errorf("POST /v1/backup %s: %d %s, want an error with %q", c.body, code, body, c.want)
		}
	}
	if code, _, body := p.do("POST", "/v1/verify", ""); code != http.StatusOK || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("POST /v1/verify while inserting: %d %s", code, body)
	}

	// The read-only commands on the directory the server holds.
	before = in.snapshot()
	if out, errs := cliOK(t, "", "index", "stats", "--format", "jsonl", dir); !strings.Contains(out, `"live":`) || errs != "" {
		t.Errorf("index stats of a served index: %q %q", out, errs)
	}
	if out, _ := cliOK(t, "", "index", "verify", dir); out != dir+": ok\n" {
		t.Errorf("index verify of a served index: %q", out)
	}
	last := before[len(before)-1]
	queries := cliWrite(t, t.TempDir(), "q.txt", last.text+"\n")
	if out, _ := cliOK(t, "", "index", "search", dir, "-t", "1", queries); out != fmt.Sprintf("1\t%d\t1\n", last.id) {
		t.Errorf("index search of a served index for record %d: %q", last.id, out)
	}
	if out, _ := cliOK(t, "", "index", "get", dir, strconv.FormatUint(last.id, 10)); out != fmt.Sprintf("%d\t\t\n", last.id) {
		t.Errorf("index get of a served index: %q", out)
	}
	dest := filepath.Join(t.TempDir(), "copy")
	if out, _ := cliOK(t, "", "index", "backup", dir, dest); !strings.HasPrefix(out, "backed up "+dir+" to "+dest+": ") {
		t.Errorf("index backup of a served index: %q", out)
	}
	checkCopy(t, dest, before)
	if code, _, errs := cliRun(t, "some words\n", "index", "add", dir, "-"); code != exitRuntime || !strings.Contains(errs, "ask the server instead: POST /v1/records") {
		t.Errorf("index add to a served index: exit %d, %q", code, errs)
	}
	if code, _, errs := cliRun(t, "", "index", "backup", dir, filepath.Join(dir, "inside")); code != exitUsage || !strings.Contains(errs, "is inside the index") {
		t.Errorf("index backup into the index: exit %d, %q", code, errs)
	}

	// The policy: delete past 30% of the records held, and the server
	// compacts by itself (the compactions counter of /metrics moves on).
	in.stop()
	in.done.Wait()
	compactions := func() int {
		_, m := p.raw("GET", "/metrics")
		v := regexp.MustCompile(`(?m)^simjoin_index_compactions_total (\d+)$`).FindStringSubmatch(m)
		if v == nil {
			t.Fatalf("/metrics without simjoin_index_compactions_total:\n%s", m)
		}
		n, _ := strconv.Atoi(v[1])
		return n
	}
	c0 := compactions()
	all := in.snapshot()
	for _, a := range all[:len(all)/2] {
		if code, _, body := p.do("DELETE", fmt.Sprintf("/v1/records/%d", a.id), ""); code != http.StatusOK {
			t.Fatalf("DELETE %d: %d %s", a.id, code, body)
		}
	}
	// The policy's compaction holds the server's compaction lock from
	// before the delete that started it is answered: POST /v1/compact
	// waits for it, then compacts once more. Two compactions or more: the
	// policy ran.
	if code, _, body := p.do("POST", "/v1/compact", ""); code != http.StatusOK {
		t.Fatalf("POST /v1/compact: %d %s", code, body)
	}
	if n := compactions() - c0; n < 2 {
		t.Errorf("%d compactions after deleting half the records and POST /v1/compact: the policy did not compact", n)
	}
	_, _, st := p.do("GET", "/v1/stats", "")
	var stats struct{ Deleted, Dropped uint64 }
	json.Unmarshal([]byte(st), &stats)
	if stats.Deleted != 0 || stats.Dropped != uint64(len(all)/2) {
		t.Errorf("after the compactions (%d deleted): %s", len(all)/2, st)
	}
}

// TestServeMetrics: GET /metrics (behind the token, as every endpoint but
// /v1/health) answers the Prometheus text format with the requests by
// endpoint and status, their latency, the index's records, segments, log
// bytes, compactions and the fsyncs' times.
func TestServeMetrics(t *testing.T) {
	const token = "metrics-token-0123456789"
	p := startServe(t, newIndexDir(t), "--addr", "127.0.0.1:0", "--auth-token-file", writeToken(t, token))
	if code, _ := p.raw("GET", "/metrics"); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token: %d", code)
	}
	p.token = token
	p.do("POST", "/v1/records", `{"records": ["a b c", "d e f"]}`)
	p.do("GET", "/v1/records/2", "")
	p.do("GET", "/v1/records/9", "")
	p.do("POST", "/v1/compact", "")
	_, m := p.raw("GET", "/metrics")
	for _, want := range []string{
		`simjoin_http_requests_total{code="200",endpoint="/v1/records"} 1`,
		`simjoin_http_requests_total{code="200",endpoint="/v1/records/{id}"} 1`,
		`simjoin_http_requests_total{code="404",endpoint="/v1/records/{id}"} 1`,
		`simjoin_http_requests_total{code="401",endpoint="/metrics"} 1`,
		`simjoin_http_request_duration_seconds_count{endpoint="/v1/records"} 1`,
		`simjoin_index_records{state="live"} 2`,
		`simjoin_index_records{state="deleted"} 0`,
		`simjoin_index_segments 1`,
		`simjoin_index_compactions_total 1`,
		`simjoin_index_fsync_seconds_count 1`,
		`simjoin_index_healthy 1`,
		`simjoin_index_wal_bytes `,
		`go_goroutines `,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestServeUnhealthy runs simjoin serve as a process whose files cannot
// grow past 64 KiB (a full disk): once a write fails, the insert gets a
// 500, /v1/health answers 503 "unhealthy" with the reason, /metrics says
// simjoin_index_healthy 0, and searches still work.
func TestServeUnhealthy(t *testing.T) {
	dir := newIndexDir(t)
	t.Setenv(helperFsizeEnv, strconv.Itoa(64<<10))
	p := startServe(t, dir, "--addr", "127.0.0.1:0")
	if code, _, body := p.do("GET", "/v1/health", ""); code != http.StatusOK || body != `{"status":"ok"}`+"\n" {
		t.Fatalf("health before: %d %s", code, body)
	}
	var big strings.Builder // 2,000 words: 16 KB of token keys in the log
	for w := range 2000 {
		fmt.Fprintf(&big, " w%d", w)
	}
	failed := false
	for i := 0; i < 20 && !failed; i++ {
		b, _ := json.Marshal(map[string]any{"records": []string{fmt.Sprintf("r%d%s", i, big.String())}})
		code, _, body := p.do("POST", "/v1/records", string(b))
		switch code {
		case http.StatusOK:
		case http.StatusInternalServerError:
			failed = true
		default:
			t.Fatalf("insert %d: %d %s", i, code, body)
		}
	}
	if !failed {
		t.Fatal("no insert failed past the file size limit")
	}
	code, _, body := p.do("GET", "/v1/health", "")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"unhealthy"`) || !strings.Contains(body, "file too large") {
		t.Errorf("health after a failed write: %d %s", code, body)
	}
	if _, m := p.raw("GET", "/metrics"); !strings.Contains(m, "simjoin_index_healthy 0") {
		t.Errorf("/metrics after a failed write lacks simjoin_index_healthy 0")
	}
	if code, _, body := p.do("POST", "/v1/search", `{"queries": ["r0 w1"], "top_k": 1}`); code != http.StatusOK {
		t.Errorf("search after a failed write: %d %s", code, body)
	}
}
