// Package keysort sorts and de-duplicates the 64-bit token keys of one
// record, as the tokenizers produce them, faster than a comparison sort: keys
// that are hashes are spread evenly, so one counting pass on their top bits
// splits them into buckets of a few keys each, which insertion sort finishes.
// Buckets that come out large (keys that are not hashes, such as packed
// q-grams whose top bits are all zero) are sorted by slices.Sort, so the cost
// stays O(k log k) at worst.
//
// It serves the parallel readers of the command line; order.Input.AddSorted
// takes its output as it is. SortIDs sorts a record's dense 32-bit ids, as
// order rewrites every set to them, by a radix sort on bytes.
package keysort
