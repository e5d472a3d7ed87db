package order

import (
	"cmp"
	"errors"
	"runtime"
	"slices"
	"sync"
)

// ErrTooLarge is returned when a collection would exceed the 32-bit limits of
// the arena: 2³²-1 records or distinct tokens.
var ErrTooLarge = errors.New("order: collection too large")

// Input accumulates raw token sets, each a list of 64-bit keys as the shingle
// package produces them, in one arena. The zero value is empty and ready.
// An Input is not safe for concurrent mutation.
type Input struct {
	keys []uint64
	offs []int // len(offs) == Len()+1 once anything is added
}

// Add appends one record. The keys are copied, sorted and de-duplicated in the
// arena; the caller may reuse the slice. An empty slice adds an empty record.
// Cost: O(k log k) for k keys, amortised O(1) allocation.
func (in *Input) Add(keys []uint64) {
	if in.offs == nil {
		in.offs = append(in.offs, 0)
	}
	start := len(in.keys)
	in.keys = append(in.keys, keys...)
	rec := in.keys[start:]
	slices.Sort(rec)
	rec = slices.Compact(rec)
	in.keys = in.keys[:start+len(rec)]
	in.offs = append(in.offs, len(in.keys))
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
	if in.offs == nil {
		in.offs = append(in.offs, 0)
	}
	in.keys = append(in.keys, keys...)
	in.offs = append(in.offs, len(in.keys))
}

// Len returns the number of records added.
func (in *Input) Len() int {
	if len(in.offs) == 0 {
		return 0
	}
	return len(in.offs) - 1
}

// Tokens returns the number of distinct tokens summed over all records.
func (in *Input) Tokens() int { return len(in.keys) }

// Set returns the sorted, de-duplicated keys of record i (0-based). The slice
// aliases the arena and is valid until the next Add.
func (in *Input) Set(i int) []uint64 { return in.keys[in.offs[i]:in.offs[i+1]] }

// Dictionary is the global token order: dense ids 0..Len()-1 assigned by
// document frequency ascending (rare first), ties broken by key ascending. It
// is immutable once built and safe for concurrent use.
type Dictionary struct {
	keys   []uint64 // by id
	df     []uint32 // by id
	sorted []uint64 // keys ascending, for Lookup
	idOf   []uint32 // id of sorted[i]
}

// Len returns the number of distinct tokens.
func (d *Dictionary) Len() int { return len(d.keys) }

// Key returns the 64-bit key of token id.
func (d *Dictionary) Key(id uint32) uint64 { return d.keys[id] }

// DF returns the document frequency of token id over the collections the
// dictionary was built from.
func (d *Dictionary) DF(id uint32) int { return int(d.df[id]) }

// Lookup returns the id of key, and false when key is not in the dictionary.
// Cost: O(log Len()).
func (d *Dictionary) Lookup(key uint64) (uint32, bool) {
	i, ok := slices.BinarySearch(d.sorted, key)
	if !ok {
		return 0, false
	}
	return d.idOf[i], true
}

// Map appends to dst the ids of the distinct keys of a query set, sorted
// ascending, and returns the extended slice. Keys outside the dictionary get
// ids from Len() upward in order of first appearance: they are distinct
// tokens that no indexed set shares, which keeps every bound valid. keys must
// be sorted and de-duplicated (as Input.Set returns them).
func (d *Dictionary) Map(dst []uint32, keys []uint64) []uint32 {
	start := len(dst)
	next := uint32(len(d.keys))
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
// offsets, records ordered by size ascending, then by their tokens, then by
// original index, so that identical sets are adjacent. Empty records are not
// stored; they are counted by Skipped. A Collection is immutable and safe for
// concurrent use.
type Collection struct {
	dict    *Dictionary
	tokens  []uint32
	offs    []int
	ids     []uint32 // original 0-based record index, by position
	records int      // records given, empty ones included
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

// Size returns len(Set(i)) without slicing.
func (c *Collection) Size(i int) int { return c.offs[i+1] - c.offs[i] }

// ID returns the original 0-based index of the record at position i.
func (c *Collection) ID(i int) int { return int(c.ids[i]) }

// New builds the order from in and returns the collection over it. It
// consumes in: the Input is empty afterwards, so that its arena can be freed
// while the collection is built.
//
// Cost: O(T) hash-map operations and O(T log k) sorting for T tokens in sets of
// size k, on all cores; peak memory about 16 bytes per token plus the
// vocabulary.
func New(in *Input) (*Collection, error) {
	cs, err := Build(in)
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// Build builds one order from the document frequencies over all inputs (for an
// R-S join: the union of R and S) and returns one collection per input, all
// sharing one Dictionary. It consumes the inputs.
func Build(inputs ...*Input) ([]*Collection, error) {
	for _, in := range inputs {
		if in.Len() >= 1<<32-1 {
			return nil, ErrTooLarge
		}
	}
	dict, idOf, err := buildDictionary(inputs)
	if err != nil {
		return nil, err
	}
	out := make([]*Collection, len(inputs))
	for i, in := range inputs {
		out[i] = buildCollection(dict, idOf, in)
		*in = Input{}
	}
	return out, nil
}

// buildDictionary counts document frequencies (keys are already unique within
// a record) and assigns ids rare-first.
func buildDictionary(inputs []*Input) (*Dictionary, map[uint64]uint32, error) {
	df := make(map[uint64]uint32)
	for _, in := range inputs {
		for _, k := range in.keys {
			df[k]++
		}
	}
	if len(df) >= 1<<32-1 {
		return nil, nil, ErrTooLarge
	}
	type entry struct {
		key uint64
		df  uint32
	}
	entries := make([]entry, 0, len(df))
	for k, n := range df {
		entries = append(entries, entry{k, n})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if c := cmp.Compare(a.df, b.df); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	d := &Dictionary{
		keys:   make([]uint64, len(entries)),
		df:     make([]uint32, len(entries)),
		sorted: make([]uint64, len(entries)),
		idOf:   make([]uint32, len(entries)),
	}
	for id, e := range entries {
		d.keys[id] = e.key
		d.df[id] = e.df
		df[e.key] = uint32(id) // the map now holds ids
	}
	copy(d.sorted, d.keys)
	perm := make([]uint32, len(entries))
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return cmp.Compare(d.keys[a], d.keys[b]) })
	for i, id := range perm {
		d.sorted[i] = d.keys[id]
		d.idOf[i] = id
	}
	return d, df, nil
}

// buildCollection maps the keys of in to ids, sorts each set and orders the
// records by size, tokens and original index.
func buildCollection(dict *Dictionary, idOf map[uint64]uint32, in *Input) *Collection {
	n := in.Len()
	ids := make([]uint32, len(in.keys))
	parallel(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			a, b := in.offs[r], in.offs[r+1]
			for j := a; j < b; j++ {
				ids[j] = idOf[in.keys[j]]
			}
			slices.Sort(ids[a:b])
		}
	})
	offs := in.offs
	in.keys = nil
	perm := make([]uint32, 0, n)
	for r := 0; r < n; r++ {
		if offs[r+1] > offs[r] {
			perm = append(perm, uint32(r))
		}
	}
	set := func(r uint32) []uint32 { return ids[offs[r]:offs[r+1]] }
	slices.SortFunc(perm, func(a, b uint32) int {
		sa, sb := set(a), set(b)
		if c := cmp.Compare(len(sa), len(sb)); c != 0 {
			return c
		}
		if c := slices.Compare(sa, sb); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	c := &Collection{
		dict:    dict,
		tokens:  make([]uint32, len(ids)),
		offs:    make([]int, len(perm)+1),
		ids:     perm,
		records: n,
	}
	pos := 0
	for i, r := range perm {
		pos += copy(c.tokens[pos:], set(r))
		c.offs[i+1] = pos
	}
	c.tokens = c.tokens[:pos:pos]
	return c
}

// parallel splits [0, n) into blocks and runs f on them on all cores.
func parallel(n int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	const block = 4096
	if workers <= 1 || n <= block {
		f(0, n)
		return
	}
	var next int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				mu.Lock()
				lo := int(next)
				next += block
				mu.Unlock()
				if lo >= n {
					return
				}
				f(lo, min(lo+block, n))
			}
		})
	}
	wg.Wait()
}
