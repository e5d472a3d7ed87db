// Package planner chooses between the exact join (package join) and
// MinHash-LSH (package approx) for one similarity join, explains the choice
// with the figures that made it, and measures each path against the other.
//
// # Lifecycle
//
// A plan prices the whole run of each path, from the records as read to the
// results written, and is made where the run stands when it is asked for:
//
//   - NewKeys plans on the records as key sets, before the token order is
//     built (the order is the exact path's alone: LSH signs the keys). It
//     takes LSH when LSH's whole run clearly pays even against the least
//     the exact path's can cost (its reading, its order and grouping its
//     sets: ExactEstimate.Least); otherwise the plan is exact pending the
//     order (Plan.NeedsOrder), and Plan.WithOrder completes it on the
//     collections and decides on the order's exact counts (LSH, if chosen
//     then, runs over the collections, the order spent).
//   - New plans on collections already built (the order read with the
//     records): both paths start from the order, and LSH runs over the
//     collections.
//
// Options.FrontEnd says what reading did (bytes, files, records, tokens,
// tokens read as small values; FrontEnd), the counts the simjoin package
// reports. A Plan is a plain value: the method, the reason, the predicted
// cost of each path term by term and phase by phase, the predicted recall
// (1 for exact) and what planning itself took (Plan.CPU). Plan.Run and
// Plan.RunMethod run the joins over collections; Plan.Analyze sets a run
// beside its prediction phase by phase and term by term; Plan.CrossCheck
// runs both on a sample and reports LSH's recall and precision with
// Clopper–Pearson intervals.
//
// Check is that measurement for any LSH options and several bandings: the
// exact join once, then every banding's runs against it, with the pairs
// below the threshold measured from a Jaccard floor and a uniform sample of
// pairs. simjoin's plot command, join --check-recall and explain
// --cross-check all call it.
//
// # The cost model
//
// Each path's CPU time is predicted as a sum of counts times unit costs in
// CPU nanoseconds (Calibration), and its wall time from that: serial terms
// whole, the others spread over the cores. Every count is one the engine
// reports for the same phase (the simjoin package's Stats for the reading
// and the order, join.Stats, approx.Stats), so that a change that stops the
// engine doing some work changes the count rather than leaving a stale
// constant, and a run's own counts price the same terms (Plan.Counted): an
// analysis tells a count predicted wrong from a unit cost gone stale. The
// unit costs are fitted by the calibration suite (the simjoin package's
// TestCalibrate, which writes calibration.json, embedded here); the
// simjoin package's TestPlannerPredictions fails, under -long, when a
// path's predicted whole run is off by more than OffBy on any workload of
// the planner suite. The phases and their counts:
//
// Reading (both paths): the bytes tokenized, at a cost per byte of the
// tokenizer (and of the values' road where tokens came as small values),
// the records' distinct tokens kept, the files opened, a ready set's
// tokens numbered.
//
// Order (exact): the tokens entered into the vocabulary's table (or its
// array of values), the distinct tokens, the tokens rewritten as ids and
// sorted in their sets, the records sorted by size. Before the order the
// distinct tokens are estimated from a hash sample of the keys (keys whose
// hash falls below a cut are counted exactly: a uniform sample of the
// distinct keys with their document frequencies), which also estimates
// the share of token occurrences held by one set.
//
// Exact (index and join). The prefixes the threshold implies (prefix.Bounds:
// probe prefix |x| - α(x, lo) + 1, index prefix |x| - α(x, x) + 1) and the
// postings they meet. The probe-prefix tokens looked up are those held by
// two sets or more (a token held by one set has no posting list). The
// number of postings the probes scan within the size window, Σ over probe
// sets x, over tokens w of x's probe prefix, of the number of earlier sets in
// x's size window whose index prefix holds w, is computed exactly on the
// order without building an index: groups are visited in size order while
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
// filter's. Before the order (NewKeys) the postings, candidates and merges
// are those of a sample joined exactly over an order of its own, scaled by
// its share of the pairs: an order of the sample's own sees a token held by
// one sampled set as rare where the input's may not, and predicts somewhat
// fewer postings than the input's order meets.
//
// LSH (signatures, bands, verify). Over key sets: every record's tokens
// hashed to group identical sets, each distinct set's tokens hashed into
// its signature; over collections: each dictionary entry hashed once and
// the distinct sets' tokens signed from those hashes. K values per distinct
// set (the classic scheme evaluates K hash functions per token), one key
// per set and band. Candidates: the S-curve P(s) = 1-(1-s^R)^B over the
// similarity distribution of all pairs, estimated from random pairs below
// the threshold and the samples' results above it
// (LSHEstimate.CurveCandidates); and, because densified signature values of
// small sets and heavy-headed token distributions make band matches depend
// on each other (which the S-curve, assuming independent rows, does not
// model; measured: up to 8x more candidates than it predicts), the
// candidates of an LSH join of a seeded sample of the records over their
// keys (so their signatures are those of the whole run), scaled by the
// sample's share of the pairs (LSHEstimate.Candidates, what the cost uses
// once the sample meets 20 candidates; the S-curve's below that). Each
// candidate costs an exact check through join.Verify, and each result
// written.
//
// Samples draw records uniformly, and band collisions, candidates and
// postings pair distinct sets: a sample's are scaled by its share of the
// input's pairs of distinct sets, (u/n)² of its pairs of records for n
// records holding u distinct sets (SampleEstimate's unit fractions), and
// its bucket cap by its share of the records. That corrects the count of
// pairs but not their mix: where records repeat (a raw leak's popular
// passwords), a sample over-represents the popular sets, which also meet
// more others in the bands, and LSH's price comes out high. Pairs of
// random pairs that share no token never meet in a band and are left out
// of the S-curve's similarity distribution.
//
// Results and their similarities come from whichever sample holds more
// pairs: the exact one's results scaled by its share of the pairs, or the
// LSH one's, each weighted by 1/P(s) (Horvitz–Thompson), since LSH finds a
// pair of similarity s with probability P(s).
//
// The choice: exact when the predicted CPU time of its whole run is at most
// Prefer (1.25) times LSH's, since it loses nothing; LSH otherwise, with the
// recall predicted as the mean of P(s) over the similarities of the
// results. Before the order, LSH only when even exact's least is more than
// Prefer times LSH's. CPU time, not wall time, so that the choice (and with
// it the answer) does not depend on the number of cores. The choice follows
// the counts, not the set sizes: long documents of rare shingles have nearly
// empty posting lists, so exact's join costs little, but its order numbers
// a vocabulary nearly as large as the input, which LSH never builds; long
// sets of frequent tokens at 0.5 (and, with long enough sets, well above)
// get LSH by an order of magnitude for their joins alone.
//
// Samples of collections are order.Collection.Subset of the input: the
// sampled records over the input's own dictionary, so their prefixes and
// signatures are the ones the whole join computes.
//
// # Cost and concurrency
//
// NewKeys reads every key once (a hash each); New is linear in the tokens
// and prefixes; both then join samples, which spend at most a budget of CPU
// time: a share (Options.Budget, 3%) of the least whole run of either path,
// at least 25 ms: an eighth to copy each of the two samples, a quarter for
// each sample join, a quarter to measure random pairs. Every function is
// safe for concurrent use; inputs are only read. The package does no I/O;
// cmd/simjoin prints plans (simjoin explain), and the simjoin package's
// tests write calibration.json.
//
// A plan holds no text: why it chose its method is a code with the figures
// the choice compared (Reason), and the phases, cost terms, figures and
// check steps are typed names (PhaseName, TermName, FigureName, StepKind)
// that marshal as text. The command words them (cmd/simjoin/internal/report).
package planner
