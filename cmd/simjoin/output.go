package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/cmd/simjoin/internal/infile"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/memlimit"
	"github.com/simjoin/simjoin/cmd/simjoin/internal/outfile"
	rpt "github.com/simjoin/simjoin/cmd/simjoin/internal/report"
	"github.com/simjoin/simjoin/internal/fieldenc"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/prefix"
)

// runFlags are the flags of the commands that join and write rows and a
// statistics report (join and the commands built on it, passwords and
// passwords check): --measure and -t (defined by each command: their
// defaults differ), --format, -o, --stats, --stats-json, -j and
// --memory-limit, checked by parse.
type runFlags struct {
	measure   string
	threshold string
	format    formatFlag
	output    string
	stats     bool
	statsJSON string
	workers   int
	memLimit  string // --memory-limit, parsed into mem

	// Parsed by parse.
	m      prefix.Measure
	t      prefix.Threshold
	outFmt fieldenc.Format
	mem    memlimit.Limit
	// statsOut is --stats-json's file, created by createOutputs before any
	// work so that an unwritable path fails early; written by emit.
	statsOut *outfile.File
}

// addFlags registers the flags on fs but -t; output is -o's usage.
func (r *runFlags) addFlags(fs *pflag.FlagSet, output string) {
	fs.StringVar(&r.measure, "measure", "jaccard", "similarity measure: jaccard, cosine, dice or overlap")
	r.format.add(fs)
	fs.StringVarP(&r.output, "output", "o", "", output)
	fs.BoolVar(&r.stats, "stats", false, "print the statistics report on stderr")
	fs.StringVar(&r.statsJSON, "stats-json", "", "write the statistics report as JSON to `FILE`")
	addWorkersFlag(fs, &r.workers, "worker goroutines (0: one per core; at most 4 per core); results do not depend on it")
	fs.StringVar(&r.memLimit, "memory-limit", "", "the memory the run may use, such as 2GiB (default: the smallest of the cgroup limit, what ulimit -v leaves and the memory available; 0: no check but ulimit -v's)")
}

// parse checks the flags before any work starts: --measure, then -t for it
// (need refuses it missing for the measure: each command has its own
// default), --memory-limit (made the runtime's soft limit) and --format;
// it resolves -j (checkFlags refused a negative one).
func (r *runFlags) parse(need func(prefix.Measure) error) error {
	var err error
	if r.m, err = prefix.ParseMeasure(r.measure); err != nil {
		return usageError{err}
	}
	if err := need(r.m); err != nil {
		return err
	}
	if r.t, err = prefix.ParseThreshold(r.m, r.threshold); err != nil {
		return usageError{err}
	}
	r.workers = parallel.Workers(r.workers) // 0: one per core; at most 4 per core
	if r.mem, err = memlimit.Given(r.memLimit, "--memory-limit"); err != nil {
		return usagef("--memory-limit: %v", err)
	}
	if err := r.mem.Room(); err != nil {
		return err // ulimit -v leaves nothing: stop before the work dies in the runtime
	}
	r.mem.SetSoft()
	r.outFmt, err = r.format.parse()
	return err
}

// checkMemory checks that the memory a join of n things (records,
// passwords) of size needs is within --memory-limit (memlimit.Enough).
func (r *runFlags) checkMemory(need int64, n int, things, size string) error {
	return memlimit.Enough(need, r.mem, fmt.Sprintf("joining %s %s of %s", numfmt.Group(int64(n)), things, size))
}

// reporting says whether a statistics report was asked for.
func (r *runFlags) reporting() bool { return r.stats || r.statsJSON != "" }

// createOutputs creates -o (unless out is false) and --stats-json before any
// work, refusing to overwrite any of inputs ("-": standard input).
func (r *runFlags) createOutputs(e *env, out bool, inputs ...string) (*outfile.File, error) {
	e.outs.Protect(inputs...)
	if slices.Contains(inputs, "-") {
		e.outs.ProtectReader(e.stdin)
	}
	if err := e.outs.CheckProtected(); err != nil {
		return nil, usageError{fmt.Errorf("--cpuprofile: %w", err)} // the one output created before
	}
	var f *outfile.File
	if out {
		var err error
		if f, err = e.create(r.output); err != nil {
			return nil, err
		}
	}
	if r.statsJSON != "" {
		var err error
		if r.statsOut, err = e.create(r.statsJSON); err != nil {
			return nil, fmt.Errorf("--stats-json: %w", err)
		}
	}
	return f, nil
}

// emit completes the report and writes it where asked: as text on stderr
// (--stats), as JSON to --stats-json's file.
func (r *runFlags) emit(e *env, rep *rpt.Report) error {
	var tw, jw io.Writer
	if r.stats {
		tw = e.stderr
	}
	if r.statsOut != nil {
		jw = r.statsOut
	}
	if err := rep.Emit(tw, jw); err != nil {
		return fmt.Errorf("--stats-json: %w", err)
	}
	return nil
}

// formatFlag is --format: the name given, and the row formats the command
// writes (the first the default).
type formatFlag struct {
	name  string
	takes []fieldenc.Format
}

// add registers --format on fs, taking the formats given (all when none).
func (f *formatFlag) add(fs *pflag.FlagSet, takes ...fieldenc.Format) {
	if f.takes = takes; len(takes) == 0 {
		f.takes = []fieldenc.Format{fieldenc.TSV, fieldenc.CSV, fieldenc.JSONL}
	}
	fs.StringVar(&f.name, "format", f.takes[0].String(), "output format: "+fieldenc.FormatNames(f.takes))
}

// parse reads the format given.
func (f *formatFlag) parse() (fieldenc.Format, error) {
	x, ok := fieldenc.ParseFormat(f.name)
	if !ok || !slices.Contains(f.takes, x) {
		return 0, usagef("unknown --format %q: want %s", f.name, fieldenc.FormatNames(f.takes))
	}
	return x, nil
}

// addWorkersFlag registers -j/--workers on fs, described by usage; a
// negative value is refused before the command runs (checkFlags).
func addWorkersFlag(fs *pflag.FlagSet, p *int, usage string) {
	fs.IntVarP(p, "workers", "j", 0, usage)
}

// open opens the input file name (infile.Open: "-" is standard input, gzip
// and zstd are decompressed) for the caller to close, noting a compressed
// input in rep when it is not nil.
func (e *env) open(name string, rep *rpt.Report) (*infile.File, error) {
	f, err := infile.Open(name, e.stdin)
	if err == nil && rep != nil {
		rep.NoteCompressed(f.Name, f.Format)
	}
	return f, err
}

// create opens path as an output of the run (see cmd/simjoin/internal/outfile: "-" and
// "" are standard output, a regular file is replaced only when the run
// succeeds, devices and pipes are written straight). The run commits every
// output together when the command succeeds and removes them otherwise.
// Asking for standard output twice, for an input or for a file inside an
// index the command opens, is a usage error.
func (e *env) create(path string) (*outfile.File, error) {
	f, err := e.outs.Create(path)
	if errors.Is(err, outfile.ErrStdoutTaken) || errors.Is(err, outfile.ErrInput) || errors.Is(err, outfile.ErrInputDir) || errors.Is(err, outfile.ErrDuplicate) {
		return nil, usageError{err}
	}
	return f, err
}
