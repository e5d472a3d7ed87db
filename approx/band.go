package approx

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"slices"

	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/internal/parallel"
)

// entry is one unit in one band table: the band's key and the unit.
type entry struct {
	key  uint64
	unit uint32
}

// entryBytes is the memory of one band-table entry (with padding).
const entryBytes = 16

// tables are the band tables of a set of signatures: for every band, one
// entry per banded unit, sorted by (key, unit), so that a bucket (units with
// equal keys) is a run. capped[j] marks the units of band j's buckets over
// the cap (nil when there are none). Immutable once built.
type tables struct {
	shape     Shape
	bits      int
	bandBytes int // R·Bits/8
	sigs      *Signatures
	band      [][]entry
	capped    [][]uint64
	maxBucket int // -1: no cap

	buckets       int64
	largest       int
	cappedBuckets int64
	cappedPairs   int64 // unit pairs in capped buckets (self-join count)
}

// bandOf returns the bytes of band j of a packed signature row.
func (t *tables) bandOf(row []byte, j int) []byte {
	return row[j*t.bandBytes : (j+1)*t.bandBytes]
}

// bandKey hashes the bytes of band j of a row to 64 bits: splitmix64 steps
// over its little-endian 8-byte words (the last one zero-padded), started from
// the band number. Equal bands get equal keys; unequal ones collide with
// probability about 2⁻⁶⁴, and every use checks the bytes as well.
func bandKey(b []byte, j int) uint64 {
	h := uint64(j+1) * gamma
	for len(b) >= 8 {
		h = mix.Mix64(h ^ binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var w [8]byte
		copy(w[:], b)
		h = mix.Mix64(h ^ binary.LittleEndian.Uint64(w[:]) ^ uint64(len(b))<<56)
	}
	return h
}

// buildTables bands the units of sigs for which keep returns true (all when
// keep is nil), one band per goroutine, and marks the buckets over maxBucket
// units (maxBucket < 0: no cap).
func buildTables(ctx context.Context, sigs *Signatures, shape Shape, keep func(u int) bool, maxBucket, workers int) (*tables, error) {
	t := &tables{
		shape:     shape,
		bits:      sigs.Bits(),
		bandBytes: shape.R * sigs.Bits() / 8,
		sigs:      sigs,
		band:      make([][]entry, shape.B),
		capped:    make([][]uint64, shape.B),
		maxBucket: maxBucket,
	}
	n := sigs.Len()
	var units []uint32
	if keep != nil {
		units = make([]uint32, 0, n)
		for u := 0; u < n; u++ {
			if keep(u) {
				units = append(units, uint32(u))
			}
		}
	}
	type bandStats struct {
		buckets, cappedBuckets, cappedPairs int64
		largest                             int
	}
	bs := make([]bandStats, shape.B)
	err := parallel.For(ctx, shape.B, 1, workers, func(_, j, _ int) {
		var tab []entry
		add := func(u uint32) {
			tab = append(tab, entry{bandKey(t.bandOf(sigs.Row(int(u)), j), j), u})
		}
		if units != nil {
			tab = make([]entry, 0, len(units))
			for _, u := range units {
				add(u)
			}
		} else {
			tab = make([]entry, 0, n)
			for u := 0; u < n; u++ {
				add(uint32(u))
			}
		}
		slices.SortFunc(tab, func(a, b entry) int {
			if c := cmp.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.unit, b.unit)
		})
		st := &bs[j]
		for lo := 0; lo < len(tab); {
			hi := runEnd(tab, lo)
			m := hi - lo
			if m >= 2 {
				st.buckets++
				st.largest = max(st.largest, m)
				if maxBucket >= 0 && m > maxBucket {
					st.cappedBuckets++
					st.cappedPairs += int64(m) * int64(m-1) / 2
					if t.capped[j] == nil {
						t.capped[j] = make([]uint64, (n+63)/64)
					}
					for _, e := range tab[lo:hi] {
						t.capped[j][e.unit>>6] |= 1 << (e.unit & 63)
					}
				}
			}
			lo = hi
		}
		t.band[j] = tab
	})
	if err != nil {
		return nil, err
	}
	for _, st := range bs {
		t.buckets += st.buckets
		t.cappedBuckets += st.cappedBuckets
		t.cappedPairs += st.cappedPairs
		t.largest = max(t.largest, st.largest)
	}
	return t, nil
}

// runEnd returns the end of the run of equal keys starting at lo.
func runEnd(tab []entry, lo int) int {
	hi := lo + 1
	for hi < len(tab) && tab[hi].key == tab[lo].key {
		hi++
	}
	return hi
}

// bytes returns the memory of the band tables.
func (t *tables) bytes() int64 {
	var n int64
	for _, tab := range t.band {
		n += int64(len(tab)) * entryBytes
	}
	return n
}

// isCapped reports whether unit u sat in a capped bucket of band j.
func (t *tables) isCapped(j int, u uint32) bool {
	c := t.capped[j]
	return c != nil && c[u>>6]&(1<<(u&63)) != 0
}

// firstBand reports whether band j is the first band in which rows a and b
// (packed signature rows) agree and which considered the pair: the bands
// before j that agree must all have been capped for the unit capU (the
// indexed side's unit, whose capped marks apply). Every pair is handed on in
// exactly one band this way, without a set of pairs seen.
func (t *tables) firstBand(a, b []byte, j int, capU uint32) bool {
	if !bytes.Equal(t.bandOf(a, j), t.bandOf(b, j)) {
		return false // equal keys, different bands: a 64-bit key collision
	}
	for i := 0; i < j; i++ {
		if bytes.Equal(t.bandOf(a, i), t.bandOf(b, i)) && !t.isCapped(i, capU) {
			return false
		}
	}
	return true
}

// lookup returns the run of band j's table whose key is key (empty when
// none). O(log n).
func (t *tables) lookup(j int, key uint64) (lo, hi int) {
	tab := t.band[j]
	lo, _ = slices.BinarySearchFunc(tab, key, func(e entry, k uint64) int { return cmp.Compare(e.key, k) })
	hi = lo
	for hi < len(tab) && tab[hi].key == key {
		hi++
	}
	return lo, hi
}

// task is a piece of a self-join bucket: the pairs (p, q) of band j's table
// with from <= p < to and p < q < hi.
type task struct {
	band, from, to, hi int
}

// selfTasks cuts every uncapped bucket of two units or more into tasks of at
// most about budget pairs, in band order then key order, and groups them into
// chunks of about budget pairs: chunk k is tasks[bounds[k]:bounds[k+1]]. The
// same for any number of workers.
func (t *tables) selfTasks(budget int) (tasks []task, bounds []int) {
	var out []task
	bounds = []int{0}
	inChunk := 0
	add := func(tk task) {
		out = append(out, tk)
		for p := tk.from; p < tk.to; p++ {
			inChunk += tk.hi - p - 1
		}
		if inChunk >= budget {
			bounds = append(bounds, len(out))
			inChunk = 0
		}
	}
	for j, tab := range t.band {
		for lo := 0; lo < len(tab); {
			hi := runEnd(tab, lo)
			m := hi - lo
			if m >= 2 && (t.maxBucket < 0 || m <= t.maxBucket) {
				from, pairs := lo, 0
				for p := lo; p < hi-1; p++ {
					pairs += hi - p - 1
					if pairs >= budget {
						add(task{j, from, p + 1, hi})
						from, pairs = p+1, 0
					}
				}
				if from < hi-1 {
					add(task{j, from, hi - 1, hi})
				}
			}
			lo = hi
		}
	}
	if bounds[len(bounds)-1] != len(out) {
		bounds = append(bounds, len(out))
	}
	return out, bounds
}

// runChunks runs work over the chunks [bounds[k], bounds[k+1]) with
// parallel.Ordered (each worker with its own state from newState) and hands
// every chunk to emit in chunk order, from the calling goroutine; progress,
// if not nil, gets the chunks done and their total after each. emit
// returning false stops the run without error.
func runChunks[T, S any](ctx context.Context, bounds []int, workers int, newState func() S,
	work func(s S, lo, hi int, out []T, st *Stats) []T,
	emit func(c *parallel.Chunk[T, Stats]) bool, progress func(done, total int)) error {
	total, done := max(len(bounds)-1, 0), 0
	return parallel.Ordered(ctx, bounds, workers, newState,
		func(s S, c *parallel.Chunk[T, Stats]) { c.Out = work(s, c.Lo, c.Hi, c.Out, &c.Stats) },
		func(c *parallel.Chunk[T, Stats]) bool {
			if !emit(c) {
				return false
			}
			done++
			if progress != nil {
				progress(done, total)
			}
			return true
		})
}

// probe finds the candidates of one signature row among the indexed units,
// each once (in band order, then unit order within a bucket), and calls
// found for each. Buckets over the cap are skipped and counted.
func (t *tables) probe(row []byte, cs *Stats, found func(w uint32)) {
	for j := range t.band {
		lo, hi := t.lookup(j, bandKey(t.bandOf(row, j), j))
		m := hi - lo
		if m == 0 {
			continue
		}
		if t.maxBucket >= 0 && m > t.maxBucket {
			cs.CappedBuckets++
			cs.CappedPairs += int64(m)
			continue
		}
		for _, e := range t.band[j][lo:hi] {
			cs.Collisions++
			if t.firstBand(row, t.sigs.Row(int(e.unit)), j, e.unit) {
				cs.Candidates++
				found(e.unit)
			}
		}
	}
}
