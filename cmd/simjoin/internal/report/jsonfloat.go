package report

import (
	"math"
	"strconv"
	"strings"
)

// roundFloats rewrites the numbers of the JSON text b that have a fraction
// or an exponent, leaving every other byte as it is: a duration in seconds
// (a member whose name ends in "_s", or an array under one) to the
// nanosecond, the finest the clocks read (the monotonic clock's; getrusage
// gives microseconds), and any other number to 15 significant digits, what
// a float64 holds of a decimal. Sums and quotients of floats otherwise
// carry their binary noise into the report ("cpu_s":
// 0.00022528881000000002, 0.30000000000000004). Numbers are written as
// encoding/json writes them. b must be valid JSON. Cost: one pass, O(len(b)).
func roundFloats(b []byte) []byte {
	out := make([]byte, 0, len(b))
	var keys []string // the member name of each open object or array
	cur := ""         // the member name of the value that comes next
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			j := i + 1
			for b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			j++
			k := j
			for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
				k++
			}
			if k < len(b) && b[k] == ':' {
				cur, _ = strconv.Unquote(string(b[i:j]))
			}
			out = append(out, b[i:j]...)
			i = j
		case c == '{' || c == '[':
			keys = append(keys, cur)
			if c == '{' {
				cur = ""
			}
			out = append(out, c)
			i++
		case c == '}' || c == ']':
			cur, keys = keys[len(keys)-1], keys[:len(keys)-1]
			out = append(out, c)
			i++
		case c == '-' || '0' <= c && c <= '9':
			j := i + 1
			for j < len(b) && strings.IndexByte("0123456789.eE+-", b[j]) >= 0 {
				j++
			}
			num := string(b[i:j])
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || !strings.ContainsAny(num, ".eE") {
				out = append(out, num...)
			} else {
				out = appendJSONFloat(out, roundFloat(f, strings.HasSuffix(cur, "_s")))
			}
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// roundFloat rounds f as roundFloats says: seconds to the nanosecond,
// anything else to 15 significant digits.
func roundFloat(f float64, seconds bool) float64 {
	if seconds {
		return math.Round(f*1e9) / 1e9
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 15, 64), 64)
	if err != nil {
		return f
	}
	return r
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, with an exponent (unpadded: 1e-7)
// below 1e-6 and from 1e21 on.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
