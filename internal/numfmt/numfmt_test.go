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
