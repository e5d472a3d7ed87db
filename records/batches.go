package records

import (
	"io"
	"slices"
)

// BatchOptions configures ReadBatches. The zero value works.
type BatchOptions struct {
	// Name names the input in errors (a path, or "<stdin>"); "" is shown
	// as "<input>".
	Name string
	// MaxLines is the most lines of one batch; 0 means DefaultBatchLines.
	MaxLines int
	// MaxBytes bounds a batch's text: the line that reaches it ends the
	// batch, so that long records stream too; 0 means DefaultBatchBytes.
	MaxBytes int
}

// Defaults of BatchOptions.
const (
	DefaultBatchLines = 1024
	DefaultBatchBytes = 4 << 20
)

// ReadBatches reads the lines of r (as LineReader yields them) and calls f
// with each batch of lines in order, first being the 1-based number of the
// batch's first line. A batch ends at opt.MaxLines lines, at opt.MaxBytes of
// text, or as soon as the reader has no more bytes buffered, that is when
// the next line may have to wait for the input: a file goes in batches of
// about the reader's buffer (1 MiB), a pipe in what its writer has written,
// and an interactive stream line by line, each batch handled before the
// next line arrives. The lines are copies that f may keep (the slice
// holding them is reused once f returns). An error of f
// stops the read and is returned as it is; a read error is a *LineError
// without a line.
//
// Cost: one pass over r; memory one batch of lines. It is not safe to call
// f's batches concurrently: f runs on the calling goroutine.
func ReadBatches(r io.Reader, opt BatchOptions, f func(first int, lines [][]byte) error) error {
	if opt.Name == "" {
		opt.Name = "<input>"
	}
	if opt.MaxLines <= 0 {
		opt.MaxLines = DefaultBatchLines
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultBatchBytes
	}
	lr := NewLineReader(r)
	var lines [][]byte
	size, first := 0, 1
	for {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return &LineError{Name: opt.Name, Err: err}
		}
		if len(lines) == 0 {
			first = lr.Line()
		}
		lines = append(lines, slices.Clone(line))
		size += len(line)
		if len(lines) >= opt.MaxLines || size >= opt.MaxBytes || lr.Buffered() == 0 {
			if err := f(first, lines); err != nil {
				return err
			}
			lines, size = lines[:0], 0
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return f(first, lines)
}
