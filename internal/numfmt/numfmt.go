// Package numfmt formats numbers for the human-readable reports: the CLI's
// statistics and the Beam pipeline's summary print counts the same way, and
// the statistics and the memory check print sizes the same way.
package numfmt

import (
	"fmt"
	"strconv"
)

// Group formats n in decimal with a comma between groups of three digits:
// 1234567 as "1,234,567", -1000 as "-1,000". Cost: one allocation.
func Group(n int64) string {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(out)
}

// Secs formats seconds to three significant figures as the planner's reasons
// state them: "1.25 s" from a second up (two decimals), "12 ms", "3.1 µs"
// below, and "0 µs" for 0.
func Secs(s float64) string {
	switch {
	case s >= 1:
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	case s >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + " ms"
	default:
		return strconv.FormatFloat(s*1e6, 'g', 3, 64) + " µs"
	}
}

// Bytes formats a size of n bytes for people in GiB (from 1 GiB), MiB (from
// 1 MiB) or KiB, with prec decimals in GiB and one fewer (but at least none)
// in MiB and KiB: Bytes(3<<20, 2) is "3.0 MiB", Bytes(3<<30, 1) "3.0 GiB",
// Bytes(300<<20, 1) "300 MiB".
func Bytes(n int64, prec int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.*f GiB", prec, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.*f MiB", max(prec-1, 0), float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.*f KiB", max(prec-1, 0), float64(n)/(1<<10))
	}
}
