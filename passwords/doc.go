// Package passwords finds similar passwords: the near-copies within a list
// of passwords (Join, Families), and the known passwords that a new one is
// too close to (Index.Lookup).
//
// # Passwords as sets
//
// A password becomes the set of its character q-grams (Grams; bigrams by
// default, see DefaultQ), after optional normalisations (Norm: case folding,
// leet-speak folding, stripping a trailing run of digits and symbols), and
// two passwords are similar when their sets reach a threshold under a set
// similarity measure (Jaccard >= 0.8 in the simjoin command, DefaultThreshold).
// Passwords are bytes: one that is valid UTF-8 is read as code points, any
// other (a Latin-1 list) as bytes, and grams of the two kinds share a key
// exactly when they are the same bytes (see Grams). Sets, not bags: "aaaa"
// and "aaaaaa" both have the one gram "aa", and are identical as sets.
//
// Short sets at high thresholds are the home ground of the exact
// prefix-filter join (package join: AllPairs with PPJoin's positional filter,
// Bayardo, Ma and Srikant 2007; Xiao, Wang, Lin and Yu 2008): a password of
// eight characters has seven bigrams, and at t = 0.8 its prefix is one or two
// of its rarest bigrams. But bigrams come from a small alphabet (a few
// thousand in a list, a hundred in digit-only passwords), so even the rarest
// is common, and the prefix filter's candidates grow with the square of the
// list. Join therefore indexes the pairs (or, for lists of millions, hashed
// triples) of tokens in each set's ℓ-prefix (AdaptJoin's ℓ-prefix, Wang, Li
// and Feng 2012; see lprefix.go), which is as exact and meets ten times
// fewer candidates on passwords, and keeps join.SelfJoin for long sets at
// low thresholds. Every candidate is verified with join.Verify; every answer
// of this package is exact.
//
// # Lifecycle
//
// First a List gathers the distinct passwords (Read parses a file, with
// optional frequency counts laid out as ParseCounts names them; List.Add
// adds one; EstimateMemory bounds what joining it will take); identical passwords are
// merged and their counts summed, so n copies of "123456" cost one set and
// no pairs. Then either
//
//   - Join streams the similar pairs, or Families groups them into connected
//     families with a union-find forest (package cluster); or
//   - NewIndex builds a query index over the list once, and Index.Lookup
//     answers any number of candidate passwords, concurrently if need be
//     (CheckAll checks a batch on all workers); CheckStats counts the
//     candidates and holds the check policy: a candidate is too close when
//     it matches a known password, and a run is rejected when one is.
//
// # Secrecy
//
// Passwords are the data, never the diagnostics: errors name lines and
// counts, never a password, and nothing here logs.
//
// The package reads and writes no files of its own and does not choose
// between exact and approximate joins: it always joins exactly.
package passwords
