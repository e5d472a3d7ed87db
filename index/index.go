package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// Method is how an index finds candidates.
type Method uint8

const (
	// Exact keeps a prefix index over the records' sets (AllPairs/PPJoin
	// filters); similarities are exact and nothing is ever missed.
	Exact Method = 1
	// LSH keeps MinHash signatures and band tables (package approx's hashers
	// and banding); recall follows the S-curve of the banding.
	LSH Method = 2
)

// String returns the command-line name of m: "exact" or "lsh".
func (m Method) String() string {
	switch m {
	case Exact:
		return "exact"
	case LSH:
		return "lsh"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// Config is fixed at Create and stored in the manifest.
type Config struct {
	// Tokens says how a record's text becomes its token set.
	Tokens shingle.Spec
	// Method is Exact or LSH.
	Method Method
	// Measure is the similarity measure; LSH supports Jaccard only.
	Measure prefix.Measure
	// MinThreshold is the smallest threshold a search or dedup may ask of an
	// Exact index: it fixes the length of the indexed prefixes.
	MinThreshold prefix.Threshold
	// Perm is the number of MinHash minima K (LSH); Bands the number of bands
	// b (r = Perm/Bands rows each); Bits the stored bits of a minimum: 8, 16,
	// 32 or 64.
	Perm, Bands, Bits int
	// Seed is the LSH hash seed.
	Seed uint64
	// RawSets keeps the records' token sets: LSH candidates are then verified
	// exactly and similarities are exact. Without, an LSH index keeps
	// signatures only and similarities are estimates. Exact always keeps them.
	RawSets bool
}

// ID identifies a record: assigned 0, 1, 2, ... in insertion order, never reused.
type ID uint64

// OpenOptions are the options of Open. The zero value is the default.
type OpenOptions struct {
	// Workers bounds the goroutines of a batch search or insert; 0 = GOMAXPROCS.
	Workers int
}

// Outcome is the answer for one record of an Insert.
type Outcome struct {
	// Inserted is true when the record was added.
	Inserted bool
	// ID is the new record's id, or for a duplicate the held record it
	// matched best (highest similarity, then lowest id).
	ID ID
	// Sim is the similarity to that record, for a duplicate.
	Sim float64
	// Estimated is true when Sim is a MinHash estimate (LSH without raw sets).
	Estimated bool
}

// SearchOptions say what a Search returns.
type SearchOptions struct {
	// Threshold returns every record with similarity >= Threshold (for an
	// Exact index, at least Config.MinThreshold).
	Threshold prefix.Threshold
	// TopK, when > 0 and Threshold is zero, returns the TopK most similar
	// records: RefineK candidates (at least TopK) are taken by estimate and
	// verified exactly when the sets are kept.
	TopK, RefineK int
	// Only restricts the search to these ids; Exclude leaves these out. nil
	// means no restriction.
	Only, Exclude []ID
}

// Hit is one record found by Search.
type Hit struct {
	ID        ID
	Sim       float64
	Estimated bool
}

// Stats describes an index.
type Stats struct {
	Method      Method
	Records     uint64 // ids assigned so far (next ID)
	Live        uint64 // records not deleted
	Deleted     uint64 // tombstoned records not yet compacted away
	Segments    int    // immutable segments
	Mutable     int    // records in the mutable part (not yet in a segment)
	Tokens      int    // distinct tokens in the token order
	BytesOnDisk int64  // total size of the index's files
	WALBytes    int64  // size of the write-ahead log
}

var (
	// ErrExists is returned by Create for a directory that already holds an index.
	ErrExists = errors.New("index: directory already holds an index")
	// ErrNotIndex is returned by Open for a directory without an index manifest.
	ErrNotIndex = errors.New("index: not an index directory")
	// ErrThresholdBelowMin is returned for a search or dedup threshold below
	// an Exact index's MinThreshold.
	ErrThresholdBelowMin = errors.New("index: threshold below the index's minimum threshold")
	// ErrClosed is returned by every method of a closed index.
	ErrClosed = errors.New("index: closed")
	// ErrConfig is returned (wrapped) by Create for an invalid Config.
	ErrConfig   = errors.New("index: bad config")
	errNotBuilt = errors.New("index: not built yet")
)

// CorruptError reports a file of the index whose checksum, length or structure
// is wrong. The index never answers from a corrupt file.
type CorruptError struct {
	File string // path of the file
	Err  error  // what is wrong
}

func (e *CorruptError) Error() string { return "index: corrupt file " + e.File + ": " + e.Err.Error() }
func (e *CorruptError) Unwrap() error { return e.Err }

// Index is an open index directory. See the package doc for concurrency.
type Index struct {
	cfg Config
}

// Create makes a new index in dir (created if missing) with cfg.
func Create(dir string, cfg Config) (*Index, error) { return nil, errNotBuilt }

// Open opens the index in dir, replays its write-ahead log and truncates a torn tail.
func Open(dir string, opt OpenOptions) (*Index, error) { return nil, errNotBuilt }

// Close releases the index. It does not wait for nothing: every acknowledged
// write is already durable.
func (ix *Index) Close() error { return errNotBuilt }

// Config returns the index's configuration.
func (ix *Index) Config() Config { return ix.cfg }

// Insert tokenizes and adds records. With dedup.Den == 0 every record is
// inserted. Otherwise a record is inserted only when no live held record, nor
// an earlier record of this batch that was inserted, reaches dedup (Exact:
// the kept set equals a sequential greedy dedup). Insert returns once the batch
// is durable (the WAL fsynced). One writer at a time; concurrent searches see a
// snapshot.
func (ix *Index) Insert(ctx context.Context, records [][]byte, dedup prefix.Threshold) ([]Outcome, error) {
	return nil, errNotBuilt
}

// Search answers each query, best first (ties by ID ascending). Safe for
// concurrent use with each other and with one writer.
func (ix *Index) Search(ctx context.Context, queries [][]byte, opt SearchOptions) ([][]Hit, error) {
	return nil, errNotBuilt
}

// Delete tombstones ids. It is durable on return; unknown or already deleted
// ids are not an error and not counted.
func (ix *Index) Delete(ids []ID) (deleted int, err error) { return 0, errNotBuilt }

// Compact merges the segments and the mutable part into one segment, drops
// deleted records and re-orders tokens rare-first.
func (ix *Index) Compact(ctx context.Context) error { return errNotBuilt }

// Stats returns the index's statistics.
func (ix *Index) Stats() Stats { return Stats{} }

// Verify checks every checksum of every file; an error is a *CorruptError
// naming the file.
func (ix *Index) Verify() error { return errNotBuilt }
