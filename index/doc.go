// Package index is a living similarity index: a directory that holds a growing
// collection of records, created once with its tokenizer and method, that takes
// inserts, deletes and searches, survives restarts and crashes, and answers
// "is this new record a near-duplicate of anything already held?" without
// re-joining the collection (search before insert).
//
// # Lifecycle
//
// Create makes a new index directory with a fixed Config (tokenizer, method,
// measure, minimum threshold, LSH shape); Open opens an existing one, replaying
// its write-ahead log and truncating a torn tail. Insert, Delete and Compact
// change it; Search, Stats and Verify read it; Close releases it. An *Index must
// be closed; after Close every method returns ErrClosed.
//
// The full design (segments, WAL, tombstones, snapshots) and its cost are
// documented alongside the implementation as it lands; the on-disk format is
// specified in docs/index-format.md.
package index
