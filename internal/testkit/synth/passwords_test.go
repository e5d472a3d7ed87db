package synth

import (
	"bytes"
	"slices"
	"testing"
)

func collectPasswords(cfg PasswordsConfig) [][]byte {
	var out [][]byte
	for pw := range Passwords(cfg) {
		out = append(out, bytes.Clone(pw))
	}
	return out
}

// TestPasswordsSeeded checks that a seed gives the same list every time and
// another seed another list, that Distinct lists have no repeat, and that
// raw lists repeat popular passwords.
func TestPasswordsSeeded(t *testing.T) {
	a := collectPasswords(PasswordsConfig{N: 5000, Seed: 7, Distinct: true})
	b := collectPasswords(PasswordsConfig{N: 5000, Seed: 7, Distinct: true})
	c := collectPasswords(PasswordsConfig{N: 5000, Seed: 8, Distinct: true})
	if len(a) != 5000 {
		t.Fatalf("%d passwords, want 5000", len(a))
	}
	if !slices.EqualFunc(a, b, bytes.Equal) {
		t.Fatal("the same seed gave two lists")
	}
	if slices.EqualFunc(a, c, bytes.Equal) {
		t.Fatal("two seeds gave one list")
	}
	seen := map[string]bool{}
	for _, pw := range a {
		if seen[string(pw)] {
			t.Fatalf("Distinct list repeats %q", pw)
		}
		seen[string(pw)] = true
	}
	raw := collectPasswords(PasswordsConfig{N: 5000, Seed: 7})
	clear(seen)
	repeats := 0
	for _, pw := range raw {
		if seen[string(pw)] {
			repeats++
		}
		seen[string(pw)] = true
	}
	if repeats == 0 {
		t.Fatal("a raw list repeats no password")
	}
}

// TestPasswordsMix checks the kinds of password the generator promises, in
// roughly its proportions.
func TestPasswordsMix(t *testing.T) {
	const n = 20000
	var digits, upperFirst, leet, withYear, walks, empty int
	for pw := range Passwords(PasswordsConfig{N: n, Seed: 1}) {
		if len(pw) == 0 {
			empty++
			continue
		}
		allDigits := true
		for _, ch := range pw {
			if ch < '0' || ch > '9' {
				allDigits = false
			}
			if ch >= 0x80 {
				t.Fatalf("non-ASCII password %q", pw)
			}
		}
		if allDigits {
			digits++
		}
		if 'A' <= pw[0] && pw[0] <= 'Z' {
			upperFirst++
		}
		if bytes.ContainsAny(pw, "@$") {
			leet++
		}
		if bytes.Contains(pw, []byte("19")) || bytes.Contains(pw, []byte("20")) {
			withYear++
		}
		if bytes.HasPrefix(pw, []byte("qwer")) || bytes.HasPrefix(pw, []byte("asdf")) || bytes.HasPrefix(pw, []byte("1qaz")) {
			walks++
		}
	}
	share := func(k int) float64 { return float64(k) / n }
	for _, c := range []struct {
		what     string
		got      float64
		min, max float64
	}{
		{"digit-only", share(digits), 0.10, 0.25},
		{"capitalised", share(upperFirst), 0.08, 0.30},
		{"with @ or $", share(leet), 0.02, 0.15},
		{"with a year-like 19 or 20", share(withYear), 0.08, 0.40},
		{"keyboard walks", share(walks), 0.005, 0.08},
	} {
		t.Logf("%s: %.3f", c.what, c.got)
		if c.got < c.min || c.got > c.max {
			t.Errorf("%s: %.3f of the list, want %.3f to %.3f", c.what, c.got, c.min, c.max)
		}
	}
	if empty > 0 {
		t.Errorf("%d empty passwords", empty)
	}
}
