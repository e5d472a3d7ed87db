package progress

import (
	"bytes"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/simjoin/simjoin"
)

// events are the library's reports of a run: reading a file of 1,000
// bytes, joining 40 records, then explain's run of LSH.
var events = []simjoin.Progress{
	{Stage: simjoin.StageRead, Name: "in.txt", Done: 400},
	{Stage: simjoin.StageRead, Name: "in.txt", Done: 1000},
	{Stage: simjoin.StageRead, Name: "in.txt", End: true},
	{Stage: simjoin.StageJoin, Done: 10, Total: 40},
	{Stage: simjoin.StageJoin, Done: 40, Total: 40},
	{Stage: simjoin.StageJoin, End: true},
	{Stage: simjoin.StageAnalyze, Method: simjoin.LSH},
	{Stage: simjoin.StageAnalyze, Method: simjoin.LSH, End: true},
}

// TestOffDrawsNothing: on a writer that is not a terminal, no call writes.
func TestOffDrawsNothing(t *testing.T) {
	var w bytes.Buffer
	p := New(&w)
	if p.On() || p.Func() != nil {
		t.Fatal("a buffer is taken for a terminal")
	}
	p.SetSize("in.txt", 1000)
	for _, ev := range events {
		p.Report(ev)
	}
	b := p.Bytes(10, "reading")
	b.Set(5)
	b.Finish()
	c := p.Count("joining")
	c.SetOf(1, 2)
	c.Finish()
	if w.Len() != 0 {
		t.Errorf("bars off wrote %q", w.String())
	}
}

// TestReportStages: with the bars on, each stage gets its bar, described by
// the stage, and the bar is cleared when the stage ends.
func TestReportStages(t *testing.T) {
	var w bytes.Buffer
	p := New(&w)
	p.on = true // as on a terminal
	p.SetSize("in.txt", 1000)
	report := p.Func()
	for i, ev := range events {
		report(ev)
		if open := p.cur != nil; open == ev.End {
			t.Fatalf("after event %d (%+v): a bar open is %v", i, ev, open)
		}
	}
	out := w.String()
	for _, want := range []string{"reading in.txt", "joining", "\r"} {
		if !strings.Contains(out, want) {
			t.Errorf("the bars drew no %q: %q", want, out)
		}
	}
}

// TestAnalyzeBar: explain's run is described by the method it runs.
func TestAnalyzeBar(t *testing.T) {
	p := New(&bytes.Buffer{})
	p.on = true
	p.Report(simjoin.Progress{Stage: simjoin.StageAnalyze, Method: simjoin.LSH, Total: -1})
	if d := p.cur.b.State().Description; d != "running lsh" {
		t.Errorf("the bar of explain's run is %q", d)
	}
	p.Report(simjoin.Progress{Stage: simjoin.StageAnalyze, Method: simjoin.LSH, End: true})
}

// TestBarsDrawOnlyWhenTold: a bar draws only from the calls made on it, never
// from a goroutine of its own (one that read the bar's state without its lock
// raced with every update; `go test -race` showed it). No goroutine runs
// the bar library's code while a bar is open, which the goroutines' stacks
// show without waiting for one to draw, and whatever the bars write is
// written within a call made on them.
func TestBarsDrawOnlyWhenTold(t *testing.T) {
	w := &callWriter{}
	p := New(w)
	p.on = true
	for _, newBar := range []func() *Bar{
		func() *Bar { return p.Count("joining") },
		func() *Bar { return p.Bytes(-1, "reading") }, // unknown length: a spinner
		func() *Bar { return p.Bytes(1000, "reading") },
	} {
		w.in.Store(true)
		b := newBar()
		for i := range 25 {
			b.SetOf(i, 100)
			b.Set(int64(i))
		}
		w.in.Store(false)
		if n := barGoroutines(); n != 0 {
			t.Errorf("%d goroutines run the bar library's code with a bar open: the bar runs one of its own", n)
		}
		w.in.Store(true)
		b.Finish()
		w.in.Store(false)
	}
	if w.outside.Load() != 0 {
		t.Errorf("the bars wrote %d times outside a call made on them", w.outside.Load())
	}
	if w.inside.Load() == 0 {
		t.Error("the bars wrote nothing: the test says nothing")
	}
}

// callWriter counts the writes made while in is set (within a call on the
// bars) and those made outside one.
type callWriter struct {
	in              atomic.Bool
	inside, outside atomic.Int64
}

func (w *callWriter) Write(b []byte) (int, error) {
	if w.in.Load() {
		w.inside.Add(1)
	} else {
		w.outside.Add(1)
	}
	return len(b), nil
}

// barGoroutines counts the goroutines, other than the caller, whose stack
// holds code of the progress bar library.
func barGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i > 0 && strings.Contains(g, "schollz/progressbar") { // the first is the caller's
			n++
		}
	}
	return n
}
