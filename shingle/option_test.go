package shingle

import (
	"errors"
	"strings"
	"testing"
)

// TestSetOptionRoundTrip: SetOption reads back what Spec.String writes, for
// every kind and normalisation.
func TestSetOptionRoundTrip(t *testing.T) {
	var specs []Spec
	for _, base := range []Spec{{Kind: Set}, {Kind: Words}, {Kind: QGram, N: 3}, {Kind: Shingle, N: 2}, {Kind: Go, N: 5}} {
		specs = append(specs, base)
		switch base.Kind {
		case Words, Shingle:
			for _, n := range []Norm{KeepCase, KeepPunct, KeepCase | KeepPunct} {
				s := base
				s.Norm = n
				specs = append(specs, s)
			}
		case Go:
			s := base
			s.DropSemicolons = true
			specs = append(specs, s)
		}
	}
	for _, want := range specs {
		fields := strings.Fields(want.String())
		got, err := Parse(fields[0])
		if err != nil {
			t.Fatalf("Parse(%q): %v", fields[0], err)
		}
		for i := 1; i+1 < len(fields); i += 2 {
			if err := got.SetOption(strings.TrimPrefix(fields[i], "--"), fields[i+1]); err != nil {
				t.Fatalf("%q: %v", want, err)
			}
		}
		if got != want {
			t.Errorf("%q read back as %+v, want %+v", want, got, want)
		}
	}
}

// TestSetOption: each option sets its field and back to the default, and
// refuses unknown values (before the kind), other kinds and unknown names
// with the command line's words, leaving the spec as it was.
func TestSetOption(t *testing.T) {
	s := Spec{Kind: Shingle, N: 3}
	for _, o := range [][2]string{{"case", "keep"}, {"punct", "keep"}, {"case", "fold"}} {
		if err := s.SetOption(o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	if s.Norm != KeepPunct {
		t.Errorf("case keep, punct keep, case fold: Norm %v, want --punct keep", s.Norm)
	}
	g := Spec{Kind: Go, N: 2}
	if err := g.SetOption("go-semicolons", "drop"); err != nil || !g.DropSemicolons {
		t.Errorf("go-semicolons drop: %v, %+v", err, g)
	}
	if err := g.SetOption("go-semicolons", "keep"); err != nil || g.DropSemicolons {
		t.Errorf("go-semicolons keep: %v, %+v", err, g)
	}
	for _, tc := range []struct {
		spec        Spec
		name, value string
		is          error
		want        string
	}{
		{Spec{Kind: Words}, "case", "bogus", ErrOptionValue, `unknown --case "bogus": want fold or keep`},
		{Spec{Kind: QGram, N: 3}, "case", "bogus", ErrOptionValue, `unknown --case "bogus": want fold or keep`},
		{Spec{Kind: Words}, "punct", "", ErrOptionValue, `unknown --punct "": want drop or keep`},
		{Spec{Kind: Go, N: 3}, "go-semicolons", "bogus", ErrOptionValue, `unknown --go-semicolons "bogus": want keep or drop`},
		{Spec{Kind: QGram, N: 3}, "punct", "keep", ErrOptionKind, `--punct applies to --tokens words and shingle:N, not qgram:3`},
		{Spec{}, "case", "fold", ErrOptionKind, `--case applies to --tokens words and shingle:N, not set`},
		{Spec{Kind: Words}, "go-semicolons", "keep", ErrOptionKind, `--go-semicolons applies to --tokens go:N only`},
		{Spec{Kind: Words}, "lower", "yes", ErrOptionName, `unknown option --lower: want case, punct or go-semicolons`},
	} {
		s := tc.spec
		err := s.SetOption(tc.name, tc.value)
		var oe *OptionError
		if !errors.As(err, &oe) || !errors.Is(err, tc.is) || err.Error() != tc.want {
			t.Errorf("%v SetOption(%q, %q): %v, want %q", tc.spec, tc.name, tc.value, err, tc.want)
		}
		if s != tc.spec {
			t.Errorf("%v SetOption(%q, %q) changed the spec to %+v", tc.spec, tc.name, tc.value, s)
		}
	}
}
