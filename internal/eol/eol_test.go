package eol

import "testing"

// TestTrim checks both forms, bytes and string, on the same lines.
func TestTrim(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""}, {"a", "a"}, {"a\n", "a"}, {"a\r\n", "a"}, {"a\r", "a\r"},
		{"\n", ""}, {"\r\n", ""}, {"a\n\n", "a\n"}, {"a\r\r\n", "a\r"},
	} {
		if got := string(Trim([]byte(c.in))); got != c.want {
			t.Errorf("Trim([]byte(%q)) = %q, want %q", c.in, got, c.want)
		}
		if got := Trim(c.in); got != c.want {
			t.Errorf("Trim(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
