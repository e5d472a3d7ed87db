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
// (SIGMOD 2010), its BTO-PK-BRJ plan:
//
//  1. Token order: document frequencies by a combine per token. Only tokens
//     held by two records or more are broadcast (a side input); a token
//     missing from it has frequency 1. Every record sorts its tokens
//     rare-first (frequency, then key), the order package order uses.
//  2. Kernel: every record goes to the group of each token of its probe
//     prefix (prefix.Bounds.ProbePrefix) that another record holds, carrying
//     its whole set. A group is joined with package join (order.New and
//     join.SelfJoin; join.RSJoin for an R-S join) and keeps a pair only when
//     the group's token is the first token the two sets share: the prefix
//     filter puts that token in both probe prefixes, so the pair reaches that
//     group, and no other group keeps it. No stage removes repeats.
//     Records take AllPairs' two roles (Bayardo, Ma and Srikant, WWW 2007):
//     a record is indexed in the groups of its index prefix
//     (prefix.Bounds.IndexPrefix; R-S: the R records, under their probe
//     prefix) and only probes in the others, and a pair is kept where its
//     first record (the smaller set, then the lower id; R-S: the R record)
//     is indexed, which the first shared token always is for a similar
//     pair. A group of more than BlockSize records (a frequent prefix
//     token) is split: its indexed records, counted by set size, are cut in
//     order of size into blocks of about BlockSize, and a record probes
//     only the blocks holding sizes it can meet (prefix.Bounds.SizeRange),
//     so each pair meets once, in the block of its indexed record, and
//     blocks whose sizes cannot meet are never paired. A token that comes
//     last in most orders (one in every record) is in many probe prefixes
//     but in few index prefixes: its group costs a copy per record indexed
//     there and per block a probe meets, not ⌈g/BlockSize⌉ copies of each
//     of its g records.
//  3. Records: the pairs carry the record ids and the overlap and sizes the
//     similarity is computed from; FormatPairs writes them as the CLI does.
//
// Departures from the paper: the order is not a dense ranking (a global sort)
// but (frequency, key), which every worker computes from the broadcast
// frequencies; the kernel is package join (AllPairs with PPJoin's filters)
// instead of PPJoin+; pairs are kept by the first shared token instead of
// being deduplicated in stage 3; oversized groups are split by size as above.
//
// Cost, for n records of mean size k, probe prefix p(k) ≈ (1-t)k + 1 tokens
// (Jaccard): stage 1 shuffles the distinct (token, count) partials of each
// bundle (at most 16 bytes a token occurrence, far less after combining);
// stage 2 shuffles each record once per shared prefix token: about
// n·p·(8k + 8) bytes; the join inside a group of g records costs what
// package join costs on g records.
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
// The DoFns keep no state across elements beyond read-only side inputs loaded
// once per instance; the runner runs them in parallel. Output files are
// sorted within each shard, so the bytes written do not depend on the
// runner's parallelism.
package pipeline
