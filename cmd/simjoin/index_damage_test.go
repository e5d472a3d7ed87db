package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// indexFiles returns the contents of every file of the index directory dir.
func indexFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range dirNames(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// statsValue returns the value of key in index stats' TSV output.
func statsValue(t *testing.T, ix, key string) int64 {
	t.Helper()
	out, _ := cliOK(t, "", "index", "stats", ix)
	m := regexp.MustCompile(`(?m)^` + key + `\t(\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("stats has no %s: %q", key, out)
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	return v
}

// TestIndexVerifyReadOnly cuts an index's write-ahead log short inside a
// batch, as a damaged disk or a stray truncate would: verify, stats and
// search change nothing in the directory, and verify exits 1 saying what
// would be lost; repair cuts the damaged end and says what it held; stats
// then counts the bytes cut in every later run, and the next record gets an
// id that no record of the cut batch had.
func TestIndexVerifyReadOnly(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	var in strings.Builder
	for i := range 500 {
		fmt.Fprintf(&in, "a%d b%d c%d\n", i, i, i)
	}
	cliOK(t, "", "index", "create", ix, "--min-threshold", "0.5")
	cliOK(t, in.String(), "index", "add", ix, "--batch", "100", "-")
	cliOK(t, "", "index", "delete", ix, "3", "4", "5")
	wal := filepath.Join(ix, "wal-1.log")
	data, err := os.ReadFile(wal)
	if err != nil {
		t.Fatal(err)
	}
	// Inside the fifth insert batch (the log holds five of them, then the
	// delete).
	cut := len(data) * 84 / 100
	if err := os.Truncate(wal, int64(cut)); err != nil {
		t.Fatal(err)
	}
	before := indexFiles(t, ix)
	code, out, errs := cliRun(t, "", "index", "verify", ix)
	if code != 1 || out != "" || !strings.Contains(errs, "wal-1.log") || !strings.Contains(errs, "100 records") || strings.Count(errs, "\n") != 1 {
		t.Errorf("verify of a log cut short: exit %d, stdout %q, stderr %q; want 1 and one line naming wal-1.log and the 100 records lost", code, out, errs)
	}
	cliOK(t, "a1 b1 c1\n", "index", "search", ix, "-t", "0.5", "-")
	if got := statsValue(t, ix, "wal_torn"); got == 0 {
		t.Errorf("stats of a log with a partial last batch: wal_torn 0")
	}
	if after := indexFiles(t, ix); !maps.EqualFunc(after, before, bytes.Equal) {
		t.Fatalf("verify, search or stats changed the index directory")
	}
	out, _ = cliOK(t, "", "index", "repair", ix)
	if !strings.Contains(out, "cut ") || !strings.Contains(out, "100 records") {
		t.Errorf("repair: %q, want what it cut", out)
	}
	if got := statsValue(t, ix, "wal_truncated"); got == 0 {
		t.Errorf("stats after repair: wal_truncated 0")
	}
	if out, _ := cliOK(t, "", "index", "verify", ix); out != ix+": ok\n" {
		t.Errorf("verify after repair: %q", out)
	}
	// The cut batch held ids 400 to 499: none is given again.
	out, _ = cliOK(t, "retry me\n", "index", "add", ix, "-")
	var line int
	var id uint64
	if _, err := fmt.Sscanf(out, "%d\tinserted\t%d\n", &line, &id); err != nil || id < 500 {
		t.Errorf("add after repair: %q, want an id past the cut batch's", out)
	}
}

// TestIndexManifestOutside forges the manifest of an index, with a valid
// checksum, to name a write-ahead log outside the directory: verify, add
// and repair refuse the index naming the manifest, and the file outside is
// neither cut nor appended to.
func TestIndexManifestOutside(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	cliOK(t, "", "index", "create", ix, "--min-threshold", "0.5")
	man := filepath.Join(ix, "MANIFEST")
	b, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	js := bytes.Replace(b[16:len(b)-4], []byte(`"wal-1.log"`), []byte(`"../outside/victim.log"`), 1)
	forged := append(append(b[:12:12], binary.LittleEndian.AppendUint32(nil, uint32(len(js)))...), js...)
	forged = binary.LittleEndian.AppendUint32(forged, crc32.Checksum(forged, crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(man, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(filepath.Join(ix, "wal-1.log"))
	os.Mkdir(filepath.Join(dir, "outside"), 0o755)
	victim := filepath.Join(dir, "outside", "victim.log")
	want := append(wal, 7, 0, 0) // a log with a partial last block
	os.WriteFile(victim, want, 0o644)
	for _, args := range [][]string{
		{"index", "verify", ix},
		{"index", "add", ix, "-"},
		{"index", "repair", ix},
		{"index", "stats", ix},
	} {
		code, _, errs := cliRun(t, "x y\n", args...)
		if code != 1 || !strings.Contains(errs, man) {
			t.Errorf("%v: exit %d, %q; want 1 naming %s", args, code, errs, man)
		}
	}
	if got, _ := os.ReadFile(victim); !bytes.Equal(got, want) {
		t.Errorf("the file outside the index changed: %q", got)
	}
}

// TestIndexOutputInside: an output inside the index directory that the
// command opens (its manifest, a segment, its log, a new name, through a
// symbolic link to the directory) or hard-linked to one of its files, is
// refused with exit status 2 before anything is written, by index search
// and passwords check --index (-o and --stats-json); the index is intact.
func TestIndexOutputInside(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	q := cliWrite(t, dir, "q.txt", "password1\nletmein\n")
	cliOK(t, "", "index", "create", ix, "--tokens", "qgram:2", "--min-threshold", "0.5")
	cliOK(t, "password1\npassword2\nletmein\n", "index", "add", ix, "-")
	cliOK(t, "", "index", "compact", ix) // a segment and a dictionary
	var seg string
	for _, n := range dirNames(t, ix) {
		if strings.HasPrefix(n, "seg-") {
			seg = filepath.Join(ix, n)
		}
	}
	if seg == "" {
		t.Fatal("no segment after compact")
	}
	os.Symlink("ix", filepath.Join(dir, "link"))
	hard := filepath.Join(dir, "hard")
	if err := os.Link(filepath.Join(ix, "MANIFEST"), hard); err != nil {
		t.Fatal(err)
	}
	before := indexFiles(t, ix)
	for _, out := range []string{
		filepath.Join(ix, "MANIFEST"), seg, filepath.Join(ix, "wal-2.log"), filepath.Join(ix, "new.tsv"),
		filepath.Join(dir, "link", "MANIFEST"), hard,
	} {
		for _, args := range [][]string{
			{"index", "search", ix, "-t", "0.5", "-o", out, q},
			{"index", "search", filepath.Join(dir, "link"), "-t", "0.5", "-o", out, q},
			{"passwords", "check", "--index", ix, "-t", "0.5", "-o", out, "password1"},
			{"passwords", "check", "--index", ix, "-t", "0.5", "--stats-json", out, "password1"},
		} {
			code, _, errs := cliRun(t, "", args...)
			if code != 2 || strings.Count(errs, "\n") != 1 {
				t.Errorf("%v: exit %d, %q; want 2 and one line", args, code, errs)
			}
		}
	}
	if after := indexFiles(t, ix); !maps.EqualFunc(after, before, bytes.Equal) {
		t.Fatalf("the index directory changed")
	}
	cliOK(t, "", "index", "verify", ix)
	// Beside the index is fine.
	res := filepath.Join(dir, "res.tsv")
	cliOK(t, "", "index", "search", ix, "-t", "0.5", "-o", res, q)
	if b, _ := os.ReadFile(res); len(b) == 0 {
		t.Errorf("search -o beside the index wrote nothing")
	}
}

// TestIndexAddFullDisk fills a 2 MiB tmpfs (mounted for the test: it needs
// root, and skips otherwise) with index add until the disk refuses a
// checkpoint, then retries one record three times, as a user would after
// an error: every run prints exactly the lines of the records it made
// durable (exit status 1 after them when a write failed), so the index
// holds as many copies of the record as runs printed it.
func TestIndexAddFullDisk(t *testing.T) {
	fs := t.TempDir()
	if err := syscall.Mount("tmpfs", fs, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(fs, 0) })
	ix := filepath.Join(fs, "ix")
	cliOK(t, "", "index", "create", ix, "--min-threshold", "0.5")
	printed, failed := 0, false
	for b := 0; b < 20 && !failed; b++ {
		var in strings.Builder
		for i := b * 2000; i < (b+1)*2000; i++ {
			fmt.Fprintf(&in, "x%d y%d z%d w%d\n", i, i, i, i%97)
		}
		code, out, errs := cliRun(t, in.String(), "index", "add", ix, "-")
		printed += strings.Count(out, "\tinserted\t")
		if code != 0 {
			if code != 1 || strings.Count(errs, "\n") != 1 {
				t.Fatalf("add on a full disk: exit %d, %q", code, errs)
			}
			failed = true
		}
	}
	if !failed {
		t.Fatal("the disk never filled")
	}
	copies := 0
	for range 3 {
		code, out, errs := cliRun(t, "retry me\n", "index", "add", ix, "-")
		if code != 0 && code != 1 || code == 1 && strings.Count(errs, "\n") != 1 {
			t.Fatalf("retry: exit %d, %q", code, errs)
		}
		copies += strings.Count(out, "\tinserted\t")
	}
	out, _ := cliOK(t, "retry me\n", "index", "search", ix, "-t", "1", "-")
	if got := strings.Count(out, "\n"); got != copies {
		t.Errorf("the index holds %d copies of the retried record, the runs printed %d", got, copies)
	}
	if live := statsValue(t, ix, "live"); live != int64(printed+copies) {
		t.Errorf("the index holds %d records, the runs printed %d", live, printed+copies)
	}
}

// TestUnknownSubcommand: a name that is none of a command group's
// subcommands (a typo) is an error, never a help page with exit status 0;
// for the index group it is cobra's unknown-command usage error, exit
// status 2, with the subcommand it is a typo of.
func TestUnknownSubcommand(t *testing.T) {
	e := &env{}
	for _, f := range commands {
		c := f(e)
		if !c.HasSubCommands() {
			continue
		}
		code, out, errs := cliRun(t, "", c.Name(), "bogus")
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("simjoin %s bogus: exit %d, stdout %.80q, stderr %q; want an error", c.Name(), code, out, errs)
		}
	}
	code, _, errs := cliRun(t, "", "index", "serch")
	if code != 2 || errs != "simjoin: unknown command \"serch\" for \"simjoin index\" (did you mean search?)\n" {
		t.Errorf("simjoin index serch: exit %d, %q", code, errs)
	}
}
