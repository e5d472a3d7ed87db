package order

import (
	"testing"

	"github.com/simjoin/simjoin/internal/mix"
)

// TestVocabularyDoublesOneShardAtATime enters distinct keys one at a time
// and checks that no two shards' tables double at the same key, and that
// the tables hold at most 2.25 slots a key on average (tables of one length
// would all double at once, to 2.67 slots a key, holding their old slots
// beside the new ones for a moment).
func TestVocabularyDoublesOneShardAtATime(t *testing.T) {
	var v vocab
	v.prepare()
	var lens [shards]int
	for s := range lens {
		lens[s] = len(v.tabs[s].Slots())
	}
	keys := 1 << 18
	if testing.Short() {
		keys = 1 << 16
	}
	worst := 0.0
	for i := range keys {
		v.add(mix.Mix64(uint64(i) + 1))
		doubled := 0
		slots := 0
		for s := range lens {
			if n := len(v.tabs[s].Slots()); n != lens[s] {
				doubled++
				lens[s] = n
			}
			slots += lens[s]
		}
		if doubled > 1 {
			t.Fatalf("key %d: %d tables doubled at once", i+1, doubled)
		}
		if i+1 >= 1<<12 {
			worst = max(worst, float64(slots)/float64(i+1))
		}
	}
	if worst > 2.25 {
		t.Errorf("up to %.2f slots a key from 4,096 keys on; want at most 2.25", worst)
	}
}

// TestDictionaryStoresSharedFrequencies checks that the dictionary stores
// the frequencies of the keys held by two sets or more only, and that the
// vocabulary's tables are gone once it is built.
func TestDictionaryStoresSharedFrequencies(t *testing.T) {
	in := &Input{Workers: 2}
	df := map[uint64]int{}
	for r := range 200 {
		var set []uint64
		for k := range 50 {
			key := uint64(r*1000 + k) // held by this record alone
			if k%5 == 0 {
				key = uint64(k) // held by every record
			}
			set = append(set, key)
			df[key]++
		}
		in.Add(set)
	}
	ones := 0
	for _, n := range df {
		if n == 1 {
			ones++
		}
	}
	in.flush(0) // the keys that wait, entered as Build enters them
	voc := &in.voc
	d, _ := buildDictionary(voc, 2)
	if voc.len() != 0 || len(voc.tabs[0].Slots()) != 0 {
		t.Errorf("vocabulary of %d keys left after building the dictionary", voc.len())
	}
	if d.Len() != len(df) || d.ones != ones || len(d.df) != len(df)-ones {
		t.Fatalf("dictionary of %d keys, %d of frequency 1, %d frequencies stored; want %d, %d, %d",
			d.Len(), d.ones, len(d.df), len(df), ones, len(df)-ones)
	}
	for id := range d.Len() {
		if got, want := d.DF(uint32(id)), df[d.Key(uint32(id))]; got != want {
			t.Fatalf("id %d: DF %d, want %d", id, got, want)
		}
	}
}
