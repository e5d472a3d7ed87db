package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/index/httpapi"
	"github.com/simjoin/simjoin/shingle"
)

// FuzzRequests sends arbitrary bodies to the insert and search endpoints
// and arbitrary ids to delete: the answer is never a 5xx, is always one
// JSON value, and a 200 answers every record or query.
func FuzzRequests(f *testing.F) {
	for _, s := range []string{
		`{"records": ["a b c", "a b c d"], "dedup_threshold": 0.8}`,
		`{"records": ["x := \"y"]}`,
		`{"queries": ["a b"], "threshold": "4/5"}`,
		`{"queries": ["a b"], "top_k": 3, "refine_k": 9, "only": [0, 1]}`,
		`{"queries": ["a"], "threshold": 1e-400}`,
		`{"records": [""], "dedup_threshold": null}`,
		`[]`, `{`, `{"records": ["\u0000\ud800"]}`,
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	f.Add("7", uint8(2))
	f.Add("-1", uint8(2))
	cfg := exactCfg
	cfg.Tokens = shingle.Spec{Kind: shingle.Go, N: 1}
	ix, err := index.Create(filepath.Join(f.TempDir(), "ix"), cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ix.Close() })
	srv := httpapi.New(ix, httpapi.Options{MaxBodyBytes: 1 << 12, MaxRecords: 8, MaxTopK: 50})
	f.Fuzz(func(t *testing.T, body string, kind uint8) {
		var req *http.Request
		switch kind % 3 {
		case 0:
			req = httptest.NewRequest(http.MethodPost, "/v1/records", strings.NewReader(body))
		case 1:
			req = httptest.NewRequest(http.MethodPost, "/v1/search", strings.NewReader(body))
		default:
			if body == "" {
				return // not an id segment
			}
			req = httptest.NewRequest(http.MethodDelete, "/v1/records/"+url.PathEscape(body), nil)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q: %d %s", req.URL.Path, body, w.Code, w.Body)
		}
		if w.Code >= 300 && w.Code < 400 && w.Header().Get("Location") != "" {
			return // the mux redirects "." and ".." segments to the clean path
		}
		var v struct {
			Results []json.RawMessage `json:"results"`
			Error   string            `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %q: answer %q is not JSON: %v", req.URL.Path, body, w.Body, err)
		}
		if w.Code != http.StatusOK && v.Error == "" {
			t.Fatalf("%s %q: %d without an error message", req.URL.Path, body, w.Code)
		}
		if w.Code == http.StatusOK && kind%3 != 2 {
			var in struct{ Records, Queries []string }
			json.Unmarshal([]byte(body), &in)
			if n := len(in.Records) + len(in.Queries); len(v.Results) != n {
				t.Fatalf("%s %q: %d results for %d inputs", req.URL.Path, body, len(v.Results), n)
			}
		}
	})
}
