package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/simjoin/simjoin/internal/numfmt"
	"github.com/simjoin/simjoin/planner"
)

// Plural formats n with thousands separators and its noun, singular for one:
// "1 core", "2 cores".
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return numfmt.Group(n) + " " + many
}

// BinLabel formats a similarity bin: [from, to), but [from, 1.00] for the top
// bin, which holds similarity 1.
func BinLabel(from, to float64) string {
	if to >= 1 {
		return fmt.Sprintf("[%.2f, 1.00]", from)
	}
	return fmt.Sprintf("[%.2f, %.2f)", from, to)
}

// Ratio formats a recall or a probability: 1 and 0 as they are, others with
// three decimals.
func Ratio(x float64) string {
	if x == 1 || x == 0 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// Pct formats part as a share of whole, " (12.3%)", or "" when whole is 0.
func Pct(part, whole int64) string {
	if whole == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.1f%%)", 100*float64(part)/float64(whole))
}

// Seconds formats a duration in seconds with a unit people read at a glance.
func Seconds(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	case s > 0:
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
	return "0 s"
}

// Count formats a predicted count: grouped digits, rounded.
func Count(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?"
	}
	return numfmt.Group(int64(math.Round(x)))
}

// recordList formats records per side: "1,000 x 2,000".
func recordList(n []int) string {
	parts := make([]string, len(n))
	for i, v := range n {
		parts[i] = numfmt.Group(int64(v))
	}
	return strings.Join(parts, " x ")
}

// share formats a fraction as a percentage.
func share(f float64) string {
	switch {
	case f >= 0.01:
		return fmt.Sprintf("%.1f%%", 100*f)
	default:
		return fmt.Sprintf("%.2g%%", 100*f)
	}
}

// interval formats an estimate with its confidence interval.
func interval(iv planner.Interval) string {
	if iv.N == 0 {
		return "- (no pairs)"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f] (%s of %s)", iv.Estimate, iv.Lo, iv.Hi, numfmt.Group(iv.K), numfmt.Group(iv.N))
}

// ownPackages are the packages of this module whose errors start with
// their name (Go's convention for a library's errors).
var ownPackages = []string{"simjoin", "approx", "shingle", "order", "planner", "prefix", "join", "passwords", "cluster"}

// Plain returns err's text without the package names this module's
// libraries put in front of it ("simjoin: order: collection too large" is
// "collection too large"), for the command's messages, which name flags
// and files, not packages, and put "simjoin: " in front themselves.
func Plain(err error) string {
	s := err.Error()
	for {
		name, rest, ok := strings.Cut(s, ": ")
		if !ok || !slices.Contains(ownPackages, name) {
			return s
		}
		s = rest
	}
}

// FlagValueError words err, a library's refusal of the value of a flag
// ("shingle: bad tokenizer \"qgram:0\": length must be ..."), as the
// command line's: "--tokens qgram:0: length must be ...", taking the value
// from the first quoted string of err's text; without one, "--tokens: "
// and err's plain text.
func FlagValueError(flag string, err error) error {
	s := Plain(err)
	if i := strings.IndexByte(s, '"'); i >= 0 {
		if q, err := strconv.QuotedPrefix(s[i:]); err == nil {
			if rest, ok := strings.CutPrefix(s[i+len(q):], ": "); ok {
				v, _ := strconv.Unquote(q)
				return fmt.Errorf("%s %s: %s", flag, v, rest)
			}
		}
	}
	return fmt.Errorf("%s: %s", flag, s)
}
