package simjoin

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// FileOptions selects and reads the records of Files sources. The zero value
// takes every regular file listed and stops at the first that cannot be read.
type FileOptions struct {
	// Include and Exclude are globs (see internal/fileset: '*' matches '/'
	// too, and a glob without '/' matches the file's name): a file is kept
	// when it matches an Include glob (or there is none) and no Exclude
	// glob. An Include glob that matches no file fails Load with a
	// *fileset.SelectionError, as does a selection with no file.
	Include, Exclude []string
	// MinTokens drops files with fewer distinct tokens (near-empty files
	// collide by chance); FileStats.TooFew counts them.
	MinTokens int
	// KeepGoing skips a file that cannot be read or tokenized, telling Warn
	// (if not nil) and counting it, instead of failing Load.
	KeepGoing bool
	Warn      func(error)
}

// FileStats counts what the Files sources of a join listed, selected and
// read, over both sides.
type FileStats = fileset.Stats

// fileResult is one file read and tokenized: its sorted distinct keys, or the
// error that stopped it.
type fileResult struct {
	keys   []uint64
	format decompress.Format // the compression the file was read from
	err    error
}

// readFiles lists paths, then reads and tokenizes the files on the join's
// workers and returns the records in file order with their ids (the paths).
// A file that cannot be read or tokenized stops the read with an error naming
// it, or with KeepGoing is reported through Warn and skipped. Files with fewer
// than MinTokens distinct tokens are dropped.
func (l *loading) readFiles(paths []string, to setSink) ([]string, error) {
	fo := &l.opts.Files
	if l.filter == nil {
		var err error
		if l.filter, err = fileset.NewFilter(fo.Include, fo.Exclude); err != nil {
			return nil, fmt.Errorf("simjoin: %w", err)
		}
		l.stats.Files = new(FileStats)
	}
	st := l.stats.Files
	warn := fo.Warn
	if warn == nil {
		warn = func(error) {}
	}
	if !fo.KeepGoing {
		warn = nil
	}
	t0 := time.Now()
	files, err := fileset.List(paths, l.filter, st, warn)
	st.ListSeconds += time.Since(t0).Seconds()
	if err != nil {
		return nil, err
	}
	return l.readListTo(files, warn, to)
}

// readList reads and tokenizes the files listed, as readFiles says, into an
// order.Input.
func (l *loading) readList(files []fileset.File, warn func(error)) (*order.Input, []string, error) {
	in := new(order.Input)
	ids, err := l.readListTo(files, warn, in)
	if err != nil {
		return nil, nil, err
	}
	return in, ids, nil
}

// readListTo is readList adding the records to to.
func (l *loading) readListTo(files []fileset.File, warn func(error), to setSink) ([]string, error) {
	fo, st := &l.opts.Files, l.stats.Files
	report := l.progress(StageFiles, "")
	defer report(-1, -1, true)
	spec := l.opts.Tokens
	results := make([]fileResult, len(files))
	done := make([]chan struct{}, len(files))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	var readNS, tokNS, nbytes atomic.Int64
	var wg sync.WaitGroup
	for range max(l.opts.Workers, 1) {
		wg.Go(func() {
			var scratch []uint64
			var sorter keysort.Sorter
			var buf []byte // the file's bytes, reused: no key refers to them
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
				data, err := fileset.ReadRegularInto(buf, files[i].ID)
				if err == nil {
					buf = data
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
					if !fo.KeepGoing {
						stop.Store(true)
					}
				}
				close(done[i])
			}
		})
	}
	if in, ok := to.(*order.Input); ok {
		// Size the vocabulary from the bytes to read: about one distinct
		// shingle for every 17 bytes of Go source (the Go tree: 68 MiB, 4.0M).
		var total int64
		for _, f := range files {
			total += f.Size
		}
		in.Grow(int(total / 17))
	}
	// Accepted files' keys are entered in batches, which order.Input spreads
	// over all cores.
	var pending []uint64
	pendingOffs := []int{0}
	flush := func() {
		to.AddBatch(pending, pendingOffs)
		pending, pendingOffs = pending[:0], pendingOffs[:1]
	}
	var ids []string
	var firstErr error
	for i := range files {
		<-done[i]
		r := &results[i]
		switch {
		case firstErr != nil:
		case r.err != nil && !fo.KeepGoing:
			firstErr = r.err
		case r.err != nil:
			st.Unreadable++
			warn(r.err)
		case len(r.keys) < fo.MinTokens:
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
		report(int64(i+1), int64(len(files)), false)
	}
	wg.Wait()
	flush()
	st.Bytes = nbytes.Load()
	st.ReadCPU = time.Duration(readNS.Load()).Seconds()
	st.TokenCPU = time.Duration(tokNS.Load()).Seconds()
	st.MinTokens = fo.MinTokens
	if firstErr != nil {
		return nil, firstErr
	}
	st.Records += len(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("no record left of %d files (%d unreadable, %d below --min-tokens %d)",
			len(files), st.Unreadable, st.TooFew, fo.MinTokens)
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
