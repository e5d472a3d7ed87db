// Package httpapi serves a persistent similarity index (package index) over
// HTTP with JSON bodies: the API that `simjoin serve` starts.
//
//	GET    /v1/health          {"status": "ok"}
//	POST   /v1/records         {"records": ["text", ...], "dedup_threshold": 0.8}
//	                           or {"records": [{"id": KEY, "text": "...", "payload": {...}}, ...],
//	                               "on_conflict": "error" | "replace" | "skip"}
//	                           -> {"results": [{"status": "inserted", "id": 7},
//	                                           {"status": "duplicate", "id": 3, "sim": 0.85}, ...]}
//	                              (also "replaced" and "exists")
//	POST   /v1/search          {"queries": ["text", ...], "threshold": 0.8}
//	                           or {"queries": [...], "top_k": 5, "refine_k": 20}
//	                           (and "fields": ["text", "payload"], "estimate": true)
//	                           -> {"results": [[{"id": 3, "sim": 0.85}, ...], ...]}
//	                              (and "truncated": true past Options.MaxHits;
//	                              top_k: "min_threshold": 0.5, the index's, below
//	                              which top-k considers no record)
//	GET    /v1/records/{id}    {"id": 7, "text": "...", "payload": {...}}, or 404
//	DELETE /v1/records/{id}    {"id": 7, "deleted": true}, or 404
//	GET    /v1/stats           the index's statistics
//	POST   /v1/compact         compact now: {"live": 7, "dropped": 2}
//	POST   /v1/backup          {"name": "NAME"}: a consistent copy in Options.BackupDir/NAME
//	POST   /v1/verify          every file's checksums: {"status": "ok"} or "damaged"
//	GET    /metrics            Prometheus metrics (Metrics)
//
// A record is named by its id (index.ID: from 1 in insertion order, a JSON
// number) on an index without keys, and by its key on an index with keys
// (index.Key: a JSON number or a string, by the index's kind; in a path,
// percent-encoded), in every request and answer. An insert's records are
// strings (their text) or objects {"id", "text", "payload"} read as `index
// add --input-format jsonl` reads a line (index.DecodeRecord); the payload,
// a JSON object, is kept with the text on an index that stores text. A key
// held by a live record is refused with 409 unless "on_conflict" says to
// replace the record (deleted and inserted in one batch) or skip it.
//
// Records and queries are tokenized by the index's own tokenizer, as on the
// command line. A threshold is a JSON number (0.8) or a string holding a
// decimal or a fraction ("4/5"), read exactly as `-t` is. Similarities are
// answered rounded to six decimals, as the command line writes them. A
// search may add "only" or "exclude", lists of ids (or keys) it is
// restricted to or skips, "fields", the stored fields each hit carries
// (an index that stores text), and "estimate": true, to answer from the
// signatures' estimates without verifying (LSH with raw sets). Similarities that are MinHash estimates (LSH
// without raw sets) carry "estimated": true.
//
// The API reads its input by the rules of the command line: a record or
// query must be text (a body with invalid UTF-8, or a string with an escaped
// lone surrogate such as "\ud800", is refused, never read as U+FFFD); an
// id is a decimal integer >= 1 without leading zeros (DELETE
// /v1/records/01 is refused, as `index delete 01` is); "only" must not be
// empty (as --only ”); top_k or refine_k given as 0 is refused, not taken
// for "not given" (as --top-k 0).
//
// Lifecycle: open the index, New, Serve until its context ends (or mount the
// Server in an http.Server of your own), then close the index. With
// Options.AuthToken every request but GET /v1/health must carry it as a
// bearer token (401 otherwise); Serve encrypts when given a TLS listener
// (crypto/tls.NewListener); the package does not rate-limit. Every request
// is bounded by Options, one limit each, answered with a JSON error:
//
//	what                            Options         default      past it
//	a request body                  MaxBodyBytes    8 MiB        413
//	records of an insert            MaxRecords      10,000       413
//	ids of a search's only/exclude  MaxRecords      10,000       413
//	queries of a search             MaxQueries      10,000       413
//	top_k and refine_k              MaxTopK         10,000       400
//	hits of a search answer         MaxHits         100,000      cut: "truncated": true
//	time of a request               MaxRequestTime  30 s         503, or cut: "truncated": true
//	request headers                 (Serve)         64 KiB       431
//	reading headers, whole request  (Serve)         10 s, 1 min  connection closed
//
// A request costs its index operation plus
// decoding and encoding its JSON, linear in the body. A search answer is
// streamed as the index finds it (index.SearchEach), so the server holds a
// few queries' hits at a time, never the whole answer, and it stops at
// Options.MaxHits hits over all the queries: the lists are cut there (those
// after the cut are empty) and the answer says "truncated": true. The other
// answers are bounded by the request (one result a record).
//
// An insert is answered only once its batch is durable (the index's
// write-ahead log is synced), so an acknowledged record survives a crash;
// an insert answered with an error was not made durable, with one
// exception: records made durable before a checkpoint failed are answered
// 200 (the failure is logged, and every later write fails with 500 until
// the index is reopened), so that a client never retries durable records.
// Inserts that arrive while one is being written are merged into the next
// batch (group commit: one log sync for all of them); each record's outcome
// is the one it would get had the requests come one after the other.
// Bad input gets a 4xx status and {"error": "..."}, never a redirect or an
// HTML page: 400 for malformed JSON, unknown fields, a missing or
// out-of-range threshold, an id that is not one, text the tokenizer
// rejects; 404 for an unknown path (or one that is not clean, such as
// "//v1/stats" or "/v1/records/7/") or id; 405 for a wrong method; 413 for
// a request past a limit of the table above; 401 without the token; 503
// past the time limit. A failure of the index itself is a 500.
// Record text never appears in an error or a log line (records may be
// passwords).
//
// Maintenance goes on while the server serves: POST /v1/compact compacts
// (searches go on, writes wait), and so does the server's own policy after
// deletes (Options.CompactDeleted); POST /v1/backup writes a consistent copy
// while inserts go on; POST /v1/verify re-reads every file; these three are
// not bounded by MaxRequestTime. GET /v1/health answers 503 with the
// reason once the index has stopped taking writes (a failed write or
// fsync: a full disk), and GET /metrics exports the requests, their
// latency, the index's records, segments, log size, compactions and fsync
// times for Prometheus.
//
// Concurrency: each request runs on its own goroutine; searches run
// concurrently with each other and with writes, each on a consistent snapshot
// of the index, and the index serialises inserts and deletes.
package httpapi

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"math"
	"net"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/prefix"
)

// Defaults of Options' zero fields.
const (
	DefaultMaxBodyBytes   = 8 << 20 // 8 MiB
	DefaultMaxRecords     = 10_000
	DefaultMaxQueries     = 10_000
	DefaultMaxTopK        = 10_000
	DefaultMaxHits        = 100_000
	DefaultMaxRequestTime = 30 * time.Second
	DefaultCompactDeleted = 0.25

	DefaultShutdownTimeout = 10 * time.Second
)

// Options bounds what one request may ask (the limits table of the package
// doc) and says who may ask. The zero value uses the defaults and asks no
// token.
type Options struct {
	// MaxBodyBytes caps a request body; a larger one gets 413. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxRecords caps the records of an insert (and the ids of a search's
	// only or exclude); more get 413. 0 means DefaultMaxRecords.
	MaxRecords int
	// MaxQueries caps the queries of a search; more get 413. 0 means
	// DefaultMaxQueries.
	MaxQueries int
	// MaxTopK caps top_k and refine_k; more get 400. 0 means DefaultMaxTopK.
	MaxTopK int
	// MaxHits caps the hits of one search answer, over all its queries:
	// past it the answer stops (the rest of the lists are empty) and says
	// "truncated": true. 0 means DefaultMaxHits.
	MaxHits int
	// MaxRequestTime caps the time a request may take once its headers
	// are read: a search still running then stops (503 before its answer
	// began, "truncated": true after), an insert not yet in a batch is
	// refused with 503 (one in a batch is always answered: it may be
	// durable). 0 means DefaultMaxRequestTime.
	MaxRequestTime time.Duration
	// AuthToken, when not empty, is the bearer token every request but GET
	// /v1/health must carry ("Authorization: Bearer TOKEN"); without it, or
	// with another, the answer is 401. It is compared in constant time and
	// never logged.
	AuthToken string
	// ShutdownTimeout is how long Serve lets the requests under way finish
	// after its context ends before it closes their connections. 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// ErrorLog receives one line per failure of the index (5xx) and of the
	// HTTP server; nil discards them. Lines never hold record text.
	ErrorLog *log.Logger
	// Metrics are what GET /metrics exports (NewMetrics); nil: the
	// server's own (without the log's fsync times, which only the index's
	// OpenOptions.OnSync can give). One server's alone.
	Metrics *Metrics
	// BackupDir is the directory POST /v1/backup writes its copies into,
	// one subdirectory a backup; "" turns backups off (403).
	BackupDir string
	// CompactDeleted is the server's compaction policy: after a request
	// that deleted records, when more than this fraction of the records
	// held (live and deleted) are deleted, the index is compacted in the
	// background (one compaction at a time; searches go on, writes wait).
	// 0 means DefaultCompactDeleted; negative, never.
	CompactDeleted float64
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	if o.MaxQueries <= 0 {
		o.MaxQueries = DefaultMaxQueries
	}
	if o.MaxTopK <= 0 {
		o.MaxTopK = DefaultMaxTopK
	}
	if o.MaxRequestTime <= 0 {
		o.MaxRequestTime = DefaultMaxRequestTime
	}
	if o.CompactDeleted == 0 {
		o.CompactDeleted = DefaultCompactDeleted
	}
	if o.MaxHits <= 0 {
		o.MaxHits = DefaultMaxHits
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.ErrorLog == nil {
		o.ErrorLog = log.New(io.Discard, "", 0)
	}
	return o
}

// Server is the HTTP handler of one open index. It does not own the index:
// the caller opens it before New and closes it after Serve returns.
type Server struct {
	ix      *index.Index
	measure prefix.Measure
	opt     Options
	mux     *http.ServeMux
	commit  committer // merges concurrent inserts into one synced batch
	// token is the SHA-256 of Options.AuthToken (nil: no token asked): a
	// request's token is hashed and the digests compared in constant time,
	// so neither the token's bytes nor its length show in the timing.
	token []byte

	inflight sync.WaitGroup // handlers running: Serve waits for them before it returns
	metrics  *Metrics

	// maint runs the compactions of the policy (Options.CompactDeleted):
	// Serve waits for it too. compactMu is held by a compaction, of the
	// policy or of POST /v1/compact, from before it reads the statistics
	// to after: one at a time, and the policy's is taken before the
	// request that started it is answered, so that a POST /v1/compact
	// after it waits for it.
	maint     sync.WaitGroup
	compactMu sync.Mutex
}

// handlerStarted, when set, is called by every request's handler as it
// starts. Can change for testing.
var handlerStarted func()

// New returns the handler of ix. Cost: O(1); safe for concurrent use.
func New(ix *index.Index, opt Options) *Server {
	cfg := ix.Config()
	s := &Server{ix: ix, measure: cfg.Measure, opt: opt.withDefaults(), mux: http.NewServeMux(), commit: committer{ix: ix}}
	if opt.AuthToken != "" {
		sum := sha256.Sum256([]byte(opt.AuthToken))
		s.token = sum[:]
	}
	s.metrics = cmp.Or(opt.Metrics, NewMetrics())
	s.metrics.ix.ix = ix
	s.route("/v1/health", map[string]http.HandlerFunc{http.MethodGet: s.health})
	s.route("/v1/records", map[string]http.HandlerFunc{http.MethodPost: s.insert})
	s.route("/v1/records/{id}", map[string]http.HandlerFunc{http.MethodGet: s.get, http.MethodDelete: s.delete})
	s.route("/v1/search", map[string]http.HandlerFunc{http.MethodPost: s.search})
	s.route("/v1/stats", map[string]http.HandlerFunc{http.MethodGet: s.stats})
	s.route("/v1/compact", map[string]http.HandlerFunc{http.MethodPost: s.compact})
	s.route("/v1/backup", map[string]http.HandlerFunc{http.MethodPost: s.backup})
	s.route("/v1/verify", map[string]http.HandlerFunc{http.MethodPost: s.verify})
	s.route("/metrics", map[string]http.HandlerFunc{http.MethodGet: s.metrics.handler().ServeHTTP})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	return s
}

// route registers the methods of one path, answering others with a JSON 405.
func (s *Server) route(path string, methods map[string]http.HandlerFunc) {
	allow := strings.Join(slices.Sorted(maps.Keys(methods)), ", ")
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		h, ok := methods[r.Method]
		if !ok {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: want %s", r.Method, r.URL.Path, allow))
			return
		}
		h(w, r)
	})
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	if handlerStarted != nil {
		handlerStarted()
	}
	start := time.Now()
	w := &statusWriter{ResponseWriter: rw}
	defer func() {
		endpoint := "other"
		if _, pattern := s.mux.Handler(r); pattern != "/" && pattern != "" {
			endpoint = pattern
		}
		s.metrics.observe(endpoint, cmp.Or(w.code, http.StatusOK), time.Since(start))
	}()
	// The mux would redirect an unclean path ("//v1/stats", "/v1/./x",
	// "/v1/records/7/") with an HTML body: no endpoint has one.
	if p := r.URL.Path; p == "" || path.Clean(p) != p {
		writeError(w, http.StatusNotFound, "no such endpoint: "+p)
		return
	}
	if s.token != nil && r.URL.Path != "/v1/health" && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="simjoin"`)
		writeError(w, http.StatusUnauthorized, "missing or wrong bearer token (Authorization: Bearer TOKEN)")
		return
	}
	if maintenance[r.URL.Path] {
		s.mux.ServeHTTP(w, r) // runs to its end, whatever MaxRequestTime
		return
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), s.opt.MaxRequestTime, errTimeLimit)
	defer cancel()
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

// maintenance are the paths of the requests that Options.MaxRequestTime
// does not bound: they run to their end (a compaction, a backup, a verify
// of the whole index).
var maintenance = map[string]bool{"/v1/compact": true, "/v1/backup": true, "/v1/verify": true}

// errTimeLimit is the cause of a request's context that ran past
// Options.MaxRequestTime.
var errTimeLimit = errors.New("the request ran past its time limit")

// authorized reports whether r carries the bearer token, comparing the
// digests in constant time.
func (s *Server) authorized(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	sum := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(sum[:], s.token) == 1
}

// Serve answers requests on ln until ctx is done, then shuts down
// gracefully: it stops accepting connections, lets every request in flight
// finish (an insert under way completes, is synced and is answered) and
// returns nil; it returns early with the error if the listener fails. When
// requests are still under way Options.ShutdownTimeout after ctx ended (a
// client sending its body slowly, say), their connections are closed and
// Serve returns an *UnansweredError saying how many; it still waits for
// every handler to leave the index before it returns, so the caller may
// close the index then. Serve logs nothing of the shutdown: its result says
// what happened.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	var mu sync.Mutex // guards active
	active := map[net.Conn]bool{}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.opt.ErrorLog,
		// The connections with a request under way, for the shutdown.
		ConnState: func(c net.Conn, st http.ConnState) {
			mu.Lock()
			if st == http.StateActive {
				active[c] = true
			} else {
				delete(active, c)
			}
			mu.Unlock()
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opt.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		mu.Lock()
		n := len(active)
		mu.Unlock()
		err = cmp.Or(srv.Close(), error(&UnansweredError{Requests: n, After: s.opt.ShutdownTimeout}))
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	s.inflight.Wait()
	s.maint.Wait()
	return err
}

// UnansweredError is Serve's result when requests were still under way
// Options.ShutdownTimeout after its context ended: their connections were
// closed, and they were not answered.
type UnansweredError struct {
	Requests int           // requests under way when the time ran out
	After    time.Duration // Options.ShutdownTimeout
}

func (e *UnansweredError) Error() string {
	what := "requests"
	if e.Requests == 1 {
		what = "request"
	}
	return fmt.Sprintf("%d %s still unanswered %v after the shutdown began: connections closed", e.Requests, what, e.After)
}

// httpError is an error answered with its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // answers are JSON, not HTML: "<" stays "<"
	enc.Encode(v)            // the client may be gone; nothing more to do
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}

// fail answers err: its own status for an httpError, 409 for a key held,
// 400 for the other errors the index reports about its input, 503 past the
// time limit, 500 (logged) otherwise.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var re *index.RecordError
	var ke *index.KeyError
	switch {
	case errors.As(err, &he):
		writeError(w, he.status, he.msg)
	case errors.As(err, &ke):
		what := "is held by a live record"
		if ke.ID == 0 {
			what = "is given twice"
		}
		writeError(w, http.StatusConflict, fmt.Sprintf("records[%d]: key %q %s (on_conflict \"replace\" or \"skip\" takes it)", ke.Index, ke.Key, what))
	case errors.As(err, &re):
		field := "records"
		if re.Query {
			field = "queries"
		}
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s[%d]: %v", field, re.Index, re.Err))
	case errors.Is(err, index.ErrThresholdBelowMin), errors.Is(err, index.ErrOptions):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(context.Cause(r.Context()), errTimeLimit) && errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the request ran past its time limit of %v", s.opt.MaxRequestTime))
	case errors.Is(err, context.Canceled):
		// The client went away; no one reads the answer.
		writeError(w, http.StatusServiceUnavailable, "request cancelled")
	default:
		s.opt.ErrorLog.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		msg := err.Error()
		if !strings.HasPrefix(msg, "index: ") {
			msg = "index: " + msg
		}
		writeError(w, http.StatusInternalServerError, msg)
	}
}

// decode reads the JSON body into v: at most MaxBodyBytes, one object, no
// unknown fields, and text that is text: invalid UTF-8 or an escaped lone
// surrogate ("\ud800") anywhere is refused, never turned into U+FFFD.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", mbe.Limit)}
		}
		return badRequest("reading the request body: %v", err)
	}
	if err := index.CheckJSONText(body); err != nil {
		return badRequest("malformed JSON body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return badRequest("empty request body: want a JSON object")
		}
		return badRequest("malformed JSON body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("malformed JSON body: data after the object")
	}
	return nil
}

// threshold reads a JSON threshold: a number (0.8) or a string ("4/5"),
// parsed exactly as the command line's -t. A missing or null one is the
// zero Threshold.
func (s *Server) threshold(field string, raw json.RawMessage) (prefix.Threshold, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return prefix.Threshold{}, nil
	}
	text := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return prefix.Threshold{}, badRequest("%s: %v", field, err)
		}
	}
	t, err := prefix.ParseThreshold(s.measure, text)
	if err != nil {
		return prefix.Threshold{}, badRequest("%s: %v", field, err)
	}
	return t, nil
}

// named words the index's refusal of a threshold (below an exact index's
// minimum threshold) by the field it came from; other errors stay as they
// are. The index checks before it writes anything.
func named(field string, err error) error {
	var te *index.ThresholdError
	if errors.As(err, &te) {
		return badRequest("%s %s is below the index's minimum threshold %s", field, te.Threshold, te.Min)
	}
	return err
}

// texts converts the records or queries of a request, checking their
// count against most.
func texts(field string, in []string, most int) ([][]byte, error) {
	if len(in) == 0 {
		return nil, badRequest("%s: want a non-empty list of strings", field)
	}
	if len(in) > most {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%s: %d given, at most %d a request", field, len(in), most)}
	}
	out := make([][]byte, len(in))
	for i, t := range in {
		out[i] = []byte(t)
	}
	return out, nil
}

// health answers GET /v1/health: {"status": "ok"}, or 503 {"status":
// "unhealthy", "reason": "..."} once the index has stopped taking writes (a
// write to disk failed: a full disk, a failed fsync; the server must be
// restarted, which recovers what was durable).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	type answer struct {
		Status string `json:"status"`
		Reason string `json:"reason,omitempty"`
	}
	if err := s.ix.Health(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, answer{"unhealthy", err.Error() + " (restart the server)"})
		return
	}
	writeJSON(w, http.StatusOK, answer{Status: "ok"})
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	b, err := MarshalStats(s.ix.Config(), s.ix.Stats())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, json.RawMessage(b))
}

// insertRequest is the body of POST /v1/records.
type insertRequest struct {
	Records        []json.RawMessage `json:"records"`
	DedupThreshold json.RawMessage   `json:"dedup_threshold"`
	OnConflict     *string           `json:"on_conflict"`
}

// RecordResult is the answer for one record of an insert.
type RecordResult struct {
	// Status is "inserted", "replaced" (inserted in place of the live
	// record that held its key, now deleted), "duplicate" (not inserted:
	// a near-duplicate of the held record ID) or "exists" (not inserted:
	// the live record ID holds its key, on_conflict "skip").
	Status string `json:"status"`
	// ID names the record: the new one, the one it duplicates or the one
	// holding its key. It is the record's id (a JSON number) on an index
	// without keys, else its key (a number or a string).
	ID        json.RawMessage `json:"id"`
	Sim       float64         `json:"sim,omitempty"`
	Estimated bool            `json:"estimated,omitempty"`
}

// InsertResponse is the answer of POST /v1/records, one result a record in
// request order.
type InsertResponse struct {
	Results []RecordResult `json:"results"`
}

// records reads the records of an insert: each a string (its text, on an
// index without keys) or an object {"id", "text", "payload"} read as
// index.DecodeRecord reads a line of index add --input-format jsonl.
func (s *Server) records(in []json.RawMessage) ([]index.Record, error) {
	if len(in) == 0 {
		return nil, badRequest("records: want a non-empty list of strings or objects")
	}
	if len(in) > s.opt.MaxRecords {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("records: %d given, at most %d a request", len(in), s.opt.MaxRecords)}
	}
	keys := s.ix.Config().Keys
	recs := make([]index.Record, len(in))
	for i, raw := range in {
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) > 0 && raw[0] == '"' && keys == index.NoKeys:
			var t string
			if err := json.Unmarshal(raw, &t); err != nil {
				return nil, badRequest("records[%d]: %v", i, err)
			}
			recs[i].Text = []byte(t)
		case len(raw) > 0 && raw[0] == '"':
			return nil, badRequest("records[%d]: the index takes a %s key with each record: want {\"id\": KEY, \"text\": ...}", i, keys)
		case len(raw) > 0 && raw[0] == '{':
			rec, err := index.DecodeRecord(keys, raw)
			if err != nil {
				return nil, badRequest("records[%d]: %v", i, err)
			}
			recs[i] = rec
		default:
			return nil, badRequest("records[%d]: want a string or an object", i)
		}
	}
	return recs, nil
}

// conflict reads on_conflict: "error" (the default), "replace" or "skip".
func conflict(p *string) (index.Conflict, error) {
	if p == nil {
		return index.ConflictError, nil
	}
	c, err := index.ParseConflict(*p)
	if err != nil {
		return 0, badRequest("on_conflict %q: want error, replace or skip", *p)
	}
	return c, nil
}

func (s *Server) insert(w http.ResponseWriter, r *http.Request) {
	var req insertRequest
	if err := s.decode(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	recs, err := s.records(req.Records)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	opt := index.InsertOptions{}
	if opt.Dedup, err = s.threshold("dedup_threshold", req.DedupThreshold); err != nil {
		s.fail(w, r, err)
		return
	}
	if opt.OnConflict, err = conflict(req.OnConflict); err != nil {
		s.fail(w, r, err)
		return
	}
	outs, err := s.commit.insert(r.Context(), recs, opt)
	switch {
	case err != nil && outs == nil:
		s.fail(w, r, named("dedup_threshold", err))
		return
	case err != nil:
		// The records are durable, a checkpoint after them failed: they
		// are answered (a client that retried would insert them twice),
		// the failure is logged, and the next write gets it.
		s.opt.ErrorLog.Printf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	keys := s.ix.Config().Keys
	resp := InsertResponse{Results: make([]RecordResult, len(outs))}
	if slices.ContainsFunc(outs, func(o index.Outcome) bool { return o.Replaced }) {
		s.maybeCompact()
	}
	for i, o := range outs {
		res := &resp.Results[i]
		res.ID = appendRef(nil, keys, o.ID, o.Key)
		switch {
		case o.Replaced:
			res.Status = "replaced"
		case o.Inserted:
			res.Status = "inserted"
		case o.Exists:
			res.Status = "exists"
		default:
			res.Status, res.Sim, res.Estimated = "duplicate", round6(o.Sim), o.Estimated
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// appendRef appends how the API names a record: its id on an index
// without keys, else its key (an integer bare, a string as a JSON string).
func appendRef(b []byte, keys index.KeyKind, id index.ID, key index.Key) []byte {
	switch keys {
	case index.NoKeys:
		return strconv.AppendUint(b, uint64(id), 10)
	case index.IntKeys:
		return append(b, key...)
	}
	return fieldenc.AppendJSONString(b, []byte(key))
}

// round6 rounds a similarity to six decimals, as the command line writes
// it (0.777778): the decisions were made exactly, in integers; the value is
// for reading.
func round6(sim float64) float64 { return math.Round(sim*1e6) / 1e6 }

// searchRequest is the body of POST /v1/search.
type searchRequest struct {
	Queries   []string          `json:"queries"`
	Threshold json.RawMessage   `json:"threshold"`
	TopK      *int              `json:"top_k"`
	RefineK   *int              `json:"refine_k"`
	Only      []json.RawMessage `json:"only"`
	Exclude   []json.RawMessage `json:"exclude"`
	Fields    []string          `json:"fields"`
	Estimate  bool              `json:"estimate"`
}

// Hit is one record found for a query: ID as RecordResult has it, and the
// stored fields the search asked for (Payload a JSON object, or null).
type Hit struct {
	ID        json.RawMessage `json:"id"`
	Sim       float64         `json:"sim"`
	Estimated bool            `json:"estimated,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// SearchResponse is the answer of POST /v1/search: one list per query, in
// request order, best first (ties by id). Truncated says that the answer
// reached Options.MaxHits (or its time): the hits past it, in query order,
// are left out (the lists after the cut are empty). MinThreshold, in the
// answer of a top_k search, is the index's minimum threshold: top-k
// considers only the records at or above it, so a short or empty list says
// nothing of the records below.
type SearchResponse struct {
	Results      [][]Hit  `json:"results"`
	Truncated    bool     `json:"truncated,omitempty"`
	MinThreshold *float64 `json:"min_threshold,omitempty"`
}

// searchOptions reads a search request's options: the index's rules
// (SearchOptions.Validate, worded by the JSON fields: searchError), then this
// API's own: only or exclude, and the caps on top_k, refine_k and the id
// lists.
func (s *Server) searchOptions(req *searchRequest) (index.SearchOptions, error) {
	var opt index.SearchOptions
	t, err := s.threshold("threshold", req.Threshold)
	if err != nil {
		return opt, err
	}
	opt = index.SearchOptions{Threshold: t, TopK: given(req.TopK), RefineK: given(req.RefineK), Estimate: req.Estimate}
	keys := s.ix.Config().Keys
	if opt.Only, opt.OnlyKeys, err = refs("only", keys, req.Only); err != nil {
		return opt, err
	}
	if opt.Exclude, opt.ExcludeKeys, err = refs("exclude", keys, req.Exclude); err != nil {
		return opt, err
	}
	if opt.Fields, err = s.fields(req.Fields); err != nil {
		return opt, err
	}
	if err := opt.Validate(); err != nil {
		return opt, s.searchError(err, req, t)
	}
	switch {
	case opt.TopK > s.opt.MaxTopK:
		return opt, badRequest("top_k %d: want 1 to %d", opt.TopK, s.opt.MaxTopK)
	case opt.RefineK > s.opt.MaxTopK:
		return opt, badRequest("refine_k %d: want top_k (%d) to %d", opt.RefineK, opt.TopK, s.refineMax(opt.TopK))
	case req.Only != nil && req.Exclude != nil:
		return opt, badRequest("give only or exclude, not both")
	case len(req.Only) > s.opt.MaxRecords || len(req.Exclude) > s.opt.MaxRecords:
		return opt, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("only/exclude: at most %d ids a request", s.opt.MaxRecords)}
	}
	return opt, nil
}

// given reads top_k or refine_k for SearchOptions, where 0 means not
// given: a field given as 0 becomes -1, which the index refuses as it does
// any value below 1 (the message quotes the value given).
func given(p *int) int {
	switch {
	case p == nil:
		return 0
	case *p == 0:
		return -1
	}
	return *p
}

// searchError words the rule of SearchOptions.Validate that req (of threshold
// t) breaks, an *index.OptionError, by its JSON fields.
func (s *Server) searchError(err error, req *searchRequest, t prefix.Threshold) error {
	var oe *index.OptionError
	switch {
	case !errors.As(err, &oe):
		return err
	case oe.Option == "Threshold":
		return badRequest("missing threshold or top_k")
	case oe.Option == "TopK" && t.Den != 0:
		return badRequest("give threshold or top_k, not both")
	case oe.Option == "TopK":
		return badRequest("top_k %d: want 1 to %d", *req.TopK, s.opt.MaxTopK)
	case req.TopK == nil:
		return badRequest("refine_k needs top_k")
	}
	return badRequest("refine_k %d: want top_k (%d) to %d", *req.RefineK, *req.TopK, s.refineMax(*req.TopK))
}

// refineMax is the largest refine_k a search of top_k k may ask.
func (s *Server) refineMax(k int) int { return min(index.MaxRefine*k, s.opt.MaxTopK) }

// refs reads a JSON list of field naming records: ids on an index
// without keys (each a decimal integer >= 1), keys of its kind on one with.
// nil stays nil (no restriction); only must not be empty, as the command
// line's --only and --exclude are read (an empty exclude excludes nothing).
func refs(field string, keys index.KeyKind, in []json.RawMessage) ([]index.ID, []index.Key, error) {
	if in == nil {
		return nil, nil, nil
	}
	if len(in) == 0 && field == "only" {
		return nil, nil, badRequest("only: want at least one id (for no restriction, leave it out)")
	}
	var ids []index.ID
	var ks []index.Key
	if keys == index.NoKeys {
		ids = make([]index.ID, 0, len(in))
	} else {
		ks = make([]index.Key, 0, len(in))
	}
	for _, raw := range in {
		id, key, err := ref(keys, bytes.TrimSpace(raw))
		if err != nil {
			return nil, nil, badRequest("%s: %v", field, err)
		}
		if keys == index.NoKeys {
			ids = append(ids, id)
		} else {
			ks = append(ks, key)
		}
	}
	return ids, ks, nil
}

// ref reads one record's name as JSON: an id (a number), an integer key (a
// number) or a string key (a string), by the index's keys.
func ref(keys index.KeyKind, raw []byte) (index.ID, index.Key, error) {
	if keys == index.StringKeys {
		var s string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return 0, "", fmt.Errorf("%s is %w: want a JSON string", raw, index.ErrKey)
		}
		k, err := index.ParseKey(keys, s)
		if err != nil {
			return 0, "", fmt.Errorf("%s is %w", raw, err)
		}
		return 0, k, nil
	}
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		if keys == index.NoKeys {
			return 0, "", fmt.Errorf("%s is %w", raw, index.ErrNotID)
		}
		return 0, "", fmt.Errorf("%s is %w: want a JSON number", raw, index.ErrKey)
	}
	if keys == index.NoKeys {
		id, err := index.ParseID(string(raw))
		if err != nil {
			return 0, "", fmt.Errorf("%s is %w", raw, index.ErrNotID)
		}
		return id, "", nil
	}
	k, err := index.ParseKey(keys, string(raw))
	if err != nil {
		return 0, "", fmt.Errorf("%s is %w", raw, err)
	}
	return 0, k, nil
}

// fields reads a search's "fields": "text" and "payload".
func (s *Server) fields(in []string) (index.Fields, error) {
	var f index.Fields
	for _, name := range in {
		field, ok := index.FieldNamed(name)
		if !ok {
			return 0, badRequest("fields: %q: want \"text\" or \"payload\"", name)
		}
		f |= field
	}
	if f != 0 && !s.ix.Config().StoreText {
		return 0, badRequest("fields: the index stores no text (create it with --store text)")
	}
	return f, nil
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if err := s.decode(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	qs, err := texts("queries", req.Queries, s.opt.MaxQueries)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	opt, err := s.searchOptions(&req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sw := searchWriter{w: w, budget: s.opt.MaxHits, keys: s.ix.Config().Keys, fields: opt.Fields}
	if opt.TopK > 0 {
		sw.min = s.ix.Config().MinThreshold
	}
	err = s.ix.SearchEach(r.Context(), qs, opt, sw.write)
	switch {
	case errors.Is(err, errTruncated):
	case err != nil && sw.bw != nil && errors.Is(context.Cause(r.Context()), errTimeLimit):
		// Out of time with the answer begun: it ends here, cut as at
		// MaxHits.
		sw.truncated = true
	case err != nil && sw.bw == nil:
		s.fail(w, r, named("threshold", err))
		return
	case err != nil:
		// The answer has begun (200): the client gets it cut short, which
		// no JSON parser takes for a whole one.
		s.opt.ErrorLog.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		return
	}
	sw.finish(len(qs))
}

// errTruncated stops a search whose answer reached Options.MaxHits.
var errTruncated = errors.New("the answer reached its most hits")

// searchWriter streams a SearchResponse as SearchEach hands it the hits of
// each query: the status and the opening once the queries are known to
// tokenize, then each list as it comes, through a small buffer, so that
// the server never holds the answer.
type searchWriter struct {
	w         http.ResponseWriter
	bw        *bufio.Writer // nil until the answer has begun
	buf       []byte
	budget    int // hits that may still be written
	n         int // lists written
	truncated bool
	min       prefix.Threshold // written as "min_threshold" when not zero (top-k)
	keys      index.KeyKind    // how hits are named
	fields    index.Fields     // the stored fields written with each hit
}

// write writes the list of query i (SearchEach's fn), cut to the budget.
func (sw *searchWriter) write(i int, hits []index.Hit) error {
	if sw.bw == nil {
		sw.w.Header().Set("Content-Type", "application/json")
		sw.w.WriteHeader(http.StatusOK)
		sw.bw = bufio.NewWriterSize(sw.w, 32<<10)
		sw.buf = append(sw.buf[:0], `{"results":[`...)
	} else {
		sw.buf = append(sw.buf[:0], ',')
	}
	if len(hits) > sw.budget {
		hits, sw.truncated = hits[:sw.budget], true
	}
	sw.budget -= len(hits)
	sw.buf = append(sw.buf, '[')
	for j, h := range hits {
		if j > 0 {
			sw.buf = append(sw.buf, ',')
		}
		sw.buf = appendHit(sw.buf, h, sw.keys, sw.fields)
		if len(sw.buf) >= 16<<10 {
			if _, err := sw.bw.Write(sw.buf); err != nil {
				return err
			}
			sw.buf = sw.buf[:0]
		}
	}
	sw.buf = append(sw.buf, ']')
	sw.n++
	if _, err := sw.bw.Write(sw.buf); err != nil {
		return err
	}
	if sw.truncated {
		return errTruncated
	}
	return nil
}

// finish closes the answer of n queries: an empty list for each query not
// written (after a truncation), and the truncation flag.
func (sw *searchWriter) finish(n int) {
	if sw.bw == nil { // no query: no list
		resp := SearchResponse{Results: [][]Hit{}}
		if sw.min.Den != 0 {
			f := round6(sw.min.Float())
			resp.MinThreshold = &f
		}
		writeJSON(sw.w, http.StatusOK, resp)
		return
	}
	b := sw.buf[:0]
	for ; sw.n < n; sw.n++ {
		b = append(b, ",[]"...)
	}
	b = append(b, ']')
	if sw.truncated {
		b = append(b, `,"truncated":true`...)
	}
	if sw.min.Den != 0 {
		b = appendFloat(append(b, `,"min_threshold":`...), round6(sw.min.Float()))
	}
	b = append(b, "}\n"...)
	sw.bw.Write(b)
	sw.bw.Flush() // the client may be gone; nothing more to do
}

// appendHit appends h as JSON, as encoding/json writes a Hit: named by its
// id or key (appendRef), with the stored fields asked for.
func appendHit(b []byte, h index.Hit, keys index.KeyKind, fields index.Fields) []byte {
	b = append(b, `{"id":`...)
	b = appendRef(b, keys, h.ID, h.Key)
	b = append(b, `,"sim":`...)
	b = appendFloat(b, round6(h.Sim))
	if h.Estimated {
		b = append(b, `,"estimated":true`...)
	}
	if fields&index.FieldText != 0 {
		b = fieldenc.AppendJSONString(append(b, `,"text":`...), []byte(h.Text))
	}
	if fields&index.FieldPayload != 0 {
		b = appendPayload(append(b, `,"payload":`...), h.Payload)
	}
	return append(b, '}')
}

// appendPayload appends a stored payload, a JSON object, or null for none.
func appendPayload[T string | []byte](b []byte, p T) []byte {
	if len(p) == 0 {
		return append(b, "null"...)
	}
	return append(b, p...)
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back, in exponent form below 1e-6 and from 1e21 on.
func appendFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		n := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// 1e-07 is written 1e-7, as encoding/json does.
		if m := len(b); m-n >= 4 && b[m-4] == 'e' && b[m-3] == '-' && b[m-2] == '0' {
			b[m-2] = b[m-1]
			b = b[:m-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// pathRef reads the record named by the path of GET or DELETE
// /v1/records/{id}: an id, or a key of the index's kind (percent-encoded
// as a path segment).
func (s *Server) pathRef(r *http.Request) (index.ID, index.Key, error) {
	text := r.PathValue("id")
	keys := s.ix.Config().Keys
	if keys == index.NoKeys {
		id, err := index.ParseID(text)
		if err != nil {
			return 0, "", badRequest("record id %v", err)
		}
		return id, "", nil
	}
	k, err := index.ParseKey(keys, text)
	if err != nil {
		return 0, "", badRequest("record key %q is %v", text, err)
	}
	return 0, k, nil
}

// refText is how an error names a record: its id, or its key quoted.
func refText(id index.ID, key index.Key) string {
	if key != "" {
		return strconv.Quote(string(key))
	}
	return strconv.FormatUint(uint64(id), 10)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	id, key, err := s.pathRef(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var n int
	if key != "" {
		n, err = s.ix.DeleteKeys([]index.Key{key})
	} else {
		n, err = s.ix.Delete([]index.ID{id})
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if n == 0 {
		writeError(w, http.StatusNotFound, "no live record "+refText(id, key))
		return
	}
	s.maybeCompact()
	b := append(appendRef([]byte(`{"id":`), s.ix.Config().Keys, id, key), `,"deleted":true}`...)
	writeJSON(w, http.StatusOK, json.RawMessage(b))
}

// get answers GET /v1/records/{id}: the live record's id (or key) and,
// on an index that stores text, its text and payload.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	id, key, err := s.pathRef(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var rec index.Stored
	var ok bool
	if key != "" {
		rec, ok, err = s.ix.GetKey(key)
	} else {
		rec, ok, err = s.ix.Get(id)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, "no live record "+refText(id, key))
		return
	}
	cfg := s.ix.Config()
	b := appendRef([]byte(`{"id":`), cfg.Keys, rec.ID, rec.Key)
	if cfg.StoreText {
		b = fieldenc.AppendJSONString(append(b, `,"text":`...), rec.Text)
		b = appendPayload(append(b, `,"payload":`...), rec.Payload)
	}
	writeJSON(w, http.StatusOK, json.RawMessage(append(b, '}')))
}
