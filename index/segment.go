package index

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/prefix"
)

// segment is an immutable, memory-mapped part of the index: records in
// ascending ID order (row r has ID ids[r]), and for
//
//   - Exact: the sets as sorted token ids (sets[offs[r]:offs[r+1]]) and the
//     prefix postings of every set (post[poff[w]:poff[w+1]] for token w,
//     ascending row), each set's prefix the probe prefix at MinThreshold, so
//     that a query of any size at any threshold >= MinThreshold meets every
//     record it can reach;
//   - LSH: the packed signatures (sigs, rowBytes per row), one band table per
//     band (bent[boff[j]:boff[j+1]] sorted by key then row) and, with raw
//     sets, the sorted token keys (keys[koffs[r]:koffs[r+1]]).
//
// Its tombstones are not part of it: they live in the snapshot (state).
// refs counts the states that hold the segment; the mapping is released when
// the last one lets it go.
type segment struct {
	file *blockFile
	name string // file name inside the index directory

	ids  []uint64         // row r's record id; strictly ascending
	offs []uint32         // Exact: rows()+1 offsets into sets, non-decreasing
	sets []uint32         // Exact: row r's set, sorted ascending, is sets[offs[r]:offs[r+1]]
	poff []uint32         // Exact: one offset per token id and one more, non-decreasing
	post []prefix.Posting // Exact: each token's postings, rows ascending, Pos < Size
	// The pair index (pairs.go): entries under first token a are
	// pent[ppoff[a]:ppoff[a+1]].
	ppoff []uint32
	pent  []pentry
	phash []pairSlot // the distinct pairs, hashed (pairs.go)

	rowBytes int         // LSH: bytes of one signature (Perm·Bits/8)
	sigs     []byte      // LSH: rows()·rowBytes bytes
	boff     []uint32    // LSH: bands+1 offsets into bent
	bent     []bandEntry // LSH: band j's table bent[boff[j]:boff[j+1]], sorted by (key, row), rows() entries each (checked under -tags invariants)
	koffs    []uint32    // LSH with raw sets: rows()+1 offsets into keys
	keys     []uint64    // LSH with raw sets: row r's sorted keys
	// LSH with band filters (bloom.go): band j's filter is
	// bloom[j*bloomLen:(j+1)*bloomLen], over every key of its band table.
	bloom    []uint32
	bloomLen int

	// With keys: row r's stored key is ukey[ukoff[r]:ukoff[r+1]], keys
	// distinct (every row was live when written, and live records hold
	// distinct keys); ukhash finds a key's row (keys.go).
	ukoff  []uint32
	ukey   []byte
	ukhash []keySlot
	// With stored text: row r's text is text[txoff[r]:txoff[r+1]], its
	// payload payload[pyoff[r]:pyoff[r+1]] (empty: none).
	txoff, pyoff  []uint64
	text, payload []byte
}

// bandEntry is one row of a band table: the band key of a record and its row.
type bandEntry struct {
	key uint64
	row uint32
	_   uint32
}

// compareBandEntries orders a band table by (key, row), as every band table
// of a segment is sorted, so that a bucket is a run.
func compareBandEntries(a, b bandEntry) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.row, b.row)
}

// checkBandTables panics unless the band tables of the segment at path, of
// rows rows (band j's table bent[boff[j]:boff[j+1]]), each hold rows entries
// sorted by (key, row). Called under -tags invariants when a segment is
// written or opened.
func checkBandTables(path string, bent []bandEntry, boff []uint32, rows int) {
	for j := 0; j+1 < len(boff); j++ {
		if boff[j] > boff[j+1] || int(boff[j+1]) > len(bent) || int(boff[j+1]-boff[j]) != rows {
			panic(fmt.Sprintf("index: %s: band table %d at [%d, %d) of %d entries, want %d rows", path, j, boff[j], boff[j+1], len(bent), rows))
		}
		if !slices.IsSortedFunc(bent[boff[j]:boff[j+1]], compareBandEntries) {
			panic(fmt.Sprintf("index: %s: band table %d not sorted by (key, row)", path, j))
		}
	}
}

func (s *segment) rows() int { return len(s.ids) }

func (s *segment) set(r int) []uint32 { return s.sets[s.offs[r]:s.offs[r+1]] }

func (s *segment) keySet(r int) []uint64 { return s.keys[s.koffs[r]:s.koffs[r+1]] }

func (s *segment) sig(r int) []byte { return s.sigs[r*s.rowBytes : (r+1)*s.rowBytes] }

func (s *segment) keyOf(r int) []byte     { return s.ukey[s.ukoff[r]:s.ukoff[r+1]] }
func (s *segment) textOf(r int) []byte    { return s.text[s.txoff[r]:s.txoff[r+1]] }
func (s *segment) payloadOf(r int) []byte { return s.payload[s.pyoff[r]:s.pyoff[r+1]] }

// lookupKey returns the row that holds the stored key b.
func (s *segment) lookupKey(b []byte) (int, bool) { return lookupKeyTable(s.ukhash, b, s.keyOf) }

// postings returns the postings of token w; nil when none.
func (s *segment) postings(w uint32) []prefix.Posting {
	if int(w)+1 >= len(s.poff) {
		return nil
	}
	return s.post[s.poff[w]:s.poff[w+1]]
}

// mayHold reports whether band j's table may hold key: false when the
// band's filter says it does not (true without filters).
func (s *segment) mayHold(j int, key uint64) bool {
	return s.bloom == nil || bloomHas(s.bloom[j*s.bloomLen:(j+1)*s.bloomLen], key)
}

// countBuckets, when set, counts the band table lookups (bucket). Can
// change for testing.
var countBuckets *atomic.Int64

// bucket returns the rows of band j whose key is key.
func (s *segment) bucket(j int, key uint64) []bandEntry {
	if countBuckets != nil {
		countBuckets.Add(1)
	}
	tab := s.bent[s.boff[j]:s.boff[j+1]]
	lo, _ := slices.BinarySearchFunc(tab, key, func(e bandEntry, k uint64) int {
		if e.key < k {
			return -1
		}
		if e.key > k {
			return 1
		}
		return 0
	})
	hi := lo
	for hi < len(tab) && tab[hi].key == key {
		hi++
	}
	return tab[lo:hi]
}

// rowOf returns the row of id.
func (s *segment) rowOf(id seq) (int, bool) {
	return slices.BinarySearch(s.ids, uint64(id))
}

func (s *segment) ref()   { s.file.ref() }
func (s *segment) unref() { s.file.unref() }

// segmentRecords is what a segment is written from: n records in ascending ID
// order, given by accessors.
type segmentRecords struct {
	ids  []uint64
	set  func(r int) []uint32 // Exact
	keys func(r int) []uint64 // LSH with raw sets
	sig  func(r int) []byte   // LSH
	// The stored key (with keys), text and payload (with stored text).
	ukey, text, payload func(r int) []byte
}

// writeSegment writes recs as a segment file at path.
func writeSegment(path string, cfg *Config, vocab int, recs segmentRecords) error {
	n := len(recs.ids)
	bw, err := createBlockFile(path, kindSegment)
	if err != nil {
		return err
	}
	var meta [16]byte
	binary.LittleEndian.PutUint64(meta[:], uint64(n))
	binary.LittleEndian.PutUint32(meta[8:], uint32(cfg.Method))
	bw.block("meta", meta[:])
	bw.block("ids", bytesOf(recs.ids))
	switch cfg.Method {
	case Exact:
		offs := make([]uint32, n+1)
		for r := 0; r < n; r++ {
			offs[r+1] = offs[r] + uint32(len(recs.set(r)))
		}
		parts := make([][]byte, 0, n)
		for r := 0; r < n; r++ {
			parts = append(parts, bytesOf(recs.set(r)))
		}
		bw.block("offs", bytesOf(offs))
		bw.block("sets", parts...)
		minB := prefix.NewBounds(cfg.Measure, cfg.MinThreshold)
		pix := prefix.NewIndex(n, vocab, recs.set, func(x int) int { return singlePrefix(minB, x) }, 1)
		poff := make([]uint32, vocab+1)
		post := make([]prefix.Posting, 0, pix.Len())
		for w := 0; w < vocab; w++ {
			post = append(post, pix.Postings(uint32(w))...)
			poff[w+1] = uint32(len(post))
		}
		bw.block("poff", bytesOf(poff))
		bw.block("post", bytesOf(post))
		ppoff, pent := buildPairs(n, vocab, recs.set, minB)
		bw.block("ppoff", bytesOf(ppoff))
		bw.block("pent", bytesOf(pent))
		bw.block("phash", bytesOf(buildPairHash(ppoff, pent)))
	case LSH:
		rb := cfg.Perm * cfg.Bits / 8
		parts := make([][]byte, 0, n)
		for r := 0; r < n; r++ {
			parts = append(parts, recs.sig(r))
		}
		bw.block("sigs", parts...)
		bb := cfg.Rows * cfg.Bits / 8
		boff := make([]uint32, cfg.Bands+1)
		bent := make([]bandEntry, 0, n*cfg.Bands)
		for j := 0; j < cfg.Bands; j++ {
			start := len(bent)
			for row := 0; row < n; row++ {
				b := recs.sig(row)[j*bb : (j+1)*bb]
				bent = append(bent, bandEntry{key: approx.BandKey(b, j), row: uint32(row)})
			}
			slices.SortFunc(bent[start:], compareBandEntries)
			boff[j+1] = uint32(len(bent))
		}
		if invariants.Enabled {
			checkBandTables(path, bent, boff, n)
		}
		_ = rb
		bw.block("boff", bytesOf(boff))
		bw.block("bent", bytesOf(bent))
		if cfg.BloomFPP < NoBloom {
			bw.block("bloom", bytesOf(buildBlooms(cfg.Bands, n, cfg.BloomFPP, func(j, r int) uint64 { return bent[int(boff[j])+r].key })))
		}
		if cfg.RawSets {
			koffs := make([]uint32, n+1)
			kparts := make([][]byte, 0, n)
			for r := 0; r < n; r++ {
				k := recs.keys(r)
				koffs[r+1] = koffs[r] + uint32(len(k))
				kparts = append(kparts, bytesOf(k))
			}
			bw.block("koffs", bytesOf(koffs))
			bw.block("keys", kparts...)
		}
	}
	if cfg.Keys != NoKeys {
		ukoff, parts := csr32(n, recs.ukey)
		bw.block("ukoff", bytesOf(ukoff))
		bw.block("ukey", parts...)
		bw.block("ukhash", bytesOf(buildKeyTable(n, recs.ukey)))
	}
	if cfg.StoreText {
		txoff, tparts := csr64(n, recs.text)
		bw.block("txoff", bytesOf(txoff))
		bw.block("text", tparts...)
		pyoff, pparts := csr64(n, recs.payload)
		bw.block("pyoff", bytesOf(pyoff))
		bw.block("payload", pparts...)
	}
	return bw.close()
}

// csr32 returns the n+1 offsets of the byte strings f(0..n-1) and the
// strings, for a CSR pair of blocks.
func csr32(n int, f func(r int) []byte) ([]uint32, [][]byte) {
	off := make([]uint32, n+1)
	parts := make([][]byte, n)
	for r := range n {
		parts[r] = f(r)
		off[r+1] = off[r] + uint32(len(parts[r]))
	}
	return off, parts
}

// csr64 is csr32 with 64-bit offsets, for stored text (a segment may hold
// more than 4 GiB of it).
func csr64(n int, f func(r int) []byte) ([]uint64, [][]byte) {
	off := make([]uint64, n+1)
	parts := make([][]byte, n)
	for r := range n {
		parts[r] = f(r)
		off[r+1] = off[r] + uint64(len(parts[r]))
	}
	return off, parts
}

// openSegment maps the segment file at dir/name and checks its structure.
func openSegment(dir, name string, cfg *Config, how load) (*segment, error) {
	path := dir + "/" + name
	bf, err := openBlockFile(path, kindSegment, how)
	if err != nil {
		return nil, err
	}
	s := &segment{file: bf, name: name}
	if err := s.load(cfg); err != nil {
		bf.close()
		return nil, err
	}
	return s, nil
}

func (s *segment) load(cfg *Config) error {
	bf := s.file
	meta, err := bf.need("meta", 16)
	if err != nil {
		return err
	}
	n := int(binary.LittleEndian.Uint64(meta))
	if m := Method(binary.LittleEndian.Uint32(meta[8:])); m != cfg.Method {
		return corrupt(bf.path, "segment of method %v in a %v index", m, cfg.Method)
	}
	b, err := bf.need("ids", 8)
	if err != nil {
		return err
	}
	s.ids = asU64(b)
	if len(s.ids) != n {
		return corrupt(bf.path, "%d ids for %d rows", len(s.ids), n)
	}
	u32 := func(tag string, want int) ([]uint32, error) {
		b, err := bf.need(tag, 4)
		if err != nil {
			return nil, err
		}
		v := asU32(b)
		if want >= 0 && len(v) != want {
			return nil, corrupt(bf.path, "block %q: %d entries, want %d", tag, len(v), want)
		}
		return v, nil
	}
	switch cfg.Method {
	case Exact:
		if s.offs, err = u32("offs", n+1); err != nil {
			return err
		}
		if s.sets, err = u32("sets", int(s.offs[n])); err != nil {
			return err
		}
		if s.poff, err = u32("poff", -1); err != nil {
			return err
		}
		b, err := bf.need("post", 12)
		if err != nil {
			return err
		}
		if len(s.poff) == 0 || int(s.poff[len(s.poff)-1]) != len(b)/12 {
			return corrupt(bf.path, "postings and their offsets disagree")
		}
		if len(b) > 0 {
			s.post = unsafeSlice[prefix.Posting](b)
		}
		if s.ppoff, err = u32("ppoff", len(s.poff)); err != nil {
			return err
		}
		if b, err = bf.need("pent", 24); err != nil {
			return err
		}
		if int(s.ppoff[len(s.ppoff)-1]) != len(b)/24 {
			return corrupt(bf.path, "pair index and its offsets disagree")
		}
		if len(b) > 0 {
			s.pent = unsafeSlice[pentry](b)
		}
		if b, err = bf.need("phash", 16); err != nil {
			return err
		}
		if n := len(b) / 16; n&(n-1) != 0 {
			return corrupt(bf.path, "pair hash table of %d slots", n)
		}
		if len(b) > 0 {
			s.phash = unsafeSlice[pairSlot](b)
		}
	case LSH:
		s.rowBytes = cfg.Perm * cfg.Bits / 8
		if s.sigs, err = bf.need("sigs", s.rowBytes); err != nil {
			return err
		}
		if len(s.sigs) != n*s.rowBytes {
			return corrupt(bf.path, "signatures for %d rows, want %d", len(s.sigs)/s.rowBytes, n)
		}
		if s.boff, err = u32("boff", cfg.Bands+1); err != nil {
			return err
		}
		b, err := bf.need("bent", 16)
		if err != nil {
			return err
		}
		if int(s.boff[cfg.Bands]) != len(b)/16 {
			return corrupt(bf.path, "band tables and their offsets disagree")
		}
		if len(b) > 0 {
			s.bent = unsafeSlice[bandEntry](b)
		}
		if invariants.Enabled {
			checkBandTables(bf.path, s.bent, s.boff, n)
		}
		if cfg.BloomFPP < NoBloom {
			b, err := bf.need("bloom", cfg.Bands*bloomBlockBytes)
			if err != nil {
				return err
			}
			s.bloom = asU32(b)
			if s.bloomLen = len(s.bloom) / cfg.Bands; s.bloomLen == 0 {
				return corrupt(bf.path, "band filters of no block")
			}
		}
		if cfg.RawSets {
			if s.koffs, err = u32("koffs", n+1); err != nil {
				return err
			}
			b, err := bf.need("keys", 8)
			if err != nil {
				return err
			}
			s.keys = asU64(b)
			if len(s.keys) != int(s.koffs[n]) {
				return corrupt(bf.path, "keys and their offsets disagree")
			}
		}
	}
	if cfg.Keys != NoKeys {
		if s.ukoff, err = u32("ukoff", n+1); err != nil {
			return err
		}
		if s.ukey, err = bf.need("ukey", 1); err != nil {
			return err
		}
		if !ascending(s.ukoff, uint64(len(s.ukey))) {
			return corrupt(bf.path, "keys and their offsets disagree")
		}
		for r := range n {
			if !checkKeyBytes(cfg.Keys, s.keyOf(r)) {
				return corrupt(bf.path, "row %d: not a key of kind %s", r, cfg.Keys)
			}
		}
		b, err := bf.need("ukhash", 8)
		if err != nil {
			return err
		}
		if len(b) > 0 {
			s.ukhash = unsafeSlice[keySlot](b)
		}
		if k := len(s.ukhash); k&(k-1) != 0 || k*3 < n*4 {
			return corrupt(bf.path, "key table of %d slots for %d rows", k, n)
		}
		used := 0
		for _, sl := range s.ukhash {
			if sl.row1 > uint32(n) {
				return corrupt(bf.path, "key table names row %d of %d", sl.row1-1, n)
			}
			if sl.row1 != 0 {
				used++
			}
		}
		if used != n {
			return corrupt(bf.path, "key table holds %d rows of %d", used, n)
		}
	}
	if cfg.StoreText {
		u64 := func(tag string) ([]uint64, error) {
			b, err := bf.need(tag, 8)
			if err != nil {
				return nil, err
			}
			if v := asU64(b); len(v) == n+1 {
				return v, nil
			}
			return nil, corrupt(bf.path, "block %q: %d entries, want %d", tag, len(b)/8, n+1)
		}
		if s.txoff, err = u64("txoff"); err != nil {
			return err
		}
		if s.pyoff, err = u64("pyoff"); err != nil {
			return err
		}
		if s.text, err = bf.need("text", 1); err != nil {
			return err
		}
		if s.payload, err = bf.need("payload", 1); err != nil {
			return err
		}
		if !ascending(s.txoff, uint64(len(s.text))) || !ascending(s.pyoff, uint64(len(s.payload))) {
			return corrupt(bf.path, "stored text and its offsets disagree")
		}
	}
	return nil
}

// ascending reports whether off starts at 0, never decreases and ends at
// end: a CSR offsets array over end values.
func ascending[T uint32 | uint64](off []T, end uint64) bool {
	if len(off) == 0 || off[0] != 0 || uint64(off[len(off)-1]) != end {
		return false
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return false
		}
	}
	return true
}
