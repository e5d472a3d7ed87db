package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	"github.com/simjoin/simjoin/index"
)

// helperArgsEnv, when set, makes TestHelperSimjoin run the command line it
// holds (a JSON list of arguments) as main does, signals caught, and exit:
// the tests below start a real simjoin process as a child of the test
// binary.
const helperArgsEnv = "SIMJOIN_HELPER_ARGS"

// helperFsizeEnv, when set to N, makes the child process's writes past N
// bytes of a file fail, as on a full disk (RLIMIT_FSIZE).
const helperFsizeEnv = "SIMJOIN_HELPER_FSIZE"

// TestHelperSimjoin is the child process's main, not a test of its own: it
// returns at once unless helperArgsEnv is set.
func TestHelperSimjoin(t *testing.T) {
	args := os.Getenv(helperArgsEnv)
	if args == "" {
		return
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.ParseUint(os.Getenv(helperFsizeEnv), 10, 64); err == nil {
		// A disk that fills: writes past n bytes of a file fail (EFBIG;
		// Go ignores SIGXFSZ).
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := outfile.Catch(context.Background(), outfile.DefaultGrace, os.Exit)
	code := runContext(ctx, argv, os.Stdin, os.Stdout, os.Stderr)
	if sig := stop(); sig != nil {
		code = outfile.ExitCode(sig)
	}
	os.Exit(code)
}

// helperCommand is the test binary, which runs simjoin with helperEnv.
func helperCommand() string { return os.Args[0] }

// helperEnv is the environment that makes the test binary run simjoin with
// args (run it with -test.run=^TestHelperSimjoin$).
func helperEnv(t *testing.T, args []string) []string {
	argv, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), helperArgsEnv+"="+string(argv))
}

// startSimjoin starts `simjoin args...` as a child process.
func startSimjoin(t *testing.T, args ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(helperCommand(), "-test.run=^TestHelperSimjoin$")
	cmd.Env = helperEnv(t, args)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr
}

// listeningLine reads the stderr of `simjoin serve` up to its "listening
// on ADDR (...)" line and returns what follows "listening on ". It reads one
// line at a time, so nothing after that line is taken from stderr.
func listeningLine(t *testing.T, stderr io.Reader) string {
	t.Helper()
	var line []byte
	var c [1]byte
	for {
		if _, err := stderr.Read(c[:]); err != nil {
			t.Fatalf("simjoin serve printed no address: %q, %v", line, err)
		}
		if c[0] != '\n' {
			line = append(line, c[0])
			continue
		}
		if a, ok := strings.CutPrefix(string(line), "listening on "); ok {
			return a
		}
		line = line[:0]
	}
}

// listeningOn returns the ADDR of listeningLine's line.
func listeningOn(t *testing.T, stderr io.Reader) string {
	t.Helper()
	a, _, _ := strings.Cut(listeningLine(t, stderr), " ")
	return a
}

// TestServeSIGTERM runs `simjoin serve` as a child process, drives it with
// concurrent clients inserting with dedup, sends it SIGTERM in the middle of
// the load, and checks that it shuts down (exit status 143, 128 + SIGTERM,
// as every simjoin command) and that every insert it acknowledged is in the
// index when the index is opened again.
func TestServeSIGTERM(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	cliOK(t, "", "index", "create", dir, "--tokens", "words", "--min-threshold", "0.5")
	cmd, stderr := startSimjoin(t, "serve", dir, "--addr", "127.0.0.1:0")
	addr := listeningOn(t, stderr)
	var rest bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&rest, stderr); close(copied) }()

	var mu sync.Mutex
	var got []ackedText
	var wg sync.WaitGroup
	enough := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for c := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				recs := []string{fmt.Sprintf("c%dr%d first copy", c, i), fmt.Sprintf("c%dr%d second copy", c, i)}
				b, _ := json.Marshal(map[string]any{"records": recs, "dedup_threshold": 0.9})
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/records", bytes.NewReader(b))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return // the server stopped accepting
				}
				var ir struct {
					Results []struct {
						Status string
						ID     uint64
					}
				}
				err = json.NewDecoder(resp.Body).Decode(&ir)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || err != nil {
					t.Errorf("insert: %d %v", resp.StatusCode, err)
					return
				}
				mu.Lock()
				for k, r := range ir.Results {
					if r.Status != "inserted" {
						t.Errorf("%q: %s, want inserted", recs[k], r.Status)
					}
					got = append(got, ackedText{recs[k], r.ID})
				}
				if len(got) >= 100 {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-ctx.Done():
		t.Fatal("the load did not start")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-copied // the child's stderr is read to its end before Wait closes it
	err := cmd.Wait()
	wg.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Fatalf("simjoin serve after SIGTERM: %v, want exit status 143; stderr:\n%s", err, rest.String())
	}
	if !strings.Contains(rest.String(), "shut down") {
		t.Errorf("stderr after SIGTERM: %q", rest.String())
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if st := ix.Stats(); st.Live < uint64(len(got)) {
		t.Errorf("reopened: %d live records, %d acknowledged", st.Live, len(got))
	}
	checkHolds(t, ix, got, "acknowledged before SIGTERM")
	t.Logf("%d acknowledged inserts, all found after SIGTERM and reopen", len(got))
}

// TestServeShutdownUnanswered sends SIGTERM to `simjoin serve` while a
// client is in the middle of sending a request body (the handler is known
// to be reading it: it answered "100 Continue"), with a short
// --shutdown-timeout: the request is cut, and stderr says so in one line,
// never also that every request was answered.
func TestServeShutdownUnanswered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	cliOK(t, "", "index", "create", dir, "--min-threshold", "0.5")
	cmd, stderr := startSimjoin(t, "serve", dir, "--addr", "127.0.0.1:0", "--shutdown-timeout", "100ms")
	conn, err := net.Dial("tcp", listeningOn(t, stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/records HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n")
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("the server's first line: %q, %v", line, err)
	}
	fmt.Fprintf(conn, `{"rec`)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit status %d, want 143; stderr %q", code, rest)
	}
	var shut []string
	for _, l := range strings.Split(string(rest), "\n") {
		if strings.Contains(l, "unanswered") || strings.Contains(l, "answered") || strings.Contains(l, "shut down") {
			shut = append(shut, l)
		}
	}
	if len(shut) != 1 || !strings.Contains(shut[0], "1 request still unanswered") {
		t.Errorf("stderr about the shutdown: %q, want one line saying 1 request was unanswered", shut)
	}
}
