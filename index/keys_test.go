package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// keyedModel is the oracle of an index with keys and stored text: the live
// records by key.
type keyedModel struct {
	live map[Key]keyedRec
}

type keyedRec struct {
	set     []uint32
	payload string
}

// TestParseKey: each kind's one text form, refused otherwise without
// quoting the text.
func TestParseKey(t *testing.T) {
	for _, c := range []struct {
		k  KeyKind
		s  string
		ok bool
	}{
		{IntKeys, "0", true}, {IntKeys, "-7", true}, {IntKeys, "9223372036854775807", true},
		{IntKeys, "-9223372036854775808", true}, {IntKeys, "9223372036854775808", false},
		{IntKeys, "07", false}, {IntKeys, "+7", false}, {IntKeys, "-0", false}, {IntKeys, "1e3", false},
		{IntKeys, "", false}, {IntKeys, " 7", false},
		{StringKeys, "doc-1", true}, {StringKeys, "ключ", true}, {StringKeys, "a b", true},
		{StringKeys, "", false}, {StringKeys, "tab\there", false}, {StringKeys, "nl\n", false},
		{StringKeys, "\x7f", false}, {StringKeys, "\u0085", false}, {StringKeys, "\xff", false},
		{StringKeys, string(make([]byte, MaxKeyBytes)), false},
		{NoKeys, "1", false},
	} {
		k, err := ParseKey(c.k, c.s)
		if (err == nil) != c.ok || c.ok && string(k) != c.s || !c.ok && !errors.Is(err, ErrKey) {
			t.Errorf("ParseKey(%v, %q) = %q, %v; want ok %v", c.k, c.s, k, err, c.ok)
		}
		if err != nil && len(c.s) > 2 && bytes.Contains([]byte(err.Error()), []byte(c.s)) {
			t.Errorf("ParseKey(%v, %q): the error quotes the text: %v", c.k, c.s, err)
		}
		if c.ok {
			b := appendKeyBytes(nil, c.k, k)
			if back := keyFromBytes(c.k, b); back != k || !checkKeyBytes(c.k, b) {
				t.Errorf("%q stored as %x reads back as %q", k, b, back)
			}
		}
	}
}

// TestKeysOracle drives an index with keys and stored text through random
// batches of inserts under each conflict rule (with and without dedup),
// deletes by key, checkpoints, compactions and reopens, and checks after
// each step, against a model of the live records by key: every key's
// record (GetKey: its text and payload), the outcomes, the live count,
// search hits' keys and fields, and that a key no live record holds is
// found by nothing.
func TestKeysOracle(t *testing.T) {
	smallCheckpoints(t)
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	for _, kind := range []KeyKind{IntKeys, StringKeys} {
		for _, method := range []Method{Exact, LSH} {
			t.Run(fmt.Sprintf("%v/%v", kind, method), func(t *testing.T) {
				keysOracle(t, kind, method, rand.New(rand.NewPCG(seed, uint64(kind)*2+uint64(method))))
			})
		}
	}
}

func keysOracle(t *testing.T, kind KeyKind, method Method, r *rand.Rand) {
	ctx := context.Background()
	cfg := Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: method, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Keys: kind, StoreText: true, RawSets: true}
	if method == LSH {
		cfg.Bands, cfg.Rows, cfg.Perm = 32, 1, 32 // every pair above 1/2 is a candidate, nearly surely
	}
	ix, dir := mustCreate(t, cfg)
	defer func() { ix.Close() }()
	o := keyedModel{live: map[Key]keyedRec{}}
	keyOf := func(i int) Key {
		if kind == IntKeys {
			return Key(strconv.Itoa(i*7919 - 50000))
		}
		return Key(fmt.Sprintf("doc/%d ü", i))
	}
	check := func(what string) {
		t.Helper()
		if st := ix.Stats(); st.Live != uint64(len(o.live)) {
			t.Fatalf("%s: %d live records, the model has %d", what, st.Live, len(o.live))
		}
		for i := 0; i < 40; i++ {
			k := keyOf(i)
			s, ok, err := ix.GetKey(k)
			want, live := o.live[k]
			if err != nil || ok != live {
				t.Fatalf("%s: GetKey(%q) = %v, %v; live in the model %v", what, k, ok, err, live)
			}
			if !live {
				continue
			}
			if s.Key != k || string(s.Text) != string(textOf(want.set)) || string(s.Payload) != want.payload {
				t.Fatalf("%s: GetKey(%q) = %+v, want text %q payload %q", what, k, s, textOf(want.set), want.payload)
			}
			if s2, ok, _ := ix.Get(s.ID); !ok || s2.Key != k {
				t.Fatalf("%s: Get(%d) = %+v, %v, want the record of %q", what, s.ID, s2, ok, k)
			}
			// The record finds itself, with its key and fields.
			res, err := ix.Search(ctx, [][]byte{textOf(want.set)}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}, Fields: FieldText | FieldPayload})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range res[0] {
				if h.Key == "" {
					t.Fatalf("%s: hit %+v without its key", what, h)
				}
				if h.Key == k {
					found = h.ID == s.ID && h.Text == string(s.Text) && h.Payload == want.payload
				}
			}
			if !found && (method == Exact || len(want.set) > 0) {
				t.Fatalf("%s: the search of %q's text answers %+v", what, k, res[0])
			}
		}
	}
	for step := 0; step < 60; step++ {
		switch op := r.IntN(10); {
		case op < 7:
			conf := Conflict(r.IntN(3))
			var dedup prefix.Threshold
			if r.IntN(2) == 0 {
				dedup = prefix.Threshold{Num: 4, Den: 5}
			}
			n := 1 + r.IntN(6)
			recs := make([]Record, n)
			sets := make([][]uint32, n)
			for i := range recs {
				sets[i] = distinct([]uint32{uint32(r.IntN(30)), uint32(r.IntN(30)), uint32(r.IntN(30)), uint32(r.IntN(30))})
				recs[i] = Record{Key: keyOf(r.IntN(40)), Text: textOf(sets[i])}
				if r.IntN(2) == 0 {
					recs[i].Payload = []byte(fmt.Sprintf(` { "n" : %d, "s": "x\ty" } `, r.IntN(100)))
				}
			}
			outs, err := ix.InsertRecords(ctx, recs, InsertOptions{Dedup: dedup, OnConflict: conf})
			// The model: records one at a time.
			var ke *KeyError
			if conf == ConflictError {
				seen := map[Key]bool{}
				bad := -1
				for i, rec := range recs {
					if _, held := o.live[rec.Key]; held || seen[rec.Key] {
						bad = i
						break
					}
					seen[rec.Key] = true
				}
				if bad >= 0 {
					if !errors.As(err, &ke) || ke.Index != bad || ke.Key != recs[bad].Key || !errors.Is(err, ErrKeyExists) {
						t.Fatalf("step %d: insert with key %q held: %v, want a *KeyError for record %d", step, recs[bad].Key, err, bad)
					}
					continue
				}
			}
			if err != nil {
				t.Fatalf("step %d: InsertRecords: %v", step, err)
			}
			for i, rec := range recs {
				got := outs[i]
				_, held := o.live[rec.Key]
				if held && conf == ConflictSkip {
					if !got.Exists || got.Key != rec.Key {
						t.Fatalf("step %d: record %d with a held key under skip: %+v", step, i, got)
					}
					continue
				}
				if dedup.Den != 0 && method == Exact {
					var best Key
					bestSim := -1.0
					for k, lr := range o.live {
						if held && k == rec.Key {
							continue // the record replaced is not a duplicate
						}
						if reachesJaccard(sets[i], lr.set, dedup) {
							if s := jaccard(sets[i], lr.set); s > bestSim || s == bestSim && lessKeyByID(ix, k, best) {
								best, bestSim = k, s
							}
						}
					}
					if bestSim >= 0 {
						if got.Inserted || got.Key != best {
							t.Fatalf("step %d: record %d %v: %+v, want a duplicate of %q", step, i, sets[i], got, best)
						}
						continue
					}
				}
				if !got.Inserted {
					if method == LSH && dedup.Den != 0 {
						continue // LSH may find what the model does not model
					}
					t.Fatalf("step %d: record %d: %+v, want inserted", step, i, got)
				}
				if got.Replaced != held || got.Key != rec.Key {
					t.Fatalf("step %d: record %d (key %q held %v): %+v", step, i, rec.Key, held, got)
				}
				o.live[rec.Key] = keyedRec{set: sets[i], payload: string(compactJSON(rec.Payload))}
			}
		case op < 9:
			var keys []Key
			for range 1 + r.IntN(4) {
				keys = append(keys, keyOf(r.IntN(40)))
			}
			n, err := ix.DeleteKeys(keys)
			want := 0
			for _, k := range keys {
				if _, ok := o.live[k]; ok {
					delete(o.live, k)
					want++
				}
			}
			if err != nil || n != want {
				t.Fatalf("step %d: DeleteKeys(%q) = %d, %v, want %d", step, keys, n, err, want)
			}
		default:
			if r.IntN(2) == 0 {
				if err := ix.Compact(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				ix.Close()
				var err error
				if ix, err = Open(dir, OpenOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		check(fmt.Sprintf("step %d", step))
	}
	// Only and exclude by key.
	var k0 Key
	for k := range o.live {
		if k0 == "" || k < k0 {
			k0 = k
		}
	}
	if k0 != "" {
		text := textOf(o.live[k0].set)
		res, err := ix.Search(ctx, [][]byte{text}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}, OnlyKeys: []Key{k0}})
		if err != nil || len(res[0]) != 1 || res[0][0].Key != k0 {
			t.Errorf("only %q: %v, %v", k0, res, err)
		}
		res, err = ix.Search(ctx, [][]byte{text}, SearchOptions{Threshold: prefix.Threshold{Num: 1, Den: 1}, ExcludeKeys: []Key{k0}})
		if err != nil || slices.ContainsFunc(res[0], func(h Hit) bool { return h.Key == k0 }) {
			t.Errorf("exclude %q: %v, %v", k0, res, err)
		}
	}
}

func jaccard(a, b []uint32) float64 {
	return prefix.NewBounds(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 1}).Similarity(overlapOf(a, b), len(a), len(b))
}

func overlapOf(a, b []uint32) int {
	n := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			n++
		}
	}
	return n
}

func reachesJaccard(a, b []uint32, t prefix.Threshold) bool {
	return prefix.NewBounds(prefix.Jaccard, t).Passes(overlapOf(a, b), len(a), len(b))
}

// lessKeyByID reports whether the live record of a has a lower id than
// that of b (ties of similarity go to the lower id).
func lessKeyByID(ix *Index, a, b Key) bool {
	if b == "" {
		return true
	}
	sa, _, _ := ix.GetKey(a)
	sb, _, _ := ix.GetKey(b)
	return sa.ID < sb.ID
}

// TestRecordRules: a record that breaks the index's rules fails its batch
// with a *RecordError naming it, before anything is written.
func TestRecordRules(t *testing.T) {
	ctx := context.Background()
	keyed, _ := mustCreate(t, Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: Exact, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Keys: IntKeys})
	plain, _ := mustCreate(t, exactConfig(prefix.Jaccard, prefix.Threshold{Num: 1, Den: 2}))
	defer keyed.Close()
	defer plain.Close()
	for _, c := range []struct {
		ix   *Index
		recs []Record
		is   error
	}{
		{keyed, []Record{{Key: "1", Text: []byte("a")}, {Text: []byte("b")}}, ErrKey},
		{keyed, []Record{{Key: "x", Text: []byte("a")}}, ErrKey},
		{keyed, []Record{{Key: "1", Text: []byte("a"), Payload: []byte(`{}`)}}, ErrPayload},
		{plain, []Record{{Key: "1", Text: []byte("a")}}, ErrKey},
		{plain, []Record{{Text: []byte("a"), Payload: []byte(`{"a":1}`)}}, ErrPayload},
	} {
		_, err := c.ix.InsertRecords(ctx, c.recs, InsertOptions{})
		var re *RecordError
		if !errors.As(err, &re) || !errors.Is(err, c.is) || re.Index != len(c.recs)-1 {
			t.Errorf("%+v: %v, want a *RecordError for record %d wrapping %v", c.recs, err, len(c.recs), c.is)
		}
	}
	if st := keyed.Stats(); st.Records != 0 {
		t.Errorf("%d records after refused batches", st.Records)
	}
	if _, err := plain.Search(ctx, [][]byte{[]byte("a")}, SearchOptions{TopK: 1, Fields: FieldText}); !errors.Is(err, ErrOptions) {
		t.Errorf("fields of an index that stores no text: %v", err)
	}
	if _, err := plain.Search(ctx, [][]byte{[]byte("a")}, SearchOptions{TopK: 1, OnlyKeys: []Key{"1"}}); !errors.Is(err, ErrOptions) {
		t.Errorf("only keys of an index without keys: %v", err)
	}
	stored, _ := mustCreate(t, Config{Tokens: shingle.Spec{Kind: shingle.Set}, Method: Exact, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2}, StoreText: true})
	defer stored.Close()
	for _, p := range []string{`[1]`, `"x"`, `{"a":`, `{} {}`, ``} {
		if _, err := stored.InsertRecords(ctx, []Record{{Text: []byte("a"), Payload: []byte(p)}}, InsertOptions{}); !errors.Is(err, ErrPayload) {
			t.Errorf("payload %q: %v, want ErrPayload", p, err)
		}
	}
}

// TestStoredTextCompacted: a deleted record's text is gone from the
// directory's files once a compaction has dropped it, and the other
// records' text stays, read back from the segments after a reopen.
func TestStoredTextCompacted(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Tokens: shingle.Spec{Kind: shingle.Words}, Method: Exact, Measure: prefix.Jaccard,
		MinThreshold: prefix.Threshold{Num: 1, Den: 2}, Keys: StringKeys, StoreText: true}
	ix, dir := mustCreate(t, cfg)
	recs := []Record{
		{Key: "keep", Text: []byte("a record that stays put"), Payload: []byte(`{"v": 1}`)},
		{Key: "gone", Text: []byte("secret-marker-7d1e words to drop"), Payload: []byte(`{"marker": "payload-marker-91c"}`)},
	}
	if _, err := ix.InsertRecords(ctx, recs, InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.checkpointNow(); err != nil {
		t.Fatal(err)
	}
	contains := func(marker string) bool {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			if bytes.Contains(b, []byte(marker)) {
				return true
			}
		}
		return false
	}
	if !contains("secret-marker-7d1e") || !contains("payload-marker-91c") {
		t.Fatal("the stored text is not in the index's files")
	}
	if n, err := ix.DeleteKeys([]Key{"gone"}); n != 1 || err != nil {
		t.Fatalf("DeleteKeys: %d, %v", n, err)
	}
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if contains("secret-marker-7d1e") || contains("payload-marker-91c") {
		t.Error("a deleted record's text is still in the index's files after a compaction")
	}
	ix, err := Open(dir, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if s, ok, err := ix.GetKey("keep"); !ok || err != nil || string(s.Text) != "a record that stays put" || string(s.Payload) != `{"v":1}` {
		t.Errorf("GetKey(keep) after compaction and reopen: %+v, %v, %v", s, ok, err)
	}
	if _, ok, _ := ix.GetKey("gone"); ok {
		t.Error("GetKey(gone) finds the deleted record")
	}
}
