// Package planner chooses between the exact join (package join) and
// MinHash-LSH (package approx) for one similarity join, explains the choice
// with the figures that made it, and measures each path against the other.
//
// # Lifecycle
//
// Build the Collection (package order), then call New: it computes the
// collection's statistics (Collect), the exact path's work (SelfWork or
// RSWork), the LSH shape (approx.Options.Resolve), joins seeded samples, and
// returns a Plan: the method, its parameters, the reason, the predicted cost
// of each path term by term, and the predicted recall (1 for exact). A Plan
// is a plain value. Plan.Run executes it; Plan.RunMethod executes either
// path with the plan's parameters; Plan.CrossCheck runs both on a sample and
// reports LSH's recall and precision with Clopper–Pearson intervals.
//
// Check is that measurement for any LSH options and several bandings: the
// exact join once, then every banding's runs against it, with the pairs
// below the threshold measured from a Jaccard floor and a uniform sample of
// pairs. simjoin's plot command, join --check-recall and explain
// --cross-check all call it.
//
// # The cost model
//
// Each path's CPU time is predicted as a sum of counts times calibrated unit
// costs (Calibration; Default was fitted on this project's 2-core machines by
// TestCalibrate, see calibration.go), and its wall time from that: serial
// terms whole, the others spread over the cores. The counts:
//
// Exact. The prefixes the threshold implies (prefix.Bounds: probe prefix
// |x| - α(x, lo) + 1, index prefix |x| - α(x, x) + 1) and the postings they
// meet. The number of postings the probes scan within the size window,
// Σ over probe sets x, over tokens w of x's probe prefix, of the number of
// earlier sets in x's size window whose index prefix holds w, is computed
// exactly without building an index: groups are visited in size order while
// one counter per token holds the window's posting-list lengths (sets enter
// once probed and leave once below the window, whose lower end only grows).
// It equals what join counts, and bounds the candidates from above. The
// shares of postings examined, of candidates and of merges are measured on
// an exact join of a seeded sample of records and applied to the exact
// postings (a ratio estimator), and the sample's results, scaled by its share
// of the pairs, predict the results. A self-join of short sets over a small
// vocabulary takes the ℓ-prefix path of AdaptJoin instead (join.ChooseEll,
// the join's own choice, asked rather than copied): the sample is joined on
// that path, and the work counted is its keys looked up, its key index and
// the postings of the keys' runs, the last scaled from the sample by its
// share of the pairs (ExactWork.Ell > 1); the unit costs are the prefix
// filter's.
//
// LSH. Signing: one hash per set token and dictionary entry, K values per
// set, and, for one-permutation hashing, the probes of optimal densification
// (a set of S tokens leaves about K·e^(-S/K) of its K bins empty, each
// probing 1/(1-e^(-S/K)) bins); the classic scheme instead evaluates K hash
// functions per token. Banding: one key per set and band. Candidates: the
// S-curve P(s) = 1-(1-s^R)^B over the similarity distribution of all pairs,
// estimated from random pairs below the threshold and the sample's
// results above it (LSHEstimate.CurveCandidates); and, because densified
// signature values of small sets and heavy-headed token distributions make
// band matches depend on each other (which the S-curve, assuming independent
// rows, does not model; measured: up to 8x more candidates than it
// predicts), the candidates of an LSH join of a seeded sample of the records
// (an approx.Index over their original token keys, so their signatures are
// those of the whole run), scaled by the sample's share of the pairs
// (LSHEstimate.Candidates, what the cost uses once the sample meets 20
// candidates; the S-curve's below that). Each candidate costs an exact
// check through join.Verify.
//
// Results and their similarities come from whichever sample holds more
// pairs: the exact one's results scaled by its share of the pairs, or the
// LSH one's, each weighted by 1/P(s) (Horvitz–Thompson), since LSH finds a
// pair of similarity s with probability P(s).
//
// The choice: exact when its predicted CPU time is at most Prefer (1.25)
// times LSH's, since it loses nothing; LSH otherwise, with the recall
// predicted as the mean of P(s) over the similarities of the results. CPU time, not wall time, so that the choice (and with it the
// answer) does not depend on the number of cores. The choice follows the
// counts, not the set sizes: long documents of rare shingles have nearly
// empty posting lists, so exact costs little more than reading its prefixes
// and wins or ties with LSH down to t = 0.5, while long sets of frequent
// tokens at 0.5 (and, with long enough sets, well above) get LSH by an order
// of magnitude.
//
// Samples are order.Collection.Subset of the input: the sampled records over
// the input's own dictionary, so their prefixes and signatures are the ones
// the whole join computes.
//
// # Cost and concurrency
//
// New is linear in the tokens and prefixes, plus the samples, which spend at
// most a budget of CPU time: a share (Options.Budget, a quarter) of the
// cheaper path's least cost (exact's upper bound, LSH's signing and
// banding), at least 10 ms: an eighth to copy each of the two samples, a
// quarter for each sample join, a quarter to measure random pairs. Every
// function is safe for concurrent use; collections are only read. The
// package does no I/O; cmd/simjoin prints plans (simjoin explain).
//
// A plan holds no text: why it chose its method is a code with the figures
// the choice compared (Reason), and the phases, cost terms, figures and
// check steps are typed names (PhaseName, TermName, FigureName, StepKind)
// that marshal as text. The command words them (cmd/simjoin/internal/report).
package planner
