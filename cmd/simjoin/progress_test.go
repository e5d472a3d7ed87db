package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressOnTerminal: with stderr a terminal, join draws a bar for each
// long phase the library reports (reading, joining) and clears it; with
// stderr a file it prints nothing of the kind.
func TestProgressOnTerminal(t *testing.T) {
	ctl, tty := openPTY(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	var text strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&text, "w%d w%d w%d w%d\n", i, i+1, i%97, i%89)
	}
	os.WriteFile(in, []byte(text.String()), 0o644)
	var drawn bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := ctl.Read(buf)
			drawn.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	var out bytes.Buffer
	if code := run([]string{"join", "-t", "0.5", "--method", "exact", in}, strings.NewReader(""), &out, tty); code != 0 {
		t.Fatalf("exit %d", code)
	}
	tty.Close() // the reader gets an error once the terminal is closed
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output did not end")
	}
	for _, want := range []string{"reading " + in, "joining"} {
		if !strings.Contains(drawn.String(), want) {
			t.Errorf("the terminal shows no %q bar: %q", want, drawn.String())
		}
	}
	var errs bytes.Buffer
	if code := run([]string{"join", "-t", "0.5", "--method", "exact", in}, strings.NewReader(""), io.Discard, &errs); code != 0 || errs.Len() != 0 {
		t.Errorf("stderr not a terminal: exit %d, %q", code, errs.String())
	}
}
