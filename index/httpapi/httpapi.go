// Package httpapi serves a persistent similarity index (package index) over
// HTTP with JSON bodies: the API that `simjoin serve` starts.
//
//	GET    /v1/health          {"status": "ok"}
//	POST   /v1/records         {"records": ["text", ...], "dedup_threshold": 0.8}
//	                           -> {"results": [{"status": "inserted", "id": 7},
//	                                           {"status": "duplicate", "id": 3, "sim": 0.85}, ...]}
//	POST   /v1/search          {"queries": ["text", ...], "threshold": 0.8}
//	                           or {"queries": [...], "top_k": 5, "refine_k": 20}
//	                           -> {"results": [[{"id": 3, "sim": 0.85}, ...], ...]}
//	                              (and "truncated": true past Options.MaxHits)
//	DELETE /v1/records/{id}    {"id": 7, "deleted": true}, or 404
//	GET    /v1/stats           the index's statistics
//
// Records and queries are tokenized by the index's own tokenizer, as on the
// command line. A threshold is a JSON number (0.8) or a string holding a
// decimal or a fraction ("4/5"), read exactly as `-t` is. Similarities are
// answered rounded to six decimals, as the command line writes them. A
// search may add "only" or "exclude", lists of ids it is restricted to or
// skips. Similarities that are MinHash estimates (LSH without raw sets)
// carry "estimated": true. Ids are the index's (index.ID: from 1 in
// insertion order).
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
// Server in an http.Server of your own), then close the index. The package
// does not authenticate, encrypt or rate-limit: serve it on loopback or
// behind a proxy that does. A request costs its index operation plus
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
// a body over Options.MaxBodyBytes or more records or queries than
// Options.MaxRecords. A failure of the index itself is a 500.
// Record text never appears in an error or a log line (records may be
// passwords).
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// Defaults of Options' zero fields.
const (
	DefaultMaxBodyBytes = 8 << 20 // 8 MiB
	DefaultMaxRecords   = 10_000
	DefaultMaxTopK      = 10_000
	DefaultMaxHits      = 100_000

	DefaultShutdownTimeout = 10 * time.Second
)

// Options bounds what one request may ask. The zero value uses the defaults.
type Options struct {
	// MaxBodyBytes caps a request body; a larger one gets 413. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxRecords caps the records of an insert and the queries of a search;
	// more get 413. 0 means DefaultMaxRecords.
	MaxRecords int
	// MaxTopK caps top_k and refine_k; more get 400. 0 means DefaultMaxTopK.
	MaxTopK int
	// MaxHits caps the hits of one search answer, over all its queries:
	// past it the answer stops (the rest of the lists are empty) and says
	// "truncated": true. 0 means DefaultMaxHits.
	MaxHits int
	// ShutdownTimeout is how long Serve lets the requests under way finish
	// after its context ends before it closes their connections. 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// ErrorLog receives one line per failure of the index (5xx) and of the
	// HTTP server; nil discards them. Lines never hold record text.
	ErrorLog *log.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	if o.MaxTopK <= 0 {
		o.MaxTopK = DefaultMaxTopK
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

	inflight sync.WaitGroup // handlers running: Serve waits for them before it returns
}

// handlerStarted, when set, is called by every request's handler as it
// starts. Can change for testing.
var handlerStarted func()

// New returns the handler of ix. Cost: O(1); safe for concurrent use.
func New(ix *index.Index, opt Options) *Server {
	cfg := ix.Config()
	s := &Server{ix: ix, measure: cfg.Measure, opt: opt.withDefaults(), mux: http.NewServeMux(), commit: committer{ix: ix}}
	s.route("/v1/health", map[string]http.HandlerFunc{http.MethodGet: s.health})
	s.route("/v1/records", map[string]http.HandlerFunc{http.MethodPost: s.insert})
	s.route("/v1/records/{id}", map[string]http.HandlerFunc{http.MethodDelete: s.delete})
	s.route("/v1/search", map[string]http.HandlerFunc{http.MethodPost: s.search})
	s.route("/v1/stats", map[string]http.HandlerFunc{http.MethodGet: s.stats})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	return s
}

// route registers the methods of one path, answering others with a JSON 405.
func (s *Server) route(path string, methods map[string]http.HandlerFunc) {
	allow := ""
	for m := range methods {
		if allow != "" {
			allow += ", "
		}
		allow += m
	}
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
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	if handlerStarted != nil {
		handlerStarted()
	}
	// The mux would redirect an unclean path ("//v1/stats", "/v1/./x",
	// "/v1/records/7/") with an HTML body: no endpoint has one.
	if p := r.URL.Path; p == "" || path.Clean(p) != p {
		writeError(w, http.StatusNotFound, "no such endpoint: "+p)
		return
	}
	s.mux.ServeHTTP(w, r)
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

// fail answers err: its own status for an httpError, 400 for the errors
// the index reports about its input, 500 (logged) otherwise.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var re *index.RecordError
	switch {
	case errors.As(err, &he):
		writeError(w, he.status, he.msg)
	case errors.Is(err, index.ErrThresholdBelowMin), errors.Is(err, index.ErrOptions),
		errors.As(err, &re):
		writeError(w, http.StatusBadRequest, err.Error())
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
	if err := checkText(body); err != nil {
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

// checkText reports invalid UTF-8 in a JSON text, or a \u escape of a
// surrogate that is not the first half of a pair followed by its second
// (encoding/json would decode either as U+FFFD). Cost: one pass.
func checkText(b []byte) error {
	if !utf8.Valid(b) {
		return errors.New("invalid UTF-8")
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		i++ // the escaped byte; only \u escapes matter
		if i >= len(b) || b[i] != 'u' {
			continue
		}
		r, ok := hex4(b[i+1:])
		if !ok || !utf16.IsSurrogate(r) {
			continue
		}
		lo, ok2 := rune(0), false
		if r < 0xdc00 && i+10 < len(b) && b[i+5] == '\\' && b[i+6] == 'u' {
			lo, ok2 = hex4(b[i+7:])
		}
		if !ok2 || lo < 0xdc00 || lo > 0xdfff {
			return fmt.Errorf("a lone surrogate \\u%s in a string", b[i+1:i+5])
		}
		i += 10
	}
	return nil
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
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

// texts converts the records or queries of a request, checking their count.
func (s *Server) texts(field string, in []string) ([][]byte, error) {
	if len(in) == 0 {
		return nil, badRequest("%s: want a non-empty list of strings", field)
	}
	if len(in) > s.opt.MaxRecords {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%s: %d given, at most %d a request", field, len(in), s.opt.MaxRecords)}
	}
	out := make([][]byte, len(in))
	for i, t := range in {
		out[i] = []byte(t)
	}
	return out, nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
	}{"ok"})
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
	Records        []string        `json:"records"`
	DedupThreshold json.RawMessage `json:"dedup_threshold"`
}

// RecordResult is the answer for one record of an insert.
type RecordResult struct {
	Status    string  `json:"status"` // "inserted" or "duplicate"
	ID        uint64  `json:"id"`     // the new id, or the held record it duplicates
	Sim       float64 `json:"sim,omitempty"`
	Estimated bool    `json:"estimated,omitempty"`
}

// InsertResponse is the answer of POST /v1/records, one result a record in
// request order.
type InsertResponse struct {
	Results []RecordResult `json:"results"`
}

func (s *Server) insert(w http.ResponseWriter, r *http.Request) {
	var req insertRequest
	if err := s.decode(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	recs, err := s.texts("records", req.Records)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	t, err := s.threshold("dedup_threshold", req.DedupThreshold)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	outs, err := s.commit.insert(r.Context(), recs, t)
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
	resp := InsertResponse{Results: make([]RecordResult, len(outs))}
	for i, o := range outs {
		res := &resp.Results[i]
		res.ID = uint64(o.ID)
		if o.Inserted {
			res.Status = "inserted"
			continue
		}
		res.Status, res.Sim, res.Estimated = "duplicate", round6(o.Sim), o.Estimated
	}
	writeJSON(w, http.StatusOK, resp)
}

// round6 rounds a similarity to six decimals, as the command line writes
// it (0.777778): the decisions were made exactly, in integers; the value is
// for reading.
func round6(sim float64) float64 { return math.Round(sim*1e6) / 1e6 }

// searchRequest is the body of POST /v1/search.
type searchRequest struct {
	Queries   []string        `json:"queries"`
	Threshold json.RawMessage `json:"threshold"`
	TopK      *int            `json:"top_k"`
	RefineK   *int            `json:"refine_k"`
	Only      []uint64        `json:"only"`
	Exclude   []uint64        `json:"exclude"`
}

// Hit is one record found for a query.
type Hit struct {
	ID        uint64  `json:"id"`
	Sim       float64 `json:"sim"`
	Estimated bool    `json:"estimated,omitempty"`
}

// SearchResponse is the answer of POST /v1/search: one list per query, in
// request order, best first (ties by id). Truncated says that the answer
// reached Options.MaxHits: the hits past it, in query order, are left out
// (the lists after the cut are empty).
type SearchResponse struct {
	Results   [][]Hit `json:"results"`
	Truncated bool    `json:"truncated,omitempty"`
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
	opt = index.SearchOptions{Threshold: t, TopK: given(req.TopK), RefineK: given(req.RefineK)}
	if opt.Only, err = ids("only", req.Only); err != nil {
		return opt, err
	}
	if opt.Exclude, err = ids("exclude", req.Exclude); err != nil {
		return opt, err
	}
	if err := opt.Validate(); err != nil {
		return opt, s.searchError(err, req, t)
	}
	switch {
	case opt.TopK > s.opt.MaxTopK:
		return opt, badRequest("top_k %d: want 1 to %d", opt.TopK, s.opt.MaxTopK)
	case opt.RefineK > s.opt.MaxTopK:
		return opt, badRequest("refine_k %d: want top_k (%d) to %d", opt.RefineK, opt.TopK, s.opt.MaxTopK)
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
	return badRequest("refine_k %d: want top_k (%d) to %d", *req.RefineK, *req.TopK, s.opt.MaxTopK)
}

// ids reads a JSON id list of field: nil stays nil (no restriction); every
// id must be one (at least 1), and only must not be empty, as the command
// line's --only and --exclude are read (an empty exclude excludes nothing).
func ids(field string, in []uint64) ([]index.ID, error) {
	if in == nil {
		return nil, nil
	}
	if len(in) == 0 && field == "only" {
		return nil, badRequest("only: want at least one id (for no restriction, leave it out)")
	}
	out := make([]index.ID, len(in))
	for i, id := range in {
		if id == 0 {
			return nil, badRequest("%s: %d is %v", field, id, index.ErrNotID)
		}
		out[i] = index.ID(id)
	}
	return out, nil
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if err := s.decode(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	qs, err := s.texts("queries", req.Queries)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	opt, err := s.searchOptions(&req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sw := searchWriter{w: w, budget: s.opt.MaxHits}
	err = s.ix.SearchEach(r.Context(), qs, opt, sw.write)
	switch {
	case errors.Is(err, errTruncated):
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
		sw.buf = appendHit(sw.buf, h)
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
		writeJSON(sw.w, http.StatusOK, SearchResponse{Results: [][]Hit{}})
		return
	}
	b := sw.buf[:0]
	for ; sw.n < n; sw.n++ {
		b = append(b, ",[]"...)
	}
	if sw.truncated {
		b = append(b, `],"truncated":true}`...)
	} else {
		b = append(b, "]}"...)
	}
	b = append(b, '\n')
	sw.bw.Write(b)
	sw.bw.Flush() // the client may be gone; nothing more to do
}

// appendHit appends h as JSON, as encoding/json writes a Hit.
func appendHit(b []byte, h index.Hit) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, uint64(h.ID), 10)
	b = append(b, `,"sim":`...)
	b = appendFloat(b, round6(h.Sim))
	if h.Estimated {
		b = append(b, `,"estimated":true`...)
	}
	return append(b, '}')
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

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	id, err := index.ParseID(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "record id "+err.Error())
		return
	}
	n, err := s.ix.Delete([]index.ID{id})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if n == 0 {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no live record %d", id))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ID      index.ID `json:"id"`
		Deleted bool     `json:"deleted"`
	}{id, true})
}
