// Package jsonl reads the fields of a record from a line of JSON Lines,
// strictly, as simjoin reads every JSON input: the line is valid UTF-8 and
// holds one JSON object and nothing else, no top-level key repeats, the text
// field is a string without a lone surrogate escape (which encoding/json
// would silently turn into U+FFFD), and the id field is a non-empty string or
// a number (kept as spelled). Other fields are checked as JSON and otherwise
// ignored. Parsing costs O(line) time; a Parser reuses its buffers.
package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The errors of a line that is not a JSON object, or not UTF-8; a reader
// prefixes them (and the others Parse returns) with FILE:LINE.
var (
	ErrNotObject = errors.New("not a JSON object")
	ErrUTF8      = errors.New("invalid UTF-8")
)

// Parser reads the fields Text and, when ID is not empty, ID of JSON lines.
// Not safe for concurrent use: it reuses its buffers.
type Parser struct {
	Text, ID string

	seen map[string]bool
	raw  json.RawMessage
}

// Parse returns the text and the id of one line (without its line ending).
// The text is a new slice.
func (p *Parser) Parse(line []byte) (text []byte, id string, err error) {
	if !utf8.Valid(line) {
		return nil, "", ErrUTF8
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, "", ErrNotObject
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	clear(p.seen)
	hasText, hasID := false, false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, "", ErrNotObject
		}
		key, _ := tok.(string)
		if p.seen[key] {
			return nil, "", fmt.Errorf("field %q repeats", key)
		}
		p.seen[key] = true
		p.raw = p.raw[:0]
		if err := dec.Decode(&p.raw); err != nil {
			return nil, "", ErrNotObject
		}
		switch {
		case key == p.Text:
			if len(p.raw) == 0 || p.raw[0] != '"' {
				return nil, "", fmt.Errorf("field %q is not a string", key)
			}
			if loneSurrogate(p.raw) {
				return nil, "", fmt.Errorf("field %q holds a lone surrogate escape", key)
			}
			var s string
			if err := json.Unmarshal(p.raw, &s); err != nil {
				return nil, "", ErrNotObject
			}
			text, hasText = []byte(s), true
		case key == p.ID && p.ID != "":
			if id, err = jsonID(key, p.raw); err != nil {
				return nil, "", err
			}
			hasID = true
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, "", ErrNotObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "", ErrNotObject // more after the object
	}
	switch {
	case !hasText:
		return nil, "", fmt.Errorf("no field %q", p.Text)
	case p.ID != "" && !hasID:
		return nil, "", fmt.Errorf("no field %q", p.ID)
	}
	return text, id, nil
}

// jsonID returns the text of an id value: a non-empty string (without a
// lone surrogate escape) or a number as spelled.
func jsonID(key string, raw []byte) (string, error) {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if loneSurrogate(raw) || json.Unmarshal(raw, &s) != nil {
			return "", fmt.Errorf("field %q holds a lone surrogate escape", key)
		}
		if s == "" {
			return "", fmt.Errorf("field %q is empty", key)
		}
		return s, nil
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), nil
	}
	return "", fmt.Errorf("field %q is neither a string nor a number", key)
}

// loneSurrogate reports whether a JSON string literal (quotes included)
// escapes half of a UTF-16 surrogate pair without the other half.
func loneSurrogate(lit []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(lit) || lit[i] != '\\' || lit[i+1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range lit[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // a two-byte escape such as \\ or \"
			continue
		}
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		case r >= 0xd800 && r < 0xdc00:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}
