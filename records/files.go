package records

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"
	"unsafe"

	"github.com/simjoin/simjoin/internal/decompress"
	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// FileOptions selects and reads the records of Files sources. The zero value
// takes every regular file listed and stops at the first that cannot be read.
type FileOptions struct {
	// Include and Exclude are globs (see internal/fileset: '*' matches '/'
	// too, and a glob without '/' matches the file's name): a file is kept
	// when it matches an Include glob (or there is none) and no Exclude
	// glob. An Include glob that matches no file fails the read with a
	// *fileset.SelectionError, as does a selection with no file.
	Include, Exclude []string
	// MinTokens drops files with fewer distinct tokens (near-empty files
	// collide by chance); FileStats.TooFew counts them.
	MinTokens int
	// KeepGoing skips a file that cannot be read or tokenized, telling Warn
	// (if not nil) and counting it, instead of failing the read.
	KeepGoing bool
	Warn      func(error)
}

// FileStats counts what the Files sources of a Reader listed, selected and
// read, over both sides of a join.
type FileStats = fileset.Stats

// fileResult is what reading and tokenizing one file of a chunk left: where
// its keys end in the chunk's keys (they start where the previous file's
// end), the compression it was read from and the time and bytes it took, or
// the error that stopped it.
type fileResult struct {
	end            int
	format         decompress.Format
	err            error
	bytes          int64         // decompressed
	readT, tokensT time.Duration // reading (and decompressing), tokenizing
}

// fileScratch is a reading worker's buffers, reused from file to file.
type fileScratch struct {
	sorter keysort.Sorter
	buf    []byte // the file's bytes: no key refers to them
}

// readFiles lists paths, then reads and tokenizes the files on the reader's
// workers and returns the records in file order with their ids (the paths).
// A file that cannot be read or tokenized stops the read with an error naming
// it, or with KeepGoing is reported through Warn and skipped. Files with fewer
// than MinTokens distinct tokens are dropped. A cancelled ctx stops the read
// with ctx's cause.
func (l *Reader) readFiles(ctx context.Context, paths []string, to Sink) ([]string, error) {
	fo := &l.opts.Files
	if l.filter == nil {
		var err error
		if l.filter, err = fileset.NewFilter(fo.Include, fo.Exclude); err != nil {
			return nil, fmt.Errorf("simjoin: %w", err)
		}
		l.files = new(FileStats)
	}
	st := l.files
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
	return l.readListTo(ctx, files, warn, to)
}

// readList reads and tokenizes the files listed, as readFiles says, into an
// order.Input.
func (l *Reader) readList(ctx context.Context, files []fileset.File, warn func(error)) (*order.Input, []string, error) {
	in := &order.Input{Workers: l.opts.Workers}
	ids, err := l.readListTo(ctx, files, warn, in)
	if err != nil {
		return nil, nil, err
	}
	return in, ids, nil
}

// readListTo is readList adding the records to to: the files are read and
// tokenized on the reader's workers in chunks of about batchBytes (so that the
// chunks in flight cover the time the keys of a batch take to be entered),
// and taken in file order (parallel.Ordered).
func (l *Reader) readListTo(ctx context.Context, files []fileset.File, warn func(error), to Sink) ([]string, error) {
	fo, st := &l.opts.Files, l.files
	report := l.progress(StageFiles, "")
	defer report(-1, -1, true)
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
	// over the workers.
	var pending []uint64
	pendingOffs := []int{0}
	flush := func() {
		to.AddBatch(pending, pendingOffs)
		pending, pendingOffs = pending[:0], pendingOffs[:1]
	}
	bounds := []int{0}
	var size int64
	for i, f := range files {
		if size += f.Size; size >= batchBytes || i == len(files)-1 {
			bounds = append(bounds, i+1)
			size = 0
		}
	}
	var ids []string
	var firstErr error
	var readT, tokensT time.Duration
	// The chunks' keys go back here once entered, so that the chunks in
	// flight reuse a few buffers instead of allocating one each.
	freeKeys := parallel.NewBuffers[uint64](4*parallel.Workers(l.opts.Workers) + 2)
	err := parallel.Ordered(ctx, bounds, l.opts.Workers, func() *fileScratch { return new(fileScratch) },
		func(sc *fileScratch, c *parallel.Chunk[uint64, []fileResult]) {
			c.Out = freeKeys.Get(0)
			for i := c.Lo; i < c.Hi; i++ {
				var r fileResult
				c.Out, r = l.readFile(sc, files[i].ID, c.Out)
				if c.Stats = append(c.Stats, r); r.err != nil && !fo.KeepGoing {
					return // the read stops at this file
				}
			}
		},
		func(c *parallel.Chunk[uint64, []fileResult]) bool {
			start := 0
			for k := range c.Stats {
				i, r := c.Lo+k, &c.Stats[k]
				keys := c.Out[start:r.end]
				start = r.end
				st.Bytes += r.bytes
				l.counts.Bytes += r.bytes
				readT += r.readT
				tokensT += r.tokensT
				switch {
				case r.err != nil && !fo.KeepGoing:
					firstErr = r.err
					return false
				case r.err != nil:
					st.Unreadable++
					warn(r.err)
				case len(keys) < fo.MinTokens:
					st.TooFew++
				default:
					switch r.format {
					case decompress.Gzip:
						st.Gzip++
					case decompress.Zstd:
						st.Zstd++
					}
					pending = append(pending, keys...)
					pendingOffs = append(pendingOffs, len(pending))
					if len(pending) >= 1<<17 {
						flush()
					}
					ids = append(ids, files[i].ID)
					st.Shingles += int64(len(keys))
				}
				report(int64(i+1), int64(len(files)), false)
			}
			freeKeys.Put(c.Out)
			return true
		})
	flush()
	st.ReadCPU = readT.Seconds()
	st.TokenCPU = tokensT.Seconds()
	st.MinTokens = fo.MinTokens
	switch {
	case firstErr != nil:
		return nil, firstErr
	case err != nil:
		return nil, err
	}
	st.Records += len(ids)
	if len(ids) == 0 {
		return nil, &NoRecordsError{Files: len(files), Unreadable: st.Unreadable, TooFew: st.TooFew, MinTokens: fo.MinTokens}
	}
	return ids, nil
}

// readFile reads and tokenizes the file at path in sc's buffers, appends its
// sorted distinct keys to dst and returns the extended slice (dst itself if
// the file fails), and what it took (r.end is the extended slice's length).
func (l *Reader) readFile(sc *fileScratch, path string, dst []uint64) (keys []uint64, r fileResult) {
	keys = dst
	spec := l.opts.Tokens
	t0 := time.Now()
	data, err := fileset.ReadRegularInto(sc.buf, path)
	if err == nil {
		sc.buf = data
		data, r.format, err = decompress.Bytes(data)
	}
	t1 := time.Now()
	r.readT = t1.Sub(t0)
	if err == nil {
		r.bytes = int64(len(data))
		if len(data) > shingle.PieceBytes && spec.Kind != shingle.Go {
			// A long file: memory bounded by its distinct keys.
			keys, err = spec.AppendSet(keys, unsafe.String(unsafe.SliceData(data), len(data)))
		} else {
			keys, err = spec.AppendBytes(keys, data)
			if err == nil {
				keys = keys[:len(dst)+len(sc.sorter.SortDistinct(keys[len(dst):]))]
			}
		}
		r.tokensT = time.Since(t1)
	}
	if err != nil {
		keys = dst
		r.err = fileError(path, err)
	}
	r.end = len(keys)
	return keys, r
}

// fileError names the file of a read or tokenizing error: a *FileError, or
// the *fs.PathError of a file that could not be opened or read (which names
// it already).
func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err // already "open path: reason"
	}
	return &FileError{Path: path, Err: err}
}

// FileError reports a file of a Files source that could not be decompressed
// or tokenized (such as invalid UTF-8 where Options.Tokens needs text,
// wrapping shingle.ErrUTF8): "path: reason", or "path:line:column: message"
// for Go source that does not scan (a *shingle.ScanError). It never quotes
// the file's text.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	var se *shingle.ScanError
	if errors.As(e.Err, &se) {
		return e.Path + ":" + e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// NoRecordsError reports Files sources that left no record: every file
// listed was unreadable (and skipped, FileOptions.KeepGoing) or had fewer
// distinct tokens than FileOptions.MinTokens.
type NoRecordsError struct {
	Files      int // files listed and selected
	Unreadable int // skipped as unreadable
	TooFew     int // dropped for fewer than MinTokens distinct tokens
	MinTokens  int // FileOptions.MinTokens
}

func (e *NoRecordsError) Error() string {
	return fmt.Sprintf("no record left of %d files (%d unreadable, %d with fewer than %d distinct tokens)",
		e.Files, e.Unreadable, e.TooFew, e.MinTokens)
}
