package shingle

import (
	"slices"
	"strings"
	"testing"
)

// TestByteOrderMark: a U+FEFF that starts a record is dropped by every
// tokenizer, whichever road the record takes (Append, AppendBytes,
// AppendSet whole or in pieces, the values of AppendInts and
// AppendGramValues); one inside a record is a character as before.
func TestByteOrderMark(t *testing.T) {
	const mark = "\uFEFF"
	long := strings.Repeat("alpha beta gamma 12 7 ", PieceBytes/10) // cut into pieces by AppendSet
	for _, text := range []string{"alpha beta gamma", "package p; var x = 1", "12 7 3", long} {
		for _, spec := range []string{"set", "words", "qgram:1", "qgram:2", "qgram:5", "shingle:2", "go:2"} {
			s, err := Parse(spec)
			if err != nil {
				t.Fatal(err)
			}
			want, werr := s.Append(nil, text)
			got, gerr := s.Append(nil, mark+text)
			if !slices.Equal(got, want) || (gerr == nil) != (werr == nil) {
				t.Errorf("%s, Append: %d keys (%v) with the mark, %d (%v) without", spec, len(got), gerr, len(want), werr)
			}
			gotB, _ := s.AppendBytes(nil, []byte(mark+text))
			if !slices.Equal(gotB, want) {
				t.Errorf("%s, AppendBytes: %d keys with the mark, %d without", spec, len(gotB), len(want))
			}
			setWant, _ := s.AppendSet(nil, text)
			setGot, _ := s.AppendSet(nil, mark+text)
			if !slices.Equal(setGot, setWant) {
				t.Errorf("%s, AppendSet of %d bytes: %d keys with the mark, %d without", spec, len(text), len(setGot), len(setWant))
			}
		}
		vWant, okWant := AppendInts(nil, text)
		if vGot, ok := AppendInts(nil, mark+text); ok != okWant || !slices.Equal(vGot, vWant) {
			t.Errorf("AppendInts(%.20q): %v %v with the mark, %v %v without", text, len(vGot), ok, len(vWant), okWant)
		}
		gWant, okWant := AppendGramValues(nil, text, 2)
		if gGot, ok := AppendGramValues(nil, mark+text, 2); ok != okWant || !slices.Equal(gGot, gWant) {
			t.Errorf("AppendGramValues(%.20q): %v %v with the mark, %v %v without", text, len(gGot), ok, len(gWant), okWant)
		}
	}
	// Inside a record U+FEFF stays a character: part of a Set token, a
	// code point of the grams.
	for _, spec := range []Spec{{Kind: Set}, {Kind: QGram, N: 2}} {
		inside, _ := spec.Append(nil, "ab"+mark+"cd")
		plain, _ := spec.Append(nil, "abcd")
		if slices.Equal(inside, plain) {
			t.Errorf("%s: U+FEFF inside a record was dropped", spec)
		}
	}
}
