package records_test

import (
	"slices"
	"testing"

	"github.com/simjoin/simjoin/order"
	"github.com/simjoin/simjoin/records"
)

// TestKeyBatchesInputReleases: Input enters every record into the order
// (each collection set, mapped back to keys, is the record's sorted keys)
// and releases the batches as it goes, so that the records are not held
// twice while the order is built: the batches are empty afterwards.
func TestKeyBatchesInputReleases(t *testing.T) {
	var k records.KeyBatches
	var want [][]uint64
	for i := range 5000 {
		keys := []uint64{uint64(i % 7), uint64(i%91) + 100, uint64(i) + 1000, uint64(i%5) + 1<<40}
		k.Add(keys)
		slices.Sort(keys)
		want = append(want, keys)
	}
	k.Index()
	c, err := order.New(k.Input(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	if k.Len() != 0 || k.Keys() != 0 || k.HasValues() {
		t.Errorf("after Input the batches hold %d records, %d keys", k.Len(), k.Keys())
	}
	if c.Len() != len(want) {
		t.Fatalf("%d sets, want %d", c.Len(), len(want))
	}
	for i := range c.Len() {
		var got []uint64
		for _, id := range c.Set(i) {
			got = append(got, c.Dict().Key(id))
		}
		slices.Sort(got)
		if w := want[c.ID(i)]; !slices.Equal(got, w) {
			t.Fatalf("record %d: %v, want %v", c.ID(i), got, w)
		}
	}
}
