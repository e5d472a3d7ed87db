package main

import (
	"slices"

	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/shingle"
)

// docFlags are the flags of document input: --files and its filters, and the
// word normalisation of words and shingle:N.
type docFlags struct {
	fileset.Flags        // --files, --include, --exclude, --min-tokens, --keep-going
	caseMode      string // --case
	punct         string // --punct
	semis         string // --go-semicolons; "" when not given

	args []string // the INPUT arguments, set by the command
}

func (d *docFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&d.Files, "files", false, "INPUT is one or more files or directories; each file is a record, its id the path")
	fs.StringArrayVar(&d.Include, "include", nil, "with --files: take only files matching `GLOB` (repeatable; '*' matches '/' too; a glob without '/' matches the file name)")
	fs.StringArrayVar(&d.Exclude, "exclude", nil, "with --files: leave out files matching `GLOB` (repeatable), such as '*_test.go' or '*/testdata/*'")
	fs.IntVar(&d.MinTokens, "min-tokens", 0, "with --files: drop files with fewer than `N` distinct tokens (near-empty files collide by chance)")
	fs.BoolVar(&d.KeepGoing, "keep-going", false, "with --files: report an unreadable or unparsable file and skip it instead of stopping")
	fs.StringVar(&d.caseMode, "case", "fold", "words and shingle:N: fold letters to lower case (fold) or keep them (keep)")
	fs.StringVar(&d.punct, "punct", "drop", "words and shingle:N: punctuation separates words (drop) or is a token of its own (keep)")
	fs.StringVar(&d.semis, "go-semicolons", "", "go:N: the semicolons go/scanner inserts at line ends are tokens (keep, the default) or are left out (drop)")
}

// parse checks the document flags and sets the word normalisation of spec,
// whose Kind is already set, from the flags given (fs): --case, --punct and
// --go-semicolons as shingle's Spec.SetOption reads them.
func (d *docFlags) parse(spec *shingle.Spec, fs *pflag.FlagSet) error {
	for _, o := range []struct {
		name, value string
		given       bool
	}{{"case", d.caseMode, fs.Changed("case")}, {"punct", d.punct, fs.Changed("punct")}, {"go-semicolons", d.semis, d.semis != ""}} {
		if !o.given {
			continue
		}
		if err := spec.SetOption(o.name, o.value); err != nil {
			return usageError{err}
		}
	}
	if _, err := d.Filter(); err != nil {
		return usageError{err}
	}
	return nil
}

// checkArgs checks the number of INPUT arguments and keeps them.
func (d *docFlags) checkArgs(args []string) error {
	if len(args) == 0 {
		return usagef("missing INPUT")
	}
	if len(args) > 1 && !d.Files {
		return usagef("%d INPUT arguments: give one file, or use --files for several files or directories", len(args))
	}
	if d.Files && slices.Contains(args, "-") {
		return usagef("--files reads files and directories, not standard input (-)")
	}
	d.args = args
	return nil
}
