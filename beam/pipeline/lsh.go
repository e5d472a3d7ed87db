package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/mix"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/prefix"
)

// LSH configures the MinHash-LSH path. Options must be resolved
// (approx.Options.Resolve): the pipeline signs with the same hasher, the same
// K, bits and banding, so a set gets the signature and band keys the
// single-machine run gives it for the same seed.
type LSH struct {
	Options approx.Options
	// SFrom is the first record id of S in an R-S join (the ids of R's files
	// come first); 0 means a self-join.
	SFrom uint64
}

// lshFn carries the resolved options into the DoFns.
type lshFn struct {
	Measure   int
	Num, Den  uint64
	Scheme    int
	K, Bits   int
	B, R      int
	Seed      uint64
	MaxBucket int // -1: no cap
	MinSize   int
	SFrom     uint64 // R-S: the first id of S; 0: a self-join
}

func (l LSH) fn() lshFn {
	o := l.Options
	return lshFn{Measure: int(o.Measure), Num: o.Threshold.Num, Den: o.Threshold.Den,
		Scheme: int(o.Scheme), K: o.K, Bits: o.Bits, B: o.Shape.B, R: o.Shape.R,
		Seed: o.Seed, MaxBucket: o.MaxBucket, MinSize: o.MinSize, SFrom: l.SFrom}
}

// isS reports whether a record or unit id is on the S side of an R-S join.
func (l lshFn) isS(id uint64) bool { return l.SFrom != 0 && id >= l.SFrom }

func (l lshFn) bounds() prefix.Bounds {
	return prefix.NewBounds(prefix.Measure(l.Measure), prefix.Threshold{Num: l.Num, Den: l.Den})
}

func init() {
	register.DoFn3x0[context.Context, Record, func(uint64, Record)](&fingerprintFn{})
	register.Emitter2[uint64, Record]()
	register.DoFn5x0[context.Context, uint64, func(*Record) bool, func(Unit), func(Pair)](&unitFn{})
	register.Emitter1[Unit]()
	register.Iter1[Record]()
	register.DoFn3x1[context.Context, Unit, func(BucketKey, Member), error](&bandFn{})
	register.Emitter2[BucketKey, Member]()
	register.DoFn3x0[BucketKey, Member, func(BucketKey, int64)](&bucketOneFn{})
	register.Emitter2[BucketKey, int64]()
	register.DoFn3x0[BucketKey, int64, func(BucketKey, int64)](&cappedFn{})
	register.DoFn5x0[context.Context, BucketKey, func(*Member) bool, func(*BucketKey, *int64) bool, func(uint64, uint64)](&bucketFn{})
	register.Iter2[BucketKey, int64]()
	register.Emitter2[uint64, uint64]()
	register.Function3x0(unitByID)
	register.Emitter2[uint64, Unit]()
	register.DoFn5x0[context.Context, uint64, func(*uint64) bool, func(*Unit) bool, func(uint64, Unit)](&fetchFn{})
	register.Iter1[uint64]()
	register.Iter1[Unit]()
	register.DoFn6x0[context.Context, uint64, func(*Unit) bool, func(*Unit) bool, func(Pair), func(uint64, uint64)](&verifyFn{})
}

// LSHSelfJoin finds the similar pairs of records by MinHash-LSH: identical
// sets are grouped into units (their pairs reported directly), every unit is
// signed and sends one key per band, each band bucket pairs its units (a
// pair only in the first band that pairs it, so candidates are distinct), a
// bucket of more than MaxBucket units pairs none (counted), and every
// candidate fetches both sets and is verified exactly. It returns the record
// pairs and the unit edges (first record of one unit, first record of the
// other, and each unit's first record with its other records) from which
// Components finds the clusters.
//
// With l.SFrom set it is instead the R-S join of the records before SFrom
// with those from it, as approx.RSJoin: the units are the distinct sets of
// each side apart, a bucket pairs only an R unit with an S unit, and only its
// S units count against MaxBucket.
func LSHSelfJoin(s beam.Scope, records beam.PCollection, l LSH) (pairs, edges beam.PCollection) {
	return lshJoin(s.Scope("LSH"), records, l, true)
}

// LSHLinks is LSHSelfJoin for a dedup: only its edges, as few as the
// clusters need. n copies of a set are one unit, linked by n-1 edges, and
// two similar units by one edge; no record pair is made, so that the cost
// stays linear in the copies.
func LSHLinks(s beam.Scope, records beam.PCollection, l LSH) beam.PCollection {
	_, edges := lshJoin(s.Scope("LSHLinks"), records, l, false)
	return edges
}

// lshJoin is LSHSelfJoin, with the record pairs made only when pairs is
// set (otherwise pairs is an empty PCollection).
func lshJoin(s beam.Scope, records beam.PCollection, l LSH, pairs bool) (found, edges beam.PCollection) {
	fn := l.fn()
	units, same := groupUnits(s, records, fn, pairs)
	banded := beam.ParDo(s, &bandFn{L: fn}, units)
	capped := beam.ParDo(s, &cappedFn{MaxBucket: fn.MaxBucket},
		beam.CombinePerKey(s, sumCounts, beam.ParDo(s, &bucketOneFn{SFrom: fn.SFrom}, banded)))
	cands := beam.ParDo(s, &bucketFn{L: fn}, beam.GroupByKey(s, banded), beam.SideInput{Input: capped})
	byID := beam.ParDo(s, unitByID, units)
	halves := beam.ParDo(s, &fetchFn{}, beam.CoGroupByKey(s, cands, byID))
	found, unitEdges := beam.ParDo2(s, &verifyFn{L: fn, Pairs: pairs}, beam.CoGroupByKey(s, halves, byID))
	return beam.Flatten(s, same, found), beam.Flatten(s, unitEdges, unitMembers(s, units, fn))
}

// groupUnits groups the records into units of identical sets (within one
// side of an R-S join), with one shuffle of every record keyed by a
// fingerprint of its set. It returns the units and, with pairs, the record
// pairs of a self-join's copies (m(m-1)/2 for a unit of m records whose set
// reaches the threshold with itself); without, an empty PCollection.
func groupUnits(s beam.Scope, records beam.PCollection, fn lshFn, pairs bool) (units, same beam.PCollection) {
	keyed := beam.ParDo(s, &fingerprintFn{L: fn}, records)
	return beam.ParDo2(s, &unitFn{L: fn, Pairs: pairs}, beam.GroupByKey(s, keyed))
}

func init() {
	register.DoFn2x0[Unit, func(uint64, uint64)](&unitMembersFn{})
}

// unitMembers links every unit's first record to its other records, when
// the unit's set reaches the threshold with itself (an Overlap threshold
// above its size does not): n-1 edges for n copies.
func unitMembers(s beam.Scope, units beam.PCollection, fn lshFn) beam.PCollection {
	return beam.ParDo(s, &unitMembersFn{L: fn}, units)
}

type unitMembersFn struct {
	L lshFn
}

func (f *unitMembersFn) ProcessElement(u Unit, emit func(uint64, uint64)) {
	if n := len(u.Keys); !f.L.bounds().Passes(n, n, n) {
		return
	}
	for _, r := range u.Records[1:] {
		emit(u.ID, r)
	}
}

// fingerprintFn keys every banded record by a 64-bit hash of its set, so that
// identical sets meet; empty records and those under MinSize are counted and
// left out, as approx leaves them out.
type fingerprintFn struct {
	L lshFn
}

func (f *fingerprintFn) ProcessElement(ctx context.Context, r Record, emit func(uint64, Record)) {
	mRecords.Inc(ctx, 1)
	switch {
	case len(r.Keys) == 0:
		mSkipped.Inc(ctx, 1)
		return
	case len(r.Keys) < f.L.MinSize:
		mDropped.Inc(ctx, 1)
		return
	}
	mSetTokens.Inc(ctx, int64(len(r.Keys)))
	h := uint64(len(r.Keys))
	if f.L.isS(r.ID) {
		h = ^h // the sides never share a unit
	}
	for _, k := range r.Keys {
		h = mix.Mix64(h ^ k)
	}
	emit(h, r)
	mShuffleUnits.Inc(ctx, int64(8+recordSize(r)))
}

// unitFn turns the records of one fingerprint into units, telling apart
// different sets that share a fingerprint, and reports the pairs of
// identical copies.
type unitFn struct {
	L lshFn
	// Pairs reports the record pairs of a self-join's copies; false in a
	// dedup, which needs only the units.
	Pairs bool
}

func (f *unitFn) ProcessElement(ctx context.Context, _ uint64, it func(*Record) bool, emit func(Unit), same func(Pair)) {
	var recs []Record
	var r Record
	for it(&r) {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b Record) int {
		if c := slices.Compare(a.Keys, b.Keys); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	b := f.L.bounds()
	for lo := 0; lo < len(recs); {
		hi := lo + 1
		for hi < len(recs) && slices.Equal(recs[hi].Keys, recs[lo].Keys) && f.L.isS(recs[hi].ID) == f.L.isS(recs[lo].ID) {
			hi++
		}
		u := Unit{ID: recs[lo].ID, Keys: recs[lo].Keys}
		for _, x := range recs[lo:hi] {
			u.Records = append(u.Records, x.ID)
		}
		n := len(u.Keys)
		if f.Pairs && f.L.SFrom == 0 && b.Passes(n, n, n) {
			for i, x := range u.Records {
				for _, y := range u.Records[i+1:] {
					same(Pair{A: x, B: y, Overlap: uint32(n), SA: uint32(n), SB: uint32(n)})
					mResults.Inc(ctx, 1)
				}
			}
		}
		mUnits.Inc(ctx, 1)
		emit(u)
		lo = hi
	}
}

// bandFn signs a unit with approx's hasher, packs the signature as approx
// stores it, and sends the unit to the bucket of each band.
type bandFn struct {
	L      lshFn
	hasher *approx.Hasher
	sig    []uint64
}

func (f *bandFn) ProcessElement(ctx context.Context, u Unit, emit func(BucketKey, Member)) error {
	if f.hasher == nil {
		h, err := approx.NewHasher(approx.Scheme(f.L.Scheme), f.L.K, f.L.Seed)
		if err != nil {
			return err
		}
		f.hasher = h
	}
	f.sig = f.hasher.Sign(f.sig, u.Keys)
	packed, err := approx.NewSignatures(1, f.L.K, f.L.Bits)
	if err != nil {
		return err
	}
	packed.Put(0, f.sig)
	row := packed.Row(0)
	m := Member{ID: u.ID, Bands: make([]uint64, f.L.B)}
	n := f.L.R * f.L.Bits / 8 // bytes of one band
	for j := range m.Bands {
		m.Bands[j] = approx.BandKey(row[j*n:(j+1)*n], j)
	}
	size := int64(memberSize(m))
	for j, k := range m.Bands {
		key := BucketKey{Band: uint32(j), Key: k}
		emit(key, m)
		mShuffleBands.Inc(ctx, size+int64(uvarintLen(uint64(j))+8))
	}
	return nil
}

// bucketOneFn counts a unit in its bucket (R-S: an S unit).
type bucketOneFn struct {
	SFrom uint64
}

func (f *bucketOneFn) ProcessElement(k BucketKey, m Member, emit func(BucketKey, int64)) {
	if f.SFrom == 0 || m.ID >= f.SFrom {
		emit(k, 1)
	}
}

// cappedFn passes the buckets over the cap: a side input of the buckets that
// pair no units.
type cappedFn struct {
	MaxBucket int
}

func (f *cappedFn) ProcessElement(k BucketKey, n int64, emit func(BucketKey, int64)) {
	if f.MaxBucket >= 0 && n > int64(f.MaxBucket) {
		emit(k, n)
	}
}

// bucketFn pairs the units of one bucket, each pair only when no earlier band
// pairs it (an earlier band with equal keys whose bucket is not capped), so
// that every candidate leaves exactly one bucket: candidates are distinct
// with no shuffle to remove repeats. A capped bucket pairs nothing and is
// counted, with its unit pairs, as approx counts it.
type bucketFn struct {
	L      lshFn
	capped map[BucketKey]bool
}

func (f *bucketFn) ProcessElement(ctx context.Context, k BucketKey, it func(*Member) bool, capped func(*BucketKey, *int64) bool, emit func(uint64, uint64)) {
	if f.capped == nil {
		f.capped = map[BucketKey]bool{}
		var ck BucketKey
		var n int64
		for capped(&ck, &n) {
			f.capped[ck] = true
		}
	}
	var ms []Member
	var m Member
	for it(&m) {
		ms = append(ms, m)
	}
	n := int64(len(ms))
	if n < 2 {
		return
	}
	unitPairs := n * (n - 1) / 2
	if f.L.SFrom != 0 { // R-S: an R unit with an S unit
		r := int64(0)
		for _, m := range ms {
			if !f.L.isS(m.ID) {
				r++
			}
		}
		unitPairs = r * (n - r)
	}
	mBuckets.Inc(ctx, 1)
	mBucketSize.Update(ctx, n)
	if f.capped[k] {
		mCappedBuckets.Inc(ctx, 1)
		mCappedPairs.Inc(ctx, unitPairs)
		return
	}
	mCollisions.Inc(ctx, unitPairs)
	slices.SortFunc(ms, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	for i, a := range ms {
	pairs:
		for _, b := range ms[i+1:] {
			if f.L.SFrom != 0 && (f.L.isS(a.ID) || !f.L.isS(b.ID)) {
				continue // R-S: R's ids come first
			}
			for j := range k.Band {
				if a.Bands[j] == b.Bands[j] && !f.capped[BucketKey{Band: j, Key: a.Bands[j]}] {
					continue pairs // an earlier band pairs them
				}
			}
			emit(a.ID, b.ID)
			mLSHCandidates.Inc(ctx, 1)
			mShuffleFetch.Inc(ctx, int64(uvarintLen(a.ID)+uvarintLen(b.ID)))
		}
	}
}

// unitByID keys a unit by its id. The units go to two co-groups (fetch and
// verify), so their bytes count twice.
func unitByID(ctx context.Context, u Unit, emit func(uint64, Unit)) {
	emit(u.ID, u)
	mShuffleFetch.Inc(ctx, 2*int64(uvarintLen(u.ID)+unitSize(u)))
}

// fetchFn attaches unit a to each candidate (a, b) and sends it to b.
type fetchFn struct{}

func (f *fetchFn) ProcessElement(ctx context.Context, _ uint64, partners func(*uint64) bool, unit func(*Unit) bool, emit func(uint64, Unit)) {
	var u Unit
	if !unit(&u) {
		return
	}
	var b uint64
	for partners(&b) {
		emit(b, u)
		mShuffleFetch.Inc(ctx, int64(uvarintLen(b)+unitSize(u)))
	}
}

// verifyFn verifies every candidate of unit b exactly (prefix.Bounds, integer
// arithmetic) and reports the record pairs of the units that pass, and the
// unit edge.
type verifyFn struct {
	L lshFn
	// Pairs reports the record pairs of two similar units, every record of
	// one with every record of the other; false in a dedup, which needs only
	// the units' edge.
	Pairs bool
}

func (f *verifyFn) ProcessElement(ctx context.Context, _ uint64, halves func(*Unit) bool, unit func(*Unit) bool, emit func(Pair), edge func(uint64, uint64)) {
	var v Unit
	if !unit(&v) {
		return
	}
	bd := f.L.bounds()
	var u Unit
	for halves(&u) {
		need := bd.MinOverlap(len(u.Keys), len(v.Keys))
		if need > min(len(u.Keys), len(v.Keys)) {
			continue
		}
		o := join.OverlapAtLeast(u.Keys, v.Keys, need)
		if !bd.Passes(o, len(u.Keys), len(v.Keys)) {
			continue
		}
		edge(u.ID, v.ID)
		if !f.Pairs {
			continue
		}
		for _, a := range u.Records {
			for _, b := range v.Records {
				p := Pair{A: a, B: b, Overlap: uint32(o), SA: uint32(len(u.Keys)), SB: uint32(len(v.Keys))}
				if b < a {
					p.A, p.B, p.SA, p.SB = b, a, p.SB, p.SA
				}
				emit(p)
				mResults.Inc(ctx, 1)
			}
		}
	}
}

// CheckLSH resolves the LSH options for a pipeline: the checks and the
// banding choice of approx.Options.Resolve.
func CheckLSH(o approx.Options) (approx.Options, error) {
	r, err := o.Resolve()
	if err != nil {
		return r, fmt.Errorf("lsh: %w", err)
	}
	return r, nil
}
