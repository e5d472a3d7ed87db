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

// TestBytes pins the sizes the statistics (prec 2) and the memory check
// (prec 1) print: bytes below 1 KiB (a 34-byte input read is not "0.0
// KiB"), and never 1024 of a unit.
func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		prec int
		want string
	}{
		{0, 2, "0 B"}, {34, 2, "34 B"}, {1023, 1, "1023 B"}, {10, 1, "10 B"}, {1024, 2, "1.0 KiB"},
		{1536, 2, "1.5 KiB"}, {3 << 20, 2, "3.0 MiB"}, {1<<30 - 1, 2, "1.00 GiB"}, {1<<20 - 1, 2, "1.0 MiB"},
		{1<<20 - 1<<9, 2, "1023.5 KiB"}, {1 << 30, 2, "1.00 GiB"}, {5 << 29, 2, "2.50 GiB"},
		{0, 1, "0 B"}, {1536, 1, "2 KiB"}, {300 << 20, 1, "300 MiB"}, {3 << 29, 1, "1.5 GiB"},
		{3 << 29, 0, "2 GiB"}, {300 << 20, 0, "300 MiB"}, {1<<30 - 1, 1, "1.0 GiB"},
	} {
		if got := Bytes(c.n, c.prec); got != c.want {
			t.Errorf("Bytes(%d, %d) = %q, want %q", c.n, c.prec, got, c.want)
		}
	}
}
