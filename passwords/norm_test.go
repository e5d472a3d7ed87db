package passwords

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"
)

// TestNormEach tests every normalisation on its own, and their composition.
func TestNormEach(t *testing.T) {
	tests := []struct {
		norm     Norm
		in, want string
	}{
		// None: byte for byte.
		{0, "P@ssw0rd123!", "P@ssw0rd123!"},
		{0, "caf\xe9", "caf\xe9"},

		{FoldCase, "PassWORD", "password"},
		{FoldCase, "P@SS123", "p@ss123"},
		{FoldCase, "ÄRGER", "ärger"},               // UTF-8: unicode.ToLower
		{FoldCase, "\xc4RGER", "\xe4rger"},         // Latin-1 Ä -> ä
		{FoldCase, "\xd7\xdf\xde", "\xd7\xdf\xfe"}, // × and ß stay; Þ -> þ
		{FoldCase, "ΣΟΦΙΑ", "σοφια"},
		{FoldCase, "", ""},

		{FoldLeet, "p@ssw0rd", "password"},
		{FoldLeet, "$3cr37", "secret"},
		{FoldLeet, "1!|", "iii"},
		{FoldLeet, "4@8(36#90$5+72", "aabceghgossttz"},
		{FoldLeet, "P@SS", "PaSS"}, // case is not folded
		{FoldLeet, "xyz%^&*", "xyz%^&*"},

		{StripSuffix, "password123", "password"},
		{StripSuffix, "monkey1!", "monkey"},
		{StripSuffix, "summer 2024!", "summer"},
		{StripSuffix, "pass1word", "pass1word"}, // only a trailing run
		{StripSuffix, "123456", "123456"},       // the whole password: kept
		{StripSuffix, "!!!", "!!!"},
		{StripSuffix, "caf\xe9123", "caf\xe9"},
		{StripSuffix, "ça123", "ça"},
		{StripSuffix, "", ""},

		// Composed: strip, then leet, then case.
		{StripSuffix | FoldLeet, "p@ssw0rd123", "password"},
		{StripSuffix | FoldLeet, "hell0", "hell"}, // the 0 is a suffix first
		{FoldLeet | FoldCase, "P@SSW0RD", "password"},
		{StripSuffix | FoldLeet | FoldCase, "P@$$W0RD2024!", "password"},
		{StripSuffix | FoldLeet | FoldCase, "Ça1Va!", "çaiva"},
		{StripSuffix | FoldLeet | FoldCase, "\xc71VA99", "\xe7iva"}, // Latin-1
	}
	for _, tt := range tests {
		got := tt.norm.Append(nil, []byte(tt.in), utf8.ValidString(tt.in))
		if string(got) != tt.want {
			t.Errorf("%v.Append(%q) = %q, want %q", tt.norm, tt.in, got, tt.want)
		}
		// Appending keeps what dst held.
		got = tt.norm.Append([]byte("x"), []byte(tt.in), utf8.ValidString(tt.in))
		if string(got) != "x"+tt.want {
			t.Errorf("%v.Append(x, %q) = %q, want %q", tt.norm, tt.in, got, "x"+tt.want)
		}
	}
}

func TestNormString(t *testing.T) {
	for n, want := range map[Norm]string{
		0:                                 "none",
		FoldCase:                          "fold-case",
		FoldCase | StripSuffix:            "strip-suffix+fold-case",
		FoldLeet | FoldCase | StripSuffix: "strip-suffix+fold-leet+fold-case",
	} {
		if got := n.String(); got != want {
			t.Errorf("Norm(%d).String() = %q, want %q", n, got, want)
		}
		if got, err := ParseNorm(want); got != n || err != nil {
			t.Errorf("ParseNorm(%q) = %v, %v; want %v", want, got, err, n)
		}
	}
	if n, err := ParseNorm("fold-case+strip-suffix+fold-case"); n != FoldCase|StripSuffix || err != nil {
		t.Errorf("ParseNorm in another order, repeated: %v, %v", n, err)
	}
	if n, err := ParseNorm(""); n != 0 || err != nil {
		t.Errorf("ParseNorm(\"\") = %v, %v", n, err)
	}
	for _, s := range []string{"fold", "fold-case+", "none+fold-case", "Fold-Case"} {
		if _, err := ParseNorm(s); !errors.Is(err, ErrNorm) {
			t.Errorf("ParseNorm(%q): %v, want ErrNorm", s, err)
		}
	}
}

// FuzzNorm checks the properties each normalisation promises, on any bytes.
func FuzzNorm(f *testing.F) {
	for _, s := range []string{"P@ssw0rd123!", "caf\xe9", "ÄRGER1", "123", "1^", "", "\xff\xfe", "İstanbul"} {
		f.Add([]byte(s), uint8(allNorms))
	}
	f.Fuzz(func(t *testing.T, pw []byte, bits uint8) {
		n := Norm(bits) & allNorms
		valid := utf8.Valid(pw)
		got := n.Append(nil, pw, valid)
		if valid && !utf8.Valid(got) {
			t.Fatalf("%v: valid UTF-8 %q became invalid %q", n, pw, got)
		}
		if n == 0 && !bytes.Equal(got, pw) {
			t.Fatalf("no normalisation changed %q to %q", pw, got)
		}
		if n&FoldCase != 0 {
			for _, c := range got {
				if 'A' <= c && c <= 'Z' {
					t.Fatalf("%v: %q -> %q keeps an upper-case letter", n, pw, got)
				}
			}
		}
		if n&FoldLeet != 0 {
			for _, c := range got {
				if _, ok := LeetTable()[c]; ok {
					t.Fatalf("%v: %q -> %q keeps a leet character", n, pw, got)
				}
			}
		}
		if n == StripSuffix {
			if !bytes.HasPrefix(pw, got) {
				t.Fatalf("strip: %q is not a prefix of %q", got, pw)
			}
			for _, c := range pw[len(got):] {
				if !isSuffixByte(c) {
					t.Fatalf("strip: %q -> %q removed %q", pw, got, c)
				}
			}
			if len(got) < len(pw) && isSuffixByte(got[len(got)-1]) {
				t.Fatalf("strip: %q -> %q stopped early", pw, got)
			}
			if len(got) == 0 && len(pw) > 0 {
				t.Fatalf("strip: %q became empty", pw)
			}
		}
	})
}
