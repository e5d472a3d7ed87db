package fieldenc

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, quotes included: '"' and '\\'
// are escaped, control characters (below U+0020, and U+007F) written as \n,
// \r, \t or \u00XX, so no raw control byte is ever written; everything else
// as it is. s must be valid UTF-8 (AppendJSONField
// handles any bytes); an invalid byte is written as \ufffd, the replacement
// character, so the result is valid JSON even then. Cost O(len(s)).
func AppendJSONString(b, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// AppendJSONField appends `"key":"v"` when v is valid UTF-8 and
// `"key_base64":"..."` (standard base64 of the bytes) when it is not, since a
// JSON string holds text, not bytes. key is written as it is: it must be a
// plain ASCII name. Cost O(len(v)).
func AppendJSONField(b []byte, key string, v []byte) []byte {
	b = append(b, '"')
	b = append(b, key...)
	if !utf8.Valid(v) {
		b = append(b, `_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, v)
		return append(b, '"')
	}
	b = append(b, `":`...)
	return AppendJSONString(b, v)
}

// AppendTSV appends f byte for byte, except that backslash, tab, CR, LF and
// the other control bytes (below 0x20, and 0x7f) are escaped as \\, \t, \r,
// \n and \xHH, so that a field never holds a separator and the escaping can
// be undone. Other bytes, invalid UTF-8 included, are written as they are.
// Cost O(len(f)).
func AppendTSV(b, f []byte) []byte {
	for _, c := range f {
		switch {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

// AppendCSV appends f as one CSV field: escaped as AppendTSV does (so no raw
// control byte, CR and LF included, is ever written), then enclosed in
// double quotes with inner quotes doubled, as RFC 4180 requires, when it
// holds a comma or a double quote. Cost O(len(f)).
func AppendCSV(b, f []byte) []byte {
	if bytes.IndexAny(f, `,"`) < 0 {
		return AppendTSV(b, f)
	}
	b = append(b, '"')
	for i, c := range f {
		if c == '"' {
			b = append(b, '"', '"')
		} else {
			b = AppendTSV(b, f[i:i+1])
		}
	}
	return append(b, '"')
}

// UnescapeTSV undoes AppendTSV (and the escapes of AppendCSV, once the CSV
// quoting is read): it returns the field's bytes, or false when f holds an
// escape AppendTSV never writes. Cost O(len(f)).
func UnescapeTSV(f []byte) ([]byte, bool) {
	out := make([]byte, 0, len(f))
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(f) {
			return nil, false
		}
		i++
		switch f[i] {
		case '\\':
			out = append(out, '\\')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 'x':
			if i+2 >= len(f) {
				return nil, false
			}
			hi, lo := unhex(f[i+1]), unhex(f[i+2])
			if hi < 0 || lo < 0 {
				return nil, false
			}
			out = append(out, byte(hi<<4|lo))
			i += 2
		default:
			return nil, false
		}
	}
	return out, true
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
