package plotting

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestColourOf(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{{0, "#440154"}, {-1, "#440154"}, {1, "#fde725"}, {2, "#fde725"}, {0.5, "#21918c"}, {0.25, "#3b528b"}} {
		if got := colourOf(tc.s); got != tc.want {
			t.Errorf("colourOf(%v) = %s, want %s", tc.s, got, tc.want)
		}
	}
}

func TestSectors(t *testing.T) {
	names := []string{"/go/src/archive/tar/a.go", "/go/src/archive/zip/b.go", "/go/src/bytes/c.go", "/go/src/cmd/x.go", "/go/src/cmd/y/z.go", "/go/src/top.go"}
	got := sectors(names)
	want := []sector{{"archive", 0, 2}, {"bytes", 2, 3}, {"cmd", 3, 5}, {".", 5, 6}}
	if len(got) != len(want) {
		t.Fatalf("sectors %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("sector %d: %v, want %v", i, got[i], want[i])
		}
	}
	if s := sectors([]string{"a.txt", "b.txt"}); len(s) != 1 || s[0].name != "." || s[0].to != 2 {
		t.Errorf("flat names: %v", s)
	}
}

// checkXML parses an SVG document fully and counts its elements by name.
func checkXML(t *testing.T, b []byte) map[string]int {
	t.Helper()
	count := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return count
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			count[se.Name.Local]++
		}
	}
}

func TestCircleSVG(t *testing.T) {
	var names []string
	for i := range 200 {
		names = append(names, []string{"a", "b", "c<&>"}[i*3/200]+"/f"+strings.Repeat("x", i%7)+".go")
	}
	var chords []Chord
	for i := range 150 {
		chords = append(chords, Chord{A: i, B: (i*37 + 11) % 200, Sim: float64(i%101) / 100})
	}
	fig := &CircleFigure{Title: "test & <title>", N: 200, Names: names, Chords: chords}
	var a, b bytes.Buffer
	if err := fig.WriteSVG(&a); err != nil {
		t.Fatal(err)
	}
	if err := fig.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two drawings of one figure differ")
	}
	count := checkXML(t, a.Bytes())
	if count["svg"] != 1 || count["circle"] != 1 || count["text"] < 3+5+1 {
		t.Errorf("elements %v", count)
	}
	// Every chord is one "M…L…" subpath of a coloured path inside the group.
	body := a.String()
	g := body[strings.Index(body, "<g "):strings.Index(body, "</g>")]
	if n := strings.Count(g, "M"); n != len(chords) {
		t.Errorf("%d chords drawn, want %d", n, len(chords))
	}
	if per := float64(len(g)) / float64(len(chords)); per > 40 {
		t.Errorf("%.1f bytes a chord, want <= 40", per)
	}
	if !strings.Contains(body, "c&lt;&amp;&gt;") || !strings.Contains(body, "test &amp; &lt;title&gt;") {
		t.Error("labels or title not escaped")
	}
	// Without names: no sectors; no chords: still a valid drawing.
	var c bytes.Buffer
	if err := (&CircleFigure{N: 0}).WriteSVG(&c); err != nil {
		t.Fatal(err)
	}
	checkXML(t, c.Bytes())
}

func testFigure() *SCurveFigure {
	p := func(b, r int) func(float64) float64 {
		return func(s float64) float64 { return 1 - math.Pow(1-math.Pow(s, float64(r)), float64(b)) }
	}
	var bins []Bin
	for k := range 20 {
		from := float64(k) / 20
		bins = append(bins, Bin{From: from, To: from + 0.05, Pairs: int64(10 + k), Found: int64(k / 2), Sampled: k < 2})
	}
	return &SCurveFigure{
		Title:     "S-curves",
		Threshold: 0.5,
		MinPairs:  5,
		Curves:    []Curve{{Label: "12x4", P: p(12, 4), Bins: bins}, {Label: "16x3", P: p(16, 3), Bins: bins[:3]}},
	}
}

func TestSCurvePNG(t *testing.T) {
	var b bytes.Buffer
	if err := testFigure().Write(&b, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 5*PNGDPI || h != 7*PNGDPI/2 {
		t.Errorf("PNG %dx%d, want %dx%d", w, h, 5*PNGDPI, 7*PNGDPI/2)
	}
}

func TestSCurveSVG(t *testing.T) {
	var b bytes.Buffer
	if err := testFigure().Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	count := checkXML(t, b.Bytes())
	if count["svg"] != 1 {
		t.Errorf("elements %v", count)
	}
	for _, s := range []string{"12x4 found", "16x3 predicted", "threshold 0.5"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("SVG lacks the legend entry %q", s)
		}
	}
	if err := testFigure().Write(&b, "gif"); !errors.Is(err, ErrFormat) {
		t.Errorf("gif: err %v, want ErrFormat", err)
	}
}

func TestBinShare(t *testing.T) {
	if (Bin{}).Share() != 0 || (Bin{Pairs: 4, Found: 1}).Share() != 0.25 {
		t.Error("Share")
	}
}

func BenchmarkCircleSVG(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		var chords []Chord
		for i := range n {
			chords = append(chords, Chord{A: i % 4000, B: (i * 7919) % 4000, Sim: float64(i%100) / 100})
		}
		fig := &CircleFigure{N: 4000, Chords: chords}
		b.Run("chords="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := fig.WriteSVG(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
