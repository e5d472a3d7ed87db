package jsonl

import (
	"testing"
)

// TestJSONLParse: lines that parse give their text and id; the others give
// the error a user reads after FILE:LINE.
func TestJSONLParse(t *testing.T) {
	p := &Parser{Text: "text", ID: "id"}
	for _, tc := range []struct {
		line, text, name, err string
	}{
		{`{"id": "a", "text": "x y"}`, "x y", "a", ""},
		{` { "text" : "x\ty \u00e9 \ud83d\ude00" , "id" : 12 } `, "x\ty é 😀", "12", ""},
		{`{"id": -1.5e3, "text": "", "more": [1, {"text": 2}], "id2": null}`, "", "-1.5e3", ""},
		{`{"id": "\\udc00", "text": "\"q\""}`, `"q"`, `\udc00`, ""}, // escaped backslashes, no surrogate
		{`{"id": "a", "text": "x y"`, "", "", "not a JSON object"},
		{`{"id": "a", "text": "x y"}}`, "", "", "not a JSON object"},
		{`{"id": "a", "text": "x y"} 5`, "", "", "not a JSON object"},
		{`"x y"`, "", "", "not a JSON object"},
		{``, "", "", "not a JSON object"},
		{`{"id": "a", "text": "x" "y"}`, "", "", "not a JSON object"},
		{`{"id": "a"}`, "", "", `no field "text"`},
		{`{"text": "a"}`, "", "", `no field "id"`},
		{`{"id": "a", "text": ["x"]}`, "", "", `field "text" is not a string`},
		{`{"id": "a", "text": "x", "id": "b"}`, "", "", `field "id" repeats`},
		{`{"id": "a", "text": "x", "other": 1, "other": 2}`, "", "", `field "other" repeats`},
		{`{"id": "a", "text": "x \ud800 y"}`, "", "", `field "text" holds a lone surrogate escape`},
		{`{"id": "a", "text": "x \ud800\u0041"}`, "", "", `field "text" holds a lone surrogate escape`},
		{`{"id": "\udfff", "text": "x"}`, "", "", `field "id" holds a lone surrogate escape`},
		{`{"id": "", "text": "x"}`, "", "", `field "id" is empty`},
		{`{"id": true, "text": "x"}`, "", "", `field "id" is neither a string nor a number`},
		{"{\"id\": \"a\", \"text\": \"\xc3\"}", "", "", "invalid UTF-8"},
	} {
		text, name, err := p.Parse([]byte(tc.line))
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.line, err)
		case tc.err == "" && (string(text) != tc.text || name != tc.name):
			t.Errorf("%s: text %q id %q, want %q %q", tc.line, text, name, tc.text, tc.name)
		}
	}
	// Without an id field, only the text is read.
	p = &Parser{Text: "body"}
	if text, name, err := p.Parse([]byte(`{"": 1, "body": "b"}`)); err != nil || string(text) != "b" || name != "" {
		t.Errorf("no id field: %q %q %v", text, name, err)
	}
}
