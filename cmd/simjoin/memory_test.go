package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
)

// TestAddressSpaceLimit runs joins in child processes under address-space
// limits (ulimit -v) from below what the Go runtime reserves before main
// runs to well above it: each run ends with the right pairs and exit
// status 0, or with one line saying there is not enough memory and exit
// status 1, never with the runtime's crash. Where the runtime cannot even
// start under a limit (it dies before main, which the child shows by not
// creating its marker file), nothing a program does can help: that limit
// is logged and passed over. The limits start at 1.4 GiB: on linux/amd64
// with Go 1.26 and cgo, from about 1.1 to 1.35 GiB the runtime dies before
// main every time, and at about 1 GiB it has some 40 MiB left and dies now
// and then wherever it next needs memory, before main or after (a bare
// `simjoin version` too). -long runs both methods at many more limits.
func TestAddressSpaceLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the address-space bound is Linux's")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	// A million records of one token each, and one pair at the end: about
	// 100 MiB to join, which an address space that the runtime's own
	// reservations nearly fill cannot give.
	dir := t.TempDir()
	var text strings.Builder
	const n = 1_000_000
	for i := range n {
		text.WriteString(strconv.Itoa(i))
		text.WriteByte('\n')
	}
	text.WriteString("x y\nx y\n")
	in := cliWrite(t, dir, "sets", text.String())
	runs := [][]string{
		{"join", "-t", "0.5", "--method", "exact", in},
		{"join", "-t", "0.5", "--method", "lsh", "--min-size", "2", in}, // one-token sets take LSH minutes
	}
	want := fmt.Sprintf("%d\t%d\t1\n", n+1, n+2)
	mark := filepath.Join(dir, "started")
	limits := []float64{1.5, 2.2, 4} // GiB: under, about and over what the runtime reserves on linux/amd64
	if jointest.Long() {
		limits = []float64{1.4, 1.5, 1.75, 2, 2.05, 2.1, 2.15, 2.2, 2.3, 2.5, 3, 4}
	}
	for i, gib := range limits {
		for k, args := range runs {
			if !jointest.Long() && k != i%len(runs) {
				continue // one method a limit, but with -long
			}
			os.Remove(mark)
			kib := strconv.FormatInt(int64(gib*(1<<20)), 10)
			cmd := exec.Command("/bin/sh", "-c", `ulimit -v "$1" && exec "$0"`, exe, kib)
			cmd.Env = append(os.Environ(), "SIMJOIN_TEST_MAIN="+strings.Join(args, " "), "SIMJOIN_TEST_MARK="+mark)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			kill := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() }) // a child that hangs
			cmd.Wait()
			kill.Stop()
			code, stderr := cmd.ProcessState.ExitCode(), errb.String()
			name := fmt.Sprintf("ulimit -v %s (%.2f GiB), %v", kib, gib, args[:4])
			if _, err := os.Stat(mark); err != nil {
				t.Logf("%s: the Go runtime died before main (%s)", name, firstLine(stderr))
				continue
			}
			switch {
			case code == 0 && out.String() == want && stderr == "":
			case code == exitRuntime && out.String() == "" && strings.Count(stderr, "\n") == 1 && strings.HasPrefix(stderr, "simjoin: not enough memory: "):
				t.Logf("%s: %s", name, strings.TrimSpace(stderr))
			default:
				t.Errorf("%s: exit %d, pairs %q (want %q), stderr:\n%.2000s", name, code, out.String(), want, stderr)
			}
		}
	}
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
