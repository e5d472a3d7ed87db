//go:build invariants

package planner

import (
	"testing"

	"github.com/simjoin/simjoin/internal/testkit/invtest"

	"github.com/simjoin/simjoin/internal/testkit/synth"
)

// TestPlanCheckPanics checks that the plan's invariant check catches an
// Auto method, a wrong recall, exact estimates out of order and costs that
// are not the sum of their terms (this file builds only with -tags
// invariants).
func TestPlanCheckPanics(t *testing.T) {
	c := sets(t, synth.SetsConfig{N: 3000, MinSize: 10, MaxSize: 30, Universe: 2000, DupFraction: 0.1, Replace: 0.1, Seed: 5})
	good := func() *Plan { return plan(t, c, "0.7", Options{}) }
	good().check()
	for name, breakIt := range map[string]func(p *Plan){
		"auto":            func(p *Plan) { p.Method = Auto },
		"recall":          func(p *Plan) { p.Recall = 0.5 },
		"estimates order": func(p *Plan) { p.Exact.Verified = p.Exact.Candidates + 1 },
		"postings":        func(p *Plan) { p.Exact.Examined = float64(p.Exact.Work.Postings) + 1 },
		"cost sum":        func(p *Plan) { p.Exact.Cost.CPU *= 2 },
		"term":            func(p *Plan) { p.Exact.Cost.Terms[0].CPU++ },
	} {
		p := good()
		breakIt(p)
		invtest.Panics(t, name, "planner: ", func() { p.check() })
	}
}
