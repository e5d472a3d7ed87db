package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// copyDir copies the files of src into a new temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// manifestVersion returns the format version of dir's manifest.
func manifestVersion(t *testing.T, dir string) uint32 {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil || len(b) < 12 {
		t.Fatalf("manifest: %v", err)
	}
	return binary.LittleEndian.Uint32(b[8:])
}

// TestOpenVersion1 opens indexes written in format version 1 (testdata/v1:
// an exact and an LSH index, each with a segment, records in the log and
// deletes, made by the build before version 2): read-only they answer as
// that build did and nothing is written; opened for writing they are
// upgraded to version 2 by a checkpoint, answer the same, and take
// records.
func TestOpenVersion1(t *testing.T) {
	queries := [][]byte{[]byte("the quick brown fox jumps over a lazy dog"), []byte("lorem ipsum dolor sit"), []byte("the lazy dog sleeps")}
	for _, c := range []struct {
		name, want string // want: the hits of the queries at 0.5, as that build printed them
		live       uint64
	}{
		{"exact", "[[{1 0.888889} {5 0.888889}] [{4 0.8} {6 0.666667}] [{9 0.666667}]]", 7},
		{"lsh", "[[{1 0.888889} {5 0.888889} {2 0.7}] [{4 0.8} {6 0.666667}] [{9 0.666667}]]", 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, filepath.Join("testdata", "v1", c.name))
			before := dirBytes(t, dir)
			answer := func(ix *Index) string {
				res, err := ix.Search(context.Background(), queries, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 2}})
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				b.WriteByte('[')
				for i, hits := range res {
					if i > 0 {
						b.WriteByte(' ')
					}
					b.WriteByte('[')
					for j, h := range hits {
						if j > 0 {
							b.WriteByte(' ')
						}
						fmt.Fprintf(&b, "{%d %.6g}", h.ID, h.Sim)
					}
					b.WriteByte(']')
				}
				b.WriteByte(']')
				return b.String()
			}
			if err := Verify(dir); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			ix, err := Open(dir, OpenOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := answer(ix); got != c.want {
				t.Errorf("read-only: %s\nwant %s", got, c.want)
			}
			if st := ix.Stats(); st.Records != 9 || st.Live != c.live {
				t.Errorf("read-only stats: %+v", st)
			}
			ix.Close()
			after := dirBytes(t, dir)
			delete(after, "LOCK")
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Error("a read-only open of a version 1 index changed its files")
			}
			if manifestVersion(t, dir) != 1 {
				t.Fatal("the fixture is not of version 1")
			}
			ix, err = Open(dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if v := manifestVersion(t, dir); v != formatVersion {
				t.Errorf("opened for writing: manifest of version %d, want %d", v, formatVersion)
			}
			if got := answer(ix); got != c.want {
				t.Errorf("upgraded: %s\nwant %s", got, c.want)
			}
			out, err := ix.Insert(context.Background(), [][]byte{[]byte("a new record")}, prefix.Threshold{})
			if err != nil || out[0].ID != 10 {
				t.Errorf("insert into the upgraded index: %+v, %v", out, err)
			}
			ix.Close()
			if err := Verify(dir); err != nil {
				t.Errorf("Verify after the upgrade: %v", err)
			}
		})
	}
}

// TestNewerVersionRefused: a file of a format version this build does not
// know is refused, naming the version and what to do.
func TestNewerVersionRefused(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "v1", "exact"))
	path := filepath.Join(dir, manifestName)
	b, _ := os.ReadFile(path)
	binary.LittleEndian.PutUint32(b[8:], formatVersion+1)
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32c(b[:n]))
	os.WriteFile(path, b, 0o644)
	_, err := Open(dir, OpenOptions{ReadOnly: true})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("format version %d, this build reads 1 to %d (a newer simjoin wrote it", formatVersion+1, formatVersion)) {
		t.Errorf("a manifest of version %d: %v", formatVersion+1, err)
	}
}
