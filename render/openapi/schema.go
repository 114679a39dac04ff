package openapi

import (
	"encoding/json"
	"strings"
)

// schema is a schema with $refs followed and allOf merged.
type schema struct {
	types    []string
	nullable bool
	title    string
	desc     string
	format   string
	// contentMediaType is the media type of a string's content (3.1).
	contentMediaType string
	props            []prop
	required         map[string]bool
	items            any // raw items schema
	enum             []any
	def              any
	hasDef           bool
	example          any
	hasExample       bool
	deprecated       bool
	readOnly         bool
	writeOnly        bool
	variants         []any  // oneOf / anyOf raw schemas
	variantKw        string // "oneOf" or "anyOf"
	additional       any    // additionalProperties schema
	ref              string // component name when it came from a $ref
	circular         bool   // the $ref is already being expanded
}

type prop struct {
	name string
	raw  any
}

// resolver flattens schemas for one rendering and collects its problems.
type resolver struct {
	d        *Doc
	problems []string
	seen     map[string]bool
	budget   int // fields left to render, against documents that explode
	// requiredOnly makes request examples of objects hold their required
	// properties only (Examples.RequiredOnly).
	requiredOnly bool
	// exampleLeft is the values left to the example being built
	// (exampleOf), against schemas whose examples explode: eight levels of
	// ten properties each stand for a hundred million values.
	exampleLeft int
}

func newResolver(d *Doc) *resolver {
	return &resolver{d: d, seen: map[string]bool{}, budget: 3000}
}

func (r *resolver) problem(format string) {
	if !r.seen[format] {
		r.seen[format] = true
		r.problems = append(r.problems, format)
	}
}

// miss reports a $ref that leads nowhere, unless the document's Problems
// already say so (refs.go).
func (r *resolver) miss(ref string) {
	if r.d.bad[ref] {
		return
	}
	r.problem("missing $ref " + quote(ref))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// flatten reads raw. stack holds the components being expanded: a $ref to
// one of them is marked circular and not expanded again.
func (r *resolver) flatten(raw any, stack []string) *schema {
	s := &schema{required: map[string]bool{}}
	r.merge(s, raw, stack, 0)
	return s
}

func (r *resolver) merge(s *schema, raw any, stack []string, depth int) {
	if depth > 16 {
		return
	}
	o, _ := raw.(*obj)
	if o == nil {
		return
	}
	if ref, ok := o.get("$ref").(string); ok {
		name := refName(ref)
		for _, st := range stack {
			if st == ref {
				s.circular = true
				if s.ref == "" {
					s.ref = name
				}
				if t := r.d.derefObj(o, nil); t != nil {
					s.types = appendTypes(s.types, t)
					if s.desc == "" {
						s.desc = t.str("description")
					}
				}
				return
			}
		}
		t, ok := r.d.pointer(ref)
		if !ok {
			r.miss(ref)
			return
		}
		if s.ref == "" {
			s.ref = name
		}
		// 3.1 allows siblings of $ref; read them first so they win.
		r.mergeLocal(s, o, stack, depth)
		r.merge(s, t, append(stack[:len(stack):len(stack)], ref), depth+1)
		return
	}
	r.mergeLocal(s, o, stack, depth)
	for _, sub := range o.list("allOf") {
		r.merge(s, sub, stack, depth+1)
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		if l := o.list(kw); len(l) > 0 && len(s.variants) == 0 {
			// A oneOf of a schema and {type: null} is just nullable.
			var rest []any
			for _, v := range l {
				if vo, ok := v.(*obj); ok && vo.str("type") == "null" {
					s.nullable = true
					continue
				}
				rest = append(rest, v)
			}
			if len(rest) == 1 {
				r.merge(s, rest[0], stack, depth+1)
				continue
			}
			s.variants, s.variantKw = rest, kw
		}
	}
}

func appendTypes(types []string, o *obj) []string {
	add := func(t string) {
		for _, x := range types {
			if x == t {
				return
			}
		}
		types = append(types, t)
	}
	switch t := o.get("type").(type) {
	case string:
		add(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				add(s)
			}
		}
	}
	if len(types) == 0 && (o.has("properties") || o.has("additionalProperties")) {
		add("object")
	}
	if len(types) == 0 && o.has("items") {
		add("array")
	}
	return types
}

// mergeLocal merges the keywords of o itself; earlier values win.
func (r *resolver) mergeLocal(s *schema, o *obj, stack []string, depth int) {
	s.types = appendTypes(s.types, o)
	for i, t := range s.types {
		if t == "null" {
			s.nullable = true
			s.types = append(s.types[:i:i], s.types[i+1:]...)
			break
		}
	}
	if o.get("nullable") == true {
		s.nullable = true
	}
	if s.title == "" {
		s.title = o.str("title")
	}
	if s.desc == "" {
		s.desc = o.str("description")
	}
	if s.format == "" {
		s.format = o.str("format")
	}
	if s.contentMediaType == "" {
		s.contentMediaType = o.str("contentMediaType")
	}
	if props := o.obj("properties"); props != nil {
		have := map[string]bool{}
		for _, p := range s.props {
			have[p.name] = true
		}
		for _, k := range props.keys {
			if !have[k] {
				s.props = append(s.props, prop{name: k, raw: props.m[k]})
			}
		}
	}
	for _, q := range o.list("required") {
		if name, ok := q.(string); ok {
			s.required[name] = true
		}
	}
	if s.items == nil && o.has("items") {
		s.items = o.get("items")
	}
	if s.additional == nil {
		if a, ok := o.get("additionalProperties").(*obj); ok {
			s.additional = a
		}
	}
	if s.enum == nil {
		s.enum = o.list("enum")
		if s.enum == nil && o.has("const") {
			s.enum = []any{o.get("const")}
		}
	}
	if !s.hasDef && o.has("default") {
		s.def, s.hasDef = o.get("default"), true
	}
	if !s.hasExample {
		if o.has("example") {
			s.example, s.hasExample = o.get("example"), true
		} else if ex := o.list("examples"); len(ex) > 0 {
			s.example, s.hasExample = ex[0], true
		}
	}
	if o.get("deprecated") == true {
		s.deprecated = true
	}
	if o.get("readOnly") == true {
		s.readOnly = true
	}
	if o.get("writeOnly") == true {
		s.writeOnly = true
	}
}

// isObject reports whether s has fields to show.
func (s *schema) isObject() bool { return len(s.props) > 0 }

// typeName is the type as shown: "string", "object[]", "integer | null".
func (r *resolver) typeName(s *schema, stack []string) string {
	var parts []string
	for _, t := range s.types {
		if t == "array" {
			item := "any"
			if s.items != nil {
				is := r.flatten(s.items, stack)
				item = r.typeName(is, stack)
				if strings.Contains(item, " | ") {
					item = "(" + item + ")"
				}
			}
			parts = append(parts, item+"[]")
			continue
		}
		if t == "object" && s.additional != nil && len(s.props) == 0 {
			parts = append(parts, "object")
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		switch {
		case s.variants != nil:
			parts = append(parts, s.variantKw)
		case len(s.enum) > 0:
			parts = append(parts, jsonType(s.enum[0]))
		case s.ref != "":
			parts = append(parts, s.ref)
		default:
			parts = append(parts, "any")
		}
	}
	if s.nullable {
		parts = append(parts, "null")
	}
	return strings.Join(parts, " | ")
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case *obj:
		return "object"
	}
	return "any"
}

// maxExampleValues bounds the values of an example built from a schema:
// past it, objects get no more properties and arrays no items.
const maxExampleValues = 2000

// exampleOf builds an example value for the schema raw (example), of at
// most maxExampleValues values.
func (r *resolver) exampleOf(raw any, forRequest bool) any {
	r.exampleLeft = maxExampleValues
	return r.example(raw, nil, 0, forRequest)
}

// example builds an example value for raw: its example, default or first
// enum value, else one made from its type.
func (r *resolver) example(raw any, stack []string, depth int, forRequest bool) any {
	r.exampleLeft--
	s := r.flatten(raw, stack)
	if s.hasExample {
		return s.example
	}
	if s.hasDef {
		return s.def
	}
	if len(s.enum) > 0 {
		return s.enum[0]
	}
	if s.circular || depth > 8 {
		if len(s.types) > 0 && s.types[0] == "array" {
			return []any{}
		}
		return &obj{m: map[string]any{}}
	}
	if len(s.types) == 0 && len(s.variants) > 0 {
		return r.example(s.variants[0], r.stackFor(stack, raw), depth+1, forRequest)
	}
	sub := r.stackFor(stack, raw)
	t := "object"
	if len(s.types) > 0 {
		t = s.types[0]
	} else if !s.isObject() {
		t = "string"
	}
	switch t {
	case "string":
		switch s.format {
		case "date-time":
			return "2023-11-07T05:31:56Z"
		case "date":
			return "2023-12-25"
		case "uuid":
			return "3c90c3cc-0d44-4b50-8888-8dd25736052a"
		case "email":
			return "jsmith@example.com"
		case "uri", "url":
			return "https://example.com"
		}
		return "<string>"
	case "integer":
		return json.Number("123")
	case "number":
		return json.Number("123")
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		if s.items == nil || r.exampleLeft <= 0 {
			return []any{}
		}
		return []any{r.example(s.items, sub, depth+1, forRequest)}
	}
	o := &obj{m: map[string]any{}}
	for _, p := range s.props {
		if r.exampleLeft <= 0 {
			break
		}
		ps := r.flatten(p.raw, sub)
		if forRequest && ps.readOnly || !forRequest && ps.writeOnly || forRequest && r.requiredOnly && !s.required[p.name] {
			continue
		}
		o.keys = append(o.keys, p.name)
		o.m[p.name] = r.example(p.raw, sub, depth+1, forRequest)
	}
	if len(o.keys) == 0 && s.additional != nil && r.exampleLeft > 0 {
		o.keys = []string{"<key>"}
		o.m["<key>"] = r.example(s.additional, sub, depth+1, forRequest)
	}
	return o
}

// stackFor returns stack with the component raw refers to, if any.
func (r *resolver) stackFor(stack []string, raw any) []string {
	if o, ok := raw.(*obj); ok {
		if ref, ok := o.get("$ref").(string); ok {
			return append(stack[:len(stack):len(stack)], ref)
		}
	}
	return stack
}
