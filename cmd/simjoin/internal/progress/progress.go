package progress

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/simjoin/simjoin"
)

// Bars draws the progress of one run on w when w is a terminal, and nothing
// otherwise.
type Bars struct {
	w     io.Writer
	on    bool
	sizes map[string]int64 // of the inputs read as lines, by name (-1: unknown)
	cur   *Bar             // the bar of the stage Report is drawing
}

// New returns the bars of a run that draws on w: on only when w is an
// *os.File open on a terminal.
func New(w io.Writer) *Bars {
	f, ok := w.(*os.File)
	return &Bars{w: w, on: ok && term.IsTerminal(int(f.Fd())), sizes: map[string]int64{}}
}

// On reports whether the bars are drawn.
func (p *Bars) On() bool { return p.on }

// Func returns Report as the library's progress function
// (simjoin.Options.Progress), or nil when the bars are off, so that the
// library does not report to no one.
func (p *Bars) Func() func(simjoin.Progress) {
	if !p.on {
		return nil
	}
	return p.Report
}

// SetSize records the size in bytes of the input that Report will be told
// is read under name (-1: unknown), so that its bar shows how far it is.
func (p *Bars) SetSize(name string, size int64) { p.sizes[name] = size }

// Report draws the library's progress (simjoin.Options.Progress): one bar
// per stage, started when the stage starts and cleared when it ends.
func (p *Bars) Report(ev simjoin.Progress) {
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
			p.cur = p.Bytes(size, "reading "+ev.Name)
		case simjoin.StageFiles:
			p.cur = p.Count("reading files")
		case simjoin.StageJoin:
			p.cur = p.Count("joining")
		case simjoin.StageLSH:
			p.cur = p.Count("lsh")
		case simjoin.StageAnalyze:
			p.cur = p.Count("running " + ev.Method.String())
		default:
			p.cur = p.Count("cross-checking")
		}
	}
	switch {
	case ev.End:
		p.cur.Finish()
		p.cur = nil
	case ev.Stage == simjoin.StageRead:
		p.cur.Set(ev.Done)
	case ev.Total > 0:
		p.cur.SetOf(int(ev.Done), int(ev.Total))
	}
}

// Bar is one progress bar; its methods do nothing when the bars are off.
type Bar struct{ b *progressbar.ProgressBar }

// Bytes starts a bar over size bytes (-1: unknown), described by what.
func (p *Bars) Bytes(size int64, what string) *Bar { return p.newBar(size, what, true) }

// Count starts a bar over a count that SetOf will announce.
func (p *Bars) Count(what string) *Bar { return p.newBar(-1, what, false) }

func (p *Bars) newBar(max int64, what string, bytes bool) *Bar {
	if !p.on {
		return &Bar{}
	}
	show := progressbar.OptionShowCount()
	if bytes {
		show = progressbar.OptionShowBytes(true)
	}
	// No spinner interval: with one, a bar of unknown length starts a
	// goroutine that reads the bar's state without its lock (a data race in
	// progressbar v3.19.1); without it the spinner turns on each update.
	return &Bar{progressbar.NewOptions64(max, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(what),
		show, progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish(),
		progressbar.OptionSetSpinnerChangeInterval(0))}
}

// Set sets the bar to n (bytes read, for a Bytes bar).
func (b *Bar) Set(n int64) {
	if b.b != nil {
		b.b.Set64(n)
	}
}

// SetOf sets the bar to done of total.
func (b *Bar) SetOf(done, total int) {
	if b.b != nil {
		if b.b.GetMax64() != int64(total) {
			b.b.ChangeMax64(int64(total))
		}
		b.b.Set64(int64(done))
	}
}

// Finish completes the bar and clears it from the terminal.
func (b *Bar) Finish() {
	if b.b != nil {
		b.b.Finish()
	}
}
