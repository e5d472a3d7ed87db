package simjoin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/internal/fileset"
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
	l := &loading{opts: Options{Tokens: spec, Workers: 2}, stats: Stats{Files: new(FileStats)}}
	_, _, err := l.readList(context.Background(), files, nil)
	if err == nil || !strings.Contains(err.Error(), files[1].ID) {
		t.Fatalf("err %v, want one naming %s", err, files[1].ID)
	}
	var warned []string
	l = &loading{opts: Options{Tokens: spec, Workers: 2, Files: FileOptions{KeepGoing: true}}, stats: Stats{Files: new(FileStats)}}
	in, ids, err := l.readList(context.Background(), files, func(err error) { warned = append(warned, err.Error()) })
	st := l.stats.Files
	if err != nil {
		t.Fatal(err)
	}
	if in.Len() != 2 || !slices.Equal(ids, []string{files[0].ID, files[2].ID}) || st.Unreadable != 1 || len(warned) != 1 {
		t.Errorf("records %d, ids %v, unreadable %d, warned %q", in.Len(), ids, st.Unreadable, warned)
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
					l := &loading{opts: Options{Tokens: spec, Workers: workers, Files: FileOptions{MinTokens: 50, KeepGoing: true}},
						stats: Stats{Files: new(FileStats)}}
					if _, _, err := l.readList(context.Background(), files, func(error) {}); err != nil {
						b.Fatal(err)
					}
					bytes = l.stats.Files.Bytes
				}
				b.SetBytes(bytes)
			})
		}
	}
}
