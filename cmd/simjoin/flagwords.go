package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/simjoin/simjoin/passwords"
	"github.com/simjoin/simjoin/records"
	"github.com/simjoin/simjoin/shingle"
)

// inFlags words err as the command's flags say it: the library's errors
// speak in library terms (a minimum of distinct tokens, a line limit, a
// file that is not text), and a user of the command knows the flags that
// set them (--min-tokens, --max-line, --tokens set). The message is err's
// with the library's phrase reworded in place; errors.Is and errors.As see
// err through it. Errors with no flag to name come back as they are.
func inFlags(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var nr *records.NoRecordsError
	var fe *records.FileError
	switch {
	case errors.As(err, &nr):
		msg = strings.Replace(msg, nr.Error(), fmt.Sprintf("no record left of %d files (%d unreadable, %d below --min-tokens %d)",
			nr.Files, nr.Unreadable, nr.TooFew, nr.MinTokens), 1)
	case errors.Is(err, passwords.ErrLineTooLong):
		phrase := passwords.ErrLineTooLong.Error()
		msg = strings.Replace(msg, phrase, phrase+" (--max-line)", 1)
	case errors.As(err, &fe) && errors.Is(fe.Err, shingle.ErrUTF8):
		msg = strings.Replace(msg, fe.Error(), fe.Error()+" (use --tokens set for binary files)", 1)
	default:
		return err
	}
	return worded{err, msg}
}

// worded is an error with its message reworded by inFlags.
type worded struct {
	err error
	msg string
}

func (w worded) Error() string { return w.msg }
func (w worded) Unwrap() error { return w.err }
