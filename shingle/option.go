package shingle

import (
	"errors"
	"fmt"
	"slices"
)

// The errors an *OptionError wraps.
var (
	// ErrOptionValue is a value that the option does not take.
	ErrOptionValue = errors.New("shingle: unknown option value")
	// ErrOptionKind is an option that does not apply to the spec's kind.
	ErrOptionKind = errors.New("shingle: option does not apply to the tokenizer")
	// ErrOptionName is a name that is not an option.
	ErrOptionName = errors.New("shingle: unknown option")
)

// OptionError is an option that SetOption refuses. Its message names the
// option and the kind the way a command line does, the form Spec.String
// writes ("--case keep", "--tokens go:N"), so that a command line can show
// it as it is; it wraps ErrOptionValue, ErrOptionKind or ErrOptionName.
type OptionError struct {
	Option string // as given to SetOption, such as "case"
	Value  string // as given
	Spec   Spec   // the spec SetOption was called on
	Err    error
}

func (e *OptionError) Error() string {
	o, ok := optionNamed(e.Option)
	switch {
	case !ok || errors.Is(e.Err, ErrOptionName):
		return fmt.Sprintf("unknown option --%s: want case, punct or go-semicolons", e.Option)
	case errors.Is(e.Err, ErrOptionValue):
		return fmt.Sprintf("unknown --%s %q: want %s or %s", e.Option, e.Value, o.values[0], o.values[1])
	case o.name == "go-semicolons":
		return "--go-semicolons applies to --tokens go:N only"
	}
	return fmt.Sprintf("--%s applies to --tokens %s, not %s", e.Option, o.applies, e.Spec)
}

func (e *OptionError) Unwrap() error { return e.Err }

// option is one of the options of SetOption.
type option struct {
	name    string
	values  [2]string // the default first
	kinds   []Kind    // the kinds it applies to
	applies string    // kinds, as a command line names them
	// set sets the option of s to its second value, or back to the
	// default.
	set func(s *Spec, second bool)
}

var options = [...]option{
	{"case", [2]string{"fold", "keep"}, []Kind{Words, Shingle}, "words and shingle:N",
		func(s *Spec, keep bool) { s.Norm = setBit(s.Norm, KeepCase, keep) }},
	{"punct", [2]string{"drop", "keep"}, []Kind{Words, Shingle}, "words and shingle:N",
		func(s *Spec, keep bool) { s.Norm = setBit(s.Norm, KeepPunct, keep) }},
	{"go-semicolons", [2]string{"keep", "drop"}, []Kind{Go}, "go:N",
		func(s *Spec, drop bool) { s.DropSemicolons = drop }},
}

func setBit(n, bit Norm, on bool) Norm {
	if on {
		return n | bit
	}
	return n &^ bit
}

func optionNamed(name string) (option, bool) {
	for _, o := range options {
		if o.name == name {
			return o, true
		}
	}
	return option{}, false
}

// SetOption sets an option of s's normalisation by the name and value
// Spec.String writes them with, which a command line takes as flags:
//
//	case           fold (the default) or keep   words and shingle:N: Norm's KeepCase
//	punct          drop (the default) or keep   words and shingle:N: Norm's KeepPunct
//	go-semicolons  keep (the default) or drop   go:N: DropSemicolons
//
// s.Kind must be set first: an option given for a kind it does not apply to
// is refused, even at its default, since it would be ignored. The value is
// checked before the kind. Errors are *OptionError; s is unchanged by one.
func (s *Spec) SetOption(name, value string) error {
	o, ok := optionNamed(name)
	if !ok {
		return &OptionError{Option: name, Value: value, Spec: *s, Err: ErrOptionName}
	}
	i := slices.Index(o.values[:], value)
	if i < 0 {
		return &OptionError{Option: name, Value: value, Spec: *s, Err: ErrOptionValue}
	}
	if !slices.Contains(o.kinds, s.Kind) {
		return &OptionError{Option: name, Value: value, Spec: *s, Err: ErrOptionKind}
	}
	o.set(s, i == 1)
	return nil
}
