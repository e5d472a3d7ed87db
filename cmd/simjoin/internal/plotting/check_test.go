package plotting

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/simjoin/simjoin/approx"
	"github.com/simjoin/simjoin/join"
	"github.com/simjoin/simjoin/planner"
	"github.com/simjoin/simjoin/prefix"
)

// TestNewSCurves: a curve per banding, its bins' pairs counted once per seed
// like their found pairs, and the seeds in the title.
func TestNewSCurves(t *testing.T) {
	cc := &planner.CrossCheck{Bandings: []planner.Banding{
		{Shape: approx.Shape{B: 4, R: 2}, Bins: []planner.Bin{{From: 0.5, To: 1, Pairs: 10, Found: 18}}},
		{Shape: approx.Shape{B: 2, R: 4}, Bins: []planner.Bin{{From: 0, To: 0.5, Pairs: 40, Found: 2, Sampled: true}}},
	}}
	fig := NewSCurves(cc, 8, 2, 0.6)
	if fig.Title != "LSH S-curves, K = 8: predicted and found (2 seeds)" || fig.Threshold != 0.6 || len(fig.Curves) != 2 {
		t.Fatalf("figure %+v", fig)
	}
	c := fig.Curves[0]
	if c.Label != "4x2" || c.P(1) != 1 || !slices.Equal(c.Bins, []Bin{{From: 0.5, To: 1, Pairs: 20, Found: 18}}) || c.Bins[0].Share() != 0.9 {
		t.Errorf("first curve %+v", c)
	}
	if !fig.Curves[1].Bins[0].Sampled {
		t.Error("a sampled bin lost its mark")
	}
	if one := NewSCurves(cc, 8, 1, 0.6); one.Title != "LSH S-curves, K = 8: predicted and found" {
		t.Errorf("one seed: title %q", one.Title)
	}
}

// TestNewCircle: the pairs collected become chords, sorted by (A, B), and
// the title counts the records.
func TestNewCircle(t *testing.T) {
	var chords Chords
	for _, p := range []join.Pair{{A: 3, B: 9, Sim: 1}, {A: 1, B: 5}, {A: 3, B: 4}} {
		if !chords.Add(p) {
			t.Fatal("Add stopped the join")
		}
	}
	fig := NewCircle(1200, nil, chords, "3 pairs")
	if fig.N != 1200 || fig.Title != "1,200 records, 3 pairs" || !slices.Equal(fig.Chords, []Chord{{A: 1, B: 5}, {A: 3, B: 4}, {A: 3, B: 9, Sim: 1}}) {
		t.Errorf("figure %+v", fig)
	}
}

// TestNewCheckCircle: the title counts the LSH candidates of the first
// banding, or the exact pairs at the threshold.
func TestNewCheckCircle(t *testing.T) {
	cc := &planner.CrossCheck{Pairs: 1234, Bandings: []planner.Banding{{Shape: approx.Shape{B: 4, R: 2}}}}
	chords := []Chord{{A: 1, B: 2}, {A: 0, B: 3}}
	half := prefix.Threshold{Num: 1, Den: 2}
	if fig := NewCheckCircle(cc, 5, nil, chords, half, 8, true); fig.Title != "5 records, 2 candidate pairs of LSH 4x2, K = 8" || len(fig.Chords) != 2 {
		t.Errorf("lsh: %+v", fig)
	}
	if fig := NewCheckCircle(cc, 5, nil, chords, half, 8, false); fig.Title != "5 records, 1,234 pairs at J ≥ 0.5 (exact)" {
		t.Errorf("exact: title %q", fig.Title)
	}
}

// TestFormatOf: the extension, in any case, names the format.
func TestFormatOf(t *testing.T) {
	for name, want := range map[string]string{"a.png": "png", "dir.x/B.SVG": "svg", "c.Png": "png"} {
		if got, err := FormatOf(name); got != want || err != nil {
			t.Errorf("FormatOf(%q) = %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"a.gif", "-", "", "png", "/dev/null"} {
		if _, err := FormatOf(name); !errors.Is(err, ErrFormat) {
			t.Errorf("FormatOf(%q): %v, want ErrFormat", name, err)
		}
	}
}

// TestCheckFigures: the files are the S-curves' then the circle's; Collect
// routes LSH's candidates or the exact pairs (still passed on) to the
// circle, and nothing without one; Write draws each figure to its file and
// names a file it could not draw.
func TestCheckFigures(t *testing.T) {
	cc := &planner.CrossCheck{Pairs: 1, Bandings: []planner.Banding{{Shape: approx.Shape{B: 2, R: 2},
		Bins: []planner.Bin{{From: 0.5, To: 1, Pairs: 1, Found: 1}}}}}
	half := prefix.Threshold{Num: 1, Den: 2}
	var passed int
	for _, lsh := range []bool{false, true} {
		f := &CheckFigures{SCurves: []string{"s.svg", "s.png"}, Circle: "c.svg", LSH: lsh}
		if got := f.Files(); !slices.Equal(got, []string{"s.svg", "s.png", "c.svg"}) {
			t.Errorf("files %q", got)
		}
		opt := planner.CheckOptions{Exact: func(join.Pair) bool { passed++; return true }}
		f.Collect(&opt)
		if (opt.Found != nil) != lsh {
			t.Errorf("lsh %v: Found set %v", lsh, opt.Found != nil)
		}
		opt.Exact(join.Pair{A: 0, B: 1, Sim: 1})
		if opt.Found != nil {
			opt.Found(join.Pair{A: 0, B: 2, Sim: 0.5})
		}
		if len(f.chords) != 1 {
			t.Errorf("lsh %v: chords %v", lsh, f.chords)
		}
		out := map[string]*strings.Builder{}
		err := f.Write(func(file string) io.Writer { out[file] = new(strings.Builder); return out[file] }, cc, 3, nil, half, 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 3 || !strings.HasPrefix(out["s.png"].String(), "\x89PNG") || !strings.Contains(out["c.svg"].String(), "<svg") || !strings.Contains(out["s.svg"].String(), "<svg") {
			t.Errorf("lsh %v: drew %d files", lsh, len(out))
		}
	}
	if passed != 2 {
		t.Errorf("the exact function got %d pairs, want 2", passed)
	}
	none := &CheckFigures{}
	opt := planner.CheckOptions{}
	if none.Collect(&opt); opt.Exact != nil || opt.Found != nil || len(none.Files()) != 0 {
		t.Error("no circle: Collect set a function, or Files is not empty")
	}
	bad := &CheckFigures{SCurves: []string{"s.gif"}}
	if err := bad.Write(func(string) io.Writer { return io.Discard }, cc, 3, nil, half, 4, 1); err == nil || !strings.HasPrefix(err.Error(), "s.gif: ") {
		t.Errorf("s.gif: %v", err)
	}
}
