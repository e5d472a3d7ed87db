package join

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/keymap"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/internal/prefetch"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// The ℓ-prefix self-join.
//
// The prefix filter indexes each set under its rarest tokens (ℓ = 1). Where
// the vocabulary is small and sets are short, that is not selective: a list
// of passwords uses a few thousand distinct bigrams (digit-only passwords a
// hundred), even a set's rarest one is common, and at high thresholds the
// index prefix of a short set is a single token, so posting lists grow with
// the collection and candidates with its square (1M generated passwords at
// q = 2, t = 0.8: 333M postings for 0.5M results).
//
// This path uses the ℓ-prefix of AdaptJoin (Wang, Li and Feng, "Can we beat
// the prefix filtering? An adaptive framework for similarity join and
// search", SIGMOD 2012) with ℓ = 2 or 3. In the global token order, if
// |x ∩ y| >= α >= ℓ, the first ℓ tokens that x and y share are followed in
// both sets by the other α-ℓ shared ones, so they lie within the first
// |x| - α + ℓ tokens of x and within the first |y| - α + ℓ of y. So every
// group is indexed under the ℓ-subsets of its ℓ-prefix, probes look up the
// ℓ-subsets of theirs, and a candidate must share ℓ tokens, not one. A key
// is its first token and, for ℓ = 3, a 32-bit hash of the other two: a hash
// collision only adds candidates, never loses one. Each candidate is then
// verified exactly by Verify.
//
// As in the prefix path, groups are probed in size order and a probe meets
// only the groups before it, so α is at least MinOverlap(|x|, lo) for the
// probe x (lo its smallest admissible partner) and at least
// MinOverlap(|y|, |y|) for the indexed y (its partners are no smaller); the
// prefixes use those bounds. Groups whose least overlap with their smallest
// partner is below ℓ ("tiny": one or two tokens at t = 0.8) cannot use the
// ℓ-prefix; MinOverlap(n, lo(n)) does not decrease with n, so they are the
// smallest sizes and meet only each other: they are probed by the prefix
// path against a prefix index of the tiny groups alone. A larger set meeting
// a tiny one shares >= ℓ tokens with it, which the tiny set's keys cover.
//
// Departures from the paper: ℓ is chosen once per join, not per set
// (ellChoice), the index is built in full before probing (so probes run in
// parallel and the output does not depend on the number of workers), and
// there is no positional or count filter: a 64-bit mask of each group's
// tokens, kept beside the index entries, bounds the overlap before the merge
// instead (Stats.MaskPruned).

// maxKeys is the most index keys per probe, on average, for which the
// ℓ-prefix path is taken; above it (long sets at low thresholds) the keys
// would outnumber the postings they save.
const maxKeys = 28

// keyPostingRatio is how many prefix-filter postings a probe must be
// expected to scan per key it would look up for the ℓ-prefix path to be
// taken: a key lookup is a hash-table probe (a cache miss) and starts a run
// of its own, a posting a sequential step. On generated password lists at
// q = 2, t = 0.8, where ℓ = 2 halves the join at 59,000 passwords and cuts
// it fifteen-fold at 1M, the ratio is above 5; on john's 3,545 passwords,
// where both paths cost the same, it is about 1.
const keyPostingRatio = 3

// tripleGroups is the number of distinct sets from which ellChoice takes
// ℓ = 3. On generated lists at q = 2, t = 0.8, ℓ = 3 costs more than ℓ = 2
// below a million passwords (more lookups, each a cache miss, for runs that
// are already short; 29 against 24 ms of CPU at 59k), the same at 1M (1.77 s
// each), and 30% less at 10M (44 against 62 s: the runs of common bigram
// pairs, digit passwords' above all, grow with the list).
const tripleGroups = 3_000_000

// EllChoice is SelfJoin's choice of index keys for a self-join (Options.Ell
// 0) and the figures behind it, for a cost model to price the path taken
// (package planner does).
type EllChoice struct {
	// Ell is the tokens per index key SelfJoin takes: 1 the prefix filter,
	// 2 or 3 the ℓ-prefix.
	Ell int
	// PrefixPostings is the estimate of the postings the prefix filter's
	// probes would scan, from which the choice was made; -1 when the
	// ℓ-prefix was ruled out by its keys alone (no estimate needed).
	PrefixPostings int64
	// On the ℓ-prefix path (Ell > 1): Keys is the keys the probes look up,
	// IndexKeys the entries of the key index, and Tiny the number of groups
	// (the smallest sets) probed by the prefix filter instead. All 0 for
	// Ell 1.
	Keys, IndexKeys int64
	Tiny            int
}

// ChooseEll returns the index keys SelfJoin(ctx, c, opt, …) would use when
// opt.Ell is 0, with the figures of its choice; for a given opt.Ell it
// returns that choice (ℓ = 2 or 3 with its figures, as if chosen). The
// choice is the one SelfJoin makes, from the same code. Cost: O(groups +
// largest size), plus one pass over the index prefixes when the keys are
// few; it builds no index. Safe for concurrent use.
func ChooseEll(c *order.Collection, opt Options) (EllChoice, error) {
	if err := opt.check(); err != nil {
		return EllChoice{}, err
	}
	s := groupsOf(c)
	b := prefix.NewBounds(opt.Measure, opt.Threshold)
	if opt.Ell == 0 {
		ch, _ := ellChoice(s, b, c.Dict().FirstShared(), opt.Workers)
		return ch, nil
	}
	ch := EllChoice{Ell: opt.Ell, PrefixPostings: -1}
	if opt.Ell > 1 {
		ch.Keys, _, ch.IndexKeys = ellKeys(s, b, opt.Ell)
		ch.Tiny = tinyGroups(s, b, opt.Ell)
	}
	return ch, nil
}

// ellChoice returns the ℓ of a self-join of s at bounds b: 3 or 2 when the
// ℓ-prefix is expected to cost less than the prefix filter, else 1, with the
// figures behind the choice. The ℓ-prefix pays when probes look up few keys
// (at most maxKeys on average) and the prefix filter's postings per probe,
// estimated on a sample of probes, are many per key. Cost: O(largest size)
// for the keys, and (only when they are few) one pass over the index
// prefixes to count the posting lists' lengths, 4 bytes per token id; those
// counts are returned (nil if not made) so that the prefix filter's index
// can be built from them, on the workers that counted them.
func ellChoice(s *side, b prefix.Bounds, unique uint32, workers int) (EllChoice, *prefix.Lengths) {
	ch := EllChoice{Ell: 1, PrefixPostings: -1}
	groups := s.groups()
	if groups < 2 {
		return ch, nil
	}
	var lengths *prefix.Lengths
	for _, ell := range []int{3, 2} {
		if ell == 3 && groups < tripleGroups {
			continue
		}
		keys, probes, indexed := ellKeys(s, b, ell)
		if probes == 0 || keys > maxKeys*probes {
			continue
		}
		if lengths == nil {
			lengths = prefix.CountPrefixesFrom(groups, s.c.Dict().Len(), unique, s.set, b.IndexPrefix, workers)
			ch.PrefixPostings = prefixPostings(s, b, lengths)
		}
		if ch.PrefixPostings > keyPostingRatio*keys {
			ch.Ell, ch.Keys, ch.IndexKeys = ell, keys, indexed
			ch.Tiny = tinyGroups(s, b, ell)
			return ch, nil
		}
	}
	return ch, lengths
}

// tinyGroups returns the number of groups of s that the prefix filter probes
// at ℓ: all of them for ℓ = 1; for the ℓ-prefix, the tiny ones, whose least
// overlap with their smallest partner is below ℓ (the first groups, since
// that overlap does not decrease with the size).
func tinyGroups(s *side, b prefix.Bounds, ell int) int {
	if ell <= 1 {
		return s.groups()
	}
	g := 0
	for g < s.groups() {
		if _, ok := probeLen(b, int(s.size[g]), ell); ok {
			break
		}
		g++
	}
	return g
}

// ellKeys returns the keys the groups of s would look up on the ℓ-prefix
// path, the number of groups that would look them up (not tiny), and the
// keys the index would hold (none when every group is tiny). Cost: O(largest
// size), one step per size.
func ellKeys(s *side, b prefix.Bounds, ell int) (keys, probes, indexed int64) {
	for n := 1; n < len(s.bySize); n++ {
		k := int64(s.firstOfSize(n+1) - s.firstOfSize(n)) // groups of size n
		if k == 0 {
			continue
		}
		if p, ok := probeLen(b, n, ell); ok {
			keys += k * binom(p, ell)
			probes += k
		}
		indexed += k * binom(indexLen(b, n, ell), ell)
	}
	if probes == 0 {
		indexed = 0
	}
	return keys, probes, indexed
}

// estimateProbes is the number of probes prefixPostings samples.
const estimateProbes = 4096

// prefixPostings estimates the postings the prefix filter's probes would
// scan in a self-join of s, whose index's posting lists have the given
// lengths: the lengths of the lists of the probe-prefix tokens of evenly
// spaced groups, halved (a probe meets only the groups before it) and
// scaled to all groups.
func prefixPostings(s *side, b prefix.Bounds, lengths *prefix.Lengths) int64 {
	groups := s.groups()
	step := max(1, groups/estimateProbes)
	var n, sampled int64
	for g := 0; g < groups; g += step {
		x := s.set(g)
		for i, w := range x[:min(b.ProbePrefix(len(x)), len(x))] {
			if w < lengths.From() {
				// Held by group g alone: its list holds g if w is in
				// g's index prefix.
				if i < b.IndexPrefix(len(x)) {
					n++
				}
				continue
			}
			n += int64(lengths.Len(w))
		}
		sampled++
	}
	return n * int64(groups) / (2 * sampled)
}

func binom(n, k int) int64 {
	switch {
	case n < k:
		return 0
	case k == 2:
		return int64(n) * int64(n-1) / 2
	default:
		return int64(n) * int64(n-1) * int64(n-2) / 6
	}
}

// probeLen returns the length of the ℓ-prefix a set of size n probes with
// (and, in a query index, is indexed with: the prefix that serves partners
// of any size), and false for a tiny size (least overlap below ℓ with its
// smallest partner).
func probeLen(b prefix.Bounds, n, ell int) (int, bool) {
	lo, _ := b.SizeRange(n)
	a := b.MinOverlap(n, max(lo, 1))
	if a < ell {
		return 0, false
	}
	return min(n, n-a+ell), true
}

// indexLen returns the length of the ℓ-prefix a set of size n is indexed
// with in a self-join (its partners are no smaller).
func indexLen(b prefix.Bounds, n, ell int) int {
	return min(n, n-b.MinOverlap(n, n)+ell)
}

// appendKeys appends the keys of the ℓ-subsets of t[:p]: the first token
// in the high 32 bits, then the second (ℓ = 2) or a hash of the second and
// third (ℓ = 3).
func appendKeys(dst []uint64, t []uint32, p, ell int) []uint64 {
	for i := 0; i+ell <= p; i++ {
		hi := uint64(t[i]) << 32
		for j := i + 1; j+ell-1 <= p; j++ {
			if ell == 2 {
				dst = append(dst, hi|uint64(t[j]))
				continue
			}
			for k := j + 1; k < p; k++ {
				dst = append(dst, hi|uint64(mix32(t[j], t[k])))
			}
		}
	}
	return dst
}

func mix32(a, b uint32) uint32 {
	return uint32(mix.Mix64(uint64(a)<<32|uint64(b)) >> 32)
}

// TokenMask returns the 64-bit mask of a set of token ids: bit w mod 64 for
// each token w. Each bit of x's mask that y's lacks stands for at least one
// token of x not in y, so |x ∩ y| <= |x| - popcount(mask(x) &^ mask(y)): a
// bound on the overlap that needs nothing of a set but its mask, which the
// ℓ-prefix runs and the exact query index keep beside their entries (and
// the persistent index in its segments: its format fixes the bit of a
// token). Token ids are dense and rare-first, so the ids of a set spread
// over the bits as a hash would spread them. Cost: O(len(set)).
func TokenMask(set []uint32) uint64 {
	var m uint64
	for _, w := range set {
		m |= 1 << (w & 63)
	}
	return m
}

// keyIndex maps a key to the groups whose ℓ-prefix has it, in group order:
// the key's run of groups, with each group's token mask beside it (so that
// the mask bound is checked while scanning, without a random access per
// posting). A hash table finds a key's run.
type keyIndex struct {
	ell int // tokens per key: 2 or 3
	// groups holds the runs back to back, every entry in exactly one run;
	// within a run group ids ascend strictly.
	groups []uint32
	masks  []uint64 // masks[k] is the token mask of groups[k] (TokenMask)
	// table holds every key's run, at most two thirds full (so that the
	// many lookups of absent keys stop early).
	table keymap.Map[uint64] // a run packed as start<<32 | end
	// intro[g] has bit q set when the q-th key of group g's ℓ-prefix (in
	// appendKeys order, q < 64) is one that no group before g is indexed
	// under: its run starts with g, so g's probe, which meets only the
	// groups before it, need not look it up (on 59,000 password bigram
	// sets a third of the probes' keys). ℓ = 2 only; nil otherwise.
	intro []uint64
}

// keyRun is one key's run groups[start:end], start < end. The table holds
// it packed in one word, never zero (keymap's free slot), so that a probe
// tests a slot with one comparison.
type keyRun struct {
	start, end uint32
}

func unpackRun(v uint64) keyRun { return keyRun{start: uint32(v >> 32), end: uint32(v)} }

// keyHash places the keys of a keyIndex, packed pairs or triples of token
// ids: the top bits of one multiplication (by 2⁶⁴ over the golden ratio),
// which the table scales to its length, spread them, and cost less than
// mix.Mix64 on the lookups of absent keys that dominate a probe.
func keyHash(key uint64) uint64 { return key * 0x9e3779b97f4a7c15 }

// lookup returns the run of key: its groups and their masks (empty if
// none).
func (ix *keyIndex) lookup(key uint64) ([]uint32, []uint64) {
	r := ix.find(key)
	return ix.groups[r.start:r.end], ix.masks[r.start:r.end]
}

// find returns the run of key, or the zero (empty) run if it has none.
func (ix *keyIndex) find(key uint64) keyRun {
	v, _ := ix.table.FindHash(key, keyHash(key))
	return unpackRun(v)
}

// newKeyIndex indexes every group of s under the keys of its first plen(n)
// tokens (n: its size), and returns the token mask of every group
// (TokenMask), made in its first pass over the sets; for a self-join's
// probes (self) it also marks the keys each group introduces (intro,
// ℓ = 2). The entries go into buckets by first token (a
// counting sort), each bucket sorted by (rest of key, group) (for ℓ = 2 by a
// counting sort on the second token first, which also counts the distinct
// keys), and their runs enter a keymap at most two thirds full (on 59,000
// password bigram sets half the table that twice their number gave: 2 MB
// less, the same CPU), each key's slot hinted into cache a few keys before
// it is entered.
func newKeyIndex(s *side, vocab, ell int, plen func(n int) int, workers int, self bool) (*keyIndex, []uint64, error) {
	// The prefix length of each size, computed once (sets are not empty).
	lens := make([]int32, maxSize(s)+1)
	for n := 1; n < len(lens); n++ {
		lens[n] = int32(plen(n))
	}
	start := make([]int, vocab+2)
	// For ℓ = 2 the second token is below vocab too: a stable counting sort
	// by it, then the one by the first token, leaves every bucket sorted by
	// (second token, group) without a comparison sort.
	var second []int
	if ell == 2 {
		second = make([]int, vocab+1)
	}
	masks := make([]uint64, s.groups())
	var keys []uint64
	for g := range s.groups() {
		y := s.set(g)
		masks[g] = TokenMask(y)
		keys = appendKeys(keys[:0], y, int(lens[len(y)]), ell)
		for _, k := range keys {
			start[k>>32+2]++
			if second != nil {
				second[uint32(k)+1]++
			}
		}
	}
	for w := 2; w < len(start); w++ {
		start[w] += start[w-1]
	}
	if start[len(start)-1] >= 1<<32-1 {
		return nil, nil, fmt.Errorf("join: key index %w", order.ErrTooLarge)
	}
	entries := make([]uint64, start[len(start)-1])
	ix := &keyIndex{ell: ell, groups: make([]uint32, len(entries))}
	distinct := 0
	if second != nil {
		// byFirst holds (first token, group), by second token, groups
		// ascending within each.
		for w := 1; w < len(second); w++ {
			second[w] += second[w-1]
		}
		// byKey[k] is the position of byFirst[k]'s key among its
		// group's keys (64 for 64 or more).
		byFirst, byKey := make([]uint64, len(entries)), make([]uint8, len(entries))
		for g := range s.groups() {
			y := s.set(g)
			keys = appendKeys(keys[:0], y, int(lens[len(y)]), ell)
			for q, k := range keys {
				b := uint32(k)
				byFirst[second[b]] = k&^(1<<32-1) | uint64(g)
				byKey[second[b]] = uint8(min(q, 64))
				second[b]++
			}
		}
		// A bucket's entries arrive by second token, groups ascending
		// within it: a key starts where the second token differs from the
		// bucket's last one (last[a] is 1 + that token, 0 for an empty
		// bucket), at the first group indexed under it, which introduces
		// it (intro).
		if self {
			ix.intro = make([]uint64, s.groups())
		}
		last := make([]uint32, vocab)
		lo := 0
		for b, hi := range second[:vocab] {
			for i, e := range byFirst[lo:hi] {
				a := e >> 32
				if last[a] != uint32(b)+1 {
					last[a] = uint32(b) + 1
					distinct++
					if q := byKey[lo+i]; q < 64 && ix.intro != nil {
						ix.intro[uint32(e)] |= 1 << q
					}
				}
				entries[start[a+1]] = uint64(b)<<32 | e&(1<<32-1)
				start[a+1]++
			}
			lo = hi
		}
		ix.masks = byFirst // the same length, and no longer needed
	} else {
		for g := range s.groups() {
			y := s.set(g)
			keys = appendKeys(keys[:0], y, int(lens[len(y)]), ell)
			for _, k := range keys {
				a := k >> 32
				entries[start[a+1]] = k<<32 | uint64(g)
				start[a+1]++
			}
		}
		var n atomic.Int64
		parallel.For(context.Background(), vocab, 1024, workers, func(_, lo, hi int) {
			d := 0
			for w := lo; w < hi; w++ {
				bucket := entries[start[w]:start[w+1]]
				slices.Sort(bucket)
				for k := range bucket {
					if k == 0 || bucket[k]>>32 != bucket[k-1]>>32 {
						d++
					}
				}
			}
			n.Add(int64(d))
		})
		distinct = int(n.Load())
		ix.masks = make([]uint64, len(entries))
	}
	ix.table.InitHash(distinct*9/8+1, keyHash) // over 1.5 slots a key
	// One pass over the buckets: each entry's group and mask into place,
	// and each run into the table. A key's slot is hinted when its run is
	// found and entered a batch of keys later, so that the slots' cache
	// misses overlap.
	var batch [insertBatch]keymap.Slot[uint64]
	n := 0
	for a := range vocab {
		lo := start[a]
		bucket := entries[lo:start[a+1]]
		for k := 0; k < len(bucket); {
			rest := bucket[k] >> 32
			e := k
			for ; e < len(bucket) && bucket[e]>>32 == rest; e++ {
				g := uint32(bucket[e])
				ix.groups[lo+e], ix.masks[lo+e] = g, masks[g]
			}
			key := uint64(a)<<32 | rest
			ix.table.Hint(keyHash(key))
			batch[n] = keymap.Slot[uint64]{Key: key, Val: uint64(lo+k)<<32 | uint64(lo+e)}
			if n++; n == len(batch) {
				ix.insert(batch[:])
				n = 0
			}
			k = e
		}
	}
	ix.insert(batch[:n])
	if invariants.Enabled {
		ix.check(masks)
		ix.checkIntro(s, lens)
	}
	return ix, masks, nil
}

// checkIntro panics unless intro marks exactly the keys each group of s
// introduces among the first 64 of its index ℓ-prefix (lens[n] tokens for
// size n), when it is kept (called under -tags invariants). Cost: a lookup
// per index entry.
func (ix *keyIndex) checkIntro(s *side, lens []int32) {
	if ix.intro == nil {
		return
	}
	var keys []uint64
	for g := range s.groups() {
		y := s.set(g)
		keys = appendKeys(keys[:0], y, int(lens[len(y)]), ix.ell)
		var want uint64
		for q, key := range keys {
			if r := ix.find(key); q < 64 && ix.groups[r.start] == uint32(g) {
				want |= 1 << q
			}
		}
		if ix.intro[g] != want {
			panic(fmt.Sprintf("join: group %d introduces keys %#x, intro holds %#x", g, want, ix.intro[g]))
		}
	}
}

// insertBatch is the number of keys newKeyIndex hints into cache before
// entering them.
const insertBatch = 16

// insert enters runs (key and packed run) into the table.
func (ix *keyIndex) insert(runs []keymap.Slot[uint64]) {
	for _, r := range runs {
		v, _ := ix.table.InsertHash(r.Key, keyHash(r.Key))
		*v = r.Val
	}
}

// check panics unless the invariants stated on keyIndex's fields hold, for
// groups whose token masks are masks (called under -tags invariants). Cost:
// O(entries + table slots).
func (ix *keyIndex) check(masks []uint64) {
	n := len(ix.table.Slots())
	keys, covered := 0, 0
	for _, s := range ix.table.Slots() {
		key, sl := s.Key, unpackRun(s.Val)
		if s.Val == 0 {
			continue
		}
		keys++
		if sl.start >= sl.end || int(sl.end) > len(ix.groups) {
			panic(fmt.Sprintf("join: key %#x: run [%d, %d) of %d entries", key, sl.start, sl.end, len(ix.groups)))
		}
		covered += int(sl.end - sl.start)
		for k := sl.start; k < sl.end; k++ {
			if k > sl.start && ix.groups[k] <= ix.groups[k-1] || ix.masks[k] != masks[ix.groups[k]] {
				panic(fmt.Sprintf("join: key %#x: entry %d (group %d): groups not ascending or mask not the group's", key, k, ix.groups[k]))
			}
		}
		if g, _ := ix.lookup(key); len(g) != int(sl.end-sl.start) || &g[0] != &ix.groups[sl.start] {
			panic(fmt.Sprintf("join: key %#x not found from its hash slot", key))
		}
	}
	if n&(n-1) != 0 || n <= keys+keys/2 || keys != ix.table.Len() || covered != len(ix.groups) || len(ix.masks) != len(ix.groups) {
		panic(fmt.Sprintf("join: key index of %d slots for %d keys; runs cover %d of %d entries (%d masks)", n, keys, covered, len(ix.groups), len(ix.masks)))
	}
}

// keyProbe is what a probe of one set size needs on the ℓ-prefix path,
// computed once per size rather than once per probe.
type keyProbe struct {
	prefix int32 // the probe's ℓ-prefix length (probeLen); 0 for a tiny size
	index  int32 // the ℓ-prefix length a set of this size is indexed with (indexLen)
	// alpha is the least overlap with the smallest admissible partner: the
	// mask bound uses it, and Verify then decides with the partner's own.
	alpha int32
	first uint32 // the first group of an admissible partner's size
}

// keyProbesOf returns the keyProbe of every size of s up to the largest.
func keyProbesOf(s *side, b prefix.Bounds, ell int) []keyProbe {
	kp := make([]keyProbe, maxSize(s)+1)
	for n := range kp {
		px, ok := probeLen(b, n, ell)
		if !ok {
			continue
		}
		lo, _ := b.SizeRange(n)
		kp[n] = keyProbe{prefix: int32(px), index: int32(indexLen(b, n, ell)), alpha: int32(b.MinOverlap(n, max(lo, 1))), first: uint32(s.firstOfSize(lo))}
	}
	return kp
}

// probeKeysOf appends the keys probe group g, of set y and probe ℓ-prefix
// px, looks up: those of its ℓ-prefix (appendKeys) but the ones it
// introduces (keyIndex.intro), in the same order.
func (p *prober) probeKeysOf(dst []uint64, g int, y []uint32, px int) []uint64 {
	if p.keyIx.intro == nil || p.keyIx.intro[g] == 0 || !skipIntroduced {
		return appendKeys(dst, y, px, p.ell)
	}
	// The ℓ = 2 keys of y[:px] in appendKeys order; those of y[:il] (the
	// indexed ones, which come in the same order) are numbered for intro.
	// Each key is written, and kept by moving past it unless introduced
	// (no branch on intro, which would mispredict).
	intro, il := p.keyIx.intro[g], int(p.keyProbes[len(y)].index)
	w := len(dst)
	dst = slices.Grow(dst, px*(px-1)/2)
	dst = dst[:cap(dst)]
	q := 0
	for i := 0; i < px-1; i++ {
		hi := uint64(y[i]) << 32
		for j := i + 1; j < px; j++ {
			dst[w] = hi | uint64(y[j])
			var skip uint64
			if j < il {
				skip = intro >> q & 1 // 0 from q = 64 on
				q++
			}
			w += int(1 - skip)
		}
	}
	return dst[:w]
}

// skipIntroduced: probes skip the keys their group introduces. Can change
// for testing (the statistics must not).
var skipIntroduced = true

// keysAhead makes the keys of probe group g into nextKeys and hints their
// slots in the key index into cache, for probeKeys(g) to take (keysFor
// records whose keys they are: 1 + g).
func (p *prober) keysAhead(g int) {
	p.keysFor = 0
	if g >= p.probe.groups() {
		return
	}
	y := p.probe.set(g)
	kp := p.keyProbes[len(y)]
	if kp.prefix == 0 {
		return
	}
	p.nextKeys = p.probeKeysOf(p.nextKeys[:0], g, y, int(kp.prefix))
	for _, key := range p.nextKeys {
		p.keyIx.table.Hint(keyHash(key))
	}
	p.keysFor = g + 1
}

// probeKeys finds the partners of group gx among the groups before it
// through the ℓ-prefix keys, and appends the resulting matches.
func (p *prober) probeKeys(gx int, out []match) []match {
	b := p.bounds
	x := p.probe.set(gx)
	n := len(x)
	out = p.sameGroup(gx, n, out)
	kp := p.keyProbes[n]
	if kp.prefix == 0 {
		return out
	}
	if p.seen == nil {
		p.seen = make([]uint32, p.build.groups())
	}
	px, first, alpha := int(kp.prefix), kp.first, int(kp.alpha)
	mark := uint32(gx) + 1
	mx := p.masks[gx]
	var postings, sizePruned, maskPruned, candidates int64
	// The keys of a probe are made, and their slots hinted into cache, one
	// probe ahead (keysAhead), so that the table's misses overlap the
	// probe before; then the runs are found, their first entries hinted,
	// and the runs scanned.
	ix := p.keyIx
	if p.keysFor == gx+1 {
		p.keys, p.nextKeys = p.nextKeys, p.keys
	} else {
		p.keys = p.probeKeysOf(p.keys[:0], gx, x, px)
	}
	p.keysAhead(gx + 1)
	p.runs, p.recs = p.runs[:0], p.recs[:0]
	for _, key := range p.keys {
		if sl := ix.find(key); sl.end != 0 {
			p.runs, p.recs = append(p.runs, sl), append(p.recs, sl.start)
		}
	}
	prefetch.Indexes(ix.groups, p.recs, 0)
	prefetch.Indexes(ix.masks, p.recs, 0)
	for _, sl := range p.runs {
		groups, masks := ix.groups[sl.start:sl.end], ix.masks[sl.start:sl.end]
		k := 0
		if len(groups) > 0 && groups[0] < first {
			k, _ = slices.BinarySearch(groups, first)
			sizePruned += int64(k)
		}
		for ; k < len(groups); k++ {
			gy := groups[k]
			if gy >= uint32(gx) {
				break
			}
			postings++
			if n-bits.OnesCount64(mx&^masks[k]) < alpha {
				maskPruned++
				continue
			}
			if p.seen[gy] == mark {
				continue
			}
			p.seen[gy] = mark
			p.list = append(p.list, gy)
		}
	}
	// The candidates' sets are hinted into cache, then verified in the
	// order they were met.
	candidates = int64(len(p.list))
	if len(p.list) >= hintHits {
		p.build.hint(p.list)
	}
	for _, gy := range p.list {
		y := p.build.set(int(gy))
		if o, ok := Verify(b, x, y); ok {
			out = p.emit(gx, int(gy), o, n, len(y), out)
		}
	}
	p.list = p.list[:0]
	st := p.stats
	st.ProbeTokens += int64(len(p.keys))
	st.Postings += postings
	st.SizePruned += sizePruned
	st.MaskPruned += maskPruned
	st.Candidates += candidates
	st.Verified += candidates
	return out
}
