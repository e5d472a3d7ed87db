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
// Commit closes every temporary first (where a full disk shows) and renames
// only when all of them were written, so a run that fails leaves the old
// files as they were and no temporary behind; Abort removes the temporaries.
// Files written straight cannot be taken back. Errors name the path the user
// gave, never a temporary.
//
// Protect names the inputs of a run: an output that is the same file as an
// input (same device and inode) is refused with ErrInput, before anything is
// written; ProtectDir names a directory read whole, inside which an output
// is refused with ErrInputDir. A Set is not safe for concurrent use; RemoveTemporaries, for a
// signal handler, is.
package outfile

import (
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
	info   os.FileInfo // the target's, if it existed
	done   bool
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
		s.stdoutTaken = true
		f := &File{set: s, path: "-", kind: kindStdout, w: s.stdout}
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
	if err == nil {
		for _, in := range s.inputs {
			if os.SameFile(in.info, st) {
				return nil, fmt.Errorf("%s %w", path, ErrInput)
			}
		}
		if err := s.checkDuplicate(path, st); err != nil {
			return nil, err
		}
	} else {
		st = nil
		for _, o := range s.files {
			if o.target == target {
				return nil, fmt.Errorf("%s %w", path, ErrDuplicate)
			}
		}
	}
	tmp, err := createTemp(target)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: path, Err: unwrap(err)}
	}
	f := &File{set: s, path: path, target: target, kind: kindRename, f: tmp, w: tmp}
	if st != nil {
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

// checkDuplicate refuses a second output to the same regular file (devices
// and pipes may be written by several outputs, as a shell would).
func (s *Set) checkDuplicate(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return nil
	}
	for _, o := range s.files {
		if o.info != nil && os.SameFile(o.info, st) {
			return fmt.Errorf("%s %w", path, ErrDuplicate)
		}
	}
	return nil
}

// straight opens an existing file that is not a regular one for writing as
// it is: no temporary, no truncation.
func (s *Set) straight(path, target string, st os.FileInfo) (*File, error) {
	if err := s.checkDuplicate(path, st); err != nil {
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
	if err == nil {
		if err := s.checkDuplicate(path, st); err != nil {
			fh.Close()
			return nil, err
		}
		if st.Mode().IsRegular() {
			for _, in := range s.inputs {
				if os.SameFile(in.info, st) {
					fh.Close()
					return nil, fmt.Errorf("%s %w", path, ErrInput)
				}
			}
		}
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
// when each was written whole renames them over their targets (or copies a
// hard-linked target's new contents in place). After an error the outputs
// not yet renamed are removed. Commit is a no-op for a Set already committed
// or aborted.
func (s *Set) Commit() error {
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
	for _, f := range s.files {
		if f.done || f.f == nil {
			continue
		}
		if e := f.commit(); e != nil && err == nil {
			err = e
		}
	}
	s.Abort()
	return err
}

// commit moves one closed temporary into place.
func (f *File) commit() error {
	defer f.remove()
	// The target may have changed since Create: never replace what is not
	// a regular file.
	if st, err := os.Stat(f.target); err == nil && !st.Mode().IsRegular() {
		return &fs.PathError{Op: "replace", Path: f.path, Err: errors.New("no longer a regular file")}
	} else if err == nil && nlink(st) > 1 {
		f.kind = kindInPlace
	}
	if f.kind == kindInPlace {
		return f.copyInPlace()
	}
	if err := os.Rename(f.f.Name(), f.target); err != nil {
		return f.rename("rename", unwrap(err))
	}
	f.done = true
	unregister(f)
	return nil
}

// copyInPlace rewrites a hard-linked target with the temporary's contents.
func (f *File) copyInPlace() error {
	src, err := os.Open(f.f.Name())
	if err != nil {
		return f.rename("write", unwrap(err))
	}
	defer src.Close()
	dst, err := os.OpenFile(f.target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return f.rename("open", unwrap(err))
	}
	_, err = io.Copy(dst, src)
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
