package infile

import (
	"io"

	"github.com/simjoin/simjoin/records"
)

// Sources opens the inputs of a join as the library's sources: r reads the
// records of inputs and s those of against, the other side of an R-S join
// (none when against is "": a self-join). With files, inputs and against
// are files and directories whose files are records (records.Files, which
// reads nothing before the join loads them); else inputs holds one file of
// lines and against is another, each opened by Open ("-" is stdin) and
// told to opened, if not nil, as it is. The caller calls done once the
// sources are read, to close what was opened; on an error nothing is left
// open.
func Sources(inputs []string, against string, files bool, stdin io.Reader, opened func(*File)) (r, s records.Source, done func(), err error) {
	if files {
		r = records.Files(inputs...)
		if against != "" {
			s = records.Files(against)
		}
		return r, s, func() {}, nil
	}
	var open []*File
	done = func() {
		for _, f := range open {
			f.Close()
		}
	}
	src := []*records.Source{&r, &s}
	for k, name := range []string{inputs[0], against} {
		if name == "" {
			continue
		}
		f, err := Open(name, stdin)
		if err != nil {
			done()
			return r, s, nil, err
		}
		open = append(open, f)
		if opened != nil {
			opened(f)
		}
		*src[k] = records.Lines(f, f.Name)
	}
	return r, s, done, nil
}
