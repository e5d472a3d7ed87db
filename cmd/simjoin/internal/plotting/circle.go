package plotting

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Chord is a pair of records found, with its true similarity in [0, 1].
type Chord struct {
	A, B int
	Sim  float64
}

// CircleFigure is the article's circle: N records as points on a circle in
// their order (clockwise from the top), a straight chord for every pair,
// coloured by its similarity on a fixed scale from 0 to 1. With Names (one a
// record, '/'-separated paths such as file ids) the circle is divided into
// sectors by the first path element below the names' common directory, and
// sectors holding at least 2% of the records are ticked and labelled.
type CircleFigure struct {
	Title  string
	N      int
	Names  []string // optional, len N
	Chords []Chord
	// Size is the width of the square drawing in pixels; 0 means 720.
	Size int
}

// colourStops is a perceptually ordered ramp (viridis at five stops), from
// similarity 0 to 1.
var colourStops = [][3]float64{
	{0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25},
}

// colourOf returns the ramp's colour at s in [0, 1] as "#rrggbb".
func colourOf(s float64) string {
	s = min(max(s, 0), 1) * float64(len(colourStops)-1)
	i := min(int(s), len(colourStops)-2)
	f := s - float64(i)
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(colourStops[i][k]*(1-f) + colourStops[i+1][k]*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// colourBins is the number of colour steps chords are grouped into: one SVG
// path a step keeps the file small.
const colourBins = 20

// sector is a run of records sharing a first path element.
type sector struct {
	name     string
	from, to int // records [from, to)
}

// sectors splits names into runs by the first path element below their
// common directory.
func sectors(names []string) []sector {
	if len(names) == 0 {
		return nil
	}
	common := strings.Split(names[0], "/")
	common = common[:len(common)-1]
	for _, n := range names[1:] {
		parts := strings.Split(n, "/")
		k := 0
		for k < len(common) && k < len(parts)-1 && common[k] == parts[k] {
			k++
		}
		common = common[:k]
	}
	var out []sector
	for i, n := range names {
		parts := strings.Split(n, "/")[len(common):]
		head := parts[0]
		if len(parts) == 1 {
			head = "."
		}
		if len(out) > 0 && out[len(out)-1].name == head {
			out[len(out)-1].to = i + 1
			continue
		}
		out = append(out, sector{head, i, i + 1})
	}
	return out
}

// WriteSVG writes the figure as SVG. Coordinates are rounded to whole
// pixels; chords are drawn in order of similarity, the most similar on top.
// Cost: O(N + chords), about 25 bytes a chord.
func (f *CircleFigure) WriteSVG(w io.Writer) error {
	size := f.Size
	if size == 0 {
		size = 720
	}
	s := float64(size)
	cx, cy := s/2, s/2+10
	r := s/2 - 90
	ly := cy + r + 28 // the colour scale
	height := int(ly + 52)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n",
		size, height, size, height)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="#fff"/>`+"\n")
	if f.Title != "" {
		fmt.Fprintf(bw, `<text x="%g" y="24" font-size="15" text-anchor="middle">%s</text>`+"\n", cx, html.EscapeString(f.Title))
	}
	angle := func(i float64) float64 { return 2*math.Pi*i/float64(max(f.N, 1)) - math.Pi/2 }
	at := func(i float64, rad float64) (float64, float64) {
		a := angle(i)
		return cx + rad*math.Cos(a), cy + rad*math.Sin(a)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	// The ring of records.
	fmt.Fprintf(bw, `<circle cx="%s" cy="%s" r="%s" fill="none" stroke="#bbb" stroke-width="1.5"/>`+"\n", num(cx), num(cy), num(r))
	// Sector ticks and labels.
	if len(f.Names) == f.N && f.N > 0 {
		var b strings.Builder
		tick := func(i int) {
			x0, y0 := at(float64(i), r-4)
			x1, y1 := at(float64(i), r+8)
			fmt.Fprintf(&b, "M%s %sL%s %s", num(x0), num(y0), num(x1), num(y1))
		}
		for _, sec := range sectors(f.Names) {
			if float64(sec.to-sec.from) < 0.02*float64(f.N) {
				continue
			}
			tick(sec.from)
			tick(sec.to)
			mid := float64(sec.from+sec.to) / 2
			lx, ly := at(mid, r+14)
			anchor := "start"
			if lx < cx-1 {
				anchor = "end"
			} else if math.Abs(lx-cx) <= 1 {
				anchor = "middle"
			}
			dy := 4.0
			if ly < cy {
				dy = 0
			}
			fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="11" text-anchor="%s" fill="#444">%s</text>`+"\n",
				num(lx), num(ly+dy), anchor, html.EscapeString(sec.name))
		}
		fmt.Fprintf(bw, `<path d="%s" stroke="#888" stroke-width="1"/>`+"\n", b.String())
	}
	// Chords, grouped by colour step, least similar first.
	chords := slices.Clone(f.Chords)
	slices.SortStableFunc(chords, func(a, b Chord) int {
		switch {
		case a.Sim < b.Sim:
			return -1
		case a.Sim > b.Sim:
			return 1
		}
		return 0
	})
	fmt.Fprintf(bw, `<g fill="none" stroke-width="0.8" stroke-opacity="0.75" stroke-linecap="round">`+"\n")
	for i := 0; i < len(chords); {
		step := min(int(chords[i].Sim*colourBins), colourBins-1)
		var b strings.Builder
		j := i
		for ; j < len(chords) && min(int(chords[j].Sim*colourBins), colourBins-1) == step; j++ {
			x0, y0 := at(float64(chords[j].A), r)
			x1, y1 := at(float64(chords[j].B), r)
			fmt.Fprintf(&b, "M%s %sL%s %s", num(x0), num(y0), num(x1), num(y1))
		}
		fmt.Fprintf(bw, `<path stroke="%s" d="%s"/>`+"\n", colourOf((float64(step)+0.5)/colourBins), b.String())
		i = j
	}
	fmt.Fprintln(bw, `</g>`)
	// Legend: the colour scale.
	lx0, lx1 := s*0.2, s*0.8
	fmt.Fprintln(bw, `<defs><linearGradient id="ramp">`)
	for k := range colourStops {
		fmt.Fprintf(bw, `<stop offset="%d%%" stop-color="%s"/>`+"\n", 100*k/(len(colourStops)-1), colourOf(float64(k)/float64(len(colourStops)-1)))
	}
	fmt.Fprintln(bw, `</linearGradient></defs>`)
	fmt.Fprintf(bw, `<rect x="%s" y="%s" width="%s" height="10" fill="url(#ramp)"/>`+"\n", num(lx0), num(ly), num(lx1-lx0))
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="11" text-anchor="middle">%g</text>`+"\n", num(lx0+v*(lx1-lx0)), num(ly+24), v)
	}
	fmt.Fprintf(bw, `<text x="%s" y="%s" font-size="12" text-anchor="middle">true Jaccard similarity of the pair</text>`+"\n", num(cx), num(ly+42))
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}
