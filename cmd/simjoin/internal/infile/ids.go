package infile

import (
	"io"

	"github.com/simjoin/simjoin/index"
)

// IDs reads the record ids a command takes as arguments: each argument an
// id (index.ParseID), or "-" for ids one a line on stdin (index.ReadIDs,
// named Stdin), in the order given. An argument that is not an id is an
// error wrapping index.ErrNotID; an error of stdin is a *records.LineError.
func IDs(args []string, stdin io.Reader) ([]index.ID, error) {
	var ids []index.ID
	for _, a := range args {
		if a == "-" {
			read, err := index.ReadIDs(stdin, Stdin)
			if err != nil {
				return nil, err
			}
			ids = append(ids, read...)
			continue
		}
		id, err := index.ParseID(a)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}
