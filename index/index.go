package index

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kelindar/bitmap"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/invariants"
	"github.com/simjoin/simjoin/internal/parallel"
	"github.com/simjoin/simjoin/planner"
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

// ParseMethod reads a method by its String: "exact" or "lsh".
func ParseMethod(s string) (Method, error) {
	for _, m := range []Method{Exact, LSH} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("index: %w %q: want exact or lsh", planner.ErrMethod, s)
}

// Config is fixed at Create and stored in the manifest, in the form
// docs/index-format.md specifies (MarshalJSON).
type Config struct {
	// Tokens says how a record's text becomes its token set.
	Tokens shingle.Spec
	// Method is Exact or LSH.
	Method Method
	// Measure is the similarity measure; LSH supports Jaccard only.
	Measure prefix.Measure
	// MinThreshold is the smallest threshold a search or dedup may ask of an
	// Exact index: it fixes the length of the indexed prefixes (the probe
	// prefix at MinThreshold of every set). For LSH it is optional and only
	// serves to choose the banding when Bands is zero.
	MinThreshold prefix.Threshold
	// Perm is the number of MinHash minima K a signature holds (LSH,
	// default approx.DefaultK); Bands the number of bands b and Rows the
	// rows r of each, b·r <= Perm: the bands are made of the first b·r
	// values, and an estimate uses all Perm (so it is as good as K values
	// make it, and the signatures are those of a batch LSH join with the
	// same K and banding). Bands zero: b and r are chosen for a recall of
	// Recall at MinThreshold within Perm values. Rows zero: Perm/Bands.
	// Bits the stored bits of a minimum: 8, 16, 32 or 64 (default 32).
	Perm  int
	Bands int
	Rows  int
	Bits  int
	// Shape, when given, is the banding B bands of R rows: Create sets Bands
	// to B, Rows to R and, when Perm is zero, Perm to B·R (a Perm given
	// must be at least B·R; Bands and Rows must not be given). Recall is the
	// least probability of finding a pair at MinThreshold that the banding
	// Create chooses, when neither Bands nor Shape is given, must reach: in
	// (0, 1), 0 meaning approx.DefaultRecall. Both only say how Create sets
	// Perm, Bands and Rows: it leaves them zero, and the manifest does not
	// keep them.
	Shape  approx.Shape
	Recall float64
	// BloomFPP is the false-positive probability of the LSH band filters:
	// one Bloom filter per segment and band over its band keys, so that a
	// search skips the segments that cannot hold its keys (bloom.go;
	// Milvus's mh_lsh_bloom_false_positive_prob). From MinBloomFPP to
	// MaxBloomFPP; 0 means DefaultBloomFPP, NoBloom none. A lower one
	// spends more bytes (about 10 bits a record and band at 0.01).
	BloomFPP float64
	// Force makes Create take an LSH banding that finds a pair at
	// MinThreshold with a probability below MinRecall, which it refuses
	// otherwise (a *ConfigError for "Bands" wrapping a *RecallError). Not
	// kept either.
	Force bool
	// Seed is the LSH hash seed.
	Seed uint64
	// RawSets keeps the records' token sets: LSH candidates are then verified
	// exactly and similarities are exact. Without, an LSH index keeps
	// signatures only and similarities are estimates. Exact always keeps them.
	RawSets bool
	// Keys says how records are named: by the ID the index assigns (NoKeys,
	// the zero value) or by a key each record carries (IntKeys,
	// StringKeys; see Key).
	Keys KeyKind
	// StoreText keeps each record's text, and the JSON payload object it
	// may carry, beside its set: a search returns them when asked
	// (SearchOptions.Fields), Get by id or key. They live in the segments
	// (memory-mapped, under the same checksums) and go when a compaction
	// drops their record.
	StoreText bool
}

// storedConfig is Config as the manifest holds it (docs/index-format.md):
// the tokenizer's fields, the method and the measure by their numbers and
// the minimum threshold as its fraction. prefix.Measure and
// prefix.Threshold marshal as their names and decimals ("jaccard", "0.8"),
// which the format does not use.
type storedConfig struct {
	Tokens       shingle.Spec `json:"tokens"`
	Method       Method       `json:"method"`
	Measure      uint8        `json:"measure"`
	MinThreshold struct {
		Num, Den uint64
	} `json:"min_threshold"`
	Perm      int     `json:"perm,omitempty"`
	Bands     int     `json:"bands,omitempty"`
	Rows      int     `json:"rows,omitempty"`
	Bits      int     `json:"bits,omitempty"`
	Seed      uint64  `json:"seed,omitempty"`
	BloomFPP  float64 `json:"bloom_fpp,omitempty"`
	RawSets   bool    `json:"raw_sets,omitempty"`
	Keys      KeyKind `json:"keys,omitempty"`
	StoreText bool    `json:"store_text,omitempty"`
}

// MarshalJSON writes c as the index manifest stores it: keys "tokens",
// "method" (1 exact, 2 LSH), "measure" (prefix.Measure's number),
// "min_threshold" ({"Num", "Den"}), then "perm", "bands", "rows", "bits",
// "seed", "bloom_fpp", "raw_sets", "keys" (KeyKind's number) and
// "store_text" when not zero.
func (c Config) MarshalJSON() ([]byte, error) {
	s := storedConfig{Tokens: c.Tokens, Method: c.Method, Measure: uint8(c.Measure),
		Perm: c.Perm, Bands: c.Bands, Rows: c.Rows, Bits: c.Bits, Seed: c.Seed, RawSets: c.RawSets,
		BloomFPP: c.BloomFPP, Keys: c.Keys, StoreText: c.StoreText}
	s.MinThreshold.Num, s.MinThreshold.Den = c.MinThreshold.Num, c.MinThreshold.Den
	return json.Marshal(s)
}

// UnmarshalJSON reads what MarshalJSON writes. A configuration of format
// version 1 has no "rows": its rows are perm/bands (it banded all its
// values); nor "bloom_fpp": it has no band filters (NoBloom).
func (c *Config) UnmarshalJSON(b []byte) error {
	var s storedConfig
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s.Rows == 0 && s.Bands > 0 {
		s.Rows = s.Perm / s.Bands
	}
	if s.Method == LSH && s.BloomFPP == 0 {
		s.BloomFPP = NoBloom // version 1: no band filters
	}
	*c = Config{Tokens: s.Tokens, Method: s.Method, Measure: prefix.Measure(s.Measure), Perm: s.Perm,
		Bands: s.Bands, Rows: s.Rows, Bits: s.Bits, Seed: s.Seed, RawSets: s.RawSets, BloomFPP: s.BloomFPP, Keys: s.Keys, StoreText: s.StoreText}
	c.MinThreshold = prefix.Threshold{Num: s.MinThreshold.Num, Den: s.MinThreshold.Den}
	return nil
}

// String describes c on one line, as simjoin index create and stats show it:
// "tokens words, jaccard >= 0.5, exact", or for LSH the banding, the
// signatures, the seed and whether similarities are exact.
func (c Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tokens %s, %s >= %s, ", c.Tokens, c.Measure, c.MinThreshold)
	switch c.Method {
	case Exact:
		b.WriteString("exact")
	case LSH:
		fmt.Fprintf(&b, "lsh %dx%d, %d-bit signatures of %d values, seed %d", c.Bands, c.Rows, c.Bits, c.Perm, c.Seed)
		if c.BloomFPP > 0 && c.BloomFPP < NoBloom {
			fmt.Fprintf(&b, ", band filters at %v", c.BloomFPP)
		}
		if c.RawSets {
			b.WriteString(", raw sets (exact similarities)")
		} else {
			b.WriteString(", no raw sets (estimated similarities)")
		}
	default:
		fmt.Fprintf(&b, "method %d", c.Method)
	}
	if c.Keys != NoKeys {
		fmt.Fprintf(&b, ", %s keys", c.Keys)
	}
	if c.StoreText {
		b.WriteString(", text stored")
	}
	return b.String()
}

// ID identifies a record: assigned 1, 2, 3, ... in insertion order, never
// reused; 0 is no record's. Every id a caller sees (Outcome, Hit, Stats,
// WALDamage) and gives (Delete, SearchOptions) is one.
type ID uint64

// seq is a record's place in insertion order from 0, as the index's files
// store it: the record of seq s has the ID s+1. Everything inside the
// package counts in seqs; IDs are made at its edges (seq.id, seqOf).
type seq uint64

// id returns the ID of the record at s.
func (s seq) id() ID { return ID(s) + 1 }

// seqOf returns the seq of the record id, and false for 0, which is none.
func seqOf(id ID) (seq, bool) { return seq(id - 1), id != 0 }

// OpenOptions are the options of Open. The zero value is the default.
type OpenOptions struct {
	// Workers bounds the goroutines of a batch search or insert; 0 =
	// GOMAXPROCS, and more than 4·GOMAXPROCS means 4·GOMAXPROCS.
	Workers int
	// InMemory reads the segments and the dictionary into the process's
	// memory instead of mapping them (Milvus's mh_lsh_code_in_mem): no page
	// faults on a search, and memory for the whole index, which a mapped
	// index leaves to the page cache (BENCHMARKS.md measures both).
	InMemory bool
	// OnSync, when set, is called with the time each fsync of the log took
	// (a batch made durable), on the writer's goroutine: it must not
	// block. A server exports it (index/httpapi's /metrics).
	OnSync func(time.Duration)
	// ReadOnly opens the index for Search, Stats and Verify only: nothing
	// in the directory is written, not even a partial last block of the
	// log (left for the next open for writing to cut, and counted in
	// Stats.WALTorn) or the files a crashed checkpoint left. Insert, Delete
	// and Compact return ErrReadOnly. Any number of read-only opens share
	// the directory (a shared lock, which an open for writing waits for:
	// ErrLocked); a read-only open of a directory that an Index holds for
	// writing (another process's, such as a server's) takes no lock and
	// reads the files as they are then, the last batch being written left
	// out (it may see a batch whose sync then fails, which the writer
	// never acknowledges).
	ReadOnly bool
}

// Outcome is the answer for one record of an Insert: inserted (and then
// maybe Replaced), a duplicate (neither flag: not inserted), or skipped
// because its key is held (Exists).
type Outcome struct {
	// Inserted is true when the record was added.
	Inserted bool
	// Replaced is true when it was added in place of the live record that
	// held its key (ConflictReplace), which was deleted.
	Replaced bool
	// Exists is true when it was skipped because a live record holds its
	// key (ConflictSkip): ID and Key are that record's.
	Exists bool
	// ID is the new record's id, or for a duplicate the held record it
	// matched best (highest similarity, then lowest id), or the record
	// that holds the key (Exists). Key is that record's key (an index with
	// keys).
	ID  ID
	Key Key
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
	// TopK, when > 0, returns the TopK most similar records among those at
	// or above the index's Config.MinThreshold: fewer, or none, when fewer
	// reach it (an empty answer says nothing of the records below it).
	// Threshold must then be zero. Exact: the TopK best of those records,
	// all exact; RefineK is not used. LSH: the RefineK (at least TopK)
	// candidates with the best signature estimates are verified exactly
	// when raw sets are kept (else their estimates stand), those below
	// MinThreshold dropped, and the best TopK returned.
	TopK, RefineK int
	// Only restricts the search to these ids; Exclude leaves these out. nil
	// means no restriction; an empty non-nil Only allows nothing.
	Only, Exclude []ID
	// Estimate answers from the signatures' estimates alone, not verifying
	// the candidates against their sets (an LSH index with raw sets; one
	// without always estimates): faster, the hits marked Estimated, and a
	// pair near the threshold found or missed by its estimate. Milvus's
	// mh_search_with_jaccard false.
	Estimate bool
	// OnlyKeys and ExcludeKeys do the same by key (an index with keys):
	// the live records holding them, in the snapshot the search reads
	// (keys no live record holds name nothing). Given with Only or
	// Exclude, both count.
	OnlyKeys, ExcludeKeys []Key
	// Fields are the stored fields returned with each hit.
	Fields Fields
}

// Validate reports whether o is a search at all: a Threshold or a TopK, not
// both; RefineK only with TopK, from TopK to MaxRefine × TopK; TopK not
// below 1 when given. The first rule broken, in that order, gives an
// *OptionError naming the option. (Whether the threshold suits an index is
// Index.ValidateSearch's to say; Only and Exclude may both be given.) Cost:
// O(1).
func (o SearchOptions) Validate() error {
	switch {
	case o.Threshold.Den != 0 && o.TopK != 0:
		return &OptionError{"TopK", errors.New("top-k with a threshold: give one")}
	case o.Threshold.Den == 0 && o.TopK == 0:
		return &OptionError{"Threshold", errors.New("neither a threshold nor top-k")}
	case o.RefineK != 0 && o.TopK == 0:
		return &OptionError{"RefineK", errors.New("refine-k without top-k")}
	case o.TopK < 0:
		return &OptionError{"TopK", fmt.Errorf("top-k %d below 1", o.TopK)}
	case o.RefineK != 0 && o.RefineK < o.TopK:
		return &OptionError{"RefineK", fmt.Errorf("refine-k %d below top-k %d", o.RefineK, o.TopK)}
	case o.RefineK > MaxRefine*o.TopK:
		return &OptionError{"RefineK", fmt.Errorf("refine-k %d above %d × top-k %d", o.RefineK, MaxRefine, o.TopK)}
	}
	return nil
}

// MaxRefine bounds RefineK at MaxRefine × TopK, as Milvus bounds its
// refine_k: verifying more candidates than that is what a threshold
// search is for.
const MaxRefine = 10

// OptionError reports the option of SearchOptions that breaks a rule of
// SearchOptions.Validate, named as the field is ("Threshold", "TopK" or
// "RefineK"), so that a caller (a command line, an HTTP API)
// can word it by its own name for the option. It wraps ErrOptions.
type OptionError struct {
	Option string
	Err    error // the rule broken
}

func (e *OptionError) Error() string   { return ErrOptions.Error() + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() []error { return []error{ErrOptions, e.Err} }

// Hit is one record found by Search: its id, its key (an index with
// keys), its similarity to the query and, when SearchOptions.Fields asks
// for them, its stored text and payload (a JSON object, "" when none).
type Hit struct {
	ID            ID
	Key           Key
	Sim           float64
	Estimated     bool
	Text, Payload string
}

// Fields are the stored fields a search returns with its hits (an index
// with Config.StoreText).
type Fields uint8

const (
	FieldText    Fields = 1 << iota // the record's text
	FieldPayload                    // its JSON payload object
)

// FieldNamed returns the field a request names: "text" or "payload"; ok
// is false for any other name. The command line and the HTTP API both
// read field names through it.
func FieldNamed(name string) (f Fields, ok bool) {
	switch name {
	case "text":
		return FieldText, true
	case "payload":
		return FieldPayload, true
	}
	return 0, false
}

// Stats describes an index.
type Stats struct {
	Method  Method
	Records uint64 // ids assigned so far: the last ID given (or skipped)
	Live    uint64 // records held and not deleted
	Deleted uint64 // tombstoned records not yet compacted away
	// Dropped counts the ids no record holds any more: deleted records a
	// compaction (or a checkpoint) has dropped, and ids a cut of a damaged
	// log took back. Records = Live + Deleted + Dropped.
	Dropped     uint64
	Segments    int   // immutable segments
	Mutable     int   // records in the mutable part (not yet in a segment)
	Tokens      int   // Exact: distinct tokens in the token order
	Appended    int   // Exact: tokens appended after the last re-ordering
	BytesOnDisk int64 // total size of the index's files
	WALBytes    int64 // size of the write-ahead log
	// WALTruncated is the number of bytes cut off write-ahead logs over
	// the index's life (kept in the manifest): partial last blocks cut by
	// Open, damaged ends cut by Repair.
	WALTruncated int64
	// WALTorn is the size of a partial last block that a read-only Open
	// found and left in the log (the next open for writing cuts it).
	WALTorn int64
	// Compactions and Checkpoints count those this Index ran since it was
	// opened (Compact's, and the policy's); the statistics a server
	// exports (index/httpapi's /metrics), not those it lists.
	Compactions uint64 `json:"-"`
	Checkpoints uint64 `json:"-"`
}

var (
	// ErrExists is returned by Create for a directory that already holds an index.
	ErrExists = errors.New("index: directory already holds an index")
	// ErrNotEmpty is returned (wrapped) by Create for a directory that
	// holds files of its own.
	ErrNotEmpty = errors.New("index: directory is not empty")
	// ErrReadOnly is returned by Insert, Delete and Compact of an index
	// opened read-only.
	ErrReadOnly = errors.New("index: opened read-only")
	// ErrNotIndex is returned by Open for a directory without an index manifest.
	ErrNotIndex = errors.New("index: not an index directory")
	// ErrThresholdBelowMin is wrapped (by a *ThresholdError) for a search or
	// dedup threshold below an Exact index's MinThreshold.
	ErrThresholdBelowMin = errors.New("index: threshold below the index's minimum threshold")
	// ErrClosed is returned by every method of a closed index.
	ErrClosed = errors.New("index: closed")
	// ErrConfig is returned (wrapped, by a *ConfigError) by Create for an
	// invalid Config.
	ErrConfig = errors.New("index: bad config")
	// ErrOptions is returned (wrapped) for invalid search options: by an
	// *OptionError for the rules of SearchOptions.Validate.
	ErrOptions = errors.New("index: bad search options")
	// ErrLocked is returned by Open for writing when another Index (in
	// this process or another) has the directory open.
	ErrLocked = errors.New("index: the directory is open elsewhere")
	// ErrFailed is returned (wrapped) by every write after a write to disk
	// failed: the index must be reopened, which recovers what was durable.
	ErrFailed = errors.New("index: a write failed; reopen the index")
)

// ThresholdError reports a search or dedup threshold below an Exact
// index's MinThreshold, with both, so that a caller can word it by its own
// name for the threshold. It wraps ErrThresholdBelowMin.
type ThresholdError struct {
	Threshold, Min prefix.Threshold
}

func (e *ThresholdError) Error() string {
	return fmt.Sprintf("%v: %s < %s", ErrThresholdBelowMin, e.Threshold, e.Min)
}

func (e *ThresholdError) Unwrap() error { return ErrThresholdBelowMin }

// ConfigError reports the field of a Config that Create refuses, so that a
// caller (a command line) can word it by its own name for the field. It
// wraps ErrConfig and the reason, such as an *approx.OptionError.
type ConfigError struct {
	Field string // the field of Config, such as "Bands"
	Err   error  // what is wrong with it
}

func (e *ConfigError) Error() string   { return ErrConfig.Error() + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() []error { return []error{ErrConfig, e.Err} }

func configError(field string, format string, a ...any) error {
	return &ConfigError{field, fmt.Errorf(format, a...)}
}

// CorruptError reports a file of the index whose checksum, length or structure
// is wrong. The index never answers from a corrupt file.
type CorruptError struct {
	File string // path of the file
	Err  error  // what is wrong
}

func (e *CorruptError) Error() string { return "index: corrupt file " + e.File + ": " + e.Err.Error() }
func (e *CorruptError) Unwrap() error { return e.Err }

// RecordError reports a record (of Insert) or a query (of Search) that
// does not tokenize, such as invalid UTF-8 for a text tokenizer. Its message
// numbers the record in its batch and never quotes it.
type RecordError struct {
	Query bool  // a query of Search, not a record of Insert
	Index int   // 0-based position in the batch
	Err   error // the tokenizer's error
}

func (e *RecordError) Error() string {
	what := "record"
	if e.Query {
		what = "query"
	}
	return fmt.Sprintf("index: %s %d: %v", what, e.Index+1, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// Index is an open index directory. See the package doc for concurrency.
type Index struct {
	dir     string
	cfg     Config
	workers int
	hasher  *approx.Hasher // LSH

	// wmu serialises the writers (Insert, Delete, Compact, Close, Verify)
	// and guards every field below up to snapMu.
	wmu       sync.Mutex
	live      *state
	man       manifest
	wal       *wal
	tombFile  []string // per segment of live: its tomb file, "" when none
	tombDirty []bool   // per segment of live: tombstones changed since written
	failed    error
	wscratch  scratch
	// cutBytes and skipTo are what the next commit records of a damaged
	// log being cut: the bytes (added to the manifest's WALCut) and an id
	// past every id the cut part may have assigned (the least NextID).
	cutBytes int64
	skipTo   seq
	cut      *WALDamage // what Open cut off the log, if anything
	readOnly bool       // opened with OpenOptions.ReadOnly: wal.f is nil
	inMemory bool       // OpenOptions.InMemory
	// concurrent: opened read-only while a writer holds the directory
	// (open): no lock, and the files are read as they are.
	concurrent bool
	torn       int64    // read-only: bytes of a partial last block left in the log
	lock       *os.File // LOCK, flocked while open (nil: no lock could be taken, read-only)

	snapMu sync.Mutex // guards cur, closed and every state's readers/retired
	cur    *state
	closed bool

	// failure holds failed once it is set (an error), for Health, which
	// does not take wmu; compactions and checkpoints count since Open.
	failure                  atomic.Value
	compactions, checkpoints atomic.Uint64
	onSync                   func(time.Duration) // OpenOptions.OnSync

	pool sync.Pool // *scratch for searches
}

// Checkpoint policy ("Can change for testing"): the mutable part becomes a
// segment when it holds flushMax records, or as many as the segments hold
// when that is more than flushMin, or flushBytes of sets and signatures
// (long documents); an Exact index is compacted (tokens re-ordered
// rare-first) when it has doubled since the last re-ordering, an LSH index
// when it has more than maxSegments segments.
var (
	flushMin    = 1024
	flushMax    = 1 << 16
	flushBytes  = 64 << 20
	maxSegments = 8
)

// validThreshold reports whether t is a threshold for m (prefix.Validate).
func validThreshold(m prefix.Measure, t prefix.Threshold) bool {
	_, err := prefix.Validate(m, t)
	return err == nil
}

// below reports a/b < c/d exactly.
func below(a, b prefix.Threshold) bool {
	h1, l1 := bits.Mul64(a.Num, b.Den)
	h2, l2 := bits.Mul64(b.Num, a.Den)
	return h1 < h2 || h1 == h2 && l1 < l2
}

// check validates cfg and fills in the LSH defaults: Perm and Bands from
// Shape, or Bands chosen for Recall. Its errors are *ConfigError.
func (cfg *Config) check() error {
	if _, err := cfg.Tokens.Append(nil, ""); err != nil {
		return configError("Tokens", "%w", err)
	}
	if cfg.Keys > StringKeys {
		return configError("Keys", "unknown key kind %d", cfg.Keys)
	}
	if cfg.Measure > prefix.Overlap {
		return configError("Measure", "unknown measure %d", cfg.Measure)
	}
	switch cfg.Method {
	case Exact:
		if !validThreshold(cfg.Measure, cfg.MinThreshold) {
			return configError("MinThreshold", "minimum threshold %s for %v", cfg.MinThreshold, cfg.Measure)
		}
		cfg.Perm, cfg.Bands, cfg.Bits, cfg.Seed, cfg.RawSets = 0, 0, 0, 0, true
		if cfg.BloomFPP != 0 {
			return configError("BloomFPP", "band filters are of LSH")
		}
	case LSH:
		if cfg.Measure != prefix.Jaccard {
			return configError("Measure", "LSH supports Jaccard only")
		}
		if cfg.MinThreshold.Den != 0 && !validThreshold(cfg.Measure, cfg.MinThreshold) {
			return configError("MinThreshold", "minimum threshold %s", cfg.MinThreshold)
		}
		cfg.BloomFPP = cmp.Or(cfg.BloomFPP, DefaultBloomFPP)
		if cfg.BloomFPP != NoBloom && !(cfg.BloomFPP >= MinBloomFPP && cfg.BloomFPP <= MaxBloomFPP) {
			return configError("BloomFPP", "band filter false-positive probability %v: want %v to %v, or %v for none", cfg.BloomFPP, MinBloomFPP, MaxBloomFPP, NoBloom)
		}
		if sh := cfg.Shape; sh != (approx.Shape{}) {
			switch {
			case cfg.Bands != 0 || cfg.Rows != 0:
				return configError("Bands", "bands %d, rows %d and shape %s: give one", cfg.Bands, cfg.Rows, sh)
			case cfg.Perm != 0 && cfg.Perm < sh.B*sh.R:
				return configError("Shape", "shape %s uses %d values, perm is %d", sh, sh.B*sh.R, cfg.Perm)
			}
			if err := sh.Validate(approx.MaxK); err != nil {
				return configError("Shape", "%w", err)
			}
			cfg.Perm, cfg.Bands, cfg.Rows = cmp.Or(cfg.Perm, sh.B*sh.R), sh.B, sh.R
		}
		cfg.Perm, cfg.Bits = cmp.Or(cfg.Perm, approx.DefaultK), cmp.Or(cfg.Bits, approx.DefaultBits)
		if err := approx.ValidateBits(cfg.Bits); err != nil {
			return configError("Bits", "%w", err)
		}
		if err := approx.ValidateK(cfg.Perm); err != nil {
			return configError("Perm", "%w", err)
		}
		if cfg.Bands == 0 {
			if cfg.Rows != 0 {
				return configError("Rows", "rows %d without bands", cfg.Rows)
			}
			if cfg.MinThreshold.Den == 0 {
				return configError("Bands", "LSH needs bands or a minimum threshold to choose them")
			}
			o, err := approx.Options{Threshold: cfg.MinThreshold, K: cfg.Perm, Bits: cfg.Bits, Recall: cfg.Recall}.Resolve()
			if err != nil {
				return configError("Recall", "%w", err)
			}
			cfg.Bands, cfg.Rows = o.Shape.B, o.Shape.R
		}
		if cfg.Bands < 1 || cfg.Bands > cfg.Perm {
			return configError("Bands", "bands %d for perm %d", cfg.Bands, cfg.Perm)
		}
		if cfg.Rows == 0 {
			cfg.Rows = cfg.Perm / cfg.Bands
		}
		if cfg.Rows < 1 || cfg.Bands*cfg.Rows > cfg.Perm {
			return configError("Rows", "%d bands of %d rows for perm %d", cfg.Bands, cfg.Rows, cfg.Perm)
		}
		if p := cfg.PredictedRecall(cfg.MinThreshold.Float()); cfg.MinThreshold.Den != 0 && p < MinRecall && !cfg.Force {
			return configError("Bands", "%w", &RecallError{Shape: approx.Shape{B: cfg.Bands, R: cfg.Rows}, Threshold: cfg.MinThreshold, P: p})
		}
	default:
		return configError("Method", "unknown method %d", cfg.Method)
	}
	cfg.Shape, cfg.Recall, cfg.Force = approx.Shape{}, 0, false
	return nil
}

// MinRecall is the least probability of finding a pair at MinThreshold
// that Create takes of an LSH banding without Config.Force.
const MinRecall = 0.5

// RecallError reports an LSH banding that finds a pair at the minimum
// threshold with probability P below MinRecall: most of the pairs a search
// or dedup at that threshold asks for would be missed.
type RecallError struct {
	Shape     approx.Shape
	Threshold prefix.Threshold
	P         float64
}

func (e *RecallError) Error() string {
	return fmt.Sprintf("banding %s finds a pair at the minimum threshold %s with probability %s, below %v",
		e.Shape, e.Threshold, FormatRecall(e.P), MinRecall)
}

// FormatRecall writes a probability with three significant digits, so
// that a small one stays readable (0.000244, not 0.000), and more when
// three would round one below 1 up to 1 (0.99997, not 1; 0.999999 at most).
func FormatRecall(p float64) string {
	for digits := 3; digits <= 6; digits++ {
		if s := strconv.FormatFloat(p, 'g', digits, 64); s != "1" || p >= 1 {
			return s
		}
	}
	return "0.999999"
}

// PredictedRecall returns the probability that a search of an index of
// configuration c finds a held record at similarity s: for LSH the S-curve
// of its banding, 1 - (1 - s^r)^b (the record must share a whole band with
// the query; candidates are then verified, or estimated); for Exact 1 when
// s reaches MinThreshold, else 0. Cost: O(1).
func (c Config) PredictedRecall(s float64) float64 {
	if c.Method == LSH {
		return approx.SCurve(s, c.Bands, c.Rows)
	}
	if s >= c.MinThreshold.Float() {
		return 1
	}
	return 0
}

// Create makes a new index in dir and returns it open for writing. dir is
// created if missing (its parent must exist); an existing one must be empty
// but for the leftovers of a Create that crashed (files of the index's own
// names). It returns ErrExists when dir already holds an index and
// ErrNotEmpty when it holds anything else.
func Create(dir string, cfg Config) (*Index, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
		return nil, ErrExists
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if n := e.Name(); n != "LOCK" && !(e.Type().IsRegular() && isIndexFile(n)) {
			return nil, fmt.Errorf("%w: %s holds %s", ErrNotEmpty, dir, n)
		}
	}
	m := manifest{Config: cfg, Gen: 1, WAL: "wal-1.log"}
	os.Remove(filepath.Join(dir, m.WAL)) // a crashed Create's
	w, err := createWAL(filepath.Join(dir, m.WAL))
	if err != nil {
		return nil, err
	}
	w.close()
	if err := writeManifest(dir, &m); err != nil {
		return nil, err
	}
	return Open(dir, OpenOptions{})
}

// Open opens the index in dir: it maps and checks every file (a bad one is a
// *CorruptError naming it) and replays the write-ahead log. Opened for
// writing (the default), it cuts off a partial last block of the log (a
// batch whose write never completed, so never acknowledged), counting the
// bytes in Stats.WALTruncated and never assigning its ids again, by a
// checkpoint; any other damage to the log is a *CorruptError wrapping a
// *WALDamage, which Repair cuts. Opened with ReadOnly, it writes nothing.
// Cost: reading every file once to verify its checksums (through a small
// buffer: the files are mapped, not loaded) and replaying the log.
func Open(dir string, opt OpenOptions) (*Index, error) {
	mode := openWrite
	if opt.ReadOnly {
		mode = openRead
	}
	ix, _, err := open(dir, opt, mode)
	return ix, err
}

// Verify checks the index in dir without changing anything in it: every
// file's checksums and structure, and that the write-ahead log replays to
// its end. A problem is a *CorruptError naming the file; for the log it
// wraps a *WALDamage saying what would be lost, also when the damage is a
// partial last block that the next open for writing would cut. Verify takes
// the directory's lock shared, as a read-only Open does, and while an Index
// holds it for writing reads it as such an open does (the last batch of the
// log, being written, is no damage). Cost: Open's.
func Verify(dir string) error {
	ix, dmg, err := open(dir, OpenOptions{ReadOnly: true}, openVerify)
	if err != nil {
		return err
	}
	if err := ix.Close(); err != nil {
		return err
	}
	if dmg != nil {
		return &CorruptError{File: dmg.File, Err: dmg}
	}
	return nil
}

// Repair opens the index in dir for writing, cuts off the part of its
// write-ahead log that cannot be replayed, and returns what it cut (nil
// when the log was whole, and nothing is written). The bytes cut are added
// to Stats.WALTruncated and the ids the cut part may have assigned are
// never assigned again: the records replayed are written to a segment and
// a new log started (a checkpoint), and the old log is removed. Damage to
// any other file is a *CorruptError that Repair cannot mend. Cost: Open's
// and one checkpoint.
func Repair(dir string) (*WALDamage, error) {
	ix, dmg, err := open(dir, OpenOptions{}, openRepair)
	if err != nil {
		return nil, err
	}
	return dmg, ix.Close()
}

// openMode is what open does with the directory and a damaged log.
type openMode int

const (
	openWrite  openMode = iota // for writing: a partial last block is cut, other damage refused
	openRead                   // read-only: a partial last block is left, other damage refused
	openVerify                 // read-only: any damage is returned, not refused
	openRepair                 // for writing: any damage is cut
)

func (m openMode) readOnly() bool { return m == openRead || m == openVerify }

// open opens the index in dir in mode and returns the damage of its log
// that mode let pass (and cut, when it writes).
//
// A read-only open of a directory that a writer holds (another process's
// Index, such as a server's) goes on without a lock, reading the files as
// they are (concurrent): the manifest, the files it names, and the log up
// to what is written of it. A file that goes missing meanwhile was
// replaced by the writer's checkpoint: the open starts again from the new
// manifest (at most openAttempts times). The last block of the log, damaged
// or partial, is a batch being written, not damage.
func open(dir string, opt OpenOptions, mode openMode) (*Index, *WALDamage, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	lock, err := lockDir(dir, mode.readOnly())
	concurrent := false
	if errors.Is(err, ErrLocked) && mode.readOnly() {
		concurrent, err = true, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for attempt := 1; ; attempt++ {
		if manifestRead != nil {
			manifestRead()
		}
		ix, dmg, err := openManifest(dir, opt, mode, m, lock, concurrent)
		if err == nil || !concurrent || !errors.Is(err, errMissing) || attempt == openAttempts {
			return ix, dmg, err
		}
		m2, err2 := readManifest(dir)
		if err2 != nil {
			return nil, nil, err2
		}
		if m2.Gen == m.Gen {
			return nil, nil, err // not a checkpoint's doing
		}
		m = m2
	}
}

// openAttempts bounds the attempts of a concurrent open (open).
const openAttempts = 20

// manifestRead, when set, is called by open after each reading of the
// manifest, before the files it names are opened. Can change for testing.
var manifestRead func()

// openManifest opens the index of manifest m in dir, holding lock (nil:
// none), in mode; concurrent says that a writer holds the directory.
func openManifest(dir string, opt OpenOptions, mode openMode, m *manifest, lock *os.File, concurrent bool) (*Index, *WALDamage, error) {
	var err error
	cfg := m.Config
	ix := &Index{dir: dir, cfg: cfg, man: *m, workers: opt.Workers, lock: lock, readOnly: mode.readOnly(), inMemory: opt.InMemory,
		onSync: opt.OnSync, concurrent: concurrent}
	ix.workers = parallel.Workers(ix.workers)
	if cfg.Method == LSH {
		if ix.hasher, err = approx.NewHasher(approx.OnePerm, cfg.Perm, cfg.Seed); err != nil {
			ix.unlock()
			return nil, nil, corrupt(filepath.Join(dir, manifestName), "%v", err)
		}
	}
	st := &state{cfg: &ix.cfg, next: m.NextID, mut: newMutable(m.NextID)}
	st.dict.added = newAdded()
	if cfg.Method == Exact {
		st.minB = prefix.NewBounds(cfg.Measure, cfg.MinThreshold)
		st.pairMax = largestPairSize(st.minB)
	}
	ix.live = st
	fail := func(err error) (*Index, *WALDamage, error) {
		st.release()
		ix.unlock()
		return nil, nil, err
	}
	if m.Dict != "" {
		if st.dict, err = openDict(filepath.Join(dir, m.Dict), ix.load(mapCold)); err != nil {
			return fail(err)
		}
	}
	var last uint64
	for i, ref := range m.Segments {
		s, err := openSegment(dir, ref.File, &ix.cfg, ix.load(mapCold))
		if err != nil {
			return fail(err)
		}
		st.segs = append(st.segs, s)
		// The segments hold ascending ids, all below the log's first.
		if n := s.rows(); n > 0 {
			if i > 0 && s.ids[0] <= last || s.ids[n-1] >= uint64(m.NextID) {
				return fail(corrupt(filepath.Join(dir, ref.File), "ids %d to %d out of order with the index's other segments (before %d) and next id %d", s.ids[0], s.ids[n-1], last, m.NextID))
			}
			last = s.ids[n-1]
		}
		var tomb bitmap.Bitmap
		if ref.Tomb != "" {
			if tomb, err = readTomb(filepath.Join(dir, ref.Tomb), s.rows()); err != nil {
				return fail(err)
			}
		}
		st.tombs = append(st.tombs, tomb)
		ix.tombFile = append(ix.tombFile, ref.Tomb)
		ix.tombDirty = append(ix.tombDirty, false)
	}
	walPath := filepath.Join(dir, m.WAL)
	l, err := readWAL(walPath, func() seq { return ix.live.next }, ix.minRecordBytes(), ix.replay)
	if err != nil {
		return fail(err)
	}
	dmg := l.damage
	if dmg != nil && concurrent && dmg.Blocks == 1 {
		// The writer's batch under way: left, as a partial block is.
		ix.torn, dmg = dmg.Bytes, nil
	}
	switch {
	case dmg == nil, mode == openVerify, mode == openRepair:
	case !dmg.Torn:
		return fail(&CorruptError{File: walPath, Err: dmg})
	case mode == openRead:
		ix.torn = dmg.Bytes
	}
	if mode.readOnly() {
		ix.wal = &wal{path: walPath, size: l.good}
		ix.publish()
		return ix, dmg, nil
	}
	if ix.wal, err = openWALAt(walPath, l.good); err != nil {
		return fail(err)
	}
	ix.wal.onSync = ix.onSync
	if dmg != nil {
		// Cut the damage by a checkpoint: the records replayed go to a
		// segment, a new log starts past every id the damaged part may
		// have assigned, and the manifest counts the bytes cut, all in
		// one commit; the old log is removed after it.
		ix.cutBytes, ix.skipTo, ix.cut = dmg.Bytes, l.skipTo, dmg
		if err := ix.checkpoint(); err != nil {
			ix.wal.close()
			return fail(fmt.Errorf("index: cutting the damaged end of %s: %w", walPath, err))
		}
	} else if m.version < formatVersion {
		// An index of an older format: a checkpoint writes its manifest
		// and log in this one before anything is appended (older builds
		// then refuse it, naming the version).
		if err := ix.checkpoint(); err != nil {
			ix.wal.close()
			return fail(fmt.Errorf("index: upgrading %s to format version %d: %w", dir, formatVersion, err))
		}
	}
	ix.removeUnreferenced()
	ix.publish()
	return ix, dmg, nil
}

// load is how the index holds a segment or dictionary it opens: read into
// memory (OpenOptions.InMemory) or mapped as mapped says.
func (ix *Index) load(mapped load) load {
	switch {
	case ix.inMemory:
		return inMemory
	case ix.concurrent:
		return mapWarm // the writer's pages stay cached
	}
	return mapped
}

// minRecordBytes is the fewest bytes a record takes in an insert block of
// the log: its key count, or its signature.
func (ix *Index) minRecordBytes() int {
	if ix.cfg.Method == LSH && !ix.cfg.RawSets {
		return ix.cfg.Perm * ix.cfg.Bits / 8
	}
	return 4
}

// replay applies one WAL block to the live state, or returns why it cannot
// and leaves the state as it was.
func (ix *Index) replay(payload []byte) error {
	if err := ix.checkBlock(payload); err != nil {
		return err
	}
	ix.applyBlock(payload)
	return nil
}

// checkBlock reports why a block cannot be applied to the live state: a
// payload of the wrong length, an unknown kind, an insert that does not
// start at the next id or would pass 2^32-1 records, a key that is not one.
func (ix *Index) checkBlock(payload []byte) error {
	if len(payload) == 0 {
		return errShort
	}
	r := walReader{b: payload[1:]}
	switch kind := payload[0]; kind {
	case walInsert, walBatchKind:
		first := seq(r.u64())
		n := int(r.u32())
		if r.err == nil && first != ix.live.next {
			return fmt.Errorf("insert of id %d, the index is at %d", first, ix.live.next)
		}
		if uint64(first)+uint64(n) > 1<<32-1 {
			return fmt.Errorf("insert of %d records past id %d", n, first)
		}
		var q query
		for i := 0; i < n && r.err == nil; i++ {
			if err := ix.readWALRecord(kind, &r, &q, false); err != nil {
				return err
			}
		}
		if kind == walBatchKind {
			r.bytes(8 * int(r.u32()))
		}
	case walDelete:
		r.bytes(8 * int(r.u32()))
	default:
		return fmt.Errorf("unknown block kind %d", kind)
	}
	if r.err == nil && len(r.b) != 0 {
		return fmt.Errorf("%d bytes after the batch", len(r.b))
	}
	return r.err
}

// readWALRecord reads one inserted record of a block of kind (walInsert or
// walBatchKind) into q: its key, text and payload (kind 3, as the index
// keeps them) and its token keys or signature; with prepare, it also signs
// it (LSH with raw sets) and maps its set (Exact), ready for appendRecord.
// It returns why the record cannot be one (also r.err).
func (ix *Index) readWALRecord(kind byte, r *walReader, q *query, prepare bool) error {
	cfg := &ix.cfg
	q.ukey, q.text, q.payload = nil, nil, nil
	if kind == walBatchKind {
		if cfg.Keys != NoKeys {
			q.ukey = r.bytes(int(r.u16()))
			if r.err == nil && !checkKeyBytes(cfg.Keys, q.ukey) {
				return errors.New("a record's key is not one")
			}
		}
		if cfg.StoreText {
			q.text = r.bytes(int(r.u32()))
			q.payload = r.bytes(int(r.u32()))
		}
	} else if cfg.Keys != NoKeys || cfg.StoreText {
		return errors.New("an insert of format version 1 in an index with keys or stored text")
	}
	if cfg.Method == LSH && !cfg.RawSets {
		q.row = r.bytes(cfg.Perm * cfg.Bits / 8)
		return r.err
	}
	k := int(r.u32())
	b := r.bytes(8 * k)
	if r.err != nil || !prepare {
		return r.err
	}
	q.keys = q.keys[:0]
	for j := 0; j < k; j++ {
		q.keys = append(q.keys, binary.LittleEndian.Uint64(b[8*j:]))
	}
	ix.prepareOne(q)
	if cfg.Method == Exact {
		q.set = ix.live.dict.mapSet(q.set[:0], q.keys)
	}
	return nil
}

// applyBlock applies a block that checkBlock passed.
func (ix *Index) applyBlock(payload []byte) {
	st := ix.live
	r := walReader{b: payload[1:]}
	deletes := func() {
		n := int(r.u32())
		ids := make([]seq, n)
		for i := range ids {
			ids[i] = seq(r.u64())
		}
		ix.applyDelete(ids)
	}
	switch kind := payload[0]; kind {
	case walInsert, walBatchKind:
		r.u64()
		n := int(r.u32())
		var q query
		for i := 0; i < n; i++ {
			ix.readWALRecord(kind, &r, &q, true)
			st.appendRecord(&q)
		}
		if kind == walBatchKind {
			deletes()
		}
	case walDelete:
		deletes()
	}
}

// publish makes a snapshot of the live state the one new searches use.
// The caller holds wmu (or is Open).
func (ix *Index) publish() {
	s := ix.live.snapshot()
	s.walBytes, s.walCut = ix.wal.size, ix.man.WALCut
	if invariants.Enabled {
		s.check()
	}
	ix.snapMu.Lock()
	old := ix.cur
	ix.cur = s
	ix.snapMu.Unlock()
	if old != nil {
		ix.retire(old)
	}
}

func (ix *Index) retire(s *state) {
	ix.snapMu.Lock()
	s.retired = true
	free := s.readers == 0
	ix.snapMu.Unlock()
	if free {
		s.release()
	}
}

// acquire returns the current snapshot, held until release.
func (ix *Index) acquire() (*state, error) {
	ix.snapMu.Lock()
	defer ix.snapMu.Unlock()
	if ix.closed {
		return nil, ErrClosed
	}
	ix.cur.readers++
	return ix.cur, nil
}

func (ix *Index) releaseSnap(s *state) {
	ix.snapMu.Lock()
	s.readers--
	free := s.retired && s.readers == 0
	ix.snapMu.Unlock()
	if free {
		s.release()
	}
}

// Close releases the index. Every acknowledged write is already durable;
// searches running on other goroutines finish on their snapshot, and the
// files are unmapped when the last one ends.
func (ix *Index) Close() error {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	ix.snapMu.Lock()
	if ix.closed {
		ix.snapMu.Unlock()
		return ErrClosed
	}
	ix.closed = true
	cur := ix.cur
	ix.snapMu.Unlock()
	ix.retire(cur)
	ix.live.release()
	var err error
	if ix.wal != nil {
		err = ix.wal.close()
	}
	ix.unlock()
	return err
}

// lockDir takes a flock on dir/LOCK, released by Close (or by the kernel
// when the process dies): exclusive for a writer, shared for a reader. A
// reader opens LOCK read-only; when it is missing (an index copied without
// it) a reader creates it if it may, and otherwise goes without a lock (nil).
func lockDir(dir string, shared bool) (*os.File, error) {
	path := filepath.Join(dir, "LOCK")
	how := syscall.LOCK_EX
	var f *os.File
	var err error
	if shared {
		how = syscall.LOCK_SH
		if f, err = os.Open(path); errors.Is(err, os.ErrNotExist) {
			if f, err = os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644); err != nil {
				return nil, nil
			}
		}
	} else {
		f, err = os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}

// unlock releases the directory's lock, if one was taken.
func (ix *Index) unlock() {
	if ix.lock != nil {
		ix.lock.Close()
	}
}

// Cut returns what Open (or Repair) cut off the end of the write-ahead log
// when it opened the index, or nil: a caller may tell its user.
func (ix *Index) Cut() *WALDamage { return ix.cut }

// Exact reports whether c is of an Exact index.
func (c *Config) Exact() bool { return c.Method == Exact }

// Config returns the index's configuration (with the LSH defaults filled in).
func (ix *Index) Config() Config { return ix.cfg }
