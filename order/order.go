package order

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/simjoin/simjoin/internal/gcpace"
	"github.com/simjoin/simjoin/internal/hugepage"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/keysort"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
)

// ErrTooLarge is returned when a collection would exceed the 32-bit limits of
// the arena: 2³²-1 records or distinct tokens.
var ErrTooLarge = errors.New("order: collection too large")

// Input accumulates raw token sets, each a list of 64-bit keys as the shingle
// package produces them. Every key is given a provisional 32-bit id in a
// hash table that also counts document frequencies, so the arena holds 4
// bytes a token and no key is stored twice. The first keys wait, copied (8
// bytes a token, up to 64 MiB), until the order is built or their number
// reaches pendingCap: the table is then made once at the length that their
// number of distinct keys, counted by a sketch, asks for, rather than
// doubling as they arrive (pending.go). The arena is a list
// of chunks that are filled, never copied: a growing slice would copy the
// arena about once more and touch about twice its pages on the way. The zero
// value is empty and ready. An Input is not safe for concurrent mutation.
type Input struct {
	// Workers bounds the goroutines that AddBatch, and New or Build, start
	// for this input: 0 or less means GOMAXPROCS (parallel.Workers). The
	// collection and its dictionary are the same for any value. AddBatch
	// runs at most GOMAXPROCS of them (each reads the whole batch).
	Workers int
	// chunks hold the provisional ids, record by record, distinct within a
	// record; no record spans two chunks.
	chunks [][]uint32
	// first[k] is the first record of chunks[k], ascending strictly: the
	// records of chunk k are first[k]..first[k+1]-1 (and every record after
	// the last first is in the last chunk).
	first []int
	// Record r's ids are chunks[k][offs[r]-offs[first[k]] : offs[r+1]-offs[first[k]]]
	// for its chunk k: offs counts tokens over all chunks; nil before the
	// first record, then offs[0] = 0, non-decreasing.
	offs []int
	voc  vocab // every key entered, with its provisional id and document frequency
	// pend holds the keys of the last records, added but not yet entered
	// in voc nor given ids in chunks: while it holds any, voc has no
	// tables (voc.ready is false) and dense is nil.
	pend pending
	// dense, when not nil, is the vocabulary instead of voc (which is then
	// empty): every record so far came as small values (AddValues), and a
	// token's provisional id is its value v. dense[v] holds v's document
	// frequency in its high half and the index + 1 of the last record that
	// held v in its low half (0: none), so a value repeated within a record
	// is dropped with the same load that counts it. len(dense) is a power
	// of two above every value added.
	dense []uint64
	// distinct is the number of values of dense held by some record (its
	// entries with a nonzero count).
	distinct int
	// blocks list the values of dense held by some record, distinct in
	// all, in the order in which voc would have taken their keys: by first
	// appearance, and within a record by key (values.Key), except that the
	// runs listed in unsorted are in the record's order until sortRuns
	// sorts them. No record's run is split between two blocks. The blocks
	// grow as the chunks do (appendChunk) and are never joined: it is what
	// makes the dense road give the order the keys' road gives.
	blocks [][]uint32
	// values says which key each value of dense stands for (AddValues's
	// vk); nil when dense is.
	values Values
	// unsorted holds pairs lo, hi: the values lo..hi-1 of the blocks
	// joined, within one block, are the values first seen in one record,
	// two or more, in the record's order.
	unsorted []int
	scratch  []uint64
}

// Chunk capacities double from firstChunkIDs (4 KiB) up to chunkIDs (4 MiB),
// so that a small input allocates (and the runtime zeroes) little while a
// large one wastes at most one chunk's tail.
const (
	firstChunkIDs = 1 << 10
	chunkIDs      = 1 << 20
)

// reserve returns room for n ids of records about to be added: the end of
// the last chunk, or a new chunk if it has not enough room.
func (in *Input) reserve(n int) []uint32 { return in.reserveAt(in.Len(), n) }

// reserveAt is reserve for the records from record onward, which may have
// been counted already (their keys waited: pending).
func (in *Input) reserveAt(record, n int) []uint32 {
	k := len(in.chunks) - 1
	if k < 0 || len(in.chunks[k])+n > cap(in.chunks[k]) {
		in.chunks = appendChunk(in.chunks, n)
		in.first = append(in.first, record)
		k++
	}
	c := in.chunks[k]
	in.chunks[k] = c[:len(c)+n]
	return in.chunks[k][len(c):]
}

// appendChunk appends to chunks an empty one with room for at least n
// ids (or keys): capacities double from firstChunkIDs up to chunkIDs.
func appendChunk[T uint32 | uint64](chunks [][]T, n int) [][]T {
	size := firstChunkIDs
	if k := len(chunks) - 1; k >= 0 {
		size = min(2*cap(chunks[k]), chunkIDs)
	}
	return append(chunks, make([]T, 0, max(n, size)))
}

// chunkOf returns the chunk holding record r (-1 if no chunk precedes it: r
// and every record before it are empty). Cost: O(log chunks).
func (in *Input) chunkOf(r int) int {
	k, found := slices.BinarySearch(in.first, r)
	if !found {
		k--
	}
	return k
}

// set returns record r's ids, given its chunk k (chunkOf).
func (in *Input) set(k, r int) []uint32 {
	if k < 0 {
		return nil
	}
	base := in.offs[in.first[k]]
	return in.chunks[k][in.offs[r]-base : in.offs[r+1]-base]
}

// Add appends one record. The keys are copied, sorted and de-duplicated; the
// caller may reuse the slice. An empty slice adds an empty record.
// Cost: O(k log k) for k keys plus one hash-table step a key, amortised.
func (in *Input) Add(keys []uint64) {
	in.scratch = append(in.scratch[:0], keys...)
	slices.Sort(in.scratch)
	in.add(slices.Compact(in.scratch))
}

// AddSorted appends one record whose keys are already sorted ascending and
// distinct (as a tokenizing worker may prepare them in parallel). Keys that
// are not are sorted and de-duplicated as Add does, so the result is the same.
func (in *Input) AddSorted(keys []uint64) {
	for i := 1; i < len(keys); i++ {
		if keys[i] <= keys[i-1] {
			in.Add(keys)
			return
		}
	}
	in.add(keys)
}

func (in *Input) add(keys []uint64) {
	if len(keys) > 0 && in.dense != nil {
		in.toKeys() // an empty record leaves the values' road open
	}
	if in.offs == nil {
		in.offs = append(in.offs, 0)
	}
	if len(keys) > 0 && in.waits(len(keys)) {
		in.pend.hold(in.Len(), keys)
	} else if len(keys) > 0 {
		in.voc.prepare()
		ids := in.reserve(len(keys))
		for j, k := range keys {
			ids[j] = in.voc.add(k)
		}
	}
	in.offs = append(in.offs, in.Tokens()+len(keys))
	in.flushFull()
}

// waits reports whether n more keys are to wait (pending) rather than be
// entered: no table has been made yet (by Grow, or for keys that waited
// before) and the Input is not on the values' road.
func (in *Input) waits(n int) bool { return !in.voc.ready && in.dense == nil && n > 0 }

// flushFull enters the keys waiting once pendingCap of them do, the tables
// sized for the distinct keys so far with room to double one shard after
// another (spread 1) as later records add more.
func (in *Input) flushFull() {
	if in.pend.n >= pendingCap {
		in.flush(1)
	}
}

// AddBatch appends len(offs)-1 records at once: record r has the keys
// keys[offs[r]:offs[r+1]], each record's keys sorted ascending and distinct
// (offs[0] must be 0). The keys are entered on in.Workers goroutines; the
// result is the same as adding the records one by one with AddSorted. A batch with a record
// whose keys are not sorted and distinct is added record by record.
func (in *Input) AddBatch(keys []uint64, offs []int) {
	for r := 0; r+1 < len(offs); r++ {
		rec := keys[offs[r]:offs[r+1]]
		for i := 1; i < len(rec); i++ {
			if rec[i] <= rec[i-1] {
				for r := 0; r+1 < len(offs); r++ {
					in.AddSorted(keys[offs[r]:offs[r+1]])
				}
				return
			}
		}
	}
	if len(offs) < 2 {
		return
	}
	if in.offs == nil {
		in.offs = append(in.offs, 0)
	}
	base, n := in.Tokens(), offs[len(offs)-1]
	if n > 0 && in.dense != nil {
		in.toKeys()
	}
	if in.waits(n) {
		in.pend.hold(in.Len(), keys[:n])
	} else if n > 0 {
		in.voc.addBatch(keys[:n], in.reserve(n), in.Workers)
	}
	in.offs = slices.Grow(in.offs, len(offs)-1)
	for _, o := range offs[1:] {
		in.offs = append(in.offs, base+o)
	}
	in.flushFull()
}

// Grow sizes an empty Input's vocabulary for about distinct keys, so that
// its tables need not grow step by step (each step rehashes every key into
// fresh memory). A hint too large costs 21 to 25 bytes a key of it (shard
// s's table is made 2^(s/32) times the length that holds its share of the
// hint three quarters full, 1 to 1.16 times, so that, should the hint fall
// short, the tables double one after another rather than all at once); on
// an Input that already holds keys, or values (AddValues), it does nothing.
// Without it, the first keys wait until the order is built and the tables
// are sized for them then (pending.go): Grow is for a caller that knows the
// number better, or cannot spare the 8 bytes a waiting key costs.
func (in *Input) Grow(distinct int) {
	if in.voc.len() > 0 || in.pend.n > 0 || in.dense != nil || distinct <= 0 {
		return
	}
	var keys [shards]int
	for sh := range keys {
		keys[sh] = distinct / shards
	}
	in.voc.size(&keys, 0.25)
}

// Len returns the number of records added.
func (in *Input) Len() int {
	if len(in.offs) == 0 {
		return 0
	}
	return len(in.offs) - 1
}

// Tokens returns the number of distinct tokens summed over all records.
func (in *Input) Tokens() int {
	if len(in.offs) == 0 {
		return 0
	}
	return in.offs[len(in.offs)-1]
}

// Vocabulary returns the number of distinct keys added so far. Keys still
// waiting are entered first (the work the order's build would do).
func (in *Input) Vocabulary() int {
	if in.dense != nil {
		return in.distinct
	}
	in.flush(1)
	return in.voc.len()
}

// Dictionary is the global token order: dense ids 0..Len()-1 assigned by
// document frequency ascending (rare first), ties broken by a fixed hash of
// the key and then by first appearance in the input (so the same input always
// gives the same order; any order gives the same join results). It is immutable once built and safe for
// concurrent use.
type Dictionary struct {
	// keys holds the key of every id (distinct), made on first use
	// (keyList) in a dictionary built from values (lazy): then vals holds
	// each id's value, whose key is values.Key of it, until keys are made
	// (4 bytes an id held instead of 8, and no key made for a join that
	// never asks for one).
	keys     []uint64
	vals     []uint32
	values   Values
	lazy     bool
	keysOnce sync.Once
	// ones is the number of ids of document frequency 1: ids 0..ones-1
	// (rare first), whose frequencies are not stored. Most keys of a large
	// vocabulary are held by one set (the Go tree's shingles: 3.2M of 4.0M).
	ones int
	df   []uint32 // by id - ones, for ids ones..Len()-1: >= 2, non-decreasing
	// voc maps every key of keys to its id + 1, and no other key. It is
	// built on the first Lookup (once), not kept from the Input's
	// vocabulary: most joins never look a key up, and the vocabulary's
	// table is the largest structure of the order, freed before the
	// collection is built.
	once sync.Once
	voc  vocab
	// workers is the number of goroutines that build voc: the Workers of
	// the Input the dictionary was built from.
	workers int
}

// Len returns the number of distinct tokens.
func (d *Dictionary) Len() int { return d.ones + len(d.df) }

// Key returns the 64-bit key of token id. The first call on a dictionary
// built from values (Input.AddValues) makes every key, on the dictionary's
// workers.
func (d *Dictionary) Key(id uint32) uint64 { return d.keyList()[id] }

// keyList returns the keys by id, making them first if the dictionary was
// built from values.
func (d *Dictionary) keyList() []uint64 {
	if d.lazy {
		d.keysOnce.Do(func() {
			keys := make([]uint64, len(d.vals))
			parallel.For(context.Background(), len(keys), 1<<14, d.workers, func(_, lo, hi int) {
				for id, v := range d.vals[lo:hi] {
					keys[lo+id] = d.values.Key(v)
				}
			})
			d.keys, d.vals, d.values = keys, nil, nil
		})
	}
	return d.keys
}

// DF returns the document frequency of token id over the collections the
// dictionary was built from.
func (d *Dictionary) DF(id uint32) int {
	if int(id) < d.ones {
		return 1
	}
	return int(d.df[int(id)-d.ones])
}

// Lookup returns the id of key, and false when key is not in the dictionary.
// Cost: O(1) expected; the first call builds the dictionary's hash table
// (O(Len()), 16 to 43 bytes a key). Safe for concurrent use.
func (d *Dictionary) Lookup(key uint64) (uint32, bool) {
	d.once.Do(d.index)
	return d.voc.lookup(key)
}

// index builds voc from keys, each shard's keys entered in id order.
func (d *Dictionary) index() {
	var counts [shards]int
	keys := d.keyList()
	for _, k := range keys {
		counts[shardOf(keymap.Hash(k))]++
	}
	d.voc.size(&counts, 0)
	parallel.For(context.Background(), shards, 1, d.workers, func(_, lo, hi int) {
		for id, k := range keys {
			h := keymap.Hash(k)
			if sh := int(shardOf(h)); sh >= lo && sh < hi {
				e, _ := d.voc.tabs[sh].InsertHash(k, h<<shardBits)
				*e = entry(id + 1)
			}
		}
	})
}

// Map appends to dst the ids of the distinct keys of a query set, sorted
// ascending, and returns the extended slice. Keys outside the dictionary get
// ids from Len() upward in order of appearance: they are distinct tokens that
// no indexed set shares, which keeps every bound valid. keys must be
// de-duplicated (as Input.Add would make them).
func (d *Dictionary) Map(dst []uint32, keys []uint64) []uint32 {
	start := len(dst)
	next := uint32(d.Len())
	for _, k := range keys {
		if id, ok := d.Lookup(k); ok {
			dst = append(dst, id)
		} else {
			dst = append(dst, next)
			next++
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// Collection holds token sets over a Dictionary's ids: each set sorted
// ascending (rare first) and de-duplicated, all sets in one uint32 arena with
// offsets, records ordered by size ascending, then by a fixed 64-bit hash of
// their tokens, then by original index, so that identical sets are adjacent
// (a hash collision between different sets of one size could separate
// copies; that costs a join only a probe, never a pair). Empty records are not
// stored; they are counted by Skipped. A Collection is immutable and safe for
// concurrent use.
type Collection struct {
	dict    *Dictionary
	tokens  []uint32 // every set, sorted ascending, one after another
	offs    []int    // set i is tokens[offs[i]:offs[i+1]]; offs[0] = 0, sizes non-decreasing
	ids     []uint32 // original 0-based record index, by position
	records int      // records given, empty ones included
	// group holds the first position of every run of identical sets, then
	// Len(): group g is positions group[g]..group[g+1]-1, all with one set,
	// whose ids ascend; adjacent groups hold different sets (computed once,
	// when the collection is built).
	group []uint32
}

// Dict returns the dictionary the collection's ids refer to.
func (c *Collection) Dict() *Dictionary { return c.dict }

// Len returns the number of non-empty records stored.
func (c *Collection) Len() int { return len(c.ids) }

// Records returns the number of records given, empty ones included.
func (c *Collection) Records() int { return c.records }

// Skipped returns the number of empty records, which never join.
func (c *Collection) Skipped() int { return c.records - len(c.ids) }

// Tokens returns the number of tokens stored, summed over all sets.
func (c *Collection) Tokens() int { return len(c.tokens) }

// Set returns the set at position i (0 <= i < Len()), in size order. The slice
// aliases the arena and must not be modified.
func (c *Collection) Set(i int) []uint32 { return c.tokens[c.offs[i]:c.offs[i+1]:c.offs[i+1]] }

// Arena returns every set, one after another in position order: Set(i) is
// Arena()[Offset(i) : Offset(i)+Size(i)]. For callers that keep their own
// offsets into it (a join keeps one per group, so that a set costs one
// lookup, not three). The slice aliases the collection and must not be
// modified.
func (c *Collection) Arena() []uint32 { return c.tokens }

// Offset returns where the set at position i begins in Arena.
func (c *Collection) Offset(i int) int { return c.offs[i] }

// Size returns len(Set(i)) without slicing.
func (c *Collection) Size(i int) int { return c.offs[i+1] - c.offs[i] }

// ID returns the original 0-based index of the record at position i.
func (c *Collection) ID(i int) int { return int(c.ids[i]) }

// Groups returns the number of runs of identical sets: the distinct
// non-empty sets (a hash collision between different sets of one size could
// split one set's copies into two runs; that costs a join a probe, never a
// pair).
func (c *Collection) Groups() int { return len(c.group) - 1 }

// Group returns the positions lo..hi-1 of group g (0 <= g < Groups()): its
// records all hold the set Set(lo), their ids ascending. Cost: O(1).
func (c *Collection) Group(g int) (lo, hi int) { return int(c.group[g]), int(c.group[g+1]) }

// findGroups computes c.group from the sets.
func (c *Collection) findGroups() {
	n := c.Len()
	c.group = make([]uint32, 0, n+1)
	for i := 0; i < n; i++ {
		if i == 0 || c.Size(i) != c.Size(i-1) || !slices.Equal(c.Set(i), c.Set(i-1)) {
			c.group = append(c.group, uint32(i))
		}
	}
	c.group = append(c.group, uint32(n))
	if invariants.Enabled {
		c.checkGroups()
	}
}

// checkGroups panics unless every group holds one set with ids ascending and
// no set stands in two groups: identical sets are adjacent (checked under
// -tags invariants; a hash collision between different sets of one size
// could in principle separate copies).
func (c *Collection) checkGroups() {
	seen := make(map[string]int, c.Groups())
	for g := range c.Groups() {
		lo, hi := c.Group(g)
		for i := lo + 1; i < hi; i++ {
			if !slices.Equal(c.Set(i), c.Set(lo)) || c.ids[i] <= c.ids[i-1] {
				panic(fmt.Sprintf("order: group %d: position %d holds another set or ids do not ascend", g, i))
			}
		}
		key := fmt.Sprint(c.Set(lo))
		if h, ok := seen[key]; ok {
			panic(fmt.Sprintf("order: groups %d and %d hold the same set: identical sets not adjacent", h, g))
		}
		seen[key] = g
	}
}

// New builds the order from in and returns the collection over it. It
// consumes in: the Input is empty afterwards, so that its arena can be freed
// while the collection is built.
//
// Cost: O(T log k) for T tokens in sets of size k, on in.Workers goroutines,
// and a sort of the vocabulary; peak memory about 8 bytes a token plus the
// vocabulary's table.
func New(in *Input) (*Collection, error) {
	cs, err := Build(in)
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// Build builds one order from the document frequencies over all inputs (for an
// R-S join: the union of R and S) and returns one collection per input, all
// sharing one Dictionary. It consumes the inputs, and runs on the first
// input's Workers goroutines.
func Build(inputs ...*Input) ([]*Collection, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	workers := inputs[0].Workers
	for _, in := range inputs {
		if in.Len() >= 1<<32-1 || in.Tokens() >= 1<<32-1 {
			return nil, ErrTooLarge
		}
	}
	for _, in := range inputs {
		in.flush(0.125) // no key comes after: tables of the length the sketch asks for
	}
	dense := true
	for _, in := range inputs {
		dense = dense && in.dense != nil && in.values == inputs[0].values
	}
	if dense {
		// Every input's records are values: their vocabularies merged
		// into the first's, and the collections built over its final id
		// by value.
		mergeDense(inputs, workers)
		distinct := inputs[0].distinct
		dict, final := buildDenseDictionary(inputs[0], workers)
		// The first-seen values and their shards are dropped (5 bytes
		// a value), then the dense array (8 bytes an entry): their
		// pages, returned, are the ones the arrays made next take
		// (gcpace.Release, where the process asked for it).
		gcpace.Release(int64(distinct) * 5)
		hashes := rewriteAll(final, inputs, uint32(dict.Len()), workers)
		dict.vals = denseValues(final, dict.Len(), workers)
		dropped := int64(len(final)) * 8
		final = nil // not held beside the new arenas
		gcpace.Release(dropped)
		if invariants.Enabled {
			dict.check()
		}
		return arrangeAll(dict, inputs, hashes, workers), nil
	}
	for _, in := range inputs {
		if in.dense != nil {
			in.toKeys()
		}
	}
	// Merge every input's vocabulary into the first one's, each shard's keys
	// in order of first appearance (so that the ties of the order are the
	// same however the records were split into inputs' shards).
	base := &inputs[0].voc
	base.prepare()
	for _, in := range inputs[1:] {
		var remap [shards][]uint32
		for sh := range in.voc.tabs {
			slots := in.voc.tabs[sh].Slots()
			remap[sh] = localOrder(&in.voc.tabs[sh])
			for local, si := range remap[sh] {
				s := slots[si]
				remap[sh][local] = base.addHash(s.Key, keymap.Hash(s.Key), s.Val.df())
			}
		}
		for _, c := range in.chunks {
			for j, pid := range c {
				c[j] = remap[pid&(shards-1)][pid>>shardBits]
			}
		}
		in.voc = vocab{}
	}
	if base.len() >= 1<<32-1 {
		return nil, ErrTooLarge
	}
	dict, final := buildDictionary(base, workers)
	hashes := rewriteAll(final, inputs, uint32(dict.Len()), workers)
	final = nil // 4 bytes a provisional id: not held beside the new arenas
	return arrangeAll(dict, inputs, hashes, workers), nil
}

// localOrder returns the slot index of every key of t by local id.
func localOrder(t *keymap.Map[entry]) []uint32 {
	at := make([]uint32, t.Len())
	for i, s := range t.Slots() {
		if s.Val.id() != 0 {
			at[s.Val.id()-1] = uint32(i)
		}
	}
	return at
}

// buildDictionary orders the provisional ids rare-first (document frequency
// ascending, ties by shard and then first appearance within it, which the
// provisional ids record) with a counting sort, and returns the dictionary
// and the final id of each provisional id (final[pid]). The vocabulary is
// consumed: each shard's table gives its keys and frequencies by local id
// and is dropped at once, before the dictionary's arrays are made, so that
// the tables (21 to 43 bytes a key) and the dictionary (8 to 12) are never
// held together. The slots are walked in order, on workers goroutines, and
// the per-key arrays by local id are written at random or walked in order,
// so that no step reads at random. Cost: O(V + max df); memory at most
// about what the tables held.
func buildDictionary(v *vocab, workers int) (*Dictionary, []uint32) {
	var keys [shards][]uint64 // by local id
	var df [shards][]uint32   // document frequency by local id
	parallel.For(context.Background(), shards, 1, workers, func(_, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			t := &v.tabs[sh]
			f, ks := make([]uint32, t.Len()), make([]uint64, t.Len())
			for _, s := range t.Slots() {
				if s.Val.id() != 0 {
					f[s.Val.id()-1], ks[s.Val.id()-1] = s.Val.df(), s.Key
				}
			}
			*t = keymap.Map[entry]{}
			df[sh], keys[sh] = f, ks
		}
	})
	*v = vocab{}
	d, final := orderShards(&df, workers)
	d.keys = make([]uint64, d.Len())
	// The keys by id, each shard's dropped once placed.
	parallel.For(context.Background(), shards, 1, workers, func(_, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			f := final[sh]
			for local, k := range keys[sh] {
				d.keys[f[local]] = k
			}
			keys[sh] = nil
		}
	})
	if invariants.Enabled {
		d.check()
	}
	// The final ids by provisional id, in one array (one random access a
	// token in rewriteSets, which it can hint into cache).
	most := 0
	for sh := range final {
		most = max(most, len(final[sh]))
	}
	flat := make([]uint32, most*shards)
	hugepage.Advise(flat) // read at random by rewriteSets
	parallel.For(context.Background(), shards, 1, workers, func(_, lo, hi int) {
		for sh := lo; sh < hi; sh++ {
			for local, id := range final[sh] {
				flat[local<<shardBits|sh] = id
			}
			final[sh] = nil
		}
	})
	return d, flat
}

// orderShards makes the dictionary of the document frequencies given by
// shard and local id, and returns it with each key's final id by shard and
// local id (in df's arrays, which it takes over). The dictionary's keys are
// left for the caller to place (Dictionary.keys or vals, by final id), and
// to check the dictionary after.
func orderShards(df *[shards][]uint32, workers int) (*Dictionary, [shards][]uint32) {
	n, m := 0, uint32(0)
	for sh := range df {
		n += len(df[sh])
		for _, f := range df[sh] {
			m = max(m, f)
		}
	}
	final := *df // document frequency by local id, then final id
	start := make([]uint32, m+2)
	for sh := range final {
		for _, f := range final[sh] {
			start[f+1]++
		}
	}
	for f := 1; f < len(start); f++ {
		start[f] += start[f-1]
	}
	// start[f] is now the first id of frequency f: those below start[2]
	// have frequency 1 (every key has 1 or more).
	ones := int(start[min(2, len(start)-1)])
	d := &Dictionary{ones: ones, df: make([]uint32, n-ones), workers: workers}
	for sh := range final {
		for local, f := range final[sh] {
			id := start[f]
			start[f]++
			final[sh][local] = id
			if f > 1 {
				d.df[int(id)-ones] = f
			}
		}
	}
	return d, final
}

// check panics unless the invariants stated on Dictionary's fields hold
// (called under -tags invariants). Cost: O(Len()) lookups.
func (d *Dictionary) check() {
	keys := d.keyList()
	if d.Lookup(0); d.voc.len() != len(keys) || d.ones+len(d.df) != len(keys) {
		panic(fmt.Sprintf("order: dictionary of %d keys, %d+%d frequencies, %d keys in its table", len(keys), d.ones, len(d.df), d.voc.len()))
	}
	for id, key := range keys {
		if got, ok := d.Lookup(key); !ok || int(got) != id {
			panic(fmt.Sprintf("order: dictionary id %d: its key maps to %d (found: %v)", id, got, ok))
		}
	}
	for k, f := range d.df {
		if f < 2 || k > 0 && f < d.df[k-1] {
			panic(fmt.Sprintf("order: dictionary id %d: document frequency %d after %d: not rare first", d.ones+k, f, d.DF(uint32(max(d.ones+k-1, 0)))))
		}
	}
}

// rewriteAll rewrites every input's sets over the final ids (rewriteSets)
// and returns their records' set hashes, by input. Build drops final before
// arrangeAll makes the collections' arenas.
func rewriteAll[F uint32 | uint64](final []F, inputs []*Input, limit uint32, workers int) [][]uint64 {
	hashes := make([][]uint64, len(inputs))
	for i, in := range inputs {
		hashes[i] = rewriteSets(final, in, limit, workers)
	}
	return hashes
}

// arrangeAll returns the collection of each input over dict, its sets
// rewritten and hashed (rewriteAll), each arranged in turn (arrange). The
// inputs are consumed.
func arrangeAll(dict *Dictionary, inputs []*Input, hashes [][]uint64, workers int) []*Collection {
	out := make([]*Collection, len(inputs))
	for i, in := range inputs {
		h := hashes[i]
		hashes[i] = nil // arrange drops it when it has sorted the records
		out[i] = arrange(dict, in, h, workers)
		*in = Input{}
	}
	return out
}

// rewriteSets maps the provisional ids of in to final ids (uint32 of
// final[pid], all below limit) in place, sorts each set, and returns each record's set hash (for the
// record order of arrange), each set hashed while it is in cache; on
// workers goroutines.
func rewriteSets[F uint32 | uint64](final []F, in *Input, limit uint32, workers int) []uint64 {
	n := in.Len()
	hashes := make([]uint64, n)
	forRecords(n, workers, func(lo, hi int) {
		var sorter keysort.Sorter // ids are dense, below limit
		k := in.chunkOf(lo)
		// The final ids of the record a few ahead are hinted into cache
		// (one random access a token otherwise waited for in turn).
		const ahead = 4
		ka := in.chunkOf(min(lo+ahead, max(hi-1, lo)))
		for r := lo; r < hi; r++ {
			if a := r + ahead; a < hi {
				for ka+1 < len(in.first) && in.first[ka+1] <= a {
					ka++
				}
				prefetch.Indexes(final, in.set(ka, a), 0)
			}
			for k+1 < len(in.first) && in.first[k+1] <= r {
				k++
			}
			rec := in.set(k, r)
			for j, pid := range rec {
				rec[j] = uint32(final[pid])
			}
			// A set given in order of its tokens' frequency, most frequent
			// first (ids numbered beforehand, read as values by AddValues),
			// comes out nearly descending, the worst case of the insertion
			// sort SortIDs uses on short sets; reversed, it is its best.
			if len(rec) > 1 && rec[0] > rec[len(rec)-1] {
				slices.Reverse(rec)
			}
			sorter.SortIDs(rec, limit)
			hashes[r] = mix.SetHash(rec)
		}
	})
	return hashes
}

// arrange orders the records of in, whose sets rewriteSets has rewritten
// and hashed (hashes), by size, set hash and original index, and copies
// them into the collection's arena, on workers goroutines.
func arrange(dict *Dictionary, in *Input, hashes []uint64, workers int) *Collection {
	n := in.Len()
	offs := in.offs
	// Order the records by (size, hash of the set, index): identical sets,
	// having equal hashes, end up adjacent. A counting sort by size (stable,
	// so each size's run keeps the records' order), then each run sorted by
	// (hash, index), the runs on the workers; no comparison touches a set.
	maxSize := 0
	for r := 0; r < n; r++ {
		maxSize = max(maxSize, offs[r+1]-offs[r])
	}
	start := make([]int, maxSize+2) // the run of size z is recs[start[z]:start[z+1]]
	for r := 0; r < n; r++ {
		start[offs[r+1]-offs[r]+1]++
	}
	start[1] = 0 // empty records are not stored
	for z := 1; z < len(start); z++ {
		start[z] += start[z-1]
	}
	recs := make([]rec, start[maxSize+1])
	next := slices.Clone(start)
	for r := 0; r < n; r++ {
		if z := offs[r+1] - offs[r]; z > 0 {
			recs[next[z]] = rec{hash: hashes[r], idx: uint32(r)}
			next[z]++
		}
	}
	next, hashes = nil, nil
	parallel.For(context.Background(), maxSize+1, 1, workers, func(_, lo, hi int) {
		var scratch []rec
		for z := lo; z < hi; z++ {
			scratch = sortRecs(recs[start[z]:start[z+1]], scratch)
		}
	})
	c := &Collection{
		dict:    dict,
		offs:    make([]int, len(recs)+1),
		ids:     make([]uint32, len(recs)),
		records: n,
	}
	for k, r := range recs {
		c.ids[k] = r.idx
		c.offs[k+1] = c.offs[k] + offs[r.idx+1] - offs[r.idx]
	}
	recs = nil // 16 bytes a record, not needed beside the new arena
	c.tokens = make([]uint32, in.Tokens())
	// Each set is copied to its place in the new arena: where the set of
	// record r starts is scattered into at[r] first, so that the sets can
	// then be read in the old arena's order (sequential loads) and written
	// all over the new one (stores, which do not hold up the loop as the
	// loads of a gather in the new order would: each waited on a miss for
	// the record's offsets and another for its set).
	at := make([]uint32, n)
	for k, r := range c.ids {
		at[r] = uint32(c.offs[k]) // below 2³², as Build checked the tokens
	}
	forRecords(n, workers, func(lo, hi int) {
		k := in.chunkOf(lo)
		for r := lo; r < hi; r++ {
			for k+1 < len(in.first) && in.first[k+1] <= r {
				k++
			}
			set := in.set(k, r)
			copy(c.tokens[at[r]:int(at[r])+len(set)], set)
		}
	})
	c.findGroups()
	return c
}

// rec is a record in the sort of arrange: its set's hash and its
// index.
type rec struct {
	hash uint64
	idx  uint32
}

// sortRecs sorts recs, given in ascending idx, by (hash, idx), and returns
// the scratch space it used (for the next call). Hashes are even over 64
// bits, so a counting sort on their top bits into about two records a
// bucket (stable: each bucket keeps idx order) leaves buckets that an
// insertion sort on the hash finishes in about linear time; a bucket of
// many distinct hashes (which even hashes make unlikely) is sorted by
// comparison instead. Identical sets have equal hashes and stay in idx
// order. (The 59,000 password bigram sets' order phase: 18 ms instead of
// 22 with a comparison sort.)
func sortRecs(recs, scratch []rec) []rec {
	if len(recs) < 2*bucketRecs {
		insertionRecs(recs)
		return scratch
	}
	bits := 1
	for 1<<(bits+1) <= len(recs)/bucketRecs {
		bits++
	}
	count := make([]int, 1<<bits+1)
	shift := 64 - bits
	for _, r := range recs {
		count[r.hash>>shift+1]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	scratch = slices.Grow(scratch[:0], len(recs))[:len(recs)]
	for _, r := range recs {
		b := r.hash >> shift
		scratch[count[b]] = r
		count[b]++
	}
	lo := 0
	for b := 0; b < 1<<bits; b++ {
		hi := count[b]
		bucket := scratch[lo:hi]
		if len(bucket) <= 4*bucketRecs {
			insertionRecs(bucket)
		} else {
			slices.SortFunc(bucket, func(a, b rec) int {
				if c := cmp.Compare(a.hash, b.hash); c != 0 {
					return c
				}
				return cmp.Compare(a.idx, b.idx)
			})
		}
		lo = hi
	}
	copy(recs, scratch)
	return scratch
}

// bucketRecs is the number of records a bucket of sortRecs holds on average.
const bucketRecs = 2

// insertionRecs sorts recs, in ascending idx, by hash, stably (equal hashes
// keep their idx order).
func insertionRecs(recs []rec) {
	for i := 1; i < len(recs); i++ {
		v := recs[i]
		j := i
		for ; j > 0 && recs[j-1].hash > v.hash; j-- {
			recs[j] = recs[j-1]
		}
		recs[j] = v
	}
}

// forRecords splits the records [0, n) into blocks and runs f on them on
// workers goroutines (parallel.For); one worker takes them in one block.
func forRecords(n, workers int, f func(lo, hi int)) {
	workers = parallel.Workers(workers)
	// Blocks small enough that a few thousand long records (documents)
	// still spread over the workers, large enough to amortise taking them.
	block := min(4096, max(16, n/(8*workers)))
	if workers == 1 {
		block = n
	}
	parallel.For(context.Background(), n, block, workers, func(_, lo, hi int) { f(lo, hi) })
}

// Subset returns the collection of the records at positions pos (ascending,
// each 0 <= p < Len()) over the same Dictionary: the same ids and order, the
// sets copied into a new arena, ID(i) the parent's original index of the
// record. Records() is len(pos) and Skipped() zero. It serves to join a
// sample exactly as the whole would be joined. Cost: O(tokens of the subset).
func (c *Collection) Subset(pos []int) *Collection {
	n := 0
	for k, p := range pos {
		if k > 0 && p <= pos[k-1] {
			panic("order: Subset positions not ascending")
		}
		n += c.Size(p)
	}
	s := &Collection{
		dict:    c.dict,
		tokens:  make([]uint32, 0, n),
		offs:    make([]int, 1, len(pos)+1),
		ids:     make([]uint32, len(pos)),
		records: len(pos),
	}
	for k, p := range pos {
		s.tokens = append(s.tokens, c.Set(p)...)
		s.offs = append(s.offs, len(s.tokens))
		s.ids[k] = c.ids[p]
	}
	s.findGroups()
	return s
}
