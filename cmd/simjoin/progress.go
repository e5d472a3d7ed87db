package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/simjoin/simjoin"
)

// progress draws progress bars on stderr when it is a terminal, and nothing
// otherwise (a bar's carriage-return redraws would litter files and pipes).
type progress struct {
	w     io.Writer
	on    bool
	sizes map[string]int64 // of the inputs read as lines, by name (-1: unknown)
	cur   *bar             // the bar of the stage report is drawing
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, on: ok && term.IsTerminal(int(f.Fd())), sizes: map[string]int64{}}
}

// report draws the library's progress (simjoin.Options.Progress): one bar
// per stage, started when the stage starts and cleared when it ends.
func (p *progress) report(ev simjoin.Progress) {
	if !p.on {
		return
	}
	if p.cur == nil {
		switch ev.Stage {
		case simjoin.StageRead:
			size, ok := p.sizes[ev.Name]
			if !ok {
				size = -1
			}
			p.cur = p.bytes(size, "reading "+ev.Name)
		case simjoin.StageFiles:
			p.cur = p.count("reading files")
		case simjoin.StageJoin:
			p.cur = p.count("joining")
		case simjoin.StageLSH:
			p.cur = p.count("lsh")
		case simjoin.StageAnalyze:
			p.cur = p.count("running " + ev.Name)
		default:
			p.cur = p.count("cross-checking")
		}
	}
	switch {
	case ev.End:
		p.cur.finish()
		p.cur = nil
	case ev.Stage == simjoin.StageRead:
		p.cur.set(ev.Done)
	case ev.Total > 0:
		p.cur.setOf(int(ev.Done), int(ev.Total))
	}
}

// bar is one progress bar; its methods do nothing when progress is off.
type bar struct{ b *progressbar.ProgressBar }

// bytes starts a bar over size bytes (-1: unknown).
func (p *progress) bytes(size int64, what string) *bar { return p.newBar(size, what, true) }

// count starts a bar over a count that setOf will announce.
func (p *progress) count(what string) *bar { return p.newBar(-1, what, false) }

func (p *progress) newBar(max int64, what string, bytes bool) *bar {
	if !p.on {
		return &bar{}
	}
	show := progressbar.OptionShowCount()
	if bytes {
		show = progressbar.OptionShowBytes(true)
	}
	return &bar{progressbar.NewOptions64(max, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(what),
		show, progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())}
}

func (b *bar) set(n int64) {
	if b.b != nil {
		b.b.Set64(n)
	}
}

// setOf sets the bar to done of total.
func (b *bar) setOf(done, total int) {
	if b.b != nil {
		if b.b.GetMax64() != int64(total) {
			b.b.ChangeMax64(int64(total))
		}
		b.b.Set64(int64(done))
	}
}

func (b *bar) finish() {
	if b.b != nil {
		b.b.Finish()
	}
}
