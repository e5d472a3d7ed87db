package infile

import (
	"context"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/simjoin/simjoin/records"
)

// Batches hands the records of a command that takes them as arguments or
// on standard input to f, in batches numbered by their first record from 1:
// args when there are any, in one batch; else, when stdin is a terminal,
// the one line typed there after prompt is written to w, read without
// echoing it (a secret, such as a password); else the lines of stdin
// (records.ReadBatches; a byte-order mark that starts them dropped),
// checking ctx before each batch. f's error stops the
// reading and is returned; a read error is a *records.LineError of Stdin.
func Batches(ctx context.Context, args []string, stdin io.Reader, w io.Writer, prompt string, f func(first int, batch [][]byte) error) error {
	if len(args) > 0 {
		batch := make([][]byte, len(args))
		for i, a := range args {
			batch[i] = []byte(a)
		}
		return f(1, batch)
	}
	if fd, ok := terminal(stdin); ok {
		fmt.Fprint(w, prompt)
		secret, err := term.ReadPassword(fd)
		fmt.Fprintln(w)
		if err != nil {
			return &records.LineError{Name: Stdin, Err: err}
		}
		return f(1, [][]byte{secret})
	}
	return records.ReadBatches(dropBOM(stdin), records.BatchOptions{Name: Stdin}, func(first int, batch [][]byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return f(first, batch)
	})
}

// terminal returns r's descriptor if r is a terminal.
func terminal(r io.Reader) (int, bool) {
	f, ok := r.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}
