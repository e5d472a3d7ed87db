package index

// Stored is a record as the index holds it: its id, its key (an index with
// keys) and, with Config.StoreText, its text and payload (copies; Payload
// nil when it has none).
type Stored struct {
	ID      ID
	Key     Key
	Text    []byte
	Payload []byte
}

// Get returns the live record id, or false when no live record has it.
// Safe for concurrent use (it reads one snapshot). Cost: a binary search
// over the segments and one within the segment.
func (ix *Index) Get(id ID) (Stored, bool, error) {
	snap, err := ix.acquire()
	if err != nil {
		return Stored{}, false, err
	}
	defer ix.releaseSnap(snap)
	s, ok := snap.get(seq(id - 1))
	return s, ok && id != 0, nil
}

// GetKey returns the live record holding key (an index with keys), or
// false when none does. Safe for concurrent use. Cost: a lookup in the
// mutable part's key map and in each segment's key table, newest first,
// until one holds the key.
func (ix *Index) GetKey(key Key) (Stored, bool, error) {
	if _, err := ParseKey(ix.cfg.Keys, string(key)); err != nil {
		return Stored{}, false, err
	}
	snap, err := ix.acquire()
	if err != nil {
		return Stored{}, false, err
	}
	defer ix.releaseSnap(snap)
	id, live := snap.lookupKey(appendKeyBytes(nil, ix.cfg.Keys, key))
	if !live {
		return Stored{}, false, nil
	}
	s, ok := snap.get(id)
	return s, ok, nil
}

// get returns the record id of st if it is live.
func (st *state) get(id seq) (Stored, bool) {
	part, row, ok := st.locate(id)
	if !ok || st.dead(part, row) {
		return Stored{}, false
	}
	s := Stored{ID: id.id()}
	if st.cfg.Keys != NoKeys {
		s.Key = keyFromBytes(st.cfg.Keys, st.keyBytes(part, row))
	}
	if st.cfg.StoreText {
		s.Text = append([]byte{}, st.textOf(part, row)...)
		if p := st.payloadOf(part, row); len(p) > 0 {
			s.Payload = append([]byte(nil), p...)
		}
	}
	return s, true
}

// DeleteKeys deletes the live records holding keys (an index with keys),
// as Delete does by id: durable on return; keys no live record holds are
// not an error and not counted.
func (ix *Index) DeleteKeys(keys []Key) (deleted int, err error) {
	for _, k := range keys {
		if _, err := ParseKey(ix.cfg.Keys, string(k)); err != nil {
			return 0, err
		}
	}
	return ix.delete(func(st *state) []seq {
		var seqs []seq
		var b []byte
		for _, k := range keys {
			b = appendKeyBytes(b[:0], ix.cfg.Keys, k)
			if id, live := st.lookupKey(b); live {
				seqs = append(seqs, id)
			}
		}
		return seqs
	})
}
