package fileset

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestList: directories are walked in lexical order, hidden entries and links
// to directories skipped, globs matched against the relative path, and what
// cannot be a record counted with warn or an error without it.
func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.go", "a.go", "a_test.go", "sub/c.go", "sub/testdata/d.go", ".git/e.go", "sub/.f.go", "x.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"gone.go": "nowhere", "loop.go": "loop.go", "subdir": "sub", "alias.go": "a.go"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := NewFilter([]string{"*.go"}, []string{"*_test.go", "*/testdata/*"})
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	var warned int
	files, err := List([]string{dir}, f, &st, func(error) { warned++ })
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, fl := range files {
		rels = append(rels, fl.Rel)
		if fl.ID != filepath.Join(dir, filepath.FromSlash(fl.Rel)) || fl.Size != int64(len(fl.Rel)) && fl.Rel != "alias.go" || fl.Rel == "alias.go" && fl.Size != 4 {
			t.Errorf("%+v: id or size wrong", fl)
		}
	}
	if want := []string{"a.go", "alias.go", "b.go", "sub/c.go"}; !slices.Equal(rels, want) {
		t.Errorf("selected %q, want %q", rels, want)
	}
	if st.Dangling != 1 || st.Loops != 1 || st.NotRegular != 1 || warned != 3 || st.Selected != 4 || st.Listed != 7 {
		t.Errorf("stats %+v, warned %d", st, warned)
	}
	if _, err := List([]string{dir}, f, &Stats{}, nil); err == nil {
		t.Error("without warn, a link to nothing or a FIFO was not an error")
	}
	var se *SelectionError
	f, _ = NewFilter([]string{"*.rs"}, nil)
	if _, err := List([]string{filepath.Join(dir, "sub")}, f, &Stats{}, nil); !errors.As(err, &se) {
		t.Errorf("include matching nothing: %v, want a SelectionError", err)
	}
	f, _ = NewFilter(nil, []string{"*"})
	if _, err := List([]string{filepath.Join(dir, "sub")}, f, &Stats{}, nil); !errors.As(err, &se) {
		t.Errorf("nothing selected: %v, want a SelectionError", err)
	}
}

// TestListFiltersFirst: a FIFO, a link to nothing or a link loop that the
// globs leave out fails nothing and is not counted; one they select fails
// the listing (or is skipped with warn), whether found in a directory or
// named as an INPUT.
func TestListFiltersFirst(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("nowhere", filepath.Join(dir, "gone.dat"))
	os.Symlink("loop.dat", filepath.Join(dir, "loop.dat"))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.dat"), 0o644); err != nil {
		t.Fatal(err)
	}
	named := []string{filepath.Join(dir, "pipe.dat"), filepath.Join(dir, "gone.dat"), filepath.Join(dir, "a.txt")}
	for _, tc := range []struct {
		args             []string
		include, exclude []string
		fails            bool
	}{
		{[]string{dir}, []string{"*.txt"}, nil, false},
		{[]string{dir}, nil, []string{"*.dat"}, false},
		{named, []string{"*.txt"}, nil, false},
		{[]string{dir}, []string{"*"}, nil, true},
		{[]string{dir}, []string{"pipe.*", "*.txt"}, nil, true},
		{named, []string{"*"}, []string{"gone.*"}, true},
	} {
		f, err := NewFilter(tc.include, tc.exclude)
		if err != nil {
			t.Fatal(err)
		}
		var st Stats
		files, err := List(tc.args, f, &st, nil)
		switch {
		case tc.fails && err != nil:
		case tc.fails:
			t.Errorf("%v +%v -%v: listed %d files, want an error", tc.args, tc.include, tc.exclude, len(files))
		case err != nil:
			t.Errorf("%v +%v -%v: %v", tc.args, tc.include, tc.exclude, err)
		case st.NotRegular+st.Dangling+st.Loops != 0 || len(files) == 0:
			t.Errorf("%v +%v -%v: %d files, stats %+v", tc.args, tc.include, tc.exclude, len(files), st)
		}
	}
}
