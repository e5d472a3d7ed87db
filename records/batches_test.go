package records_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/records"
)

// batchesOf runs ReadBatches and returns each batch as "first:line|line".
func batchesOf(t *testing.T, r io.Reader, opt records.BatchOptions) ([]string, error) {
	t.Helper()
	var got []string
	err := records.ReadBatches(r, opt, func(first int, lines [][]byte) error {
		s := make([]string, len(lines))
		for k, l := range lines {
			s[k] = string(l)
		}
		got = append(got, fmt.Sprintf("%d:%s", first, strings.Join(s, "|")))
		return nil
	})
	return got, err
}

// TestReadBatches: batches end at MaxLines, at MaxBytes, and whenever the
// input has nothing more buffered (a stream written line by line goes line
// by line); lines are numbered from 1 and lose their line ends.
func TestReadBatches(t *testing.T) {
	in := "a\nb\r\nc\n\nd\ne\nf"
	for _, c := range []struct {
		opt  records.BatchOptions
		want string
	}{
		{records.BatchOptions{}, "[1:a|b|c||d|e|f]"},
		{records.BatchOptions{MaxLines: 3}, "[1:a|b|c 4:|d|e 7:f]"},
		{records.BatchOptions{MaxLines: 1}, "[1:a 2:b 3:c 4: 5:d 6:e 7:f]"},
		// The line that reaches MaxBytes ends its batch.
		{records.BatchOptions{MaxBytes: 2}, "[1:a|b 3:c||d 6:e|f]"},
	} {
		got, err := batchesOf(t, strings.NewReader(in), c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%+v: got %s, want %s", c.opt, s, c.want)
		}
	}
	got, err := batchesOf(t, strings.NewReader(""), records.BatchOptions{})
	if err != nil || len(got) != 0 {
		t.Errorf("empty input: got %v, %v; want no batch", got, err)
	}

	// A pipe written a line at a time: each batch is handled before the
	// next line is written (the writer waits for it), so batches are lines.
	pr, pw := io.Pipe()
	handled := make(chan struct{})
	go func() {
		for _, l := range []string{"x\n", "y\n", "z\n"} {
			pw.Write([]byte(l))
			<-handled
		}
		pw.Close()
	}()
	var lines []string
	err = records.ReadBatches(pr, records.BatchOptions{}, func(first int, ls [][]byte) error {
		lines = append(lines, fmt.Sprintf("%d:%d", first, len(ls)))
		handled <- struct{}{}
		return nil
	})
	if err != nil || fmt.Sprint(lines) != "[1:1 2:1 3:1]" {
		t.Errorf("pipe: got %v, %v; want [1:1 2:1 3:1]", lines, err)
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// TestReadBatchesErrors: f's error comes back as it is; a read error as a
// *LineError naming the input.
func TestReadBatchesErrors(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := records.ReadBatches(strings.NewReader("a\nb\nc\n"), records.BatchOptions{MaxLines: 1}, func(int, [][]byte) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("f's error: got %v after %d batches, want %v after 1", err, n, stop)
	}
	boom := errors.New("boom")
	_, err = batchesOf(t, failingReader{boom}, records.BatchOptions{Name: "in.txt"})
	var le *records.LineError
	if !errors.As(err, &le) || le.Name != "in.txt" || le.Line != 0 || !errors.Is(err, boom) {
		t.Errorf("read error: got %v, want in.txt: boom", err)
	}
}
