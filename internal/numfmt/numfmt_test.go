package numfmt

import (
	"math"
	"testing"
)

func TestGroup(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{123456, "123,456"}, {1234567, "1,234,567"}, {-1, "-1"}, {-1000, "-1,000"},
		{-123456, "-123,456"}, {math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Group(c.n); got != c.want {
			t.Errorf("Group(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestSecs(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0 µs"}, {3.1e-6, "3.1 µs"}, {0.000999, "999 µs"}, {0.001, "1 ms"}, {0.0120, "12 ms"},
		{0.00604320, "6.04 ms"}, {0.2356, "236 ms"}, {1, "1.00 s"}, {1.254, "1.25 s"}, {123.456, "123.46 s"},
	} {
		if got := Secs(c.s); got != c.want {
			t.Errorf("Secs(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}
