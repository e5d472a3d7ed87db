// Package numfmt formats numbers for the human-readable reports: the CLI's
// statistics and the Beam pipeline's summary print counts the same way, and
// the statistics and the memory check print sizes the same way.
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

// Bytes formats a size of n bytes for people: below 1 KiB as a count of
// bytes ("34 B", "0 B"), else in GiB (from 1 GiB), MiB (from 1 MiB) or KiB,
// with prec decimals in GiB and one fewer (but at least none) in MiB and
// KiB, and in the larger unit when the figure would round to 1024 of the
// smaller: Bytes(3<<20, 2) is "3.0 MiB", Bytes(3<<30, 1) "3.0 GiB",
// Bytes(300<<20, 1) "300 MiB", Bytes(1<<20-1, 2) "1.0 MiB".
func Bytes(n int64, prec int) string {
	if n < 1<<10 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := [...]struct {
		name string
		size float64
		prec int
	}{{"KiB", 1 << 10, max(prec-1, 0)}, {"MiB", 1 << 20, max(prec-1, 0)}, {"GiB", 1 << 30, prec}}
	u := 0
	for u+1 < len(units) && n >= int64(units[u+1].size) {
		u++
	}
	v := float64(n) / units[u].size
	if u+1 < len(units) && strconv.FormatFloat(v, 'f', units[u].prec, 64) == strconv.FormatFloat(1024, 'f', units[u].prec, 64) {
		u++
		v = float64(n) / units[u].size
	}
	return strconv.FormatFloat(v, 'f', units[u].prec, 64) + " " + units[u].name
}
