// Package index is a living similarity index: a directory that holds a growing
// collection of records, created once with its tokenizer and method, that takes
// inserts, deletes and searches, survives restarts and crashes, and answers
// "is this new record a near-duplicate of anything already held?" without
// re-joining the collection (search before insert).
//
// # Lifecycle
//
// Create makes an index directory with a Config fixed for its life (the
// tokenizer, the method, the measure and minimum threshold, the LSH shape,
// how records are named and whether their text is kept); Open opens one,
// for writing or read-only, checking every file's checksums and replaying
// the write-ahead log. InsertRecords (or Insert, of texts; optionally
// deduplicating), Delete, DeleteKeys and Compact change it; Search, Get,
// GetKey, Stats and Verify read it; Close releases it. The package's Verify checks a directory without changing it,
// and Repair cuts a damaged end off its log. InsertLines and
// SearchLines stream the lines of a reader through Insert and Search in
// batches (records.ReadBatches), naming the line of a record that does not
// tokenize; ValidateSearch checks search options before any input is read
// (SearchOptions.Validate the rules every search follows, an *OptionError
// naming the option); Create refuses a Config with a *ConfigError naming the
// field; ParseMethod, ParseIDs and ReadIDs read methods and record ids.
// Record ids (ID) are assigned 1, 2, 3, ... in insertion order and never
// reused; the files number records from 0 (docs/index-format.md). An index
// with keys (Config.Keys) names its records by the key each carries (Key:
// an integer or a string), one live record a key, and a record inserted
// under a key held is refused, replaces the holder or is skipped
// (Conflict). With Config.StoreText it keeps each record's text and a JSON
// payload, returned by Get and with hits (SearchOptions.Fields).
//
// # Methods
//
// Exact keeps every record's token set (dense uint32 ids in a global order,
// rarer tokens first after a compaction, as package order builds it) and an
// inverted index over prefixes, so a search finds exactly the records whose
// similarity reaches the threshold (AllPairs and PPJoin, as package join
// probes; prefix.Bounds decides in integer arithmetic). The indexed prefix of
// a set is its probe prefix at Config.MinThreshold, which serves queries of
// any size at any threshold at or above it. Short sets are indexed under
// pairs of tokens (the ℓ-prefix of AdaptJoin with ℓ = 2; see pairs.go), which
// makes password bigrams selective. Tokens first seen after the last
// compaction are appended to the order: every stored set stays sorted, so
// every filter stays correct, and only their speed suffers until Compact
// re-orders (the index compacts itself each time it has doubled).
//
// LSH keeps MinHash signatures (package approx's one-permutation hasher,
// Config.Perm values of Config.Bits bits) and one table per band (approx's
// band keys). Candidates are the records sharing a whole band with the query
// (probability 1 - (1 - s^r)^b at similarity s); with Config.RawSets they are
// verified exactly and similarities are exact, without they are estimated from
// the signatures (Hit.Estimated) and the index is smaller.
//
// Search-before-insert (Insert with a dedup threshold) inserts a record only
// when no live record held, nor an earlier record of the batch that was
// inserted, reaches the threshold; otherwise it reports the best match. For
// Exact the kept records are exactly those of a sequential greedy dedup; for
// LSH a duplicate at similarity s is caught with the S-curve's probability.
//
// # Storage
//
// A directory holds (docs/index-format.md specifies every byte):
//
//   - MANIFEST: the Config and the names of the files in force, replaced
//     atomically (the commit point of checkpoints and compactions);
//   - immutable segments (seg-N.sj), memory-mapped: record ids, the sets
//     (Exact) or signatures and raw keys (LSH), the single-token postings and
//     the pair index or the band tables, the records' keys and a table to
//     find them, their stored text and payloads;
//   - the dictionary (dict-N.sj, Exact): the token order as a mapped hash
//     table;
//   - tombstones (tomb-N-S.sj): one bit per record of a segment;
//   - the write-ahead log (wal-N.log): every batch since the last checkpoint.
//
// Recent inserts live in a mutable part in memory (and in the WAL); when it
// holds as many records as the segments (from 1,024 up to 65,536), or 64 MiB
// of sets and signatures, it is written as a segment (a checkpoint), merged with the trailing segments no
// larger than it (so there are O(log n) segments). An Exact index is
// compacted (one segment, deleted records dropped, tokens re-ordered) each
// time it has doubled since the last compaction, an LSH index when it has
// more than eight segments.
//
// Every file and block carries a CRC-32C, checked at Open (reading through a
// small buffer; the files are then dropped from the page cache and mapped
// with MADV_RANDOM, so that searches page in only what they touch) and by
// Verify; a mismatch, truncation or inconsistency is a *CorruptError naming
// the file, never a wrong answer. Every file name the manifest gives is
// checked to be a plain name of its kind inside the directory. A batch is
// acknowledged only after its WAL block is fsynced (an append that fails is
// cut off again). Open for writing cuts off a partial last block of the log
// (a batch whose write never completed) and refuses any other damage (a
// *WALDamage) until Repair cuts it; a cut is recorded (Stats.WALTruncated)
// and the ids the cut part may have assigned are never assigned again.
// Verify and a read-only Open (OpenOptions.ReadOnly) never write.
//
// # Concurrency
//
// One writer, many readers. Insert, Delete and Compact are serialised by the
// index; Search is safe from any number of goroutines, also while a writer
// runs: each search reads one snapshot (the segments with their tombstones,
// the mutable part up to the last durable batch, the token order), published
// after each durable batch, so it never sees half a batch nor a record that
// is not durable. A snapshot keeps its segments mapped until its last reader
// is done. Batch searches and the tokenizing of large batches run on
// OpenOptions.Workers goroutines, all ended when the call returns.
//
// # Cost
//
// Insert: tokenizing, one search per record (below), appending to the
// mutable part, one WAL write and fsync per batch; checkpoints write the
// mutable part and the segments they merge (O(log n) rewrites of a record
// between compactions), compactions rewrite the index (amortised O(1)
// rewrites per record, since the index doubles between them). Exact search: the
// postings of the query's prefix and pairs within its size range, one
// verification per candidate. LSH search: signing the query, b lookups per
// segment, one estimate per candidate and with raw sets one verification.
// Open: reading every file once for its checksums, replaying the WAL. Memory:
// the mutable part, the tombstones and the dictionary's appended tokens; the
// segments and the dictionary are mapped and paged in as searches touch them.
//
// # What it does not do
//
// It does not let several processes write at once (Open for writing takes
// an exclusive lock on the directory: ErrLocked; a read-only Open takes it
// shared, or none while a writer holds it, and reads the files as they
// are), replicate, or shard; it keeps the records' text only when
// asked (Config.StoreText), and never answers from it (searches read token
// keys, or signatures); an Exact index cannot answer below its
// MinThreshold, and an LSH index supports Jaccard only. Files are
// little-endian and read in place: big-endian machines are refused.
package index
