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
	files     bool
	include   []string
	exclude   []string
	minTokens int
	keepGoing bool
	caseMode  string
	punct     string
	semis     string // --go-semicolons; "" when not given

	args []string // the INPUT arguments, set by the command
}

func (d *docFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&d.files, "files", false, "INPUT is one or more files or directories; each file is a record, its id the path")
	fs.StringArrayVar(&d.include, "include", nil, "with --files: take only files matching `GLOB` (repeatable; '*' matches '/' too; a glob without '/' matches the file name)")
	fs.StringArrayVar(&d.exclude, "exclude", nil, "with --files: leave out files matching `GLOB` (repeatable), such as '*_test.go' or '*/testdata/*'")
	fs.IntVar(&d.minTokens, "min-tokens", 0, "with --files: drop files with fewer than `N` distinct tokens (near-empty files collide by chance)")
	fs.BoolVar(&d.keepGoing, "keep-going", false, "with --files: report an unreadable or unparsable file and skip it instead of stopping")
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
	if d.minTokens < 0 {
		return usagef("--min-tokens must be >= 0")
	}
	if !d.files {
		switch {
		case len(d.include) > 0:
			return usagef("--include needs --files")
		case len(d.exclude) > 0:
			return usagef("--exclude needs --files")
		case d.minTokens > 0:
			return usagef("--min-tokens needs --files")
		case d.keepGoing:
			return usagef("--keep-going needs --files")
		}
		return nil
	}
	if _, err := fileset.NewFilter(d.include, d.exclude); err != nil {
		return usageError{err}
	}
	return nil
}

// checkArgs checks the number of INPUT arguments and keeps them.
func (d *docFlags) checkArgs(args []string) error {
	if len(args) == 0 {
		return usagef("missing INPUT")
	}
	if len(args) > 1 && !d.files {
		return usagef("%d INPUT arguments: give one file, or use --files for several files or directories", len(args))
	}
	if d.files && slices.Contains(args, "-") {
		return usagef("--files reads files and directories, not standard input (-)")
	}
	d.args = args
	return nil
}
