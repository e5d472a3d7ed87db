package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/shingle"
)

// FuzzRequests sends arbitrary bodies to the insert and search endpoints,
// arbitrary ids to delete and arbitrary paths to every method: the answer
// is never a 5xx nor a redirect, is always one JSON value (an error has a
// message), a 200 answers every record or query of a body that is valid
// UTF-8 without lone surrogates, and a 200 delete names an id written as
// the index writes ids.
func FuzzRequests(f *testing.F) {
	for _, s := range []string{
		`{"records": ["a b c", "a b c d"], "dedup_threshold": 0.8}`,
		`{"records": ["x := \"y"]}`,
		`{"queries": ["a b"], "threshold": "4/5"}`,
		`{"queries": ["a b"], "top_k": 3, "refine_k": 9, "only": [1, 2]}`,
		`{"queries": ["a b"], "top_k": 3, "only": []}`,
		`{"queries": ["a b"], "top_k": 3, "exclude": [0]}`,
		`{"queries": ["a"], "threshold": 1e-400}`,
		`{"records": [""], "dedup_threshold": null}`,
		`{"records": ["\ud83d\ude00 \\ud800"]}`,
		"{\"records\": [\"\xff\"]}",
		`[]`, `{`, `{"records": ["\u0000\ud800"]}`,
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	for _, id := range []string{"7", "-1", "01", "0", "+1", "1/", "1%2F2"} {
		f.Add(id, uint8(2))
	}
	for _, p := range []string{"//v1/health", "/v1/./stats", "/v1/records/", "/v1/x/../stats", "/v1/stats/", "/"} {
		f.Add(p, uint8(3))
		f.Add(p, uint8(4))
	}
	cfg := exactCfg
	cfg.Tokens = shingle.Spec{Kind: shingle.Go, N: 1}
	ix, err := index.Create(filepath.Join(f.TempDir(), "ix"), cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ix.Close() })
	srv := httpapi.New(ix, httpapi.Options{MaxBodyBytes: 1 << 12, MaxRecords: 8, MaxTopK: 50, MaxHits: 20})
	f.Fuzz(func(t *testing.T, body string, kind uint8) {
		var req *http.Request
		switch kind % 5 {
		case 0:
			req = httptest.NewRequest(http.MethodPost, "/v1/records", strings.NewReader(body))
		case 1:
			req = httptest.NewRequest(http.MethodPost, "/v1/search", strings.NewReader(body))
		case 2:
			if body == "" {
				return // not an id segment
			}
			req = httptest.NewRequest(http.MethodDelete, "/v1/records/"+url.PathEscape(body), nil)
		default:
			u, err := url.Parse(body)
			if err != nil || !strings.HasPrefix(u.Path, "/") || u.Host != "" || u.Scheme != "" {
				return // not a request path
			}
			req = httptest.NewRequest([]string{http.MethodGet, http.MethodDelete}[kind%5-3], "/", nil)
			req.URL, req.RequestURI = u, u.RequestURI()
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code >= 500 || w.Code >= 300 && w.Code < 400 {
			t.Fatalf("%s %s %q: %d %s", req.Method, req.URL.Path, body, w.Code, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%s %s %q: Content-Type %q", req.Method, req.URL.Path, body, ct)
		}
		var v struct {
			Results []json.RawMessage `json:"results"`
			Error   string            `json:"error"`
			ID      json.RawMessage   `json:"id"`
		}
		dec := json.NewDecoder(w.Body)
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("%s %s %q: answer %q is not one JSON value: %v", req.Method, req.URL.Path, body, w.Body, err)
		}
		if w.Code != http.StatusOK && v.Error == "" {
			t.Fatalf("%s %s %q: %d without an error message", req.Method, req.URL.Path, body, w.Code)
		}
		if w.Code != http.StatusOK {
			return
		}
		switch kind % 5 {
		case 0, 1:
			if !utf8.ValidString(body) || strings.Contains(strings.ToLower(body), `\ud8`) && !strings.Contains(strings.ToLower(body), `\ude`) {
				t.Fatalf("%s %q: 200 for a body that is not text", req.URL.Path, body)
			}
			var in struct{ Records, Queries []string }
			json.Unmarshal([]byte(body), &in)
			if n := len(in.Records) + len(in.Queries); len(v.Results) != n {
				t.Fatalf("%s %q: %d results for %d inputs", req.URL.Path, body, len(v.Results), n)
			}
		case 2:
			if string(v.ID) != body {
				t.Fatalf("DELETE %q: deleted %s", body, v.ID)
			}
		}
	})
}
