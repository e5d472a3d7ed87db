package fileset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// SelectionError is the error of a selection that is empty or has an include
// glob that matched nothing: a usage error rather than a failure to read.
type SelectionError struct{ msg string }

func (e *SelectionError) Error() string { return e.msg }

// File is one selected file: its id (the path as given, or joined to the
// directory given) and its path relative to that directory.
type File struct {
	ID   string
	Rel  string
	Size int64 // from the listing; 0 when unknown
}

// Stats is the "files" section of the report.
type Stats struct {
	Listed      int     `json:"listed"`            // regular files found under INPUT
	Selected    int     `json:"selected"`          // kept by --include and --exclude
	Unreadable  int     `json:"unreadable"`        // skipped with --keep-going
	TooFew      int     `json:"below_min"`         // dropped by --min-tokens
	Records     int     `json:"records"`           // files that became records
	Bytes       int64   `json:"bytes"`             // bytes read (decompressed)
	Gzip        int     `json:"gzip"`              // files read decompressed from gzip
	Zstd        int     `json:"zstd"`              // files read decompressed from zstd
	Shingles    int64   `json:"tokens"`            // distinct tokens summed over records
	ListSeconds float64 `json:"list_s"`            // walking the directories
	ReadCPU     float64 `json:"read_worker_s"`     // summed over workers, wall time
	TokenCPU    float64 `json:"tokenize_worker_s"` // summed over workers, wall time
	MinTokens   int     `json:"min_tokens"`
	// Files that cannot be records, skipped: FIFOs, devices and sockets;
	// symbolic links to nothing; symbolic link loops.
	NotRegular int `json:"not_regular_skipped"`
	Dangling   int `json:"dangling_links_skipped"`
	Loops      int `json:"link_loops_skipped"`
}

// Skip counts a file that cannot be a record (see Stats) and tells warn
// (--keep-going); without warn it returns the error, as for an unreadable
// file.
func (st *Stats) Skip(path string, err error, warn func(error)) error {
	var what string
	switch {
	case errors.Is(err, syscall.ELOOP):
		st.Loops++
		what = "symbolic link loop"
	case errors.Is(err, fs.ErrNotExist):
		st.Dangling++
		what = "symbolic link to nothing"
	default:
		st.NotRegular++
		what = "not a regular file"
	}
	e := fmt.Errorf("%s: %s (--keep-going skips it)", path, what)
	if warn == nil {
		return e
	}
	warn(fmt.Errorf("%s: %s", path, what))
	return nil
}

// ErrNotRegular is the error of a file that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// List walks the INPUT arguments in order, each directory in lexical
// order, and returns the selected files. Hidden files and directories (a
// name starting with '.') are skipped inside directories; symbolic links to
// files are followed, to directories not. A missing INPUT is an error; an
// unreadable directory is one unless warn is given, which is then told.
// The filter comes first: a file it leaves out is never examined further,
// whatever it is. Of the files it selects, FIFOs, devices, sockets,
// symbolic links to nothing and link loops are errors too unless warn is
// given; then they are counted in st and skipped. So a dangling link or a
// device anywhere in a tree fails a run only if the run would have read it.
// Listing never opens a file, so it never blocks on a FIFO.
func List(args []string, filter *Filter, st *Stats, warn func(error)) ([]File, error) {
	var out []File
	// take selects the file at path (rel to its INPUT) unless the filter
	// leaves it out: info gives its size, or bad says why it cannot be a
	// record.
	take := func(path, rel string, info func() (fs.FileInfo, error), bad error) error {
		if bad == nil {
			st.Listed++
		}
		if !filter.Keep(rel) {
			return nil
		}
		if bad != nil {
			return st.Skip(path, bad, warn)
		}
		f := File{ID: path, Rel: rel}
		if i, err := info(); err == nil {
			f.Size = i.Size()
		}
		out = append(out, f)
		return nil
	}
	for _, arg := range args {
		rel := filepath.ToSlash(arg)
		info, err := os.Stat(arg)
		if err != nil {
			if errors.Is(err, syscall.ELOOP) || errors.Is(err, fs.ErrNotExist) && isSymlink(arg) {
				if err := take(arg, rel, nil, err); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		if !info.IsDir() {
			var bad error
			if !info.Mode().IsRegular() {
				bad = ErrNotRegular
			}
			if err := take(arg, rel, func() (fs.FileInfo, error) { return info, nil }, bad); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if warn == nil || path == arg {
					return err
				}
				warn(err)
				return nil
			}
			if path != arg && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(arg, path)
			if err != nil {
				return err
			}
			info := d.Info
			var bad error // why the file cannot be a record
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Stat(path)
				switch {
				case err != nil:
					bad = err
				case target.IsDir():
					return nil // links to directories are not followed
				case !target.Mode().IsRegular():
					bad = ErrNotRegular
				}
				info = func() (fs.FileInfo, error) { return target, nil } // the target's, not the link's
			case !d.Type().IsRegular():
				bad = ErrNotRegular
			}
			return take(path, filepath.ToSlash(rel), info, bad)
		})
		if err != nil {
			return nil, err
		}
	}
	if g, ok := filter.Unmatched(); ok {
		return nil, &SelectionError{fmt.Sprintf("--include %q matches no file in %s", g, strings.Join(args, " "))}
	}
	if len(out) == 0 {
		return nil, &SelectionError{fmt.Sprintf("no file selected in %s (%d listed)", strings.Join(args, " "), st.Listed)}
	}
	st.Selected = len(out)
	return out, nil
}

// isSymlink reports whether path is a symbolic link.
func isSymlink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// ReadRegularInto reads a file that must be a regular one, into buf's memory
// (overwriting it) when it has room for the file, so that a reader of many
// files reuses one buffer instead of allocating one a file; the result
// aliases buf then. It opens without blocking, so that a file replaced by a
// FIFO since the listing is an error rather than a wait for a writer.
func ReadRegularInto(buf []byte, path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	data := slices.Grow(buf[:0], int(st.Size())+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
