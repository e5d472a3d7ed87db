package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/prefix"
)

// forgedManifests are manifest bodies with a valid checksum that name files
// outside the index directory, or not of their kind's form, or twice; each
// must be refused as corrupt. They seed FuzzManifest too.
var forgedManifests = []struct{ what, wal, dict, segs string }{
	{"wal outside", `"../outside/victim.log"`, "", ""},
	{"wal absolute", `"/tmp/victim.log"`, "", ""},
	{"wal in a subdirectory", `"sub/wal-1.log"`, "", ""},
	{"wal dot-dot", `".."`, "", ""},
	{"wal of another kind", `"seg-1.sj"`, "", ""},
	{"wal with a leading zero", `"wal-01.log"`, "", ""},
	{"wal of a later generation", `"wal-9.log"`, "", ""},
	{"wal the manifest", `"MANIFEST"`, "", ""},
	{"wal empty", `""`, "", ""},
	{"dict outside", `"wal-1.log"`, `"../dict-1.sj"`, ""},
	{"segment outside", `"wal-1.log"`, `"dict-1.sj"`, `[{"file": "../../etc/seg-1.sj"}]`},
	{"tombstones outside", `"wal-1.log"`, `"dict-1.sj"`, `[{"file": "seg-1.sj", "tomb": "/dev/tomb-1-0.sj"}]`},
	{"a segment twice", `"wal-1.log"`, `"dict-1.sj"`, `[{"file": "seg-1.sj"}, {"file": "seg-1.sj"}]`},
	{"segments without a dictionary", `"wal-1.log"`, "", `[{"file": "seg-1.sj"}]`},
	{"tombstones named as a segment", `"wal-1.log"`, `"dict-1.sj"`, `[{"file": "seg-1.sj", "tomb": "seg-1.sj"}]`},
}

// manifestBody writes a manifest's JSON body of an exact index at
// generation 1 naming the files given ("" leaves a field out).
func manifestBody(wal, dict, segs string) []byte {
	var b strings.Builder
	b.WriteString(`{"config": {"tokens": {"Kind": 0, "N": 0, "Norm": 0}, "method": 1, "measure": 0, "min_threshold": {"Num": 1, "Den": 2}, "raw_sets": true}, "next_id": 0, "gen": 1`)
	if wal != "" {
		b.WriteString(`, "wal": ` + wal)
	}
	if dict != "" {
		b.WriteString(`, "dict": ` + dict)
	}
	if segs != "" {
		b.WriteString(`, "segments": ` + segs)
	}
	b.WriteString(`, "reordered": 0}`)
	return []byte(b.String())
}

// sealManifest frames a JSON body as a MANIFEST file with a valid checksum.
func sealManifest(js []byte) []byte {
	b := append([]byte{}, manMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, formatVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	b = append(b, js...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// TestManifestNames forges manifests with valid checksums whose file names
// point outside the index directory (or are not of the form of their
// kind): Open, for writing and read-only, Verify and Repair refuse each
// with a *CorruptError naming the manifest, and the file outside the
// directory is neither truncated nor appended to.
func TestManifestNames(t *testing.T) {
	for _, c := range forgedManifests {
		t.Run(c.what, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "ix")
			ix, err := Create(dir, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
			if err != nil {
				t.Fatal(err)
			}
			ix.Close()
			// A victim beside the index that looks like a log with a torn
			// tail: a reader that followed the name would cut or extend it.
			os.MkdirAll(filepath.Join(root, "outside"), 0o755)
			victim := filepath.Join(root, "outside", "victim.log")
			wal, _ := os.ReadFile(filepath.Join(dir, "wal-1.log"))
			want := append(wal, 9, 0, 0)
			os.WriteFile(victim, want, 0o644)
			os.WriteFile(filepath.Join(dir, manifestName), sealManifest(manifestBody(c.wal, c.dict, c.segs)), 0o644)
			man := filepath.Join(dir, manifestName)
			check := func(what string, err error) {
				t.Helper()
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.File != man {
					t.Errorf("%s: got %v, want a *CorruptError naming %s", what, err, man)
				}
			}
			ix, err = Open(dir, OpenOptions{})
			if err == nil {
				ix.Insert(context.Background(), [][]byte{[]byte("a b")}, prefix.Threshold{})
				ix.Close()
			}
			check("Open", err)
			_, err = Open(dir, OpenOptions{ReadOnly: true})
			check("Open read-only", err)
			check("Verify", Verify(dir))
			_, err = Repair(dir)
			check("Repair", err)
			if got, _ := os.ReadFile(victim); !bytes.Equal(got, want) {
				t.Errorf("the file outside the index changed: %d bytes, was %d", len(got), len(want))
			}
		})
	}
}

// FuzzManifest parses arbitrary manifest bodies (sealed with a valid
// checksum, as a forger would): each is refused as corrupt, or every file
// it names is a plain name of its kind inside the directory, and Open then
// fails cleanly or opens an index (the files it names are missing here, so
// only an index of no files opens). Seeded with the manifests of a real
// index and the forged ones of TestManifestNames.
func FuzzManifest(f *testing.F) {
	seeds := fuzzSeeds(f)
	if m := seeds["MANIFEST"]; len(m) > 20 {
		f.Add(m[16 : len(m)-4])
	}
	f.Add(manifestBody(`"wal-1.log"`, "", ""))
	f.Add(manifestBody(`"wal-1.log"`, `"dict-1.sj"`, `[{"file": "seg-1.sj", "tomb": "tomb-1-0.sj"}]`))
	for _, c := range forgedManifests {
		f.Add(manifestBody(c.wal, c.dict, c.segs))
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		m, err := parseManifest(js)
		if err != nil {
			return
		}
		names := []string{m.WAL, m.Dict}
		for _, r := range m.Segments {
			names = append(names, r.File, r.Tomb)
		}
		for _, n := range names {
			if n != "" && (!isIndexFile(n) || filepath.Base(n) != n || n == "." || n == "..") {
				t.Fatalf("accepted the name %q", n)
			}
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, manifestName), sealManifest(js), 0o644)
		if ix, err := Open(dir, OpenOptions{ReadOnly: true}); err == nil {
			ix.Close()
		}
	})
}

// TestLeftoversOnly: opening an index for writing deletes the files a
// crashed checkpoint left (names of the index's own forms that the manifest
// does not name), and nothing else a user keeps in the directory, however
// it is named; a read-only open deletes nothing.
func TestLeftoversOnly(t *testing.T) {
	ix, dir := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	ix.Close()
	user := []string{"wal-notes.txt", "seg-1.sj.bak", "dict-x.sj", "tomb-1.sj", "MANIFEST.bak", "wal-01.log", "README"}
	left := []string{"seg-7.sj", "dict-7.sj", "tomb-7-0.sj", "wal-7.log", "MANIFEST.tmp"}
	for _, n := range append(append([]string{}, user...), left...) {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	if ro, err := Open(dir, OpenOptions{ReadOnly: true}); err != nil {
		t.Fatal(err)
	} else {
		ro.Close()
	}
	for _, n := range append(append([]string{}, user...), left...) {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("a read-only open removed %s", n)
		}
	}
	ix, err := Open(dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	for _, n := range user {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("opening removed the user's %s", n)
		}
	}
	for _, n := range left {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("opening left the leftover %s", n)
		}
	}
}

// TestCreateRefuses: Create writes nothing into a directory that holds
// files of the user's (ErrNotEmpty), nor creates a missing parent
// directory; a directory holding only the leftovers of a crashed Create is
// taken.
func TestCreateRefuses(t *testing.T) {
	cfg := exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	if _, err := Create(dir, cfg); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("Create in a directory of the user's: %v, want ErrNotEmpty", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("Create wrote into a directory of the user's: %v", names)
	}
	missing := filepath.Join(t.TempDir(), "no", "ix")
	if _, err := Create(missing, cfg); err == nil {
		t.Errorf("Create under a missing directory succeeded")
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("Create made the missing parent directory")
	}
	crashed := t.TempDir()
	os.WriteFile(filepath.Join(crashed, "wal-1.log"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(crashed, "LOCK"), nil, 0o644)
	ix, err := Create(crashed, cfg)
	if err != nil {
		t.Fatalf("Create over a crashed Create's leftovers: %v", err)
	}
	ix.Close()
}
