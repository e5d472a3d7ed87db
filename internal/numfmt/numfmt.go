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
