package index

import (
	"fmt"
	"slices"
	"sync"

	"github.com/simjoin/simjoin/internal/mix"
)

// dict is the token order of an Exact index: token keys (from package
// shingle) to dense uint32 ids, where a smaller id comes first in every sorted
// set. The base was written at the last checkpoint (ids 0..base-1, rare-first
// after a compaction); tokens first seen since are appended with the next ids,
// after every base token, so every set already stored stays sorted and every
// prefix filter stays correct; only compaction re-orders (package doc).
//
// A dict value is a snapshot when its addedKeys slice ends where the
// snapshot was taken: the writer's later additions (ids at or past len())
// are ignored by its lookups.
type dict struct {
	file     *blockFile
	keysByID []uint64 // base: key of id i (mapped)
	// The base's hash table (mapped): open addressing with linear probing,
	// a power of two of slots at most 3/4 full; slot i holds key hkey[i]
	// with id hid[i]-1, or is empty when hid[i] is 0. The slot of a key is
	// Mix64(key) masked.
	hkey []uint64
	hid  []uint32
	// added maps the tokens appended since the base to their ids, shared by
	// the live dictionary and its snapshots; addedKeys[i] is the key of id
	// len(keysByID)+i. Both only grow between checkpoints (a checkpoint
	// gives the live dictionary new ones).
	added     *addedTokens
	addedKeys []uint64
}

// addedTokens is a map under a read-write lock: BenchmarkAddedTokens
// measured it 10 times faster than a google/btree cloned per snapshot.
type addedTokens struct {
	mu sync.RWMutex // guards m
	m  map[uint64]uint32
}

func newAdded() *addedTokens { return &addedTokens{m: make(map[uint64]uint32)} }

// len returns the number of token ids assigned.
func (d *dict) len() int { return len(d.keysByID) + len(d.addedKeys) }

// lookup returns the id of key. Cost: a hash-table probe of the base (a
// cache miss or two) and, when it misses and tokens were added, a map
// lookup under the read lock.
func (d *dict) lookup(key uint64) (uint32, bool) {
	if len(d.hid) > 0 {
		mask := uint64(len(d.hid) - 1)
		for i := mix.Mix64(key) & mask; ; i = (i + 1) & mask {
			id := d.hid[i]
			if id == 0 {
				break
			}
			if d.hkey[i] == key {
				return id - 1, true
			}
		}
	}
	if len(d.addedKeys) == 0 {
		return 0, false
	}
	d.added.mu.RLock()
	id, ok := d.added.m[key]
	d.added.mu.RUnlock()
	if !ok || int(id) >= d.len() {
		return 0, false // added after this snapshot
	}
	return id, true
}

// key returns the key of id.
func (d *dict) key(id uint32) uint64 {
	if int(id) < len(d.keysByID) {
		return d.keysByID[id]
	}
	return d.addedKeys[int(id)-len(d.keysByID)]
}

// mapSet appends to dst the ids of keys (sorted ascending, distinct), sorted
// ascending. Keys not in the dictionary get ids from len() upward in key
// order: exactly the ids add would give them, so a query's set is the set the
// record would be stored as.
func (d *dict) mapSet(dst []uint32, keys []uint64) []uint32 {
	start := len(dst)
	next := uint32(d.len())
	for _, k := range keys {
		id, ok := d.lookup(k)
		if !ok {
			id = next
			next++
		}
		dst = append(dst, id)
	}
	slices.Sort(dst[start:])
	return dst
}

// add assigns ids to the keys (sorted ascending, distinct) not yet in the
// dictionary, in key order. Only the writer calls it.
func (d *dict) add(keys []uint64) {
	for _, k := range keys {
		if _, ok := d.lookup(k); ok {
			continue
		}
		id := uint32(d.len())
		d.added.mu.Lock()
		d.added.m[k] = id
		d.added.mu.Unlock()
		d.addedKeys = append(d.addedKeys, k)
	}
}

// snapshot returns a copy that the writer's later additions do not change.
func (d *dict) snapshot() dict {
	c := *d
	c.addedKeys = d.addedKeys[:len(d.addedKeys):len(d.addedKeys)]
	return c
}

// writeDict writes the whole dictionary (base and added) as a dict file.
func writeDict(path string, d *dict) error {
	n := d.len()
	byID := make([]uint64, n)
	for i := range byID {
		byID[i] = d.key(uint32(i))
	}
	return writeDictKeys(path, byID)
}

// writeDictKeys writes a dict file for the keys of ids 0..len(byID)-1.
func writeDictKeys(path string, byID []uint64) error {
	slots := 1
	for slots*3 < len(byID)*4+4 {
		slots *= 2
	}
	hkey := make([]uint64, slots)
	hid := make([]uint32, slots)
	mask := uint64(slots - 1)
	for id, k := range byID {
		i := mix.Mix64(k) & mask
		for hid[i] != 0 {
			i = (i + 1) & mask
		}
		hkey[i], hid[i] = k, uint32(id)+1
	}
	bw, err := createBlockFile(path, kindDict)
	if err != nil {
		return err
	}
	bw.block("kbid", bytesOf(byID))
	bw.block("hkey", bytesOf(hkey))
	bw.block("hid", bytesOf(hid))
	return bw.close()
}

// openDict maps a dict file.
func openDict(path string, how load) (dict, error) {
	bf, err := openBlockFile(path, kindDict, how)
	if err != nil {
		return dict{}, err
	}
	d := dict{file: bf, added: newAdded()}
	var blocks [3][]byte
	for i, tag := range []string{"kbid", "hkey", "hid"} {
		elem := 8
		if tag == "hid" {
			elem = 4
		}
		if blocks[i], err = bf.need(tag, elem); err != nil {
			bf.close()
			return dict{}, err
		}
	}
	d.keysByID, d.hkey, d.hid = asU64(blocks[0]), asU64(blocks[1]), asU32(blocks[2])
	n := len(d.hid)
	if len(d.hkey) != n || n&(n-1) != 0 || n*3 < len(d.keysByID)*4 {
		bf.close()
		return dict{}, corrupt(path, "bad hash table: %d slots for %d tokens", n, len(d.keysByID))
	}
	return d, nil
}

func (d *dict) String() string { return fmt.Sprintf("dict(%d+%d)", len(d.keysByID), len(d.addedKeys)) }
