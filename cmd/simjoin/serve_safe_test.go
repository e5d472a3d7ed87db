package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveProc is `simjoin serve` running as a child process.
type serveProc struct {
	t      *testing.T
	addr   string // as printed: HOST:PORT
	line   string // the rest of the "listening on" line
	base   string // http://127.0.0.1:PORT (or https)
	hc     *http.Client
	token  string // sent as the bearer token when not empty
	stderr *lockedBuffer
}

// startServe starts `simjoin serve args...` (which must listen on port 0)
// as a child process and returns once it listens; the process gets SIGTERM
// at the end of the test.
func startServe(t *testing.T, args ...string) *serveProc {
	t.Helper()
	cmd, stderr := startSimjoin(t, append([]string{"serve"}, args...)...)
	p := &serveProc{t: t, hc: &http.Client{Timeout: time.Minute}, stderr: &lockedBuffer{}}
	p.line = listeningLine(t, stderr)
	p.addr, _, _ = strings.Cut(p.line, " ")
	_, port, err := net.SplitHostPort(p.addr)
	if err != nil {
		t.Fatalf("listening on %q: %v", p.line, err)
	}
	p.base = "http://127.0.0.1:" + port
	done := make(chan struct{})
	go func() { io.Copy(p.stderr, stderr); close(done) }()
	t.Cleanup(func() {
		p.hc.CloseIdleConnections()
		cmd.Process.Signal(syscall.SIGTERM)
		<-done
		cmd.Wait()
	})
	return p
}

// do sends a request with p's token (if any) and returns the status, the
// headers and the body, which must be JSON.
func (p *serveProc) do(method, path, body string) (int, http.Header, string) {
	p.t.Helper()
	return p.doAuth(method, path, body, p.token)
}

func (p *serveProc) doAuth(method, path, body, token string) (int, http.Header, string) {
	p.t.Helper()
	resp, b := p.send(method, path, body, token)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !json.Valid(b) {
		p.t.Errorf("%s %s: %d, Content-Type %q, body %q: want JSON", method, path, resp.StatusCode, ct, b)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// raw sends a request with p's token (if any) and returns the status and
// the body, whatever it is (GET /metrics answers text).
func (p *serveProc) raw(method, path string) (int, string) {
	p.t.Helper()
	resp, b := p.send(method, path, "", p.token)
	return resp.StatusCode, string(b)
}

// send sends a request with token (if any) and returns the answer, its
// body read and closed.
func (p *serveProc) send(method, path, body, token string) (*http.Response, []byte) {
	p.t.Helper()
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp, b
}

// writeToken writes a token file and returns its path.
func writeToken(t *testing.T, token string) string {
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newIndexDir creates an exact index of word sets at minimum threshold 0.5
// in a temporary directory and returns it.
func newIndexDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "ix")
	cliOK(t, "", "index", "create", dir, "--tokens", "words", "--min-threshold", "0.5")
	return dir
}

// TestServeAddressNeedsToken: serve listens on loopback by default; an
// address that is not loopback is refused (exit status 2, one line naming
// the way out) unless a token or --insecure is given; the flags that go
// together are checked before anything is opened, and a refused token is
// never quoted.
func TestServeAddressNeedsToken(t *testing.T) {
	dir := newIndexDir(t)
	tok := writeToken(t, "0123456789abcdef0123")
	short := writeToken(t, "Zq9x")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, "not a loopback address: give --auth-token-file"},
		{[]string{"--addr", ":0"}, "not a loopback address"},
		{[]string{"--addr", "[::]:0"}, "not a loopback address"},
		{[]string{"--addr", "example.com:0"}, "not a loopback address"},
		{[]string{"--addr", "0.0.0.0:0", "--auth-token-file", tok, "--insecure"}, "not both"},
		{[]string{"--auth-token-file", short}, "at least 16 characters"},
		{[]string{"--tls-cert", tok}, "--tls-cert and --tls-key together"},
		{[]string{"--max-request-time", "0s"}, "must be positive"},
	} {
		code, out, errs := cliRun(t, "", append([]string{"serve", dir}, c.args...)...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) || strings.Contains(errs, "Zq9x") {
			t.Errorf("serve %q: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
	p := startServe(t, dir)
	if !strings.HasPrefix(p.addr, "127.0.0.1:") || !strings.HasSuffix(p.line, "(http, loopback only)") {
		t.Errorf("serve with no --addr: listening on %q, want 127.0.0.1 and loopback only", p.line)
	}
	q := startServe(t, newIndexDir(t), "--addr", "0.0.0.0:0", "--insecure")
	if !strings.HasSuffix(q.line, ": --insecure)") {
		t.Errorf("serve --insecure: listening on %q", q.line)
	}
	if code, _, _ := q.do("GET", "/v1/stats", ""); code != http.StatusOK {
		t.Errorf("GET /v1/stats of an --insecure server: %d", code)
	}
}

// TestServeAuthToken runs serve with a token on every interface: every
// endpoint but /v1/health answers 401 (JSON, with WWW-Authenticate) without
// the token, with a wrong one of the same length, or in another scheme, and
// answers with it.
func TestServeAuthToken(t *testing.T) {
	const token = "s3cret-token-0123456789"
	p := startServe(t, newIndexDir(t), "--addr", "0.0.0.0:0", "--auth-token-file", writeToken(t, token))
	if !strings.HasSuffix(p.line, "(http, bearer token required)") {
		t.Errorf("listening on %q", p.line)
	}
	reqs := []struct{ method, path, body string }{
		{"GET", "/v1/stats", ""},
		{"POST", "/v1/records", `{"records": ["a b c"]}`},
		{"POST", "/v1/search", `{"queries": ["a b c"], "threshold": 0.5}`},
		{"DELETE", "/v1/records/1", ""},
		{"GET", "/v1/nothing", ""},
	}
	wrong := strings.Repeat("x", len(token))
	for _, r := range reqs {
		for _, tok := range []string{"", wrong, token + "x", token[:len(token)-1]} {
			code, h, body := p.doAuth(r.method, r.path, r.body, tok)
			if code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(body, `"error"`) {
				t.Errorf("%s %s with token %q: %d %q, want 401 with WWW-Authenticate", r.method, r.path, tok, code, body)
			}
			if strings.Contains(body, token) || tok != "" && strings.Contains(body, tok) {
				t.Errorf("%s %s: the answer quotes a token: %q", r.method, r.path, body)
			}
		}
	}
	// Basic authentication with the token as the password is not the bearer scheme.
	req, _ := http.NewRequest("GET", p.base+"/v1/stats", nil)
	req.SetBasicAuth("x", token)
	if resp, err := p.hc.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/stats with basic auth: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if code, _, body := p.do("GET", "/v1/health", ""); code != http.StatusOK {
		t.Errorf("GET /v1/health without a token: %d %s", code, body)
	}
	p.token = token
	for _, r := range reqs[:4] {
		if code, _, body := p.do(r.method, r.path, r.body); code != http.StatusOK {
			t.Errorf("%s %s with the token: %d %s", r.method, r.path, code, body)
		}
	}
	if strings.Contains(p.stderr.String(), token) {
		t.Errorf("stderr quotes the token: %q", p.stderr.String())
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key as
// PEM files and returns their paths and a pool holding the certificate.
func selfSigned(t *testing.T) (cert, key string, pool *x509.CertPool) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "simjoin test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	cert, key = filepath.Join(d, "cert.pem"), filepath.Join(d, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return cert, key, pool
}

// TestServeTLS runs serve with --tls-cert and --tls-key: a client that
// trusts the certificate is answered over HTTPS, plain HTTP is not, and a
// key pair that does not load is a runtime error naming the files.
func TestServeTLS(t *testing.T) {
	dir := newIndexDir(t)
	cert, key, pool := selfSigned(t)
	code, _, errs := cliRun(t, "", "serve", dir, "--tls-cert", key, "--tls-key", key)
	if code != exitRuntime || !strings.Contains(errs, "--tls-cert "+key) || strings.Count(errs, "\n") != 1 {
		t.Errorf("serve with a key as the certificate: exit %d, %q", code, errs)
	}
	p := startServe(t, dir, "--addr", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
	if !strings.HasSuffix(p.line, "(https, loopback only)") {
		t.Errorf("listening on %q", p.line)
	}
	plain := p.base
	p.base = strings.Replace(p.base, "http://", "https://", 1)
	p.hc.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	if code, _, body := p.do("GET", "/v1/health", ""); code != http.StatusOK || !strings.Contains(body, "ok") {
		t.Errorf("GET /v1/health over HTTPS: %d %s", code, body)
	}
	resp, err := http.Get(plain + "/v1/health")
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the TLS server answered 200: %s", b)
		}
	}
}

// TestServeLimits drives a server with small limits: each is enforced
// with a JSON error and the status the limits table gives, and a request
// past --max-request-time is answered 503 (an insert refused before it is
// queued, so never half done).
func TestServeLimits(t *testing.T) {
	dir := newIndexDir(t)
	p := startServe(t, dir, "--addr", "127.0.0.1:0", "--max-body", "300", "--max-records", "2",
		"--max-queries", "3", "--max-hits", "2")
	if code, _, body := p.do("POST", "/v1/records", `{"records": ["a b", "a b c", "x y"]}`); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "records: 3 given, at most 2") {
		t.Errorf("3 records: %d %s", code, body)
	}
	if code, _, body := p.do("POST", "/v1/records", `{"records": ["a b c d", "a b c d e"]}`); code != http.StatusOK {
		t.Fatalf("2 records: %d %s", code, body)
	}
	if code, _, body := p.do("POST", "/v1/search", `{"queries": ["a", "b", "c", "d"], "threshold": 0.5}`); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "queries: 4 given, at most 3") {
		t.Errorf("4 queries: %d %s", code, body)
	}
	big := `{"records": ["` + strings.Repeat("w ", 200) + `"]}`
	if code, _, body := p.do("POST", "/v1/records", big); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "over 300 bytes") {
		t.Errorf("a body of %d bytes: %d %s", len(big), code, body)
	}
	code, _, body := p.do("POST", "/v1/search", `{"queries": ["a b c d", "a b c d e", "a b c d"], "threshold": 0.5}`)
	var sr struct {
		Results   [][]json.RawMessage
		Truncated bool
	}
	if err := json.Unmarshal([]byte(body), &sr); code != http.StatusOK || err != nil || !sr.Truncated || len(sr.Results) != 3 || len(sr.Results[0])+len(sr.Results[1])+len(sr.Results[2]) != 2 {
		t.Errorf("a search of 6 hits under --max-hits 2: %d %s", code, body)
	}
	if code, _, body := p.do("POST", "/v1/search", `{"queries": ["a"], "top_k": 10001}`); code != http.StatusBadRequest || !strings.Contains(body, "top_k 10001") {
		t.Errorf("top_k 10001: %d %s", code, body)
	}

	q := startServe(t, newIndexDir(t), "--addr", "127.0.0.1:0", "--max-request-time", "1ns")
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/records", `{"records": ["a b c"]}`},
		{"POST", "/v1/search", `{"queries": ["a b c"], "threshold": 0.5}`},
	} {
		if code, _, body := q.do(r.method, r.path, r.body); code != http.StatusServiceUnavailable || !strings.Contains(body, "time limit of 1ns") {
			t.Errorf("%s %s past --max-request-time: %d %s", r.method, r.path, code, body)
		}
	}
	if code, _, body := q.do("GET", "/v1/stats", ""); code != http.StatusOK || !strings.Contains(body, `"records":0`) {
		t.Errorf("stats after the refused insert: %d %s", code, body)
	}
}
