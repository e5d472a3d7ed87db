package passwords

import (
	"math"
	"sync"

	"github.com/simjoin/simjoin/join"
)

// Index answers "which known passwords is this one too close to?" for any
// number of candidate passwords, against a list indexed once.
//
// A check is an R-S join of one candidate with the known list: the known
// passwords' q-gram sets, in the rare-first token order of the known list,
// go into an exact query index (join.Index: a prefix index, and for lists of
// 20,000 passwords or more at high thresholds, an index of token pairs too),
// and a candidate's grams are looked up there. Building the order over the
// known list plus the candidates would rebuild everything for every new
// candidate; a query index pays the build once and then costs a few posting
// lists per check, and a candidate never changes the index, so checks run
// concurrently.
//
// An Index is immutable and safe for concurrent use; each concurrent Lookup
// borrows scratch space of 4 bytes per known password. Memory: the sets (4
// bytes a gram), 12 bytes a posting, and with the pair index 12 bytes an
// entry plus 16 per distinct pair.
type Index struct {
	list  *List
	opt   Options
	ix    *join.Index
	stats Stats
	pool  sync.Pool // *checker
}

// checker is the scratch space of one Lookup.
type checker struct {
	keys    []uint64
	matches []join.Match
}

// NewIndex indexes the passwords of known for Lookup, with opt's grams,
// measure and threshold (opt.Workers goroutines build it; opt.Progress is not
// used; opt.Ell as join.NewIndex takes it). The index reads known's passwords
// when it reports matches: known must not change afterwards.
//
// Cost: the grams and the order as for Join, then one pass over the probe
// prefixes; memory about 4 bytes a gram plus 8 bytes a posting.
func NewIndex(known *List, opt Options) (*Index, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	c, st, err := collect(known, &opt)
	if err != nil {
		return nil, err
	}
	ix, err := join.NewIndex(c, join.Options{Measure: opt.Measure, Threshold: opt.Threshold, Workers: opt.Workers, Ell: opt.Ell})
	if err != nil {
		return nil, err
	}
	st.Exact = ix.Stats()
	return &Index{list: known, opt: opt, ix: ix, stats: st}, nil
}

// Stats returns what building the index did: the passwords indexed and
// skipped, the grams, the index entries and keys, and the build times.
func (ix *Index) Stats() Stats { return ix.stats }

// Options returns the options the index was built with, defaults filled in.
func (ix *Index) Options() Options { return ix.opt }

// Match is a known password similar to a candidate: its index in the known
// List, the q-grams they share, and their similarity.
type Match struct {
	Index   int
	Overlap int
	Sim     float64
}

// Lookup appends to dst every known password whose similarity with pw reaches
// the threshold, most similar first (ties by index ascending), and returns
// the extended slice. pw is normalised as the known passwords were; a
// candidate with no q-gram matches nothing. It is exact: the same matches as
// the brute force. Lookup is safe for concurrent use and allocates nothing
// once warmed up beyond the growth of dst.
//
// Cost: O(len(pw)) to take and map the grams, then a query of join.Index.
func (ix *Index) Lookup(dst []Match, pw []byte) []Match {
	ck, _ := ix.pool.Get().(*checker)
	if ck == nil {
		ck = new(checker)
	}
	defer ix.pool.Put(ck)
	ck.keys = ix.opt.Grams.Append(ck.keys[:0], pw)
	ck.matches = ix.ix.TopK(ck.matches[:0], ck.keys, math.MaxInt)
	for _, m := range ck.matches {
		dst = append(dst, Match{Index: m.ID, Overlap: m.Overlap, Sim: m.Sim})
	}
	return dst
}
