package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/prefix"
)

// streamRecord is line n of the inputs below: distinct token sets.
func streamRecord(n int) string { return fmt.Sprintf("rec%d tok%d tok%d", n, n%7, n%11) }

// TestIndexAddStreams checks that index add writes a batch's lines as soon
// as the batch is durable, before the input ends.
func TestIndexAddStreams(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	cliOK(t, "", "index", "create", dir, "--min-threshold", "0.5")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"index", "add", "--batch", "2", dir, "-"}, inR, outW, io.Discard)
		outW.Close()
	}()
	out := bufio.NewScanner(outR)
	for n := 1; n <= 6; n += 2 {
		fmt.Fprintf(inW, "%s\n%s\n", streamRecord(n), streamRecord(n+1))
		for k := n; k <= n+1; k++ {
			if !out.Scan() {
				t.Fatalf("no output line for line %d while the input is open", k)
			}
			if want := fmt.Sprintf("%d\tinserted\t%d", k, k); out.Text() != want {
				t.Fatalf("line %d: %q, want %q", k, out.Text(), want)
			}
		}
	}
	inW.Close()
	if out.Scan() {
		t.Errorf("extra output %q", out.Text())
	}
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestIndexAddKill kills `simjoin index add` (SIGKILL) while it streams
// records from a pipe, many times at different points, and checks after
// each kill that every record it printed as inserted is in the index under
// that id, and that what the index holds is the input's first records in
// order, nothing missing or out of place (a batch goes in whole or not at
// all; the library's own crash tests check that at its level).
func TestIndexAddKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	cliOK(t, "", "index", "create", dir, "--min-threshold", "0.5")
	const batch = 3
	next := 1 // the next input line number over all runs
	printed := map[uint64]string{}
	kills := 6
	if testing.Short() {
		kills = 2
	}
	for round := range kills {
		argv := []string{"index", "add", "--batch", strconv.Itoa(batch), dir, "-"}
		cmd := exec.Command(helperCommand(), "-test.run=^TestHelperSimjoin$")
		cmd.Env = helperEnv(t, argv)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first := next
		go func() {
			for n := first; ; n++ {
				if _, err := fmt.Fprintln(stdin, streamRecord(n)); err != nil {
					return
				}
			}
		}()
		sc := bufio.NewScanner(stdout)
		want := 4 + 5*round // lines to read before the kill
		for got := 0; got < want && sc.Scan(); got++ {
			f := strings.Split(sc.Text(), "\t")
			line, _ := strconv.Atoi(f[0])
			id, _ := strconv.ParseUint(f[2], 10, 64)
			if f[1] != "inserted" {
				t.Fatalf("round %d: %q", round, sc.Text())
			}
			printed[id] = streamRecord(first + line - 1)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		ix, err := index.Open(dir, index.OpenOptions{})
		if err != nil {
			t.Fatalf("round %d: reopening after SIGKILL: %v", round, err)
		}
		st := ix.Stats()
		var ids []uint64
		var qs [][]byte
		for id, text := range printed {
			ids = append(ids, id)
			qs = append(qs, []byte(text))
		}
		// Every record held, printed or not: its id is its input record's
		// number.
		for id := uint64(1); id <= st.Records; id++ {
			ids = append(ids, id)
			qs = append(qs, []byte(streamRecord(int(id))))
		}
		res, err := ix.Search(context.Background(), qs, index.SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if len(res[i]) != 1 || uint64(res[i][0].ID) != id {
				t.Errorf("round %d: record %d (printed, or held) not found in its place: %v", round, id, res[i])
			}
		}
		ix.Close()
		// The next run's line 1 continues after what the index holds, so
		// that ids and texts stay in step.
		next = int(st.Records) + 1
	}
	t.Logf("%d kills, %d printed records all held", kills, len(printed))
}
