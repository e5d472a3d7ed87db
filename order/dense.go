package order

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/prefetch"
	"github.com/simjoin/simjoin/shingle"
)

// Records of small integers (token ids numbered beforehand) skip the
// vocabulary's hash table: a value indexes an array of counts directly
// (Input.dense), which for a million values is 8 MiB against the table's
// 16 bytes a slot for each distinct key, and holds no key to compare. The
// keys come back only once a value, when the order is built: each distinct
// value's key is shingle.IntKey of it, entered in the order the table would
// have seen it, so that the order, and every figure of a join, is the one
// the keys give.

// denseFloor is the length up to which the dense array may grow whatever
// the tokens read so far (32 MiB): beyond it, to at most twice the tokens
// added, so the array costs at most 16 bytes a token.
const denseFloor = 1 << 22

// AddInts appends len(offs)-1 records at once, as AddBatch does: record r
// has the tokens vals[offs[r]:offs[r+1]] (offs[0] must be 0), each a value
// below shingle.IntLimit that stands for the key shingle.IntKey(v), in any
// order, repeats ignored. The result is the same as adding each record's
// keys with Add. While every record has come this way and the values stay
// below twice the tokens added (or denseFloor), a token costs one step in
// an array indexed by its value instead of a hash-table step, on the
// calling goroutine; otherwise the values are turned into keys and
// entered as keys (and the records so far moved to the table, once).
// Cost: O(tokens) and, when the array grows, O(its length).
func (in *Input) AddInts(vals []uint32, offs []int) {
	if len(offs) < 2 {
		return
	}
	n := offs[len(offs)-1]
	if n == 0 {
		in.AddBatch(nil, offs)
		return
	}
	if !in.denseFor(vals[:n]) {
		in.addIntsAsKeys(vals, offs)
		return
	}
	if in.offs == nil {
		in.offs = append(in.offs, 0)
	}
	base := in.Tokens()
	ids := in.reserve(n)
	d := in.dense
	w := 0
	stamp := uint32(in.Len()) + 1 // the low half of dense[v] for the record at hand
	in.offs = slices.Grow(in.offs, len(offs)-1)
	// The counts of the values of the record a few ahead are hinted into
	// cache: the array is larger than the processor's nearer caches, and
	// its loads would otherwise wait one after another.
	const ahead = 4
	for r := 1; r < len(offs); r++ {
		if a := r + ahead; a < len(offs) {
			prefetch.Indexes(d, vals[offs[a-1]:offs[a]], 0)
		}
		first := len(in.firsts)
		for _, v := range vals[offs[r-1]:offs[r]] {
			s := d[v]
			if uint32(s) == stamp {
				continue // a repeat within the record
			}
			if s == 0 {
				in.firsts = append(in.firsts, v)
			}
			d[v] = (s>>32+1)<<32 | uint64(stamp)
			ids[w] = v
			w++
		}
		if len(in.firsts)-first > 1 {
			in.sortFirsts(in.firsts[first:])
		}
		in.offs = append(in.offs, base+w)
		stamp++
	}
	in.unreserve(n - w)
}

// denseFor reports whether vals can be added to the dense array, growing
// it if they need: the Input is empty or dense, and the largest value fits
// in an array of at most max(denseFloor, 2·tokens) entries. A dense Input
// that cannot take them is moved to the table.
func (in *Input) denseFor(vals []uint32) bool {
	if in.dense == nil && (in.voc.len() > 0 || in.Tokens() > 0) {
		return false
	}
	top := uint32(0)
	for _, v := range vals {
		top = max(top, v)
	}
	if top >= shingle.IntLimit {
		panic("order: AddInts value not below shingle.IntLimit")
	}
	if int(top) < len(in.dense) {
		return true
	}
	size := 1 << bits.Len32(top)
	if size > max(denseFloor, 2*(in.Tokens()+len(vals))) {
		if in.dense != nil {
			in.toKeys()
		}
		return false
	}
	d := make([]uint64, size)
	copy(d, in.dense)
	in.dense = d
	return true
}

// sortFirsts sorts the values first seen in one record by key, the order
// in which the table takes a record's keys.
func (in *Input) sortFirsts(vs []uint32) {
	type kv struct {
		key uint64
		v   uint32
	}
	s := make([]kv, len(vs))
	for i, v := range vs {
		s[i] = kv{shingle.IntKey(v), v}
	}
	slices.SortFunc(s, func(a, b kv) int { return cmp.Compare(a.key, b.key) })
	for i := range s {
		vs[i] = s[i].v
	}
}

// addIntsAsKeys adds the records of AddInts by their keys.
func (in *Input) addIntsAsKeys(vals []uint32, offs []int) {
	keys := make([]uint64, 0, offs[len(offs)-1])
	kofs := make([]int, 1, len(offs))
	for r := 1; r < len(offs); r++ {
		from := len(keys)
		for _, v := range vals[offs[r-1]:offs[r]] {
			keys = append(keys, shingle.IntKey(v))
		}
		slices.Sort(keys[from:])
		keys = keys[:from+len(slices.Compact(keys[from:]))]
		kofs = append(kofs, len(keys))
	}
	in.AddBatch(keys, kofs)
}

// toKeys moves a dense Input's vocabulary to the table: each value's key
// entered with its document frequency, in the order of firsts, and the
// records' ids rewritten from values to the table's provisional ids.
func (in *Input) toKeys() {
	d := in.dense
	var counts [shards]int
	for _, v := range in.firsts {
		counts[shardOf(keymap.Hash(shingle.IntKey(v)))]++
	}
	// Room to grow: the table keeps taking keys after the move.
	in.voc.size(&counts, 1)
	for _, v := range in.firsts {
		k := shingle.IntKey(v)
		d[v] = uint64(in.voc.addHash(k, keymap.Hash(k), uint32(d[v]>>32)))
	}
	for _, c := range in.chunks {
		for j, v := range c {
			c[j] = uint32(d[v])
		}
	}
	in.dense, in.firsts = nil, nil
}

// unreserve gives back the last n ids that reserve handed out.
func (in *Input) unreserve(n int) {
	if n > 0 {
		k := len(in.chunks) - 1
		in.chunks[k] = in.chunks[k][:len(in.chunks[k])-n]
	}
}

// denseShards returns what buildDictionary needs of a dense Input, by
// shard and local id as the table would have numbered them: the keys,
// their document frequencies, and their values. The Input's dense array is
// dropped.
func denseShards(in *Input) (keys [shards][]uint64, df [shards][]uint32, vals [shards][]uint32) {
	var counts [shards]int
	sh := make([]uint8, len(in.firsts))
	for i, v := range in.firsts {
		s := shardOf(keymap.Hash(shingle.IntKey(v)))
		sh[i] = uint8(s)
		counts[s]++
	}
	for s := range keys {
		keys[s] = make([]uint64, 0, counts[s])
		df[s] = make([]uint32, 0, counts[s])
		vals[s] = make([]uint32, 0, counts[s])
	}
	for i, v := range in.firsts {
		s := sh[i]
		keys[s] = append(keys[s], shingle.IntKey(v))
		df[s] = append(df[s], uint32(in.dense[v]>>32))
		vals[s] = append(vals[s], v)
	}
	in.dense, in.firsts = nil, nil
	return keys, df, vals
}
