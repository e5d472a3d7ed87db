package planner

import "testing"

// TestOrderPhases: the front end's terms fall in the phase whose work they
// are, read with the order or before it. Keys are entered into the
// vocabulary as they are read when the order is built with the records
// (PhaseRead); small values wait in blocks until the build numbers them,
// so theirs is PhaseOrder either way, as the order's phase measures it.
func TestOrderPhases(t *testing.T) {
	cal := DefaultCalibration()
	for _, ordered := range []bool{false, true} {
		fe := FrontEnd{Tokenizer: TokenizeSet, Bytes: 6000, Records: 100, Tokens: 1000, Values: 600, Distinct: 300, Ordered: ordered}
		var c Cost
		cal.orderCost(&c, fe)
		keysPhase := PhaseOrder
		if ordered {
			keysPhase = PhaseRead
		}
		if tm, ok := c.Term(TermTokensEntered, keysPhase); !ok || tm.Count != 400 {
			t.Errorf("ordered %v: keys entered %+v (found %v), want 400 in %s: %+v", ordered, tm, ok, keysPhase, c.Terms)
		}
		if tm, ok := c.Term(TermValuesEntered, PhaseOrder); !ok || tm.Count != 600 {
			t.Errorf("ordered %v: values entered %+v (found %v), want 600 in the order's phase: %+v", ordered, tm, ok, c.Terms)
		}
	}
}
