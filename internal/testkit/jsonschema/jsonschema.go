// Package jsonschema validates JSON documents against the subset of JSON
// Schema (draft 2020-12) that the project's published schemas use, so that
// tests can check every document they produce against the schema file the
// users read.
//
// Supported keywords: type (a name or a list of names; "integer" is a number
// without a fractional part), const, enum, minimum, pattern, properties,
// required, additionalProperties (false or a schema), propertyNames, items,
// not, $ref to "#/$defs/NAME", and the annotations $schema, $id, $defs,
// title and description. A schema that uses any other keyword is refused by
// Compile rather than half-checked.
//
// A Schema is immutable once compiled and safe for concurrent use. Validate
// costs O(size of the document times the depth of $ref chains it follows).
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Schema is a compiled schema.
type Schema struct {
	root     map[string]any
	patterns map[string]*regexp.Regexp // compiled "pattern" values
}

var known = []string{
	"$schema", "$id", "$defs", "title", "description",
	"type", "const", "enum", "minimum", "pattern", "properties", "required",
	"additionalProperties", "propertyNames", "items", "not", "$ref",
}

// Compile parses a schema and checks that it uses only the supported
// keywords and that every $ref resolves.
func Compile(data []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	s := &Schema{root: root, patterns: map[string]*regexp.Regexp{}}
	if err := s.check(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

// check walks a schema object, refusing unknown keywords and bad $refs.
func (s *Schema) check(v any, at string) error {
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			return nil
		}
		return fmt.Errorf("jsonschema: %s: a schema must be an object or a boolean", at)
	}
	for k, sub := range m {
		if !slices.Contains(known, k) {
			return fmt.Errorf("jsonschema: %s: unsupported keyword %q", at, k)
		}
		switch k {
		case "properties", "$defs":
			props, ok := sub.(map[string]any)
			if !ok {
				return fmt.Errorf("jsonschema: %s/%s: want an object", at, k)
			}
			for name, p := range props {
				if err := s.check(p, at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "additionalProperties", "propertyNames", "items", "not":
			if err := s.check(sub, at+"/"+k); err != nil {
				return err
			}
		case "$ref":
			ref, _ := sub.(string)
			if _, err := s.resolve(ref); err != nil {
				return fmt.Errorf("jsonschema: %s: %w", at, err)
			}
		case "pattern":
			p, _ := sub.(string)
			re, err := regexp.Compile(p)
			if err != nil {
				return fmt.Errorf("jsonschema: %s: %w", at, err)
			}
			s.patterns[p] = re
		}
	}
	return nil
}

func (s *Schema) resolve(ref string) (any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	defs, _ := s.root["$defs"].(map[string]any)
	def, found := defs[name]
	if !ok || !found {
		return nil, fmt.Errorf("unresolved $ref %q", ref)
	}
	return def, nil
}

// Validate checks a JSON document against the schema and returns every
// violation found (up to a few dozen), each naming its JSON pointer, or nil.
func (s *Schema) Validate(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("jsonschema: %w", err)
	}
	var errs []string
	s.validate(s.root, v, "", &errs)
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > 30 {
		errs = append(errs[:30], "...")
	}
	return fmt.Errorf("jsonschema: %s", strings.Join(errs, "; "))
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !strings.ContainsAny(string(x), ".eE") {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func hasType(want any, got string) bool {
	switch w := want.(type) {
	case string:
		return w == got || (w == "number" && got == "integer")
	case []any:
		for _, x := range w {
			if hasType(x, got) {
				return true
			}
		}
	}
	return false
}

// equal compares two decoded JSON values (numbers by value).
func equal(a, b any) bool {
	if na, ok := a.(json.Number); ok {
		nb, ok := b.(json.Number)
		if !ok {
			if f, isF := b.(float64); isF {
				x, _ := na.Float64()
				return x == f
			}
			return false
		}
		x, _ := na.Float64()
		y, _ := nb.Float64()
		return x == y
	}
	if fa, ok := a.(float64); ok {
		return equal(b, fa)
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	return bytes.Equal(aj, bj)
}

func (s *Schema) validate(schema, v any, at string, errs *[]string) {
	fail := func(format string, a ...any) {
		p := at
		if p == "" {
			p = "/"
		}
		*errs = append(*errs, p+": "+fmt.Sprintf(format, a...))
	}
	switch sc := schema.(type) {
	case bool:
		if !sc {
			fail("not allowed")
		}
		return
	case map[string]any:
		if ref, ok := sc["$ref"].(string); ok {
			def, _ := s.resolve(ref)
			s.validate(def, v, at, errs)
		}
		got := typeOf(v)
		if t, ok := sc["type"]; ok && !hasType(t, got) {
			fail("type %s, want %v", got, t)
			return
		}
		if c, ok := sc["const"]; ok && !equal(c, v) {
			fail("want the constant %v", c)
		}
		if e, ok := sc["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return equal(x, v) }) {
			fail("%v is not one of %v", v, e)
		}
		if m, ok := sc["minimum"].(float64); ok {
			if n, isNum := v.(json.Number); isNum {
				if f, _ := n.Float64(); f < m {
					fail("%v is below the minimum %v", n, m)
				}
			}
		}
		if p, ok := sc["pattern"].(string); ok {
			if str, isStr := v.(string); isStr && !s.patterns[p].MatchString(str) {
				fail("%q does not match %q", str, p)
			}
		}
		if n, ok := sc["not"]; ok {
			var sub []string
			s.validate(n, v, at, &sub)
			if len(sub) == 0 {
				fail("matches a schema it must not")
			}
		}
		switch x := v.(type) {
		case map[string]any:
			props, _ := sc["properties"].(map[string]any)
			if req, ok := sc["required"].([]any); ok {
				for _, r := range req {
					if _, has := x[r.(string)]; !has {
						fail("lacks the required %q", r)
					}
				}
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if pn, ok := sc["propertyNames"]; ok {
					s.validate(pn, k, at+"/"+k+" (name)", errs)
				}
				if p, ok := props[k]; ok {
					s.validate(p, x[k], at+"/"+k, errs)
				} else if ap, ok := sc["additionalProperties"]; ok {
					s.validate(ap, x[k], at+"/"+k, errs)
				}
			}
		case []any:
			if it, ok := sc["items"]; ok {
				for i, e := range x {
					s.validate(it, e, fmt.Sprintf("%s/%d", at, i), errs)
				}
			}
		}
	}
}
