package planner

import (
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// ExactWork is what the exact join (package join) will do on a collection,
// computed from the prefixes alone, without probing. Postings is exact: it
// equals the postings the join meets within the size window (join.Stats'
// Postings, examined, plus LateSkipped, skipped unseen) for the same input,
// measure and threshold. It counts every (probe, indexed set) meeting with
// multiplicity, so it bounds the join's candidates from above.
//
// A self-join of short sets may take the ℓ-prefix path instead (join.Ell,
// chosen by join.ChooseEll): Ell is then 2 or 3, and the same fields count
// that path's work: ProbeTokens the keys its probes look up (plus the probe
// prefixes of the tiny sets, which the prefix filter probes), IndexEntries
// the key index's entries (plus the tiny sets' index prefixes), and
// Postings the entries of the keys' runs the probes scan plus the tiny
// sets' postings, estimated from a sample join (see Plan): exact only for
// Ell 1.
type ExactWork struct {
	// Ell is the tokens per index key of the path counted: 1 the prefix
	// filter, 2 or 3 the ℓ-prefix.
	Ell          int   `json:"key_tokens"`
	Groups       int   `json:"groups"`        // distinct non-empty sets (identical sets are probed once)
	ProbeTokens  int64 `json:"probe_tokens"`  // probe-prefix tokens held by two sets or more, which probes look up (keys looked up, for Ell > 1)
	IndexEntries int64 `json:"index_entries"` // postings in the prefix index (key index entries, for Ell > 1)
	Postings     int64 `json:"postings"`      // postings scanned by the probes, within the size window
	// SameSetPairs is the number of pairs among identical copies, which the
	// join reports without probing.
	SameSetPairs int64 `json:"same_set_pairs"`
}

// SelfWork computes the exact self-join's work on c at b. It mirrors
// join.SelfJoin: every group indexes its index prefix; every group probes its
// probe prefix against the groups before it whose size lies in the size
// window. Processing groups in size order, a counter per token holds the
// posting-list length within the window: groups enter when they have been
// probed and leave when they fall below the window, whose lower end only
// grows.
//
// Cost: two passes over the index prefixes and one over the probe prefixes,
// O(Σ prefix lengths) time, 4 bytes per dictionary entry; no posting list is
// built. Safe for concurrent use.
func SelfWork(c *order.Collection, b prefix.Bounds) ExactWork {
	return selfWork(c, b, c.Groups())
}

// selfWork is SelfWork over the first ng groups of c alone (the tiny groups
// of the ℓ-prefix path, which meet only each other), Groups included.
func selfWork(c *order.Collection, b prefix.Bounds, ng int) ExactWork {
	w := ExactWork{Ell: 1, Groups: ng}
	// Tokens held by one set only (ids below once, rare-first) never meet
	// another set: they are skipped without touching a counter.
	once := int(c.Dict().FirstShared())
	cnt := make([]int32, c.Dict().Len()-once)
	tail := 0
	for gx := 0; gx < ng; gx++ {
		first, end := c.Group(gx)
		set := c.Set(first)
		n := len(set)
		if copies := int64(end - first); copies > 1 && b.Passes(n, n, n) {
			w.SameSetPairs += copies * (copies - 1) / 2
		}
		lo, _ := b.SizeRange(n)
		for tail < gx && c.Size(groupSet(c, tail)) < lo {
			ts := c.Set(groupSet(c, tail))
			for _, t := range shared(ts[:b.IndexPrefix(len(ts))], once) {
				cnt[int(t)-once]--
			}
			tail++
		}
		if lo <= n {
			px := b.ProbePrefix(n)
			probe := shared(set[:px], once)
			w.ProbeTokens += int64(len(probe))
			for _, t := range probe {
				w.Postings += int64(cnt[int(t)-once])
			}
		}
		ip := b.IndexPrefix(n)
		w.IndexEntries += int64(ip)
		for _, t := range shared(set[:ip], once) {
			cnt[int(t)-once]++
		}
	}
	return w
}

// RSWork computes the exact R-S join's work for r against s at b, mirroring
// join.RSJoin: the groups of s index their probe prefixes; every group of r
// probes its probe prefix against the groups of s whose size lies in its
// size window. Both ends of the window only grow as r's groups grow, so
// groups of s enter and leave a per-token counter once each.
//
// Cost: O(Σ prefix lengths of r and s); 4 bytes per dictionary entry. r and
// s must share a dictionary (order.Build).
func RSWork(r, s *order.Collection, b prefix.Bounds) ExactWork {
	nr, ns := r.Groups(), s.Groups()
	w := ExactWork{Ell: 1, Groups: nr + ns}
	once := int(r.Dict().FirstShared())
	cnt := make([]int32, r.Dict().Len()-once)
	for g := 0; g < ns; g++ {
		n := s.Size(groupSet(s, g))
		w.IndexEntries += int64(b.ProbePrefix(n))
	}
	head, tail := 0, 0 // groups of s in [tail, head) are counted
	largest := 0       // the largest set of s: no window reaches past it
	if ns > 0 {
		largest = s.Size(groupSet(s, ns-1))
	}
	for gx := 0; gx < nr; gx++ {
		set := r.Set(groupSet(r, gx))
		n := len(set)
		lo, hi := b.SizeRange(n)
		if hi = min(hi, largest); lo > hi {
			continue
		}
		for head < ns && s.Size(groupSet(s, head)) <= hi {
			hs := s.Set(groupSet(s, head))
			for _, t := range shared(hs[:b.ProbePrefix(len(hs))], once) {
				cnt[int(t)-once]++
			}
			head++
		}
		for tail < head && s.Size(groupSet(s, tail)) < lo {
			ts := s.Set(groupSet(s, tail))
			for _, t := range shared(ts[:b.ProbePrefix(len(ts))], once) {
				cnt[int(t)-once]--
			}
			tail++
		}
		probe := shared(set[:b.ProbePrefix(n)], once)
		w.ProbeTokens += int64(len(probe))
		for _, t := range probe {
			w.Postings += int64(cnt[int(t)-once])
		}
	}
	return w
}

// groupSet returns the position of group g's set in c (its first record).
func groupSet(c *order.Collection, g int) int {
	lo, _ := c.Group(g)
	return lo
}

// shared returns the tail of the sorted prefix whose ids are at least once.
func shared(prefix []uint32, once int) []uint32 {
	i := 0
	for i < len(prefix) && int(prefix[i]) < once {
		i++
	}
	return prefix[i:]
}
