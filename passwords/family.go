package passwords

import (
	"cmp"
	"context"
	"slices"

	"github.com/simjoin/simjoin/cluster"
	"github.com/simjoin/simjoin/join"
)

// Family is a connected group of similar passwords: every member reaches the
// threshold with at least one other, directly or through a chain of members.
type Family struct {
	// Members are List indices, most frequent first (count descending, then
	// index ascending): Members[0] is the family's most frequent password.
	Members []int
	// Count is the members' counts summed (saturating at the largest uint64).
	Count uint64
}

// Families joins l (as Join does) and returns its families of two or more
// passwords: the connected components of the similar pairs, found with a
// union-find forest (cluster.SelfJoin) as the pairs stream out. Passwords
// with identical gram sets (after normalisation) are one group, unioned
// once, so n of them cost n - 1 unions, not n(n-1)/2 pairs. Families come
// largest first (most members), then by Count descending, then by their
// first index; the result is the same on every run and for any number of
// workers.
//
// Cost: the join, plus O(α(n)) per union and 8 bytes per password for the
// forest, plus the members of the families returned. Pairs are not kept.
func Families(ctx context.Context, l *List, opt Options) ([]Family, Stats, error) {
	if err := opt.fill(); err != nil {
		return nil, Stats{}, err
	}
	c, st, err := collect(l, &opt)
	if err != nil {
		return nil, st, err
	}
	f, est, err := cluster.SelfJoin(ctx, c, join.Options{
		Measure: opt.Measure, Threshold: opt.Threshold, Workers: opt.Workers, Progress: opt.Progress, Ell: opt.Ell,
	})
	st.Exact = est
	if err != nil {
		return nil, st, err
	}
	return families(l, f), st, nil
}

// families collects the components of f with two or more members.
func families(l *List, f *cluster.Forest) []Family {
	slot := make(map[int]int) // root -> index in out
	var out []Family
	for i := 0; i < l.Len(); i++ {
		if f.Size(i) < 2 {
			continue
		}
		r := f.Find(i)
		k, ok := slot[r]
		if !ok {
			k = len(out)
			slot[r] = k
			out = append(out, Family{Members: make([]int, 0, f.Size(i))})
		}
		fam := &out[k]
		fam.Members = append(fam.Members, i)
		fam.Count = addSat(fam.Count, l.Count(i))
	}
	for _, fam := range out {
		slices.SortStableFunc(fam.Members, func(a, b int) int { return cmp.Compare(l.Count(b), l.Count(a)) })
	}
	// Members were gathered in index order, so out is in order of first
	// index; the stable sort keeps that as the last tie-break.
	slices.SortStableFunc(out, func(a, b Family) int {
		if c := cmp.Compare(len(b.Members), len(a.Members)); c != 0 {
			return c
		}
		return cmp.Compare(b.Count, a.Count)
	})
	return out
}

func addSat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}
