package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
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
	NextID ID `json:"next_id"`
	// Gen numbers the files written; each checkpoint takes a new one.
	Gen      uint64   `json:"gen"`
	Dict     string   `json:"dict,omitempty"`
	WAL      string   `json:"wal"`
	Segments []segRef `json:"segments"`
	// Reordered is the number of live records at the last compaction that
	// re-ordered the tokens (the automatic compaction policy).
	Reordered uint64 `json:"reordered"`
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
	if _, err = f.Write(b); err == nil {
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
	if v := binary.LittleEndian.Uint32(b[8:]); v != formatVersion {
		return nil, corrupt(path, "format version %d, this build reads %d", v, formatVersion)
	}
	n := int(binary.LittleEndian.Uint32(b[12:]))
	if n != len(b)-20 {
		return nil, corrupt(path, "length %d, file holds %d", n, len(b)-20)
	}
	if crc32.Checksum(b[:16+n], castagnoli) != binary.LittleEndian.Uint32(b[16+n:]) {
		return nil, corrupt(path, "checksum mismatch")
	}
	m := new(manifest)
	if err := json.Unmarshal(b[16:16+n], m); err != nil {
		return nil, corrupt(path, "%v", err)
	}
	return m, nil
}
