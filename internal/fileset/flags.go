package fileset

import "errors"

// Flags are a command line's file selection: --files and the flags that
// apply only with it. simjoin and simjoin-beam take them alike, and check
// them with Filter.
type Flags struct {
	Files     bool     // --files: each file is a record, its id the path
	Include   []string // --include globs
	Exclude   []string // --exclude globs
	MinTokens int      // --min-tokens: drop files with fewer distinct tokens
	KeepGoing bool     // --keep-going: skip what cannot be read
}

// Filter refuses a negative --min-tokens and the filter flags without
// --files, in the command lines' words, and a bad glob (NewFilter's
// error, wrapping ErrBadGlob). It returns the Filter of the globs: nil
// without --files or without globs.
func (f Flags) Filter() (*Filter, error) {
	if f.MinTokens < 0 {
		return nil, errors.New("--min-tokens must be >= 0")
	}
	if !f.Files {
		switch {
		case len(f.Include) > 0:
			return nil, errors.New("--include needs --files")
		case len(f.Exclude) > 0:
			return nil, errors.New("--exclude needs --files")
		case f.MinTokens > 0:
			return nil, errors.New("--min-tokens needs --files")
		case f.KeepGoing:
			return nil, errors.New("--keep-going needs --files")
		}
		return nil, nil
	}
	if len(f.Include)+len(f.Exclude) == 0 {
		return nil, nil
	}
	return NewFilter(f.Include, f.Exclude)
}
