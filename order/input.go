package order

import (
	"slices"
)

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
