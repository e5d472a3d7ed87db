// Package approx is the approximate path of simjoin: MinHash signatures,
// locality-sensitive hashing by bands, and verification of the candidates
// through package join. It answers "all pairs with similarity >= t" on long
// sets at low thresholds, where the exact prefix-filter join scans half of
// every set, at the price of missing a pair now and then, with a probability
// it states in advance.
//
// # Lifecycle
//
// A join (SelfJoin, RSJoin) runs in four phases: signing every distinct set
// (K minima, Hasher), packing them b-bit (Signatures), banding (B tables of
// (band key, set) sorted by key; equal keys form a bucket), and enumerating
// the pairs of every bucket, each verified once. The joins take either
// collections of package order (token ids over a dictionary) or KeySets
// (the 64-bit token keys themselves, SelfJoinKeys and RSJoinKeys): the
// signatures are the same, since both hash the keys, so no token order is
// needed for LSH; only the identical-set grouping and the numbering of the
// units differ. The query index goes Builder
// (Add sets) → Build → Index, which is immutable and answers Query, TopK and
// QueryAll from many goroutines. Options.Resolve checks the options and
// chooses the banding before any work starts; ValidateK, ValidateBits, ValidateRecall,
// ValidateMinSize, ParseSeed and ParseVerify check one field as a user gave it
// (zero there is a value, not the default), with an *OptionError naming the
// field, for a command line to refuse it by its flag. Options.Validate runs them
// all (and the shape's fit) on options whose every field is given, before
// the measure and threshold are known; Resolve fills in the defaults and
// checks through it.
//
// # Algorithms
//
// Signatures. The classic scheme is the article's: each 64-bit token key is
// folded to 32 bits by CRC-32 (IEEE) of its little-endian bytes, and K hash
// functions h_i(x) = Mix64(x ^ σ_i), splitmix64's finaliser with K seeds
// σ_i = Mix64(seed + (i+1)·0x9e3779b97f4a7c15), give the minima (Broder 1997;
// the collision probability of one position is the Jaccard similarity J).
// One-permutation hashing (Li, Owen and Zhang, "One permutation hashing",
// NIPS 2012) hashes each token once, h(k) = Mix64(k ^ σ_0), puts it in bin
// ⌊h·K/2⁶⁴⌋ and keeps each bin's minimum; empty bins are filled by optimal
// densification (Shrivastava, "Optimal densification for fast and accurate
// minwise hashing", ICML 2017): bin i takes the value of the first non-empty
// bin of its own probe sequence ⌊Mix64(σ_1 ^ (i·2³² + a))·K/2⁶⁴⌋, a = 1, 2, ….
// It costs O(S + K) per set instead of O(K·S), keeps the collision
// probability at exactly J, and passes the same statistical tests, so it is
// the default. See Hasher for the exact definitions.
//
// b-bit storage (Li and König, "b-Bit minwise hashing", WWW 2010). Only the
// low Bits (8, 16, 32 or 64) bits of each minimum are kept; two minima of
// different tokens then agree with probability 2^-Bits, and EstimateJaccard
// removes that bias: Ĵ = (m/K − 2^-w)/(1 − 2^-w).
//
// Banding (Indyk and Motwani 1998; Rajaraman and Ullman, "Mining of Massive
// Datasets", ch. 3). The first B·R values are cut into B bands of R rows; a
// pair is a candidate when a whole band agrees, with probability
// P(s) = 1 − (1 − s^R)^B. Band keys are 64-bit hashes of the packed band
// bytes; each band is one sorted table, so a bucket is a run and no map is
// built. A pair that agrees on several bands is verified only in the first
// of them: each band checks the bands before it on the signatures, so no set
// of seen pairs is kept. A bucket of more than MaxBucket distinct sets yields
// no candidates in its band; it is counted in Stats (CappedBuckets,
// CappedPairs), never dropped silently, and the pairs it held are still found
// through other bands.
//
// Choosing the banding. ChooseRecall (the default) picks, among the shapes
// with B·R <= K, the one with the smallest false-positive area ∫₀ᵗ P whose
// P(t) reaches the target recall (0.95 unless told), so every pair at or
// above t is found with at least that probability. ChooseWeighted minimises
// weighted false-positive and false-negative areas, as datasketch and
// ekzhu/minhash-lsh do; with equal weights its S-curve midpoint lies above t
// (9x13 at t = 0.8, K = 128, which finds a pair at exactly 0.8 with
// probability 0.399). Areas are integrated by Gauss–Legendre quadrature
// (gonum's integrate/quad), exact here since P is a polynomial.
//
// # Measures
//
// Banding estimates Jaccard. Dice is equivalent (J = D/(2−D)); for Cosine the
// banding is chosen for J = t², the least Jaccard similarity of a pair at
// cosine t (one set inside the other), so the recall bound still holds;
// candidates are then verified with the measure asked for. The Overlap
// measure has no Jaccard bound and is refused (ErrNoJaccardBound).
//
// # Departures
//
// Identical sets are signed once and their pairs reported directly, so a
// thousand copies of one file never fill a bucket. Verification is exact by
// default (join.Verify with prefix.Bounds, integer arithmetic), so LSH loses
// pairs but never reports a false one; VerifyEstimate trades that for not
// reading the sets again, and marks similarities as estimates.
//
// # Concurrency and determinism
//
// Signing, banding and verification run on Options.Workers goroutines, all
// ended when a call returns. Output order depends on the data and the options
// only, never on the number of workers or the run: every hash is seeded and
// fixed, and work is cut into chunks of fixed size handed on in order.
package approx
