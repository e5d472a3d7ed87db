// Package pipeline runs simjoin's exact join and its MinHash-LSH join and
// dedup as Apache Beam pipelines (Go SDK), so that a collection too large for
// one machine is joined on a distributed runner: Prism in-process, or Flink,
// Spark or Dataflow through the portable runner. It has no join algorithm of
// its own: records are tokenized by package shingle, groups are joined by
// package join under the bounds of package prefix, signatures and band keys
// are those of package approx.
//
// # Reading
//
// ReadRecords reads one record per line (or per file) from the files listed
// at construction. Line numbers are found in parallel: every file is cut into
// spans of SpanBytes, the lines starting in each span are counted, and each
// span then numbers its own lines from the counts of the spans before it (a
// side input of one element per span). Ids pack (file, line), so their order
// is input order. A gzip or zstd file (found by its first bytes at listing)
// is one span, decompressed as it is read. With JSONL every line is a JSON
// object whose text field is tokenized; ReadInput also returns what the
// outputs need of each record (Info: the id the input gives it, its line,
// its length).
//
// # Exact join (Vernica, Carey and Li 2010)
//
// ExactJoin follows "Efficient parallel set-similarity joins using MapReduce"
// (SIGMOD 2010), its BTO-PK-BRJ plan. A runner's cost is per element far
// more than per byte (on Prism the join cost about half a millisecond a
// record when every token count and every routed copy was an element), so
// records travel in batches (Batch, RankBatch: about a million tokens each)
// and groups in partitions, and the elements shuffled number in the
// bundles and partitions, not in the records or tokens:
//
//  1. Token order: every bundle counts the records holding each token in a
//     map and emits its counts as one element per shard of the vocabulary
//     (64 shards); each shard is summed, and only tokens held by two records
//     or more are broadcast (a side input of 64 elements); a token missing
//     from it has frequency 1. Every worker ranks the broadcast tokens the
//     same way, rare-first (frequency, then key, the order package order
//     uses), and writes each batch in that order: a token held by the
//     record alone is only counted (it comes first in the record's order and
//     is never shared), the others are dense ranks, delta-encoded.
//  2. Kernel: every record goes to the group of each token of its probe
//     prefix (prefix.Bounds.ProbePrefix) that another record holds. A group
//     is joined and keeps a pair only when the group's token is the first
//     token the two sets share: the prefix filter puts that token in both
//     probe prefixes, so the pair reaches that group, and no other group
//     keeps it. No stage removes repeats. Records take AllPairs' two roles
//     (Bayardo, Ma and Srikant, WWW 2007): a record is indexed in the groups
//     of its index prefix (prefix.Bounds.IndexPrefix; R-S: the R records,
//     under their probe prefix) and only probes in the others, and a pair is
//     kept where its first record (the smaller set, then the lower id; R-S:
//     the R record) is indexed, which the first shared token always is for
//     a similar pair. The groups are hashed into partitions (one per million
//     tokens of input, at least 16); every bundle sends each record once to
//     each partition holding one of its groups, with the list of its groups
//     there, and a partition is one element a bundle (or one per 4 MiB). A
//     partition's groups are joined one by one: a small group (at most 1,024
//     candidate pairs) by checking each pair with join.OverlapAtLeast, a
//     larger one with package join (order.New and join.SelfJoin;
//     join.RSJoin across). The group of a token held by more than BlockSize
//     records (decided from its document frequency, which bounds its group)
//     is planned from one more count, of the records indexed there by set
//     size: its indexed records are cut in order of size into blocks of
//     about BlockSize, and a record probes only the blocks holding sizes it
//     can meet (prefix.Bounds.SizeRange), so each pair meets once, in the
//     block of its indexed record, blocks whose sizes cannot meet are never
//     paired, and a group nobody is indexed in is not sent at all. A token
//     that comes last in most orders (one in every record) is in many probe
//     prefixes but in few index prefixes: its group costs a copy per record
//     indexed there and per block a probe meets, not ⌈g/BlockSize⌉ copies of
//     each of its g records.
//  3. Records: the pairs carry the record ids and the overlap and sizes the
//     similarity is computed from; FormatPairs writes them as the CLI does.
//
// Departures from the paper: the order is not a dense ranking made by a
// global sort but one every worker computes from the broadcast frequencies;
// the kernel is package join (AllPairs with PPJoin's filters) instead of
// PPJoin+, or a plain check of every pair in a small group; groups are
// packed into partitions, as the paper's grouped-token routing packs tokens,
// but a record still belongs to each of its groups apart; pairs are kept by
// the first shared token instead of being deduplicated in stage 3;
// oversized groups are split by size as above.
//
// Cost, for n records of mean size k, probe prefix p(k) ≈ (1-t)k + 1 tokens
// (Jaccard): stage 1 shuffles every record once (8 bytes a token, as a
// Batch) and about 10 bytes per distinct token of each bundle, and
// broadcasts about 10 bytes per shared token; stage 2 shuffles every record
// once more in the order (one to three bytes a token, as a RankBatch) and
// once per partition it is routed to, at most p times: about n·p·(2k + 6)
// bytes; the join inside a group of g records costs what package join costs
// on g records.
//
// # LSH join and dedup
//
// LSHSelfJoin groups identical sets into units (a shuffle of every record),
// signs each unit with approx's Hasher and packs it as approx.Signatures does,
// and sends it to the bucket of each of B bands (approx.BandKey). A bucket of
// more than MaxBucket units pairs nothing and is counted; the others pair
// their units, each pair only in the first band that pairs it (the bands
// before it are compared by key), so candidates are distinct. Each candidate
// fetches both sets (two co-groups) and is verified exactly. Shuffled: about
// 8k+16 bytes a record, B·(8B+14) bytes a unit for the bands and 2·(8k+16)
// more for the two co-groups, and 8k+36 bytes a candidate.
//
// A dedup makes no record pair: ExactLinks and LSHLinks group identical
// sets into units first, join only the units, and return the links the
// clusters need (one a pair of similar units, n-1 for a unit of n copies).
// Components labels the records of a dedup by connected components with
// the alternating large-star/small-star operations of Kiveris et al., a
// fixed number of them (each a shuffle of at most twice the edges), and
// Unsettled fails the job when an edge still joins two labels after them;
// DedupLines keeps one record of every cluster (the first, as `simjoin
// dedup` does, or the longest or shortest) and writes its id, every record
// with its kept record's, or the kept records' lines.
//
// # Output
//
// WriteLines writes the lines in shards sorted by ids and commits them in the
// job's last step, once every shard is written and the guards (checks on the
// data, such as Unsettled and RepeatedNames) are empty, so that a job commits
// whole or not at all whether its launcher waits for it or not.
//
// # Metrics
//
// Every stage adds to Beam counters in the Namespace "simjoin" (records,
// candidates and the filters that pruned them, results, bucket counts, bytes
// written to each shuffle); MetricsOf reads them after a run and
// Metrics.WriteSummary prints them like the CLI's --stats.
//
// # Concurrency
//
// The DoFns keep no state across elements beyond read-only side inputs
// loaded once per instance and, in the exact join, what a bundle gathers
// before emitting it (a batch, token counts, partition chunks, emitted when
// full and when the bundle finishes: the elements depend on how the runner
// cuts the bundles, the pairs do not); the runner runs instances in
// parallel, one bundle at a time each. Output files are sorted within each
// shard, so the bytes written do not depend on the runner's parallelism.
package pipeline
