package infile

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// collect returns the batches Batches hands over, as "first:line|line".
func collect(ctx context.Context, args []string, stdin string, prompt *bytes.Buffer) ([]string, error) {
	var got []string
	err := Batches(ctx, args, strings.NewReader(stdin), prompt, "secret: ", func(first int, batch [][]byte) error {
		got = append(got, strings.Repeat("+", first-1)+string(bytes.Join(batch, []byte("|"))))
		return nil
	})
	return got, err
}

// TestBatches: arguments come in one batch and stdin is not read; without
// arguments the lines of stdin come, numbered from 1; a stream that is not a
// terminal gets no prompt.
func TestBatches(t *testing.T) {
	var prompt bytes.Buffer
	got, err := collect(context.Background(), []string{"a", "b c"}, "unread\n", &prompt)
	if err != nil || len(got) != 1 || got[0] != "a|b c" {
		t.Errorf("arguments: %q, %v", got, err)
	}
	got, err = collect(context.Background(), nil, "x\ny\r\nz", &prompt)
	if err != nil || strings.Join(got, "") != "x|y|z" {
		t.Errorf("stdin: %q, %v", got, err)
	}
	if prompt.Len() != 0 {
		t.Errorf("prompt %q written to a stream that is not a terminal", prompt.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := collect(ctx, nil, "x\n", &prompt); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	stop := errors.New("stop")
	if err := Batches(context.Background(), []string{"a"}, nil, &prompt, "", func(int, [][]byte) error { return stop }); err != stop {
		t.Errorf("f's error: %v", err)
	}
}
