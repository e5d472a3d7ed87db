// Package numfmt formats numbers for the human-readable reports: the CLI's
// statistics and the Beam pipeline's summary print counts the same way.
package numfmt

import "strconv"

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
