package report

import (
	"fmt"
	"slices"

	"github.com/simjoin/simjoin"
	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/prefix"
	"github.com/simjoin/simjoin/shingle"
)

// NewJoin starts the report of a command that joins (command: join, dedup,
// plot) the records of input with the tokenizer tokens, measure m and
// threshold t on workers goroutines.
func NewJoin(command string, input []string, tokens shingle.Spec, m prefix.Measure, t prefix.Threshold, workers int) *Report {
	return &Report{
		Command:   command,
		Input:     input,
		Tokens:    tokens.String(),
		Measure:   m.String(),
		Threshold: t.String(),
		Workers:   workers,
	}
}

// JoinInput is the report's input of a join of the records of inputs with
// those of against (--against; none when ""): inputs, then "--against"
// and against.
func JoinInput(inputs []string, against string) []string {
	in := slices.Clone(inputs)
	if against != "" {
		in = append(in, "--against", against)
	}
	return in
}

// AddInput records what loading a join's input did (st, from
// simjoin.Input.Stats): the reading phase ("read", or "read+tokenize" when
// files were read, st.Files, and tokenized as they were), the order
// phase when the token order was built, the counts of records, empty sets,
// tokens and distinct tokens, and the "files" section when files were read
// (keepGoing and minTokens are the options they were read with).
// vocabulary counts the distinct tokens when st has no count (an input
// loaded without its order, LSH's or the planner's) and the join builds no
// order: it is called when the report is written (Vocabulary); nil leaves
// the report's count at st's -1.
func (r *Report) AddInput(st simjoin.Stats, vocabulary func() int, keepGoing bool, minTokens int) {
	read := "read"
	if st.Files != nil {
		read = "read+tokenize"
	}
	r.AddPhase(read, st.Read)
	if st.Order != (simjoin.Timing{}) {
		r.AddPhase("order", st.Order)
	}
	r.Records, r.Skipped, r.SetTokens, r.Vocabulary = st.Records, st.Skipped, st.Tokens, st.Vocabulary
	r.vocabulary = vocabulary
	if st.Files != nil {
		r.AddSection("files", "files", *st.Files, FilesRows(st.Files, keepGoing, minTokens))
	}
}

// GivenPlan is the report's plan section when the method was given
// (--method) rather than planned: the fields of planner.Plan that apply
// without planning.
type GivenPlan struct {
	Method string `json:"method"`
	Forced bool   `json:"forced"`
	Reason string `json:"reason"`
}

// givenReason is a given plan's reason: planning would cost as much as a
// fast join, and explain prices both paths.
const givenReason = "given by --method, not planned (simjoin explain prices both paths)"

// AddJoin records what a join of measure m and threshold t did (st): the
// order phase and the distinct tokens when the order was built for it, the
// plan section (st.Plan, or a GivenPlan naming the method given when
// nothing was planned), the method that ran, the exact join's counters, the
// LSH section (with LSH's recall when it was measured against the exact
// join, st.CrossCheck), and the results with their histogram. It returns the
// warning the run calls for, if any: CappedWarning when LSH capped buckets.
func (r *Report) AddJoin(st simjoin.Stats, given string, m prefix.Measure, t prefix.Threshold) (warning string) {
	if st.Order != (simjoin.Timing{}) && !slices.ContainsFunc(r.Phases, func(p Phase) bool { return p.Name == "order" }) {
		r.AddPhase("order", st.Order) // built for the join: the planner or the exact path asked for it
	}
	if st.Vocabulary >= 0 {
		r.Vocabulary = st.Vocabulary
	}
	if st.Plan != nil {
		r.AddSection("plan", "plan", PlanJSON{st.Plan}, PlanRows(st.Plan))
	} else {
		r.AddSection("plan", "plan", GivenPlan{Method: given, Forced: true, Reason: givenReason},
			[][2]string{{"method", given}, {"why", givenReason}})
	}
	r.Method = st.Method.String()
	r.Exact = st.Exact
	h := Histogram(st.Similarity)
	r.SetResults(st.Results, &h, m)
	if st.LSH != nil {
		sec := NewLSH(st.LSH, st.CrossCheck)
		r.AddSection("lsh", "MinHash-LSH", *sec, sec.Rows(m, t))
		if st.LSH.CappedBuckets > 0 {
			warning = CappedWarning(st.LSH)
		}
	}
	return warning
}

// CappedWarning is the warning of an LSH join that capped buckets (st,
// with st.CappedBuckets > 0): what was not considered, and what to do.
func CappedWarning(st *approx.Stats) string {
	return fmt.Sprintf("%s LSH bucket(s) over --max-bucket %d yielded no candidates in their band (%s pairs not considered there; the largest bucket holds %s sets); raise --max-bucket or drop near-empty sets with --min-size",
		numfmt.Group(st.CappedBuckets), st.MaxBucket, numfmt.Group(st.CappedPairs), numfmt.Group(int64(st.LargestBucket)))
}
