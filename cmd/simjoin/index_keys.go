package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/infile"
	"github.com/simjoin/simjoin/index"
	"github.com/simjoin/simjoin/records"
)

// refs are records named on the command line: by id on an index without
// keys, by key on one with.
type refs struct {
	ids  []index.ID
	keys []index.Key
}

func (r refs) len() int { return len(r.ids) + len(r.keys) }

// parseRef reads one record's name for an index of key kind k.
func parseRef(k index.KeyKind, s string, r *refs) error {
	if k == index.NoKeys {
		id, err := index.ParseID(s)
		if err != nil {
			return err
		}
		r.ids = append(r.ids, id)
		return nil
	}
	key, err := index.ParseKey(k, s)
	if err != nil {
		return fmt.Errorf("%q is %w", s, err)
	}
	r.keys = append(r.keys, key)
	return nil
}

// parseRefList reads --only's or --exclude's comma-separated ids or keys
// (spaces around an id allowed; a string key is taken as it is, so it
// cannot hold a comma).
func parseRefList(k index.KeyKind, flag, s string) (refs, error) {
	var r refs
	for _, f := range strings.Split(s, ",") {
		if k == index.NoKeys {
			f = strings.TrimSpace(f)
		}
		if err := parseRef(k, f, &r); err != nil {
			return r, usagef("--%s: %v", flag, err)
		}
	}
	return r, nil
}

// readRefs reads the records a command names as arguments: each an id or
// key, or "-" for one a line on stdin (an id may have spaces around it; a
// key is the whole line). An argument that is none is a usage error; a line
// of stdin that is none is a *records.LineError naming it.
func readRefs(k index.KeyKind, args []string, stdin io.Reader) (refs, error) {
	var r refs
	if k == index.NoKeys {
		ids, err := infile.IDs(args, stdin)
		var le *records.LineError // stdin's; an argument's error is the user's
		if err != nil && !errors.As(err, &le) {
			return r, usageError{err}
		}
		r.ids = ids
		return r, err
	}
	for _, a := range args {
		if a != "-" {
			if err := parseRef(k, a, &r); err != nil {
				return r, usageError{err}
			}
			continue
		}
		lr := records.NewLineReader(stdin)
		for {
			line, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return r, &records.LineError{Name: infile.Stdin, Err: err}
			}
			key, err := index.ParseKey(k, string(line))
			if err != nil {
				return r, &records.LineError{Name: infile.Stdin, Line: lr.Line(), Err: err}
			}
			r.keys = append(r.keys, key)
		}
	}
	return r, nil
}

// parseFields reads --fields: a comma-separated list of text and payload.
func parseFields(s string) (index.Fields, error) {
	var f index.Fields
	for _, name := range strings.Split(s, ",") {
		field, ok := index.FieldNamed(strings.TrimSpace(name))
		if !ok {
			return 0, usagef("--fields %q: want text, payload or text,payload", s)
		}
		f |= field
	}
	return f, nil
}
