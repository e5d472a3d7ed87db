package planner

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/internal/testkit/synth"
	"github.com/simjoin/simjoin/order"
)

// keySetsOf returns sets as key sets and their front end, as read from
// lines of decimal tokens (about 10 bytes a token).
func keySetsOf(sets [][]uint64) (*approx.KeySets, FrontEnd) {
	ks := &approx.KeySets{}
	fe := FrontEnd{Tokenizer: TokenizeSet, Records: len(sets)}
	for _, s := range sets {
		ks.Add(s)
		fe.Tokens += int64(len(s))
	}
	fe.Bytes = 10 * fe.Tokens
	return ks, fe
}

func collectionOf(t testing.TB, ks *approx.KeySets) *order.Collection {
	t.Helper()
	in := new(order.Input)
	in.AddBatch(ks.Keys, ks.Offs)
	c, err := order.New(in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rareDocs are documents of random 64-bit shingles, a few pairs planted:
// nearly every token is held by one document.
func rareDocs(n int) [][]uint64 {
	return synth.Documents(synth.DocsConfig{N: n, MinSize: 250, MaxSize: 350, Planted: n / 20, PlantedLo: 0.5, PlantedHi: 0.95, Seed: 2}).Sets
}

// TestNewKeysBeforeOrder: on documents of rare shingles, whose token order
// would number nearly every token of the input, LSH's whole run clearly
// pays against even the least the exact path can cost (reading and the
// order), and the plan takes LSH without the order, saying so. A plan that
// prices the joins alone, after the order is paid (New without a front
// end), compares the joins and keeps exact.
func TestNewKeysBeforeOrder(t *testing.T) {
	ks, fe := keySetsOf(rareDocs(4000))
	th := threshold(t, 0, "0.5")
	p, err := NewKeys(context.Background(), KeySetsOf(ks), nil, Options{Threshold: th, FrontEnd: fe})
	if err != nil {
		t.Fatal(err)
	}
	if p.Method != LSH || p.Reason.Code != ReasonBeforeOrder || p.NeedsOrder() || p.Ordered {
		t.Fatalf("plan %s (%+v), needs order %v, ordered %v", p.Method, p.Reason, p.NeedsOrder(), p.Ordered)
	}
	if r := p.Reason; !(r.ExactLeast > r.Prefer*r.LSHCPU) || r.ExactLeast != p.Exact.Least || r.ExactLeast > p.Exact.Cost.CPU {
		t.Errorf("reason %+v, exact's least %v, cost %v", r, p.Exact.Least, p.Exact.Cost.CPU)
	}
	// The order's price is the exact path's alone.
	if _, ok := p.LSH.Cost.Term(TermDistinctKeys, PhaseOrder); ok {
		t.Errorf("LSH priced the order: %+v", p.LSH.Cost.Terms)
	}
	if tm, ok := p.Exact.Cost.Term(TermDistinctKeys, PhaseOrder); !ok || tm.Count < 0.8*float64(fe.Tokens) {
		t.Errorf("exact's order prices %v distinct tokens of %d", tm.Count, fe.Tokens)
	}
	joins, err := New(context.Background(), collectionOf(t, ks), nil, Options{Threshold: th})
	if err != nil {
		t.Fatal(err)
	}
	if joins.Method != Exact {
		t.Errorf("the joins alone: %s (%+v)", joins.Method, joins.Reason)
	}
}

// TestNewKeysPending: on short sets of Zipf tokens LSH does not clearly
// pay, the plan is exact pending the order, and WithOrder completes it on
// the collections: exact, its work counted on the order (SelfWork), its
// distinct tokens the dictionary's, LSH's price still over key sets.
func TestNewKeysPending(t *testing.T) {
	raw := synth.Sets(synth.SetsConfig{N: 20000, MinSize: 5, MaxSize: 20, Universe: 20000, Zipf: 1, DupFraction: 0.2, Replace: 0.1, Seed: 1})
	sets := make([][]uint64, len(raw))
	for i, s := range raw {
		for _, v := range s {
			sets[i] = append(sets[i], uint64(v)*0x9e3779b97f4a7c15)
		}
	}
	ks, fe := keySetsOf(sets)
	th := threshold(t, 0, "0.7")
	ctx := context.Background()
	p, err := NewKeys(ctx, KeySetsOf(ks), nil, Options{Threshold: th, FrontEnd: fe})
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsOrder() || p.Reason.Code != ReasonPending {
		t.Fatalf("plan %s (%+v), needs order %v", p.Method, p.Reason, p.NeedsOrder())
	}
	c := collectionOf(t, ks)
	q, err := p.WithOrder(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Method != Exact || q.Reason.Code != ReasonExactWithin || !q.Ordered || q.NeedsOrder() {
		t.Errorf("completed plan %s (%+v), ordered %v", q.Method, q.Reason, q.Ordered)
	}
	if w := SelfWork(c, q.Bounds()); q.Exact.Work.Postings != w.Postings {
		t.Errorf("completed plan counts %d postings, SelfWork %d", q.Exact.Work.Postings, w.Postings)
	}
	// LSH's price moves only with what the order counts exactly (the
	// distinct sets, the results) and its signing through the dictionary.
	if q.FrontEnd.Distinct != int64(c.Dict().Len()) || math.Abs(q.LSH.Cost.CPU/p.LSH.Cost.CPU-1) > 0.2 {
		t.Errorf("distinct %d (dictionary %d); LSH %v s then %v s", q.FrontEnd.Distinct, c.Dict().Len(), p.LSH.Cost.CPU, q.LSH.Cost.CPU)
	}
	// Before the order LSH would sign the key sets; on it, the collections.
	if _, ok := p.LSH.Cost.Term(TermTokensHashed, PhaseSignatures); !ok {
		t.Errorf("LSH before the order is not priced over key sets: %+v", p.LSH.Cost.Terms)
	}
	if _, ok := q.LSH.Cost.Term(TermWordsHashed, PhaseSignatures); !ok {
		t.Errorf("LSH on the order is not priced over the collections: %+v", q.LSH.Cost.Terms)
	}
	if again, _ := q.WithOrder(ctx, c, nil); again != q {
		t.Errorf("completing a completed plan made a new one")
	}
	// The estimates before the order are deterministic.
	p2, _ := NewKeys(ctx, KeySetsOf(ks), nil, Options{Threshold: th, FrontEnd: fe})
	p.Seconds, p.CPU, p2.Seconds, p2.CPU = 0, 0, 0, 0
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(p2)
	if string(a) != string(b) {
		t.Errorf("plans differ:\n%s\n%s", a, b)
	}
}

// TestNewKeysStats: before the order, the statistics estimate the distinct
// tokens and their frequencies from a hash sample of the keys: within a few
// percent of the order's own counts.
func TestNewKeysStats(t *testing.T) {
	raw := synth.Sets(synth.SetsConfig{N: 30000, MinSize: 20, MaxSize: 60, Universe: 400000, Zipf: 0.9, Seed: 4})
	sets := make([][]uint64, len(raw))
	for i, s := range raw {
		for _, v := range s {
			sets[i] = append(sets[i], uint64(v))
		}
	}
	ks, fe := keySetsOf(sets)
	p, err := NewKeys(context.Background(), KeySetsOf(ks), nil, Options{Threshold: threshold(t, 0, "0.8"), FrontEnd: fe})
	if err != nil {
		t.Fatal(err)
	}
	want := Collect(collectionOf(t, ks))
	got := p.Stats[0]
	within := func(what string, g, w, tol float64) {
		if math.Abs(g-w) > tol*w {
			t.Errorf("%s: estimated %v, counted %v", what, g, w)
		}
	}
	if got.Sets != want.Sets || got.Tokens != want.Tokens || got.Size != want.Size || got.Sampled >= 1 || got.Sampled <= 0 {
		t.Errorf("counts: %+v, want %+v", got, want)
	}
	within("distinct", float64(got.Distinct), float64(want.Distinct), 0.05)
	within("distinct (front end)", float64(p.FrontEnd.Distinct), float64(want.Distinct), 0.05)
	within("once", got.Freq.Once, want.Freq.Once, 0.1)
	within("zipf", got.Freq.Zipf, want.Freq.Zipf, 0.25)
}

// TestFit: observations priced by a known calibration are fitted back to
// it, phase by phase; a cost no observation counts keeps its base value.
func TestFit(t *testing.T) {
	truth := DefaultCalibration()
	truth.Read.GoByte, truth.Order.Distinct, truth.Exact.Posting, truth.LSH.BandKey = 9, 70, 4, 60
	ctx := context.Background()
	var obs []Observation
	for i, n := range []int{2000, 4000, 8000} {
		ks, fe := keySetsOf(rareDocs(n))
		fe.Tokenizer, fe.Files = TokenizeGo, n
		fe.Bytes = int64(7+i) * fe.Tokens
		p, err := NewKeys(ctx, KeySetsOf(ks), nil, Options{Threshold: threshold(t, 0, "0.6"), FrontEnd: fe, Calibration: &truth})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []Cost{p.Exact.Cost, p.LSH.Cost} {
			cpu := map[PhaseName]float64{}
			for _, tm := range c.Terms {
				cpu[tm.Phase] += tm.CPU * (1 + 0.01*float64(i)) // a little noise
			}
			obs = append(obs, Observation{Cost: c, FrontEnd: p.FrontEnd, CPU: cpu})
		}
	}
	base := DefaultCalibration()
	base.Read.WordsByte = 123
	got, reports := Fit(obs, base)
	if got.Read.WordsByte != 123 {
		t.Errorf("an unobserved cost moved: %v", got.Read.WordsByte)
	}
	for _, r := range reports {
		if r.Low < 0.9 || r.Hi > 1.1 {
			t.Errorf("phase %s fitted within %.2fx..%.2fx", r.Phase, r.Low, r.Hi)
		}
	}
	if len(reports) < 5 {
		t.Errorf("%d phases fitted", len(reports))
	}
}

// TestParseCalibration: the embedded file reads, and a file with an
// unknown or missing cost, a negative one or data after it does not.
func TestParseCalibration(t *testing.T) {
	f, err := ParseCalibration(calibrationFile)
	if err != nil || f.Command == "" || f.Costs != DefaultCalibration() {
		t.Fatalf("embedded calibration: %v (%+v)", err, f)
	}
	good := string(calibrationFile)
	for name, data := range map[string]string{
		"unknown":  strings.Replace(good, `"token_entered"`, `"token_entred"`, 1),
		"missing":  strings.Replace(good, `"go_byte": `, `"x": `, 1),
		"negative": strings.Replace(good, `"collision": `, `"collision": -`, 1),
		"trailing": good + "{}",
	} {
		if data == good {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if _, err := ParseCalibration([]byte(data)); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

// TestAnalyze: a run whose counts and times are the prediction's is within
// every ratio; one whose candidates are four times the predicted flags
// that term, and its phase when the time follows.
func TestAnalyze(t *testing.T) {
	c := sets(t, synth.SetsConfig{N: 3000, MinSize: 20, MaxSize: 60, Universe: 3000, Seed: 5})
	p := plan(t, c, "0.6", Options{})
	m, err := p.RunMethod(context.Background(), Exact, c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := *m.Exact
	a := p.Analyze(m, p.FrontEnd)
	if a.Method != Exact || a.Counted <= 0 || len(a.Phases) != 2 || len(a.Terms) != len(p.Exact.Cost.Terms) {
		t.Fatalf("analysis %+v", a)
	}
	for _, tm := range a.Terms {
		if tm.Name == TermPrefixPostings && tm.Predicted != tm.Measured {
			t.Errorf("postings: predicted %v, measured %v (SelfWork is exact)", tm.Predicted, tm.Measured)
		}
	}
	st.Candidates *= 4
	st.JoinCPU = 0
	m4 := MeasuredExact(st)
	m4.Phases[1].CPU = 4 * p.Exact.Cost.PhaseCPU(PhaseJoin)
	a4 := p.Analyze(m4, p.FrontEnd)
	flagged := false
	for _, tm := range a4.Terms {
		flagged = flagged || tm.Name == TermCandidates && tm.Off
	}
	if !flagged || !a4.Phases[1].Off {
		t.Errorf("four times the candidates: terms %+v, phase %+v", a4.Terms, a4.Phases[1])
	}
}
