package eol

import "testing"

func TestTrim(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""}, {"a", "a"}, {"a\n", "a"}, {"a\r\n", "a"}, {"a\r", "a\r"},
		{"\n", ""}, {"\r\n", ""}, {"a\n\n", "a\n"}, {"a\r\r\n", "a\r"},
	} {
		if got := string(Trim([]byte(c.in))); got != c.want {
			t.Errorf("Trim(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
