package planner

import (
	"context"
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/jointest"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/prefix"
)

// FuzzSelfWork checks SelfWork's exact postings and index entries against
// what join.SelfJoin counts, on collections decoded from the fuzzer's bytes:
// the first byte picks the measure and threshold, then every byte is a token
// (0..31) and 0xff ends a set.
func FuzzSelfWork(f *testing.F) {
	for _, fx := range jointest.Fixtures(1)[:6] {
		var b []byte
		b = append(b, 3)
		for _, s := range fx.Sets {
			for _, w := range s {
				b = append(b, byte(w%32))
			}
			b = append(b, 0xff)
		}
		f.Add(b)
	}
	f.Add([]byte{0x17, 1, 2, 3, 0xff, 1, 2, 0xff, 3, 0xff, 0xff, 1, 2, 3, 4})
	thresholds := []string{"0.5", "0.8", "1", "1/3", "0.7", "0.9", "2/3", "0.25"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 4096 {
			return
		}
		m := prefix.Measure(data[0] % 4)
		var th prefix.Threshold
		var err error
		if m == prefix.Overlap {
			th = prefix.Threshold{Num: uint64(data[0]>>2%5 + 1), Den: 1}
		} else if th, err = prefix.ParseThreshold(m, thresholds[data[0]>>2%8]); err != nil {
			t.Fatal(err)
		}
		var sets [][]uint32
		var cur []uint32
		for _, b := range data[1:] {
			if b == 0xff {
				sets = append(sets, cur)
				cur = nil
				continue
			}
			cur = append(cur, uint32(b%32))
		}
		sets = append(sets, cur)
		c, err := order.New(jointest.Input(sets))
		if err != nil {
			t.Fatal(err)
		}
		b := prefix.NewBounds(m, th)
		w := SelfWork(c, b)
		st, err := join.SelfJoin(context.Background(), c, join.Options{Measure: m, Threshold: th, Ell: 1}, func(join.Pair) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		if w.Postings != windowPostings(st) || w.IndexEntries != int64(st.IndexEntries) || w.Groups != st.Groups || w.ProbeTokens != st.ProbeTokens {
			t.Errorf("%s %s: predicted postings %d index %d groups %d; join met %d, %d, %d; probe tokens %d, join %d",
				m, th, w.Postings, w.IndexEntries, w.Groups, windowPostings(st), st.IndexEntries, st.Groups, w.ProbeTokens, st.ProbeTokens)
		}
	})
}
