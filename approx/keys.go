package approx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/rusage"
	"github.com/simjoin/simjoin/join"
)

// KeySets holds the token sets of a collection as 64-bit keys, as package
// shingle produces them, in one arena: set i is Keys[Offs[i]:Offs[i+1]]. It
// is all the LSH joins need: signatures hash the keys themselves and
// candidates are verified by merging sorted keys, so no global token order
// or dictionary is built (order.New costs a hash-table step per token).
//
// Invariants (checked by the joins, ErrKeySets otherwise): Offs[0] == 0,
// Offs ascends, Offs[len(Offs)-1] <= len(Keys), and every set is sorted
// ascending with distinct keys. An empty set is a record that never joins.
// Memory: 8 bytes a key, twice a collection's 4 bytes a token id.
type KeySets struct {
	Keys []uint64
	Offs []int // len(Offs)-1 sets; nil or {0}: none
}

// ErrKeySets is returned (wrapped) for KeySets that break their invariants.
var ErrKeySets = errors.New("approx: key sets not in one arena of sorted, distinct keys")

// Len returns the number of sets (records).
func (s *KeySets) Len() int { return max(len(s.Offs)-1, 0) }

// Tokens returns the number of keys summed over all sets.
func (s *KeySets) Tokens() int {
	if len(s.Offs) == 0 {
		return 0
	}
	return s.Offs[len(s.Offs)-1]
}

// Set returns the keys of set i. The slice aliases the arena.
func (s *KeySets) Set(i int) []uint64 { return s.Keys[s.Offs[i]:s.Offs[i+1]:s.Offs[i+1]] }

// Add appends one set: keys in any order, repeats ignored. The keys are
// copied, then sorted and de-duplicated in the arena; the caller may reuse
// the slice. It has the form of order.Input.Add. Cost: O(k log k) for k keys.
func (s *KeySets) Add(keys []uint64) {
	s.AddBatch(keys, []int{0, len(keys)})
	set := s.Keys[s.Offs[len(s.Offs)-2]:]
	if !slices.IsSorted(set) {
		slices.Sort(set)
	}
	n := len(slices.Compact(set))
	s.Keys = s.Keys[:len(s.Keys)-len(set)+n]
	s.Offs[len(s.Offs)-1] = len(s.Keys)
}

// AddBatch appends len(offs)-1 sets: set r has the keys
// keys[offs[r]:offs[r+1]] (offs[0] must be 0), which must be sorted
// ascending and distinct (the joins check). The keys are copied; the arena
// doubles when it grows. It has the form of order.Input.AddBatch, so that a
// reader can fill either. Cost: O(len(keys)) amortised.
func (s *KeySets) AddBatch(keys []uint64, offs []int) {
	if len(offs) < 2 {
		return
	}
	if len(s.Offs) == 0 {
		s.Offs = append(s.Offs, 0)
	}
	base, n := s.Offs[len(s.Offs)-1], offs[len(offs)-1]
	s.Keys = s.Keys[:base]
	if base+n > cap(s.Keys) {
		// Double, rather than append's quarter for large slices: fewer
		// copies of the arena and fewer fresh pages touched.
		s.Keys = slices.Grow(s.Keys, max(n, base, 1<<16))
	}
	s.Keys = append(s.Keys, keys[:n]...)
	for _, o := range offs[1:] {
		s.Offs = append(s.Offs, base+o)
	}
}

// check verifies the invariants of s, the sets on all workers.
func (s *KeySets) check(ctx context.Context, workers int) error {
	n := s.Len()
	if n == 0 {
		return nil
	}
	if s.Offs[0] != 0 || s.Offs[n] > len(s.Keys) {
		return fmt.Errorf("%w: offsets 0..%d over %d keys", ErrKeySets, s.Offs[n], len(s.Keys))
	}
	bad := make([]int, max(workers, 1))
	for i := range bad {
		bad[i] = -1
	}
	err := parallel.For(ctx, n, 1024, workers, func(w, lo, hi int) {
		for i := lo; i < hi && bad[w] < 0; i++ {
			if s.Offs[i+1] < s.Offs[i] {
				bad[w] = i
				break
			}
			set := s.Set(i)
			for j := 1; j < len(set); j++ {
				if set[j] <= set[j-1] {
					bad[w] = i
					break
				}
			}
		}
	})
	if err != nil {
		return err
	}
	first := -1
	for _, b := range bad {
		if b >= 0 && (first < 0 || b < first) {
			first = b
		}
	}
	if first >= 0 {
		return fmt.Errorf("%w: set %d", ErrKeySets, first)
	}
	return nil
}

// keyUnits groups the identical non-empty sets of s into units: records
// ordered by size, a fixed hash of the keys, the keys themselves and the
// original index, so that identical sets are adjacent whatever their
// hashes (unlike a collection's groups, which a hash collision could split);
// a unit's members ascend by index. It returns the units and the number of
// empty records. Cost: O(T) hashing for T keys on all workers, and a sort of
// the records.
func keyUnits(ctx context.Context, s *KeySets, minSize, workers int) (*units[uint64], int, error) {
	if err := s.check(ctx, workers); err != nil {
		return nil, 0, err
	}
	type rec struct {
		size uint32
		idx  uint32
		hash uint64
	}
	n := s.Len()
	recs := make([]rec, 0, n)
	for i := range n {
		if sz := s.Offs[i+1] - s.Offs[i]; sz > 0 {
			recs = append(recs, rec{size: uint32(sz), idx: uint32(i)})
		}
	}
	err := parallel.For(ctx, len(recs), 256, workers, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			recs[k].hash = mix.SetHash(s.Set(int(recs[k].idx)))
		}
	})
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(recs, func(a, b rec) int {
		if c := cmp.Compare(a.size, b.size); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		if c := slices.Compare(s.Set(int(a.idx)), s.Set(int(b.idx))); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	perm := make([]uint32, len(recs))
	group := make([]uint32, 0, len(recs)+1)
	for k, r := range recs {
		perm[k] = r.idx
		if k == 0 || r.size != recs[k-1].size || r.hash != recs[k-1].hash ||
			!slices.Equal(s.Set(int(r.idx)), s.Set(int(recs[k-1].idx))) {
			group = append(group, uint32(k))
		}
	}
	group = append(group, uint32(len(recs)))
	us := &units[uint64]{
		n:       len(group) - 1,
		set:     func(u int) []uint64 { return s.Set(int(perm[group[u]])) },
		members: func(u int) (lo, hi int) { return int(group[u]), int(group[u+1]) },
		id:      func(pos int) int { return int(perm[pos]) },
		keep:    make([]bool, len(group)-1),
	}
	us.signWith = func(h *Hasher) func([]uint64, int) ([]uint64, int) {
		return func(dst []uint64, u int) ([]uint64, int) { return h.signKeys(dst, us.set(u)) }
	}
	for u := range us.keep {
		us.keep[u] = len(us.set(u)) >= minSize
	}
	return us, n - len(recs), nil
}

// JoinKeys is SelfJoinKeys of r when s is nil, and RSJoinKeys of r and s
// otherwise.
func JoinKeys(ctx context.Context, r, s *KeySets, opt Options, yield func(join.Pair) bool) (Stats, error) {
	if s == nil {
		return SelfJoinKeys(ctx, r, opt, yield)
	}
	return RSJoinKeys(ctx, r, s, opt, yield)
}

// SelfJoinKeys is SelfJoin on sets of token keys: the same pairs with the
// same similarities and the same Stats as SelfJoin on the collection that
// order.New makes of these sets, without building that collection. Record ids
// are set indices. Pairs come out in SelfJoin's order over units numbered
// as keyUnits orders them (by size, then by a hash of the keys), which is
// not a collection's numbering: the same pairs, in another order, the same
// on every run and for any number of workers.
//
// Otherwise as SelfJoin: yield is called from the calling goroutine and
// returning false stops the join; all goroutines have ended on return; ctx
// cancels the join; s is only read.
//
// Cost: checking and hashing the sets O(T) for T keys and sorting the
// records, then as SelfJoin. Memory: as SelfJoin, the sets staying where
// they are.
func SelfJoinKeys(ctx context.Context, s *KeySets, opt Options, yield func(join.Pair) bool) (Stats, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return Stats{}, err
	}
	t0 := rusage.Start()
	us, skipped, err := keyUnits(ctx, s, opt.MinSize, opt.Workers)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Records: s.Len(), Skipped: skipped}
	st.fill(&opt)
	h, err := NewHasher(opt.Scheme, opt.K, opt.Seed)
	if err != nil {
		return st, err
	}
	return selfJoin(ctx, us, h, &opt, st, t0, yield)
}

// RSJoinKeys is RSJoin on sets of token keys, as SelfJoinKeys is SelfJoin:
// the same pairs, similarities and Stats as RSJoin on the collections
// order.Build makes of r and s, grouped by r's distinct sets in keyUnits'
// order.
func RSJoinKeys(ctx context.Context, r, s *KeySets, opt Options, yield func(join.Pair) bool) (Stats, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return Stats{}, err
	}
	t0 := rusage.Start()
	ru, rskip, err := keyUnits(ctx, r, opt.MinSize, opt.Workers)
	if err != nil {
		return Stats{}, err
	}
	su, sskip, err := keyUnits(ctx, s, opt.MinSize, opt.Workers)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Records: r.Len() + s.Len(), Skipped: rskip + sskip}
	st.fill(&opt)
	h, err := NewHasher(opt.Scheme, opt.K, opt.Seed)
	if err != nil {
		return st, err
	}
	return rsJoin(ctx, ru, su, h, &opt, st, t0, yield)
}

// EstimateKeysMemory returns about the bytes a key-set join holds at its
// peak for records sets of keys keys in all, under the resolved opt: the
// keys (8 bytes each), offsets and units (about 40 bytes a record), a
// signature (K·Bits/8 bytes) and band entries (16·B bytes) a record. It
// serves to refuse an input that cannot fit before reading on.
func EstimateKeysMemory(records, keys int, opt Options) int64 {
	perRecord := int64(40 + opt.K*opt.Bits/8 + 16*opt.Shape.B)
	return int64(keys)*8 + int64(records)*perRecord
}
