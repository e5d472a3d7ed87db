// Package join holds the exact similarity joins: SelfJoin and RSJoin report
// every pair of records whose similarity reaches a threshold, and nothing
// else; Index answers the same question for one query set at a time against
// a collection indexed once.
//
// # Algorithm
//
// The joins follow AllPairs (Bayardo, Ma and Srikant, "Scaling up all pairs
// similarity search", WWW 2007) with the positional filter and verification
// of PPJoin (Xiao, Wang, Lin and Yu, "Efficient similarity joins for near
// duplicate detection", WWW 2008). Before probing:
//
//  1. Identical sets are grouped (order.Collection makes them adjacent), so n
//     copies cost one probe; their n(n-1)/2 pairs are reported directly (or,
//     with Options.Copies, the group once).
//  2. Every group's prefix is indexed: in a self-join the short index prefix
//     |x| - MinOverlap(|x|, |x|) + 1, since a set is only probed by sets at
//     least as large; in an R-S join the probe prefix of S.
//
// Then every probe group x meets the indexed groups through these filters,
// in the order a probe applies them (a posting's or a candidate's outcome
// is selected with arithmetic, not branched on: it is as good as random, and
// a mispredicted branch costs more than the filter):
//
//  1. Single-holder tokens: token ids are in document-frequency order, so the
//     ids below the first one held by two sets can meet no partner; a probe
//     skips them without a lookup.
//  2. The prefix filter (AllPairs): x scans only the postings of its probe
//     prefix |x| - MinOverlap(|x|, lo) + 1, lo its smallest admissible
//     partner.
//  3. The size filter (AllPairs): postings of sets outside SizeRange(|x|)
//     are skipped; posting lists are in size order, so the start is found by
//     binary search, and a per-worker, per-token cursor remembers it (probes
//     grow, so the start only moves forward). In a self-join only groups
//     before x are met.
//  4. Late postings: a posting at probe position i and position j in y
//     whose group is no candidate yet, and which cannot reach the least
//     overlap from there (1 + min(|x|-i-1, |y|-j-1) < MinOverlap(|x|, |y|),
//     the positional filter with a count of 0), starts no candidate; nor
//     can the group's later postings in this probe, which come later in both
//     sets.
//  5. The positional filter (PPJoin): a candidate y is pruned as soon as the
//     count so far plus 1 plus min(|x|-i-1, |y|-j-1) cannot reach
//     MinOverlap(|x|, |y|), i and j the positions of the shared token.
//  6. The count bound before merging (PPJoin's verification): every shared
//     token up to the last token of the prefix that ends first is counted,
//     so the overlap is at most the count plus the tokens past that prefix:
//     |x| - px if x's ends first, |y| - py otherwise. (PPJoin bounds the
//     second case by |x| - i - 1 too, i the position of the last shared
//     token; that term never decides once the positional filter has passed
//     the candidate at that token, so a candidate's state is its count
//     alone.)
//  7. The bitmap filter (Sandes, Teodoro and Melo, "Bitmap Filter: Speeding
//     up Exact Set Similarity Joins with Bitwise Operations", 2020): a
//     bitmap of a few words per set bounds |x ∩ y| by
//     (|x| + |y| - popcount(bx XOR by)) / 2.
//  8. Verification: the rest of the two sets past the last token of the
//     prefix that ends first (found by binary search in the other set) is
//     merged, stopping as soon as the least overlap is out of reach.
//
// Stats counts each step: LateSkipped, SizePruned and Postings by posting;
// Candidates, Positional, BoundPruned, BitmapPruned and Verified by distinct
// pair of groups, with Candidates = Positional + BoundPruned + BitmapPruned
// + Verified.
//
// # The ℓ-prefix path
//
// Where sets are short and the vocabulary small (passwords as character
// bigrams), even the rarest token of a set is common and the prefix filter's
// posting lists grow with the collection. SelfJoin then indexes pairs or
// triples of tokens instead (the ℓ-prefix of AdaptJoin: Wang, Li and Feng,
// "Can we beat the prefix filtering?", SIGMOD 2012), chosen by cost
// (Options.Ell; see lprefix.go): a probe looks up the ℓ-subsets of its
// ℓ-prefix, skips groups too small by binary search, prunes by a 64-bit
// token mask kept beside each entry (MaskPruned, by posting), and verifies
// each distinct group met with Verify (so Candidates = Verified there). At
// ℓ = 2 it does not look up the keys its own group introduces (no group
// before it is indexed under them), which could meet no partner.
//
// # Departures from the papers
//
// With more than one worker the index is built in full before probing
// (instead of growing as probes go), its lists counted and placed on all
// workers, and a probe meets only the groups that precede it; this makes
// probes independent, so they run in parallel and the output does not depend
// on the number of workers. With one worker the lists' room is laid out from
// the same counts and each group's postings are placed right after it is
// probed, as AllPairs grows its index, while the lists it just read are in
// cache (prefix.Lengths.Layout); the pairs and the statistics are the same
// either way. Every "similarity >= t" decision is made by
// prefix.Bounds in integer arithmetic, so pairs exactly at the threshold are
// kept. PPJoin+'s suffix filter (a recursive search for a bound on the
// Hamming distance of the suffixes) is left out: the bitmap filter bounds the
// same overlap for a few word operations where the suffix filter costs binary
// searches into both sets at every level of its recursion. Whether the suffix
// filter would pay on long sets at low thresholds has not been measured here.
//
// # Memory access
//
// On a million short sets nearly all of a join's time is cache misses: a
// posting list's head and first postings, a candidate's state, its bitmap
// and set, each at a place no earlier access predicts. (On 20,000 long sets,
// whose candidate states stay in a core's cache, it was mispredicted
// branches instead: hence the selected outcomes above.) Probes therefore
// ask for them ahead
// (internal/prefetch), so that their misses overlap each other and the work
// at hand instead of coming one after another: a probe locates the lists
// of its prefix tokens eight at a time and hints the next probe's list
// heads; it hints the candidate states of a list's postings before reading
// them (when the states outgrow a core's cache), its candidates' last
// prefix tokens and sizes (when those outgrow it too, or when the few
// candidates of a probe wait for the next one) and the bitmaps of those
// within the count bound before verifying them; the ℓ-prefix path makes
// and hints the next probe's keys, and hints its candidates' sets; building
// the index hints the counters of the next records' prefix tokens, and
// places the postings by bucket of token ids when the lists are too many
// for their ends to stay in cache (prefix.Lengths.Index), else hints the
// places of the next records' postings.
//
// # Cost and concurrency
//
// Index: two passes over the prefixes (count, place; by bucket, a third
// over the postings), 12 bytes per posting (prefix.Posting: record,
// position, size; 4 more while they are placed by bucket), 8 bytes a group
// for its set's offset and size and 8 for its last prefix token and size
// side by side (what the count bound reads). Probing: the postings of the probe prefixes
// within the size range, one O(1) step each; verification: at most
// |x| + |y| steps per candidate that survives the filters. Each worker keeps
// 4 bytes per indexed group of candidate state (its count), 4 per group for
// the list of a probe's candidates, and 12 bytes per token shared by two
// sets or more of list cursors. Pairs are handed to the caller's callback
// from the calling goroutine, in chunks of probe groups in collection order
// (internal/parallel.Ordered). A chunk buffers one entry per verified pair of
// distinct sets, never the record pairs themselves: those are expanded from
// the groups of identical copies as they are yielded, so n copies cost O(1)
// memory, not O(n²). At most 2·Workers chunks are buffered. All goroutines
// have ended when a join returns.
package join
