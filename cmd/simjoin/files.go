package main

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/spf13/pflag"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/order"
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

	args   []string // the INPUT arguments, set by the command
	filter *fileset.Filter
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

// parse checks the document flags and sets the normalisation of spec, whose
// Kind is already set.
func (d *docFlags) parse(spec *shingle.Spec) error {
	switch d.caseMode {
	case "fold":
	case "keep":
		spec.Norm |= shingle.KeepCase
	default:
		return usagef("unknown --case %q: want fold or keep", d.caseMode)
	}
	switch d.punct {
	case "drop":
	case "keep":
		spec.Norm |= shingle.KeepPunct
	default:
		return usagef("unknown --punct %q: want drop or keep", d.punct)
	}
	switch d.semis {
	case "", "keep":
	case "drop":
		spec.DropSemicolons = true
	default:
		return usagef("unknown --go-semicolons %q: want keep or drop", d.semis)
	}
	if d.semis != "" && spec.Kind != shingle.Go {
		return usagef("--go-semicolons applies to --tokens go:N only")
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
	var err error
	if d.filter, err = fileset.NewFilter(d.include, d.exclude); err != nil {
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

// fileResult is one file read and tokenized: its sorted distinct keys, or the
// error that stopped it.
type fileResult struct {
	keys   []uint64
	format decompress.Format // the compression the file was read from
	err    error
}

// readFiles reads and tokenizes files on workers goroutines and returns the
// records in file order with their ids. A file that cannot be read or
// tokenized stops the run with an error naming it, or with keepGoing is
// reported through warn and skipped. Files with fewer than minTokens distinct
// tokens are dropped. progress, if not nil, is called from the calling
// goroutine with the files done and the total.
func readFiles(files []fileset.File, spec shingle.Spec, workers, minTokens int, keepGoing bool, st *fileset.Stats,
	warn func(error), progress func(done, total int)) (*order.Input, []string, error) {
	in := new(order.Input)
	// Size the vocabulary from the bytes to read: about one distinct shingle
	// for every 17 bytes of Go source (the Go tree: 68 MiB, 4.0M).
	var total int64
	for _, f := range files {
		total += f.Size
	}
	in.Grow(int(total / 17))
	ids, err := readFilesTo(files, spec, workers, minTokens, keepGoing, st, warn, progress, in.AddBatch)
	if err != nil {
		return nil, nil, err
	}
	return in, ids, nil
}

// readFilesTo is readFiles handing the records' sorted distinct keys to add
// in file order, a batch at a time (order.Input.AddBatch, or
// approx.KeySets.AddBatch when the join needs no token order); it returns
// the ids.
func readFilesTo(files []fileset.File, spec shingle.Spec, workers, minTokens int, keepGoing bool, st *fileset.Stats,
	warn func(error), progress func(done, total int), add func(keys []uint64, offs []int)) ([]string, error) {
	results := make([]fileResult, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	var readNS, tokNS, nbytes atomic.Int64
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			var scratch []uint64
			var sorter keysort.Sorter
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				if stop.Load() {
					close(done[i])
					continue
				}
				t0 := time.Now()
				data, err := fileset.ReadRegular(files[i].ID)
				if err == nil {
					data, results[i].format, err = decompress.Bytes(data)
				}
				t1 := time.Now()
				readNS.Add(int64(t1.Sub(t0)))
				if err == nil {
					nbytes.Add(int64(len(data)))
					if len(data) > shingle.PieceBytes && spec.Kind != shingle.Go {
						// A long file: memory bounded by its distinct keys.
						scratch, err = spec.AppendSet(scratch[:0], unsafe.String(unsafe.SliceData(data), len(data)))
						if err == nil {
							results[i].keys = slices.Clone(scratch)
						}
					} else {
						scratch, err = spec.AppendBytes(scratch[:0], data)
						if err == nil {
							results[i].keys = slices.Clone(sorter.SortDistinct(scratch))
						}
					}
					tokNS.Add(int64(time.Since(t1)))
				}
				if err != nil {
					results[i].err = fileError(files[i].ID, err)
					if !keepGoing {
						stop.Store(true)
					}
				}
				close(done[i])
			}
		})
	}
	// Accepted files' keys are entered in batches, which order.Input spreads
	// over all cores.
	var pending []uint64
	pendingOffs := []int{0}
	flush := func() {
		add(pending, pendingOffs)
		pending, pendingOffs = pending[:0], pendingOffs[:1]
	}
	var ids []string
	var firstErr error
	for i := range files {
		<-done[i]
		r := &results[i]
		switch {
		case firstErr != nil:
		case r.err != nil && !keepGoing:
			firstErr = r.err
		case r.err != nil:
			st.Unreadable++
			warn(r.err)
		case len(r.keys) < minTokens:
			st.TooFew++
		default:
			switch r.format {
			case decompress.Gzip:
				st.Gzip++
			case decompress.Zstd:
				st.Zstd++
			}
			pending = append(pending, r.keys...)
			pendingOffs = append(pendingOffs, len(pending))
			if len(pending) >= 1<<17 {
				flush()
			}
			ids = append(ids, files[i].ID)
			st.Shingles += int64(len(r.keys))
		}
		r.keys = nil
		if progress != nil {
			progress(i+1, len(files))
		}
	}
	wg.Wait()
	flush()
	st.Bytes = nbytes.Load()
	st.ReadCPU = time.Duration(readNS.Load()).Seconds()
	st.TokenCPU = time.Duration(tokNS.Load()).Seconds()
	st.MinTokens = minTokens
	if firstErr != nil {
		return nil, firstErr
	}
	st.Records += len(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("no record left of %d files (%d unreadable, %d below --min-tokens %d)",
			len(files), st.Unreadable, st.TooFew, minTokens)
	}
	return ids, nil
}

// fileError names the file of a read or tokenizing error: "path: error", or
// "path:line:column: message" for Go source that does not scan.
func fileError(path string, err error) error {
	var se *shingle.ScanError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%w", path, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err // already "open path: reason"
	}
	if errors.Is(err, shingle.ErrUTF8) {
		return fmt.Errorf("%s: %w (use --tokens set for binary files)", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// loadFiles reads the records of --files: INPUT arguments (and --against)
// listed, read and tokenized in parallel, ordered into collections; the ids
// are the paths.
func loadFiles(e *env, cfg *joinConfig, rep *report, prog *progress) (*loaded, error) {
	d := &cfg.docs
	rep.Input = append([]string(nil), d.args...)
	var warn func(error)
	if d.keepGoing {
		warn = func(err error) { fmt.Fprintf(e.stderr, "simjoin: warning: %v (skipped)\n", err) }
	}
	var st fileset.Stats
	// list lists the files of args.
	list := func(args []string) ([]fileset.File, error) {
		t0 := time.Now()
		files, err := fileset.List(args, d.filter, &st, warn)
		st.ListSeconds += time.Since(t0).Seconds()
		var se *fileset.SelectionError
		if errors.As(err, &se) {
			return nil, usageError{err}
		}
		return files, err
	}
	read := func(args []string) (*order.Input, []string, error) {
		files, err := list(args)
		if err != nil {
			return nil, nil, err
		}
		bar := prog.count("reading files")
		defer bar.finish()
		return readFiles(files, cfg.spec, cfg.workers, d.minTokens, d.keepGoing, &st, warn, bar.setOf)
	}
	readKeys := func(args []string) (*approx.KeySets, []string, error) {
		files, err := list(args)
		if err != nil {
			return nil, nil, err
		}
		bar := prog.count("reading files")
		defer bar.finish()
		ks := new(approx.KeySets)
		ids, err := readFilesTo(files, cfg.spec, cfg.workers, d.minTokens, d.keepGoing, &st, warn, bar.setOf, ks.AddBatch)
		return ks, ids, err
	}
	tm := rep.phase("read+tokenize")
	var l *loaded
	var rnames, snames []string
	var err error
	if cfg.keysOnly() {
		var rk, sk *approx.KeySets
		if rk, rnames, err = readKeys(d.args); err != nil {
			return nil, err
		}
		if cfg.against != "" {
			rep.Input = append(rep.Input, "--against", cfg.against)
			if sk, snames, err = readKeys([]string{cfg.against}); err != nil {
				return nil, err
			}
		}
		tm.done("read+tokenize")
		if l, err = keysLoaded(cfg, rep, prog, rk, sk); err != nil {
			return nil, err
		}
	} else {
		var rin, sin *order.Input
		if rin, rnames, err = read(d.args); err != nil {
			return nil, err
		}
		if cfg.against != "" {
			rep.Input = append(rep.Input, "--against", cfg.against)
			if sin, snames, err = read([]string{cfg.against}); err != nil {
				return nil, err
			}
		}
		tm.done("read+tokenize")
		if err := checkMemory(cfg.mem, rin, sin); err != nil {
			return nil, err
		}
		if l, err = buildLoaded(rep, prog, rin, sin); err != nil {
			return nil, err
		}
	}
	l.names, l.snames = rnames, snames
	rows := [][2]string{
		{"listed", numfmt.Group(int64(st.Listed))},
		{"selected", numfmt.Group(int64(st.Selected))},
	}
	if d.keepGoing {
		rows = append(rows, [2]string{"unreadable, skipped", numfmt.Group(int64(st.Unreadable))})
	}
	if n := st.NotRegular + st.Dangling + st.Loops; n > 0 {
		rows = append(rows, [2]string{"not files, skipped", fmt.Sprintf("%s (FIFO, device or socket: %s; link to nothing: %s; link loop: %s)",
			numfmt.Group(int64(n)), numfmt.Group(int64(st.NotRegular)), numfmt.Group(int64(st.Dangling)), numfmt.Group(int64(st.Loops)))})
	}
	if d.minTokens > 0 {
		rows = append(rows, [2]string{fmt.Sprintf("below %d tokens", d.minTokens), numfmt.Group(int64(st.TooFew))})
	}
	rows = append(rows,
		[2]string{"records", numfmt.Group(int64(st.Records))},
		[2]string{"bytes read", bytesText(st.Bytes)},
	)
	if st.Gzip+st.Zstd > 0 {
		rows = append(rows, [2]string{"decompressed", fmt.Sprintf("%s gzip, %s zstd", numfmt.Group(int64(st.Gzip)), numfmt.Group(int64(st.Zstd)))})
	}
	rows = append(rows,
		[2]string{"listing", fmt.Sprintf("%.3f s", st.ListSeconds)},
		[2]string{"reading", fmt.Sprintf("%.3f s (summed over workers)", st.ReadCPU)},
		[2]string{"tokenizing", fmt.Sprintf("%.3f s (summed over workers)", st.TokenCPU)},
	)
	rep.addSection("files", "files", st, rows)
	return l, nil
}
