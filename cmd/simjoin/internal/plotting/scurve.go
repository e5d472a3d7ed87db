package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Bin is one similarity bin of a curve: the pairs whose true similarity lies
// in [From, To) (the last bin includes 1), and how many of them were found.
// Sampled marks a bin measured on a uniform sample of pairs rather than on
// all of them.
type Bin struct {
	From, To float64
	Pairs    int64
	Found    int64
	Sampled  bool
}

// Share returns Found/Pairs, or 0 for an empty bin.
func (b Bin) Share() float64 {
	if b.Pairs == 0 {
		return 0
	}
	return float64(b.Found) / float64(b.Pairs)
}

// Curve is one banding: its predicted probability of becoming a candidate,
// P(s), and the measured share found per bin.
type Curve struct {
	Label string                  // such as "12x4"
	P     func(s float64) float64 // the S-curve
	Bins  []Bin
}

// SCurveFigure is the S-curve figure: a line per curve for P(s), a dot per
// bin with at least MinPairs pairs at the bin's centre and its measured
// share, and a dashed line at the threshold.
type SCurveFigure struct {
	Title     string
	Threshold float64 // drawn when in (0, 1)
	Curves    []Curve
	MinPairs  int64 // bins with fewer pairs get no dot; 0 means 1
	// Width and Height are the figure's size; zero means 5 x 3.5 inches.
	Width, Height vg.Length
}

// palette holds the colours of successive curves.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0xff, 0x7f, 0x0e, 0xff}, // orange
}

// ErrFormat is returned for an image format other than png or svg.
var ErrFormat = errors.New("plotting: unknown image format (want png or svg)")

// FormatOf returns the image format a file's name asks for by its
// extension, in any case: "png" or "svg"; otherwise ErrFormat.
func FormatOf(name string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	}
	return "", fmt.Errorf("%w: %s", ErrFormat, name)
}

// PNGDPI is the resolution of PNG figures.
const PNGDPI = 110

// Write draws the figure and writes it to w as "png" or "svg". SVG text uses
// the reader's fonts (none are embedded). Cost: O(curves·(bins + 200)).
func (f *SCurveFigure) Write(w io.Writer, format string) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("%w: %q", ErrFormat, format)
	}
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = "Jaccard similarity s"
	p.Y.Label.Text = "P(candidate)"
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = -vg.Points(4)
	p.Add(plotter.NewGrid())
	if f.Threshold > 0 && f.Threshold < 1 {
		l, err := plotter.NewLine(plotter.XYs{{X: f.Threshold, Y: 0}, {X: f.Threshold, Y: 1}})
		if err != nil {
			return err
		}
		l.Color = color.Gray{0x80}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("threshold %.2g", f.Threshold), l)
	}
	minPairs := max(f.MinPairs, 1)
	for k, c := range f.Curves {
		col := palette[k%len(palette)]
		fn := plotter.NewFunction(c.P)
		fn.Samples = 200
		fn.Color = col
		fn.Width = vg.Points(1.5)
		p.Add(fn)
		p.Legend.Add(c.Label+" predicted", fn)
		var pts plotter.XYs
		for _, b := range c.Bins {
			if b.Pairs >= minPairs {
				pts = append(pts, plotter.XY{X: (b.From + b.To) / 2, Y: b.Share()})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = col
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add(c.Label+" found", sc)
	}
	width, height := f.Width, f.Height
	if width == 0 {
		width = 5 * vg.Inch
	}
	if height == 0 {
		height = 3.5 * vg.Inch
	}
	var wt io.WriterTo
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))
		p.Draw(draw.New(c))
		wt = vgimg.PngCanvas{Canvas: c}
	default:
		c := vgsvg.New(width, height)
		p.Draw(draw.New(c))
		wt = c
	}
	_, err := wt.WriteTo(w)
	return err
}
