// Package join holds the exact similarity joins: SelfJoin and RSJoin report
// every pair of records whose similarity reaches a threshold, and nothing
// else.
//
// # Algorithm
//
// The joins follow AllPairs (Bayardo, Ma and Srikant, "Scaling up all pairs
// similarity search", WWW 2007) with the positional filter and verification
// of PPJoin (Xiao, Wang, Lin and Yu, "Efficient similarity joins for near
// duplicate detection", WWW 2008):
//
//  1. Identical sets are grouped (order.Collection makes them adjacent), so n
//     copies cost one probe; their n(n-1)/2 pairs are reported directly.
//  2. Every group's prefix is indexed: in a self-join the short index prefix
//     |x| - MinOverlap(|x|, |x|) + 1, since a set is only probed by sets at
//     least as large; in an R-S join the probe prefix of S.
//  3. Every probe group x scans the postings of its probe prefix. The size
//     filter skips postings of sets outside SizeRange(|x|) by binary search
//     (posting lists are in size order); in a self-join only groups before x
//     are met. The positional filter prunes a candidate y as soon as the
//     count so far plus 1 plus min(|x|-i-1, |y|-j-1) cannot reach
//     MinOverlap(|x|, |y|), where i and j are the positions of the shared
//     token.
//  4. Each surviving candidate is verified by merging only the suffixes past
//     the last counted token (every shared token before it is already
//     counted); the merge stops as soon as the required overlap is out of
//     reach.
//
// Departures from the papers: the index is built in full before probing
// (instead of growing as probes go), and a probe meets only the groups that
// precede it; this makes probes independent, so they run in parallel and the
// output does not depend on the number of workers. Every "similarity >= t"
// decision is made by prefix.Bounds in integer arithmetic, so pairs exactly
// at the threshold are kept.
//
// # Cost and concurrency
//
// Index: one pass over the prefixes, 8 bytes per posting. Probing: the
// postings of the probe prefixes within the size range, one O(1) step each;
// verification: at most |x| + |y| steps per candidate that survives the
// filters. Each worker keeps 12 bytes per indexed group of scratch space.
// Pairs are handed to the caller's callback from the calling goroutine, in
// chunks of probe groups in collection order. A chunk buffers one entry per
// verified pair of distinct sets, never the record pairs themselves: those
// are expanded from the groups of identical copies as they are yielded, so
// n copies cost O(1) memory, not O(n²). At most 2·Workers chunks are
// buffered. All goroutines have ended when a join returns.
package join
