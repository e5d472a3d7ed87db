package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// indexWalkPage is the page whose walk through the index TestReadmeIndex
// runs, from the repository's root.
const indexWalkPage = "docs/living-index.md"

// TestReadmeIndex runs the walk through the index (indexWalkPage, every
// console block of it) command by command in a temporary directory and
// checks that each output is the one shown: `cat FILE` blocks define the files, `mkdir DIR`
// makes a directory, `simjoin ...`
// lines run the command line in-process, `simjoin serve ... &` starts the
// server (on a free port instead of the one shown) and `curl` lines are sent
// to it with net/http.
func TestReadmeIndex(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", indexWalkPage))
	if err != nil {
		t.Fatal(err)
	}
	steps := readmeSteps(t, string(page), "")
	if len(steps) < 10 {
		t.Fatalf("%s's walk has %d commands", indexWalkPage, len(steps))
	}
	t.Chdir(t.TempDir())
	var srv *readmeServer
	defer func() {
		if srv != nil {
			srv.stop(t)
		}
	}()
	for _, st := range steps {
		args := shellWords(t, st.cmd)
		var got string
		switch {
		case args[0] == "cat" && len(args) == 2:
			if err := os.WriteFile(args[1], []byte(st.out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		case args[0] == "mkdir" && len(args) == 2:
			if err := os.Mkdir(args[1], 0o755); err != nil {
				t.Fatal(err)
			}
		case args[0] == "simjoin" && args[1] == "serve":
			if args[len(args)-1] != "&" || srv != nil {
				t.Fatalf("%s: want one server, started in the background", st.cmd)
			}
			srv = startReadmeServer(t, args[1:len(args)-1])
			continue
		case args[0] == "simjoin":
			code, out, errs := cliRun(t, "", args[1:]...)
			if code != 0 {
				t.Fatalf("%s: exit %d, %s", st.cmd, code, errs)
			}
			got = out
		case args[0] == "curl":
			if srv == nil {
				t.Fatalf("%s: no server started", st.cmd)
			}
			got = srv.curl(t, args[1:])
		default:
			t.Fatalf("%s: command %q: not one the test knows", indexWalkPage, st.cmd)
		}
		if got != st.out {
			t.Errorf("$ %s\n got:\n%s\n%s shows:\n%s", st.cmd, got, indexWalkPage, st.out)
		}
	}
}

// readmeStep is one command of a console block and the output shown after it.
type readmeStep struct{ cmd, out string }

// readmeSteps returns the commands of the ```console blocks of page, in the
// section that starts with heading ("": the whole page).
func readmeSteps(t *testing.T, page, heading string) []readmeStep {
	sec := page
	if heading != "" {
		i := strings.Index(page, "\n"+heading)
		if i < 0 {
			t.Fatalf("no section %q", heading)
		}
		sec = page[i+1:]
		if j := strings.Index(sec[len(heading):], "\n## "); j >= 0 {
			sec = sec[:len(heading)+j]
		}
	}
	var steps []readmeStep
	for {
		k := strings.Index(sec, "```console\n")
		if k < 0 {
			return steps
		}
		sec = sec[k+len("```console\n"):]
		end := strings.Index(sec, "```\n")
		if end < 0 {
			t.Fatal("unterminated console block")
		}
		for _, line := range strings.SplitAfter(sec[:end], "\n") {
			if cmd, ok := strings.CutPrefix(line, "$ "); ok {
				steps = append(steps, readmeStep{cmd: strings.TrimSuffix(cmd, "\n")})
			} else if len(steps) > 0 {
				steps[len(steps)-1].out += line
			}
		}
		sec = sec[end:]
	}
}

// shellWords splits a command line as a POSIX shell does for the forms the
// pages use: words separated by blanks, single- and double-quoted strings.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				t.Fatalf("unterminated quote in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// readmeServer is `simjoin serve` running in-process for TestReadmeIndex.
type readmeServer struct {
	shown, addr string // the address the page shows, the one served
	cancel      context.CancelFunc
	done        chan int
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex // protects b
	b  bytes.Buffer
	// wrote, if not nil, is told of each write (without blocking: one
	// pending signal stands for any number of writes).
	wrote chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote != nil {
		select {
		case l.wrote <- struct{}{}:
		default:
		}
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startReadmeServer(t *testing.T, args []string) *readmeServer {
	s := &readmeServer{done: make(chan int, 1)}
	for i, a := range args {
		if a == "--addr" && i+1 < len(args) {
			s.shown = args[i+1]
			args[i+1] = "127.0.0.1:0"
		}
	}
	var ctx context.Context
	ctx, s.cancel = context.WithCancel(context.Background())
	stderr := &lockedBuffer{wrote: make(chan struct{}, 1)}
	go func() { s.done <- runContext(ctx, args, strings.NewReader(""), io.Discard, stderr) }()
	// Each write to stderr is looked at for the address the server listens
	// on, which it writes once it listens.
	timeout := time.After(30 * time.Second)
	for s.addr == "" {
		select {
		case <-stderr.wrote:
		case code := <-s.done:
			t.Fatalf("simjoin serve exited %d: %s", code, stderr.String())
		case <-timeout:
			t.Fatalf("simjoin serve did not start: %s", stderr.String())
		}
		lines := strings.Split(stderr.String(), "\n")
		for _, line := range lines[:len(lines)-1] { // whole lines
			if a, ok := strings.CutPrefix(line, "listening on "); ok {
				s.addr, _, _ = strings.Cut(a, " ")
			}
		}
	}
	return s
}

// curl sends the request of a `curl -s [-X METHOD] URL [-d BODY]` line.
func (s *readmeServer) curl(t *testing.T, args []string) string {
	method, url, body := "", "", ""
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-s":
		case "-X":
			i++
			method = args[i]
		case "-d":
			i++
			body = args[i]
			if method == "" {
				method = http.MethodPost
			}
		default:
			url = args[i]
		}
	}
	if method == "" {
		method = http.MethodGet
	}
	url = "http://" + strings.Replace(strings.TrimPrefix(url, "http://"), s.shown, s.addr, 1)
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded") // what curl -d sends
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (s *readmeServer) stop(t *testing.T) {
	s.cancel()
	if code := <-s.done; code != 0 {
		t.Errorf("simjoin serve ended with exit status %d", code)
	}
}
