package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// manifestName is the file that says what the index is: its Config and the
// files that hold it. It is replaced atomically (written to a temporary
// file, fsynced, renamed, directory fsynced), which is the commit point of a
// checkpoint or compaction:
//
//	magic "SJIXMAN\x00", version u32, length u32, JSON, CRC-32C u32 of all before
const manifestName = "MANIFEST"

var manMagic = [8]byte{'S', 'J', 'I', 'X', 'M', 'A', 'N', 0}

type manifest struct {
	Config Config `json:"config"`
	// NextID is the id the first record after the segments gets: the WAL's
	// first insert starts there.
	NextID seq `json:"next_id"`
	// Gen numbers the files written; each checkpoint takes a new one.
	Gen      uint64   `json:"gen"`
	Dict     string   `json:"dict,omitempty"`
	WAL      string   `json:"wal"`
	Segments []segRef `json:"segments"`
	// Reordered is the number of live records at the last compaction that
	// re-ordered the tokens (the automatic compaction policy).
	Reordered uint64 `json:"reordered"`
	// WALCut is the number of bytes cut off write-ahead logs over the
	// index's life: partial last blocks cut by Open, damaged tails cut by
	// Repair. Never decreases.
	WALCut int64 `json:"wal_cut,omitempty"`
	// version is the format version the manifest was read in (not in its
	// JSON): an open for writing upgrades an index of an older one.
	version uint32
}

type segRef struct {
	File string `json:"file"`
	Tomb string `json:"tomb,omitempty"`
}

func writeManifest(dir string, m *manifest) error {
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b := append([]byte{}, manMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, formatVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	b = append(b, js...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	tmp := filepath.Join(dir, manifestName+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err = fault("manifest", tmp); err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, manifestName))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func readManifest(dir string) (*manifest, error) {
	path := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNotIndex
		}
		return nil, err
	}
	if len(b) < 20 || [8]byte(b[:8]) != manMagic {
		return nil, corrupt(path, "not an index manifest")
	}
	v := binary.LittleEndian.Uint32(b[8:])
	if !knownVersion(v) {
		return nil, corrupt(path, "%v", versionError(v))
	}
	n := int(binary.LittleEndian.Uint32(b[12:]))
	if n != len(b)-20 {
		return nil, corrupt(path, "length %d, file holds %d", n, len(b)-20)
	}
	if crc32.Checksum(b[:16+n], castagnoli) != binary.LittleEndian.Uint32(b[16+n:]) {
		return nil, corrupt(path, "checksum mismatch")
	}
	m, err := parseManifest(b[16 : 16+n])
	if err != nil {
		return nil, corrupt(path, "%v", err)
	}
	if v < 2 && (m.Config.Keys != NoKeys || m.Config.StoreText) {
		return nil, corrupt(path, "keys or stored text in a manifest of format version %d", v)
	}
	m.version = v
	return m, nil
}

// parseManifest reads a manifest's JSON body and checks it: its Config is
// one Create would have stored, and every file it names is a plain name of
// the form its kind is written under, numbered by a generation not past
// Gen, and named once. A manifest that passes names only files inside the
// index directory, whatever its bytes. Cost: O(len(js)).
func parseManifest(js []byte) (*manifest, error) {
	m := new(manifest)
	if err := json.Unmarshal(js, m); err != nil {
		return nil, err
	}
	c := m.Config
	c.Force = true // a banding taken once stays taken
	if err := c.check(); err != nil || c != m.Config {
		return nil, fmt.Errorf("not a configuration Create stores: %+v", m.Config)
	}
	if m.Gen == 0 {
		return nil, errors.New("generation 0")
	}
	if m.WALCut < 0 {
		return nil, fmt.Errorf("wal_cut %d", m.WALCut)
	}
	seen := map[string]bool{}
	name := func(field, s string, k fileKind) error {
		gen, ok := parseFileName(s, k)
		switch {
		case !ok:
			return fmt.Errorf("%s %q is not a file name of the form %s", field, s, k.form())
		case gen > m.Gen:
			return fmt.Errorf("%s %q is of generation %d, past the manifest's %d", field, s, gen, m.Gen)
		case seen[s]:
			return fmt.Errorf("%s %q is named twice", field, s)
		}
		seen[s] = true
		return nil
	}
	if err := name("wal", m.WAL, fileWAL); err != nil {
		return nil, err
	}
	if m.Config.Method == Exact && m.Dict == "" && len(m.Segments) > 0 {
		return nil, errors.New("segments without a dictionary")
	}
	if m.Dict != "" {
		if m.Config.Method != Exact {
			return nil, fmt.Errorf("dict %q in an %v index", m.Dict, m.Config.Method)
		}
		if err := name("dict", m.Dict, fileDict); err != nil {
			return nil, err
		}
	}
	for i, ref := range m.Segments {
		if err := name(fmt.Sprintf("segments[%d].file", i), ref.File, fileSegment); err != nil {
			return nil, err
		}
		if ref.Tomb != "" {
			if err := name(fmt.Sprintf("segments[%d].tomb", i), ref.Tomb, fileTomb); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// fileKind is a kind of file of an index directory named by the manifest.
type fileKind int

const (
	fileWAL     fileKind = iota // wal-G.log
	fileSegment                 // seg-G.sj
	fileDict                    // dict-G.sj
	fileTomb                    // tomb-G-S.sj
)

var fileForms = [...]struct{ prefix, suffix string }{
	fileWAL:     {"wal-", ".log"},
	fileSegment: {"seg-", ".sj"},
	fileDict:    {"dict-", ".sj"},
	fileTomb:    {"tomb-", ".sj"},
}

// form describes the names of kind k, as an error quotes them.
func (k fileKind) form() string {
	if k == fileTomb {
		return "tomb-G-S.sj"
	}
	return fileForms[k].prefix + "G" + fileForms[k].suffix
}

// parseFileName reports whether s is a name of kind k, each number in it
// decimal without a leading zero, and returns its generation G. Such a name
// has no separator and is never "." or "..": it is a file of the index
// directory itself.
func parseFileName(s string, k fileKind) (gen uint64, ok bool) {
	f := fileForms[k]
	rest, ok := strings.CutPrefix(s, f.prefix)
	if !ok {
		return 0, false
	}
	if rest, ok = strings.CutSuffix(rest, f.suffix); !ok {
		return 0, false
	}
	g, s2, two := strings.Cut(rest, "-")
	if two != (k == fileTomb) {
		return 0, false
	}
	gen, ok = decimal(g)
	if two {
		_, ok2 := decimal(s2)
		ok = ok && ok2
	}
	return gen, ok
}

// decimal reads a canonical decimal: digits only, no leading zero but in
// "0", within uint64.
func decimal(s string) (uint64, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// isIndexFile reports whether name is one the index writes in its
// directory: a file of a kind above or a manifest being replaced.
func isIndexFile(name string) bool {
	if name == manifestName+".tmp" {
		return true
	}
	for k := range fileForms {
		if _, ok := parseFileName(name, fileKind(k)); ok {
			return true
		}
	}
	return false
}
