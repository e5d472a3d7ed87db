package records

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/fileset"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/shingle"
)

// writeFiles writes files (name -> text) into a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// setsByID returns the sets of in's records by original id, as keys (the
// token ids of the collection built from in mapped back through its
// dictionary, so that two inputs with different token orders compare). It
// consumes in.
func setsByID(t *testing.T, in *order.Input) map[int][]uint64 {
	t.Helper()
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]uint64{}
	for i := range c.Len() {
		var keys []uint64
		for _, tok := range c.Set(i) {
			keys = append(keys, c.Dict().Key(tok))
		}
		slices.Sort(keys)
		out[c.ID(i)] = keys
	}
	return out
}

// SetsByID is setsByID for the tests of package records_test.
var SetsByID = setsByID

// SetHoldLineBytes sets the length up to which a line is held whole
// (holdLineBytes) and returns a function that puts it back.
func SetHoldLineBytes(n int) (restore func()) {
	old := holdLineBytes
	holdLineBytes = n
	return func() { holdLineBytes = old }
}

// TestReadFilesVanished: a file that disappears between listing and reading
// is reported with its path, and skipped with keepGoing.
func TestReadFilesVanished(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.txt": "one two three", "c.txt": "one two three"})
	files := []fileset.File{
		{ID: filepath.Join(dir, "a.txt")},
		{ID: filepath.Join(dir, "b.txt")},
		{ID: filepath.Join(dir, "c.txt")},
	}
	spec := shingle.Spec{Kind: shingle.Words}
	l := &Reader{opts: Options{Tokens: spec, Workers: 2}, files: new(FileStats)}
	_, _, err := l.readList(context.Background(), files, nil)
	if err == nil || !strings.Contains(err.Error(), files[1].ID) {
		t.Fatalf("err %v, want one naming %s", err, files[1].ID)
	}
	var warned []string
	l = &Reader{opts: Options{Tokens: spec, Workers: 2, Files: FileOptions{KeepGoing: true}}, files: new(FileStats)}
	in, ids, err := l.readList(context.Background(), files, func(err error) { warned = append(warned, err.Error()) })
	st := l.files
	if err != nil {
		t.Fatal(err)
	}
	if in.Len() != 2 || !slices.Equal(ids, []string{files[0].ID, files[2].ID}) || st.Unreadable != 1 || len(warned) != 1 {
		t.Errorf("records %d, ids %v, unreadable %d, warned %q", in.Len(), ids, st.Unreadable, warned)
	}
}

// TestReadFilesChunks: files spread over several chunks of the pipeline
// give the same records, ids, sets and counts for 1, 2 and 3 workers; with
// KeepGoing two vanished files (in different chunks) are skipped, without it
// the first one is the error.
func TestReadFilesChunks(t *testing.T) {
	names := map[string]string{}
	for i := range 30 {
		var b strings.Builder
		for b.Len() < 100<<10 { // 100 KiB a file: about ten files a chunk
			fmt.Fprintf(&b, "w%d w%d common\n", i, b.Len()%977)
		}
		names[fmt.Sprintf("f%02d.txt", i)] = b.String()
	}
	names["f15.txt"] = "few" // below MinTokens
	dir := writeFiles(t, names)
	filter, err := fileset.NewFilter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := fileset.List([]string{dir}, filter, new(fileset.Stats), nil)
	if err != nil || len(files) != 30 {
		t.Fatalf("%d files listed, err %v", len(files), err)
	}
	for _, gone := range []int{7, 23} {
		if err := os.Remove(files[gone].ID); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i, f := range files {
		if i != 7 && i != 23 && i != 15 {
			want = append(want, f.ID)
		}
	}
	spec := shingle.Spec{Kind: shingle.Words}
	var first map[int][]uint64
	var firstStats FileStats
	for _, workers := range []int{1, 2, 3} {
		l := &Reader{opts: Options{Tokens: spec, Workers: workers, Files: FileOptions{KeepGoing: true, MinTokens: 2}}, files: new(FileStats)}
		in, ids, err := l.readList(context.Background(), files, func(error) {})
		if err != nil {
			t.Fatal(err)
		}
		st := *l.files
		st.ReadCPU, st.TokenCPU = 0, 0
		if !slices.Equal(ids, want) || st.Unreadable != 2 || st.TooFew != 1 {
			t.Fatalf("%d workers: ids %v, unreadable %d, too few %d", workers, ids, st.Unreadable, st.TooFew)
		}
		sets := setsByID(t, in)
		if first == nil {
			first, firstStats = sets, st
		} else if !maps.EqualFunc(sets, first, slices.Equal) || st != firstStats {
			t.Fatalf("%d workers: sets or counts differ from one worker's (%+v, want %+v)", workers, st, firstStats)
		}
		l = &Reader{opts: Options{Tokens: spec, Workers: workers}, files: new(FileStats)}
		if _, _, err := l.readList(context.Background(), files, nil); err == nil || !strings.Contains(err.Error(), files[7].ID) {
			t.Fatalf("%d workers: err %v, want one naming %s", workers, err, files[7].ID)
		}
	}
}

// BenchmarkReadFiles reads and shingles the Go source tree as the article's
// experiment does (non-test .go files outside testdata). Opt-in, it needs
// GOROOT's sources: SIMJOIN_GOROOT_BENCH=1 go test -bench ReadFiles .
func BenchmarkReadFiles(b *testing.B) {
	if os.Getenv("SIMJOIN_GOROOT_BENCH") == "" {
		b.Skip("set SIMJOIN_GOROOT_BENCH=1 to read $(go env GOROOT)/src")
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	filter, err := fileset.NewFilter([]string{"*.go"}, []string{"*_test.go", "*/testdata/*"})
	if err != nil {
		b.Fatal(err)
	}
	var st fileset.Stats
	files, err := fileset.List([]string{src}, filter, &st, nil)
	if err != nil {
		b.Skipf("no Go tree at %s: %v", src, err)
	}
	for _, tokens := range []string{"go:5", "shingle:5", "set"} {
		spec, err := shingle.Parse(tokens)
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("tokens=%s/workers=%d", tokens, workers), func(b *testing.B) {
				b.ReportAllocs()
				var bytes int64
				for b.Loop() {
					l := &Reader{opts: Options{Tokens: spec, Workers: workers, Files: FileOptions{MinTokens: 50, KeepGoing: true}}, files: new(FileStats)}
					if _, _, err := l.readList(context.Background(), files, func(error) {}); err != nil {
						b.Fatal(err)
					}
					bytes = l.files.Bytes
				}
				b.SetBytes(bytes)
			})
		}
	}
}
