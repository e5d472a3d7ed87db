package jsonschema

import (
	"strings"
	"testing"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["v", "n"],
  "additionalProperties": false,
  "properties": {
    "v": {"const": 1},
    "n": {"type": "integer", "minimum": 0},
    "x": {"type": "number"},
    "s": {"type": "string", "enum": ["a", "b"]},
    "list": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    "loose": {"$ref": "#/$defs/any"}
  },
  "$defs": {
    "item": {"type": "object", "properties": {"k_s": {"type": "number"}}, "additionalProperties": false},
    "any": {
      "type": ["object", "array", "string", "number", "boolean", "null"],
      "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$", "not": {"pattern": "seconds$"}},
      "additionalProperties": {"$ref": "#/$defs/any"},
      "items": {"$ref": "#/$defs/any"}
    }
  }
}`

func TestValidate(t *testing.T) {
	s, err := Compile([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		doc  string
		want string // substring of the error; "" for valid
	}{
		{`{"v":1,"n":0}`, ""},
		{`{"v":1,"n":3,"x":1.5,"s":"b","list":[{"k_s":0.25},{}],"loose":{"a_b":[{"c":null}]}}`, ""},
		{`{"v":2,"n":0}`, "/v: want the constant 1"},
		{`{"v":1}`, `lacks the required "n"`},
		{`{"v":1,"n":1.5}`, "/n: type number, want integer"},
		{`{"v":1,"n":1e3}`, "/n: type number, want integer"},
		{`{"v":1,"n":-1}`, "below the minimum"},
		{`{"v":1,"n":0,"s":"c"}`, "is not one of"},
		{`{"v":1,"n":0,"Extra":1}`, "/Extra: not allowed"},
		{`{"v":1,"n":0,"list":[{"k":1}]}`, "/list/0/k: not allowed"},
		{`{"v":1,"n":0,"loose":{"ok":{"IndexTime":1}}}`, "IndexTime (name)"},
		{`{"v":1,"n":0,"loose":[{"plan_seconds":1}]}`, "matches a schema it must not"},
		{`{"v":1,"n":"0"}`, "type string, want integer"},
	} {
		err := s.Validate([]byte(c.doc))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.doc, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one with %q", c.doc, err, c.want)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, bad := range []string{
		`{"oneOf": [{"type":"string"}]}`,
		`{"properties": {"a": {"$ref": "#/$defs/missing"}}}`,
		`{"pattern": "("}`,
		`[1]`,
	} {
		if _, err := Compile([]byte(bad)); err == nil {
			t.Errorf("Compile(%s) accepted", bad)
		}
	}
}
