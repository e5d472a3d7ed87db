package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// LineFormat is how InsertLines reads a line as a record.
type LineFormat uint8

const (
	// LinesText: the line is the record's text (an index without keys).
	LinesText LineFormat = iota
	// LinesTSV: KEY<TAB>TEXT, the key up to the first tab, the text all
	// after it (an index with keys).
	LinesTSV
	// LinesJSON: a JSON object {"id": KEY, "text": "...", "payload": {...}}
	// as DecodeRecord reads it.
	LinesJSON
)

// String returns the command-line name of f: "lines", "tsv" or "jsonl".
func (f LineFormat) String() string {
	switch f {
	case LinesText:
		return "lines"
	case LinesTSV:
		return "tsv"
	case LinesJSON:
		return "jsonl"
	}
	return fmt.Sprintf("LineFormat(%d)", uint8(f))
}

// ParseLineFormat reads a LineFormat by its String.
func ParseLineFormat(s string) (LineFormat, error) {
	for _, f := range []LineFormat{LinesText, LinesTSV, LinesJSON} {
		if s == f.String() {
			return f, nil
		}
	}
	return 0, fmt.Errorf("index: unknown record format %q: want lines, tsv or jsonl", s)
}

// ErrRecordJSON is wrapped by the errors of DecodeRecord.
var ErrRecordJSON = errors.New("not a record")

// DecodeRecord reads one record written as a JSON object: "id" its key (a
// JSON number for IntKeys, a string for StringKeys; required with keys,
// refused without), "text" its text (a string, required), "payload" a
// JSON object or null (optional). It reads strictly: no other field, no
// data after the object, no field twice, and text that is text (invalid
// UTF-8, or an escaped lone surrogate such as "\ud800", is refused, never
// read as U+FFFD). Its errors wrap ErrRecordJSON or ErrKey and never quote
// the text. Cost: O(len(b)).
func DecodeRecord(keys KeyKind, b []byte) (Record, error) {
	var r Record
	if err := CheckJSONText(b); err != nil {
		return r, fmt.Errorf("%w: %v", ErrRecordJSON, err)
	}
	var raw struct {
		ID      json.RawMessage `json:"id"`
		Text    *string         `json:"text"`
		Payload json.RawMessage `json:"payload"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return r, fmt.Errorf("%w: %v", ErrRecordJSON, jsonReason(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return r, fmt.Errorf("%w: data after the object", ErrRecordJSON)
	}
	if err := checkFields(b, "id", "text", "payload"); err != nil {
		return r, fmt.Errorf("%w: %v", ErrRecordJSON, err)
	}
	if raw.Text == nil {
		return r, fmt.Errorf("%w: want \"text\", a string", ErrRecordJSON)
	}
	r.Text = []byte(*raw.Text)
	switch {
	case keys == NoKeys && raw.ID != nil:
		return r, fmt.Errorf("%w: \"id\": the index names its records by id (it was created without keys)", ErrKey)
	case keys != NoKeys && raw.ID == nil:
		return r, fmt.Errorf("%w: want \"id\", the record's key", ErrKey)
	case keys == IntKeys:
		if len(raw.ID) == 0 || raw.ID[0] != '-' && (raw.ID[0] < '0' || raw.ID[0] > '9') {
			return r, fmt.Errorf("\"id\": %w: want a JSON number", ErrKey)
		}
		k, err := ParseKey(keys, string(raw.ID))
		if err != nil {
			return r, fmt.Errorf("\"id\": %w", err)
		}
		r.Key = k
	case keys == StringKeys:
		var s string
		if len(raw.ID) == 0 || raw.ID[0] != '"' || json.Unmarshal(raw.ID, &s) != nil {
			return r, fmt.Errorf("\"id\": %w: want a JSON string", ErrKey)
		}
		k, err := ParseKey(keys, s)
		if err != nil {
			return r, fmt.Errorf("\"id\": %w", err)
		}
		r.Key = k
	}
	if raw.Payload != nil && string(raw.Payload) != "null" {
		if !isJSONObject(raw.Payload) {
			return r, fmt.Errorf("%w: \"payload\": want a JSON object", ErrRecordJSON)
		}
		r.Payload = []byte(raw.Payload)
	}
	return r, nil
}

// jsonReason words a decoding error without quoting the input.
func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("%q: want a %s", te.Field, te.Type)
	}
	return err.Error()
}

// checkFields reports a field of a JSON object (at its top level) that is
// not spelled as one of names, or given twice (encoding/json would match
// "Text" to "text", and keep the last of two).
func checkFields(b []byte, names ...string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		if !slices.Contains(names, k) {
			return fmt.Errorf("unknown field %q", k)
		}
		if seen[k] {
			return fmt.Errorf("%q given twice", k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// CheckJSONText reports invalid UTF-8 in a JSON text, or a \u escape of a
// surrogate that is not the first half of a pair followed by its second
// (encoding/json would decode either as U+FFFD): the rule every JSON input
// of the index's faces follows. Cost: one pass.
func CheckJSONText(b []byte) error {
	if !utf8.Valid(b) {
		return errors.New("invalid UTF-8")
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		i++ // the escaped byte; only \u escapes matter
		if i >= len(b) || b[i] != 'u' {
			continue
		}
		r, ok := hex4(b[i+1:])
		if !ok || !utf16.IsSurrogate(r) {
			continue
		}
		lo, ok2 := rune(0), false
		if r < 0xdc00 && i+10 < len(b) && b[i+5] == '\\' && b[i+6] == 'u' {
			lo, ok2 = hex4(b[i+7:])
		}
		if !ok2 || lo < 0xdc00 || lo > 0xdfff {
			return fmt.Errorf("a lone surrogate \\u%s in a string", b[i+1:i+5])
		}
		i += 10
	}
	return nil
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// decodeLine reads one line of an InsertLines input as a record.
func decodeLine(f LineFormat, keys KeyKind, line []byte) (Record, error) {
	switch f {
	case LinesTSV:
		k, text, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			return Record{}, fmt.Errorf("%w: want KEY<TAB>TEXT", ErrKey)
		}
		key, err := ParseKey(keys, string(k))
		if err != nil {
			return Record{}, err
		}
		return Record{Key: key, Text: text}, nil
	case LinesJSON:
		return DecodeRecord(keys, line)
	}
	if keys != NoKeys {
		return Record{}, fmt.Errorf("%w: the index takes a key with each record: give them as tsv or jsonl", ErrKey)
	}
	return Record{Text: line}, nil
}
