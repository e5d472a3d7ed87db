// Package outfile writes a run's output files so that they never damage what
// they replace and appear together or not at all.
//
// A Set is the group of files one run writes. Create opens each one:
//
//   - a regular file, or a name that does not exist yet, is written under a
//     temporary name in the same directory (.NAME.partial-*) and renamed over
//     the target by Commit. Symbolic links are resolved first, so the file a
//     link points to is replaced, never the link. A regular file with more
//     than one hard link is rewritten in place at Commit (copied from the
//     temporary), so that every link keeps seeing it. A new file gets mode
//     0666 minus the umask, as the shell's > would give it; an existing file
//     keeps its mode (and, when the process may, its owner).
//   - a device, a FIFO or a socket, and /dev/stdout, /dev/stderr, /dev/fd/N
//     and /proc/self/fd/N, is written straight: nothing that is not a
//     regular file is ever replaced.
//   - "-" (or "") is the Set's standard output writer; only one file of a
//     Set may claim it (ErrStdoutTaken).
//
// Two outputs of a Set may not be one file, whatever their names: a file is
// known by its device and inode (a file yet to be created, by its
// directory's and its name), and standard output by its own when the Set's
// writer is an *os.File, so that "-" and /dev/stdout are one output, and so
// are two names of one FIFO or terminal (ErrDuplicate, ErrStdoutTaken). The
// null device alone may take any number of outputs.
//
// Commit closes every temporary first (where a full disk shows) and moves
// them into place only when all of them were written, so a run that fails
// leaves the old files as they were and no temporary behind; Abort removes
// the temporaries. A hard-linked target is copied into only once the blocks
// of its new contents are reserved, before any rename. Files written
// straight cannot be taken back. Errors name the path the user gave, never
// a temporary.
//
// Catch and Finish order a run's end against SIGINT, SIGTERM and SIGHUP:
// a signal before Finish's commit point leaves the old files and the
// signal's exit status; one after it is ignored, and the new files appear
// whole with the run's status. Catch never exits in the middle of a Commit.
//
// Protect names the inputs of a run: an output that is the same regular
// file as an input (same device and inode), standard output included, is
// refused with ErrInput, before anything is written; ProtectDir names a
// directory read whole, inside which an output is refused with
// ErrInputDir. A Set is not safe for concurrent use; RemoveTemporaries, for a
// signal handler, is.
package outfile

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Errors that are the caller's (usage errors).
var (
	// ErrStdoutTaken: a second file of a Set asked for standard output.
	ErrStdoutTaken = errors.New("standard output is already taken by another output")
	// ErrInput: the output is one of the inputs protected by Protect.
	ErrInput = errors.New("is an input of this run: refusing to overwrite it")
	// ErrDuplicate: two outputs of a Set are the same file.
	ErrDuplicate = errors.New("is already an output of this run")
	// ErrInputDir: the output is inside a directory protected by ProtectDir.
	ErrInputDir = errors.New("is inside a directory this run reads: refusing to write there")
)

// kind says how a File reaches its target.
type kind int

const (
	kindStdout   kind = iota // the Set's stdout writer
	kindRename               // a temporary renamed over the target
	kindInPlace              // a temporary copied into a hard-linked target
	kindStraight             // a device, FIFO, socket or inherited descriptor
)

// File is one output of a Set. Write errors name the user's path.
type File struct {
	set    *Set
	path   string // as the user gave it
	target string // the file replaced (symbolic links resolved); kindRename, kindInPlace
	kind   kind
	w      io.Writer
	f      *os.File    // the temporary, or the file written straight; nil for stdout
	info   os.FileInfo // the target's, if it existed; standard output's, if a file
	// dir and base are the directory and name of a target yet to be
	// created: what makes two new files the same (see sameFile).
	dir  os.FileInfo
	base string
	done bool
}

// Set is the group of output files of one run.
type Set struct {
	stdout      io.Writer
	stdoutTaken bool
	files       []*File
	inputs      []inputInfo
	inputDirs   []inputInfo // ProtectDir's directories
}

type inputInfo struct {
	path string
	info os.FileInfo
}

// NewSet returns an empty Set whose "-" is stdout.
func NewSet(stdout io.Writer) *Set { return &Set{stdout: stdout} }

// Protect names the inputs of the run; Create refuses to write any of them.
// Paths that cannot be opened (and "-") are ignored: they are reported when
// they are read.
func (s *Set) Protect(paths ...string) {
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			s.inputs = append(s.inputs, inputInfo{p, st})
		}
	}
}

// ProtectDir names a directory the run reads as a whole (an index): Create
// refuses to write any file in it, or any file that is one of its files
// (same device and inode: a hard link elsewhere), decided by identity, not
// by name. A path that is not a directory is ignored.
func (s *Set) ProtectDir(dir string) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return
	}
	s.inputDirs = append(s.inputDirs, inputInfo{dir, st})
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		s.Protect(filepath.Join(dir, e.Name()))
	}
}

// inInputDir returns the directory of ProtectDir that holds target, if any.
func (s *Set) inInputDir(target string) (string, bool) {
	if len(s.inputDirs) == 0 {
		return "", false
	}
	st, err := os.Stat(filepath.Dir(target))
	if err != nil {
		return "", false
	}
	for _, d := range s.inputDirs {
		if os.SameFile(d.info, st) {
			return d.path, true
		}
	}
	return "", false
}

// ProtectReader names an input read from r (standard input, say) when r is
// a regular file: Create refuses to write it.
func (s *Set) ProtectReader(r io.Reader) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			s.inputs = append(s.inputs, inputInfo{f.Name(), st})
		}
	}
}

// CheckProtected returns ErrInput for an output of s created before
// Protect or ProtectReader named it as an input (Create checks the inputs
// named before it).
func (s *Set) CheckProtected() error {
	for _, f := range s.files {
		if f.info == nil || !f.info.Mode().IsRegular() {
			continue
		}
		for _, in := range s.inputs {
			if os.SameFile(in.info, f.info) {
				return fmt.Errorf("%s %w", shown(f.path), ErrInput)
			}
		}
	}
	return nil
}

// StdoutFree reports whether no file of s has claimed standard output.
func (s *Set) StdoutFree() bool { return !s.stdoutTaken }

// Path returns the path the user gave ("-" for standard output).
func (f *File) Path() string {
	if f.kind == kindStdout {
		return "-"
	}
	return f.path
}

// Write writes to the output; an error names the user's path.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.kind != kindStdout {
		err = f.rename("write", err)
	}
	return n, err
}

// rename makes err name the user's path rather than a temporary.
func (f *File) rename(op string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: f.path, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: f.path, Err: err}
}

// Create opens path as an output of s (see the package doc for what is
// written how). Nothing is created for standard output.
func (s *Set) Create(path string) (*File, error) {
	if path == "" || path == "-" {
		if s.stdoutTaken {
			return nil, ErrStdoutTaken
		}
		var st os.FileInfo // standard output's identity, when it is a file
		if f, ok := s.stdout.(*os.File); ok {
			st, _ = f.Stat()
		}
		if err := s.check("-", st, nil, ""); err != nil {
			return nil, err
		}
		s.stdoutTaken = true
		f := &File{set: s, path: "-", kind: kindStdout, w: s.stdout, info: st}
		s.files = append(s.files, f)
		return f, nil
	}
	target, fd, err := resolve(path)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	if fd >= 0 {
		return s.straightFD(path, fd)
	}
	if dir, ok := s.inInputDir(target); ok {
		return nil, fmt.Errorf("%s %w (%s)", path, ErrInputDir, dir)
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return nil, &fs.PathError{Op: "create", Path: path, Err: syscall.EISDIR}
	case err == nil && !st.Mode().IsRegular():
		return s.straight(path, target, st)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, &fs.PathError{Op: "create", Path: path, Err: unwrap(err)}
	}
	var dir os.FileInfo
	if err != nil {
		st = nil
		dir, _ = os.Stat(filepath.Dir(target)) // a missing one fails below
	}
	if err := s.check(path, st, dir, filepath.Base(target)); err != nil {
		return nil, err
	}
	tmp, err := createTemp(target)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: path, Err: unwrap(err)}
	}
	f := &File{set: s, path: path, target: target, kind: kindRename, f: tmp, w: tmp}
	if st == nil {
		f.dir, f.base = dir, filepath.Base(target)
	} else {
		f.info = st
		if nlink(st) > 1 {
			f.kind = kindInPlace
		}
		// Keep the existing file's mode and, if the process may, its owner.
		if err := tmp.Chmod(st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
			f.remove()
			return nil, &fs.PathError{Op: "chmod", Path: path, Err: unwrap(err)}
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			tmp.Chown(int(sys.Uid), int(sys.Gid)) // fails unless permitted; the mode is kept regardless
		}
	}
	register(f)
	s.files = append(s.files, f)
	return f, nil
}

// check refuses an output at path that is the file st, or for a file yet
// to be created (st nil) the file base in the directory dir: a regular file
// that is an input of the run (ErrInput), or any file, whatever its kind or
// name, that is already an output of s (ErrDuplicate; for standard output,
// ErrStdoutTaken): two outputs in one file would mix, a pipe's or a
// terminal's as much as a regular file's. The null device is the one file
// that any number of outputs may share. Without st or dir (standard output
// that is not an *os.File) there is nothing to compare.
func (s *Set) check(path string, st, dir os.FileInfo, base string) error {
	if st != nil && st.Mode().IsRegular() {
		for _, in := range s.inputs {
			if os.SameFile(in.info, st) {
				return fmt.Errorf("%s %w", shown(path), ErrInput)
			}
		}
	}
	if st != nil && isNull(st) {
		return nil
	}
	for _, o := range s.files {
		if !sameFile(o, st, dir, base) {
			continue
		}
		switch {
		case path == "-":
			return fmt.Errorf("%w (%s)", ErrStdoutTaken, o.path)
		case o.kind == kindStdout:
			return fmt.Errorf("%s: %w", path, ErrStdoutTaken)
		}
		if o.path != path {
			return fmt.Errorf("%s %w (as %s)", path, ErrDuplicate, o.path)
		}
		return fmt.Errorf("%s %w", path, ErrDuplicate)
	}
	return nil
}

// sameFile reports whether o is the file st, or for a file yet to be
// created (st nil) the file base in the directory dir.
func sameFile(o *File, st, dir os.FileInfo, base string) bool {
	switch {
	case st != nil:
		return o.info != nil && os.SameFile(o.info, st)
	case dir != nil:
		return o.dir != nil && o.base == base && os.SameFile(o.dir, dir)
	}
	return false
}

// shown is how messages name an output: "standard output" for "-".
func shown(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}

// null is the null device's identity, if it has one here.
var null = sync.OnceValue(func() os.FileInfo {
	st, _ := os.Stat(os.DevNull)
	return st
})

// isNull reports whether st is the null device.
func isNull(st os.FileInfo) bool {
	n := null()
	return n != nil && st.Mode()&fs.ModeDevice != 0 && os.SameFile(n, st)
}

// straight opens an existing file that is not a regular one for writing as
// it is: no temporary, no truncation.
func (s *Set) straight(path, target string, st os.FileInfo) (*File, error) {
	if err := s.check(path, st, nil, ""); err != nil {
		return nil, err
	}
	fh, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: unwrap(err)}
	}
	f := &File{set: s, path: path, target: target, kind: kindStraight, f: fh, w: fh, info: st}
	s.files = append(s.files, f)
	return f, nil
}

// straightFD writes to a copy of an inherited descriptor (for /dev/stdout,
// /dev/fd/N and the like), keeping its offset and append mode.
func (s *Set) straightFD(path string, fd int) (*File, error) {
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	syscall.CloseOnExec(nfd)
	fh := os.NewFile(uintptr(nfd), path)
	st, err := fh.Stat()
	if err != nil {
		st = nil
	}
	if err := s.check(path, st, nil, ""); err != nil {
		fh.Close()
		return nil, err
	}
	f := &File{set: s, path: path, kind: kindStraight, f: fh, w: fh, info: st}
	s.files = append(s.files, f)
	return f, nil
}

// descriptor reports whether path names an inherited file descriptor.
func descriptor(path string) (int, bool) {
	switch path {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(path, dir); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
				return n, true
			}
		}
	}
	return 0, false
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve follows symbolic links from path to the file they end at, which
// need not exist (a dangling link names the file to create), or to an
// inherited descriptor (fd >= 0; otherwise fd is -1).
func resolve(path string) (target string, fd int, err error) {
	p := path
	for range maxLinks {
		if fd, ok := descriptor(p); ok {
			return "", fd, nil
		}
		st, err := os.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return p, -1, nil
			}
			return "", -1, unwrap(err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return p, -1, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", -1, unwrap(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", -1, syscall.ELOOP
}

// createTemp creates an empty file beside target. The mode asked for is 0666,
// so the kernel applies the umask just as it would to the target itself.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	var err error
	for range 100 {
		name := filepath.Join(dir, "."+base+".partial-"+strconv.FormatUint(rand.Uint64(), 36))
		var f *os.File
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, err
}

func nlink(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink)
	}
	return 1
}

// unwrap drops a PathError's path (a temporary's, or one the caller renames).
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Commit makes every output of s appear: it closes all temporaries and only
// when each was written whole moves them into place: first the hard-linked
// targets, whose new contents are copied in (copyInPlace: the one step that
// can fail on a full disk once the temporaries are written), then the
// renames. After an error the outputs not yet moved are removed. Commit is a
// no-op for a Set already committed or aborted.
//
// A Commit under way holds off Catch's own exit until it is done, so that a
// signal never leaves a target half copied.
func (s *Set) Commit() error {
	committing.RLock()
	defer committing.RUnlock()
	var err error
	for _, f := range s.files {
		if f.done || f.f == nil {
			continue
		}
		e := f.f.Close()
		if f.kind == kindStraight {
			f.done = true
		}
		if e != nil && err == nil {
			err = f.rename("write", e)
		}
	}
	if err != nil {
		s.Abort()
		return err
	}
	// The target may have changed since Create: never replace what is not
	// a regular file, and copy into one that has gained a link.
	for _, f := range s.files {
		if f.done || f.f == nil {
			continue
		}
		if st, e := os.Stat(f.target); e == nil && !st.Mode().IsRegular() {
			err = &fs.PathError{Op: "replace", Path: f.path, Err: errors.New("no longer a regular file")}
			break
		} else if e == nil && nlink(st) > 1 {
			f.kind = kindInPlace
		}
	}
	for _, k := range []kind{kindInPlace, kindRename} {
		for _, f := range s.files {
			if err != nil {
				break
			}
			if f.done || f.f == nil || f.kind != k {
				continue
			}
			err = f.commit()
		}
	}
	s.Abort()
	return err
}

// commit moves one closed temporary into place.
func (f *File) commit() error {
	defer f.remove() // the temporary of a copy, or of a failed rename
	if f.kind == kindInPlace {
		return f.copyInPlace()
	}
	pause("rename")
	if err := os.Rename(f.f.Name(), f.target); err != nil {
		return f.rename("rename", unwrap(err))
	}
	f.done = true
	unregister(f)
	return nil
}

// copyChunk is the size of the writes of copyInPlace.
const copyChunk = 1 << 20

// copyInPlace rewrites a hard-linked target with the temporary's contents,
// so that it appears whole or not at all to anything but a reader watching
// the copy: the blocks the new contents need are reserved first (reserve),
// so that a full disk fails the commit before the old contents change; the
// new contents are then written over the old from the start, and the file
// is cut to their length last. Catch waits for the copy (see Commit). An
// I/O error after the reservation (a failing disk) may leave the target
// torn; nothing short of a copy of the old contents could undo it.
func (f *File) copyInPlace() error {
	src, err := os.Open(f.f.Name())
	if err != nil {
		return f.rename("write", unwrap(err))
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return f.rename("write", unwrap(err))
	}
	size := st.Size()
	dst, err := os.OpenFile(f.target, os.O_WRONLY, 0)
	if err != nil {
		return f.rename("open", unwrap(err))
	}
	if err := reserve(dst, size); err != nil {
		dst.Close()
		return f.rename("write", err)
	}
	buf := make([]byte, min(copyChunk, max(size, 1)))
	for err == nil {
		pause("copy")
		var k int
		k, err = io.ReadFull(src, buf)
		if k > 0 {
			_, werr := dst.Write(buf[:k])
			err = cmp.Or(werr, err)
		}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	if err == nil {
		pause("truncate")
		err = dst.Truncate(size)
	}
	if e := dst.Close(); err == nil {
		err = e
	}
	if err != nil {
		return f.rename("write", unwrap(err))
	}
	return nil
}

// remove closes and removes f's temporary, if it has one.
func (f *File) remove() {
	if f.done {
		return
	}
	f.done = true
	if f.f == nil {
		return
	}
	f.f.Close()
	if f.kind == kindRename || f.kind == kindInPlace {
		os.Remove(f.f.Name())
		unregister(f)
	}
}

// Abort removes the temporaries of s not yet committed and closes the files
// written straight. It may be called more than once, and after Commit.
func (s *Set) Abort() {
	for _, f := range s.files {
		f.remove()
	}
}

// live holds the temporaries of every Set of the process, for
// RemoveTemporaries.
var live struct {
	mu sync.Mutex // protects m
	m  map[*File]string
}

func register(f *File) {
	live.mu.Lock()
	defer live.mu.Unlock()
	if live.m == nil {
		live.m = map[*File]string{}
	}
	live.m[f] = f.f.Name()
}

func unregister(f *File) {
	live.mu.Lock()
	defer live.mu.Unlock()
	delete(live.m, f)
}

// RemoveTemporaries removes the temporary file of every output of the
// process not yet committed. It is for a signal handler about to exit; safe
// for concurrent use.
func RemoveTemporaries() {
	live.mu.Lock()
	defer live.mu.Unlock()
	for f, name := range live.m {
		os.Remove(name)
		delete(live.m, f)
	}
}
