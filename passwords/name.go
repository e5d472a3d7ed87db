package passwords

import (
	"errors"
	"io"
)

// readNamed is Read with every error a *LineError naming opt.Name: a line's
// error gains the name, any other (reading r, order.ErrTooLarge) is wrapped with
// Line 0.
func readNamed(r io.Reader, opt ReadOptions) (*List, ReadStats, error) {
	name := opt.Name
	opt.Name = ""
	l, st, err := Read(r, opt)
	if err == nil {
		return l, st, nil
	}
	var le *LineError
	if errors.As(err, &le) {
		return nil, st, &LineError{Name: name, Line: le.Line, Err: le.Err}
	}
	return nil, st, &LineError{Name: name, Err: err}
}
