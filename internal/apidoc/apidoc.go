// Package apidoc writes the API reference (docs/api.md) from the OpenAPI
// document (httpapi/openapi.json), so that the two cannot disagree: every
// operation with its parameters, body, responses, error codes, the methods
// its path takes (any other answers 405) and a curl example, then every
// schema with its fields. Its test fails when
// docs/api.md is not what the current document generates; `go test
// ./internal/apidoc -update` rewrites it.
package apidoc

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// doc is the OpenAPI document, decoded generically.
type doc struct {
	root map[string]any
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }

// resolve follows a local $ref ("#/components/schemas/X").
func (d *doc) resolve(v map[string]any) map[string]any {
	for i := 0; i < 10 && v != nil; i++ {
		ref := str(v["$ref"])
		if ref == "" {
			return v
		}
		cur := any(d.root)
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cur = obj(cur)[part]
		}
		v = obj(cur)
	}
	return v
}

// refName is the last segment of a $ref, or "".
func refName(v map[string]any) string {
	ref := str(v["$ref"])
	return ref[strings.LastIndexByte(ref, '/')+1:]
}

// anchor is the Markdown heading anchor of a schema heading.
func anchor(name string) string { return "#" + strings.ToLower(name) }

// oneLine makes text safe for a table cell.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\n\n", "<br>")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// typeOf describes a schema's type for a table: scalar types with their
// format or enum, arrays, links to named schemas, and "or null".
func (d *doc) typeOf(s map[string]any) string {
	if s == nil {
		return "any"
	}
	if name := refName(s); name != "" {
		return "[" + name + "](" + anchor(name) + ")"
	}
	var alts []string
	for _, key := range []string{"oneOf", "anyOf"} {
		for _, a := range arr(s[key]) {
			alts = append(alts, d.typeOf(obj(a)))
		}
	}
	if len(alts) > 0 {
		return strings.Join(alts, " or ")
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, str(x))
		}
	}
	var parts []string
	for _, t := range types {
		switch t {
		case "array":
			parts = append(parts, "array of "+d.typeOf(obj(s["items"])))
		case "null":
			continue
		default:
			p := t
			if f := str(s["format"]); f != "" {
				p += " (" + f + ")"
			}
			parts = append(parts, p)
		}
	}
	out := strings.Join(parts, " or ")
	if out == "" {
		out = "object"
	}
	if e := arr(s["enum"]); len(e) > 0 {
		var vals []string
		for _, v := range e {
			b, _ := json.Marshal(v)
			vals = append(vals, "`"+string(b)+"`")
		}
		out += ": " + strings.Join(vals, ", ")
	}
	if lo, ok := s["minimum"].(float64); ok {
		out += fmt.Sprintf(", ≥ %g", lo)
	}
	if hi, ok := s["maximum"].(float64); ok {
		out += fmt.Sprintf(", ≤ %g", hi)
	}
	if strings.Contains(fmt.Sprint(s["type"]), "null") {
		out += " or null"
	}
	return out
}

// fields writes a schema's properties as a table.
func (d *doc) fields(b *strings.Builder, s map[string]any) {
	s = d.resolve(s)
	props := obj(s["properties"])
	if len(props) == 0 {
		return
	}
	required := map[string]bool{}
	for _, r := range arr(s["required"]) {
		required[str(r)] = true
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	// Required fields first, then in name order: a stable, useful order.
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	b.WriteString("| field | type | required | description |\n|---|---|---|---|\n")
	for _, n := range names {
		p := obj(props[n])
		desc := str(p["description"])
		if desc == "" {
			desc = str(d.resolve(p)["description"])
		}
		req := ""
		if required[n] {
			req = "yes"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", n, d.typeOf(p), req, oneLine(desc))
	}
	b.WriteString("\n")
}

// codes returns the problem codes a response names: the enum of its
// schema's code property, where a later part of an allOf (the specific
// response) overrides an earlier one (the generic problem).
func (d *doc) codes(resp map[string]any) []string {
	var of func(s map[string]any) []string
	of = func(s map[string]any) []string {
		s = d.resolve(s)
		var out []string
		for _, c := range arr(obj(obj(s["properties"])["code"])["enum"]) {
			out = append(out, str(c))
		}
		if len(out) > 0 {
			return out
		}
		for _, a := range arr(s["allOf"]) {
			if c := of(obj(a)); len(c) > 0 {
				out = c
			}
		}
		return out
	}
	var out []string
	for _, media := range obj(resp["content"]) {
		out = append(out, of(obj(obj(media)["schema"]))...)
	}
	return out
}

// example builds an example JSON value for a schema from its examples,
// defaults and types.
func (d *doc) example(s map[string]any, depth int) any {
	s = d.resolve(s)
	if s == nil || depth > 4 {
		return nil
	}
	if ex := arr(s["examples"]); len(ex) > 0 {
		return ex[len(ex)-1]
	}
	if ex, ok := s["example"]; ok {
		return ex
	}
	if props := obj(s["properties"]); len(props) > 0 {
		out := map[string]any{}
		for _, r := range arr(s["required"]) {
			out[str(r)] = d.example(obj(props[str(r)]), depth+1)
		}
		return out
	}
	switch fmt.Sprint(s["type"]) {
	case "integer", "number":
		return 0
	case "boolean":
		return false
	}
	return "…"
}

var methods = []string{"get", "post", "put", "patch", "delete"}

// Markdown returns the API reference of the OpenAPI document spec.
func Markdown(spec []byte) ([]byte, error) {
	d := &doc{}
	if err := json.Unmarshal(spec, &d.root); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid JSON: %w", err)
	}
	info := obj(d.root["info"])
	base := ""
	if servers := arr(d.root["servers"]); len(servers) > 0 {
		base = strings.TrimSuffix(str(obj(servers[0])["url"]), "/")
	}
	paths := obj(d.root["paths"])
	var pathNames []string
	for p := range paths {
		pathNames = append(pathNames, p)
	}
	sort.Strings(pathNames)

	var b strings.Builder
	fmt.Fprintf(&b, "# %s reference\n\n", str(info["title"]))
	b.WriteString("<!-- Generated from httpapi/openapi.json by `go test ./internal/apidoc -update`. Edit the OpenAPI document, not this file. -->\n\n")
	fmt.Fprintf(&b, "Version %s. Every path below starts with `%s`; the OpenAPI document itself is served at `GET %s/openapi.json`. ", str(info["version"]), base, base)
	b.WriteString("The examples use `LECTERN_API_URL` (where the server is reached, e.g. `http://127.0.0.1:8080`) and `LECTERN_API_KEY` (an admin API key).\n\n")
	b.WriteString(strings.TrimSpace(str(info["description"])) + "\n\n")

	b.WriteString("## Operations\n\n| operation | request | success |\n|---|---|---|\n")
	type op struct {
		method, path, allow string
		v                   map[string]any
	}
	var ops []op
	for _, p := range pathNames {
		for _, m := range methods {
			if v := obj(obj(paths[p])[m]); v != nil {
				ops = append(ops, op{m, p, Allow(obj(paths[p])), v})
			}
		}
	}
	for _, o := range ops {
		success := ""
		for code := range obj(o.v["responses"]) {
			if strings.HasPrefix(code, "2") {
				success = code
			}
		}
		fmt.Fprintf(&b, "| [%s](#%s) | `%s %s%s` | %s |\n", str(o.v["summary"]), strings.ToLower(str(o.v["operationId"])),
			strings.ToUpper(o.method), base, o.path, success)
	}
	b.WriteString("\n")

	for _, o := range ops {
		d.operation(&b, base, o.method, o.path, o.allow, o.v)
	}

	b.WriteString("## Schemas\n\n")
	schemas := obj(obj(d.root["components"])["schemas"])
	var names []string
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := obj(schemas[n])
		fmt.Fprintf(&b, "### %s\n\n", n)
		if desc := strings.TrimSpace(str(s["description"])); desc != "" {
			b.WriteString(desc + "\n\n")
		}
		d.fields(&b, s)
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n"), nil
}

// Allow is the Allow header of the 405 that a path of the document
// answers to a method it does not take: its methods, and HEAD with GET,
// in name order, as the server sends it.
func Allow(pathItem map[string]any) string {
	var allow []string
	for _, m := range methods {
		if obj(pathItem[m]) != nil {
			allow = append(allow, strings.ToUpper(m))
			if m == "get" {
				allow = append(allow, "HEAD")
			}
		}
	}
	sort.Strings(allow)
	return strings.Join(allow, ", ")
}

// operation writes one operation's section.
func (d *doc) operation(b *strings.Builder, base, method, path, allow string, v map[string]any) {
	id := str(v["operationId"])
	fmt.Fprintf(b, "<a id=\"%s\"></a>\n## %s\n\n`%s %s%s` (`%s`)\n\n", strings.ToLower(id), str(v["summary"]),
		strings.ToUpper(method), base, path, id)
	if desc := strings.TrimSpace(str(v["description"])); desc != "" {
		b.WriteString(desc + "\n\n")
	}
	auth := v["security"] == nil || len(arr(v["security"])) > 0
	if auth {
		b.WriteString("Needs `Authorization: Bearer <admin API key>`.\n\n")
	} else {
		b.WriteString("Needs no authorization.\n\n")
	}
	if params := arr(v["parameters"]); len(params) > 0 {
		b.WriteString("**Parameters**\n\n| name | in | required | type | description |\n|---|---|---|---|---|\n")
		for _, raw := range params {
			p := d.resolve(obj(raw))
			req := ""
			if p["required"] == true {
				req = "yes"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", str(p["name"]), str(p["in"]), req, d.typeOf(obj(p["schema"])), oneLine(str(p["description"])))
		}
		b.WriteString("\n")
	}
	var body map[string]any
	if rb := d.resolve(obj(v["requestBody"])); rb != nil {
		for media, c := range obj(rb["content"]) {
			body = obj(obj(c)["schema"])
			req := "optional"
			if rb["required"] == true {
				req = "required"
			}
			fmt.Fprintf(b, "**Request body** (`%s`, %s): %s\n\n", media, req, oneLine(str(rb["description"])))
			if name := refName(body); name != "" {
				fmt.Fprintf(b, "Schema [%s](%s):\n\n", name, anchor(name))
			}
			d.fields(b, body)
		}
	}
	b.WriteString("**Responses**\n\n| status | body | meaning | `code` |\n|---|---|---|---|\n")
	resps := obj(v["responses"])
	var statuses []string
	for s := range resps {
		statuses = append(statuses, s)
	}
	sort.Strings(statuses)
	for _, s := range statuses {
		r := d.resolve(obj(resps[s]))
		content := obj(r["content"])
		medias := make([]string, 0, len(content))
		for media := range content {
			medias = append(medias, media)
		}
		sort.Strings(medias) // a response may offer several: JSON, then CSV
		var bodies []string
		for _, media := range medias {
			t := d.typeOf(obj(obj(content[media])["schema"]))
			if strings.HasPrefix(media, "application/problem+json") {
				t = "[Problem](#problem)"
			}
			bodies = append(bodies, "`"+media+"` "+t)
		}
		bodyType := strings.Join(bodies, "<br>or ")
		var codes []string
		for _, c := range d.codes(r) {
			codes = append(codes, "`"+c+"`")
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", s, bodyType, oneLine(str(r["description"])), strings.Join(codes, ", "))
	}
	// Not a response of this operation but of the path: the one error a
	// request can meet that no operation's responses can hold.
	fmt.Fprintf(b, "\nAny other method on `%s%s` answers 405 `method_not_allowed`, with `Allow: %s`.\n", base, path, allow)
	b.WriteString("\n**Example**\n\n```sh\ncurl -s")
	if method != "get" {
		b.WriteString(" -X " + strings.ToUpper(method))
	}
	if auth {
		b.WriteString(` -H "Authorization: Bearer $LECTERN_API_KEY"`)
	}
	if body != nil {
		ex, _ := json.Marshal(d.example(body, 0))
		b.WriteString(` -H 'Content-Type: application/json' -d '` + string(ex) + `'`)
	}
	url := path
	for _, raw := range arr(v["parameters"]) {
		p := d.resolve(obj(raw))
		if str(p["in"]) == "path" {
			url = strings.ReplaceAll(url, "{"+str(p["name"])+"}", "$"+shellName(str(p["name"])))
		}
	}
	fmt.Fprintf(b, " \"$LECTERN_API_URL%s%s\"\n```\n\n", base, url)
}

// shellName turns a parameter name into a shell variable: projectId is
// PROJECT_ID.
func shellName(name string) string {
	var b strings.Builder
	for i, r := range name {
		if 'A' <= r && r <= 'Z' && i > 0 {
			b.WriteByte('_')
		}
		b.WriteString(strings.ToUpper(string(r)))
	}
	return b.String()
}
