package openapi

import (
	"strings"
	"testing"
)

// TestMarkdownVariantsAndCycles: variants are listed under "One of", a
// circular $ref is named once rather than expanded, and nested fields are
// indented under their parent.
func TestMarkdownVariantsAndCycles(t *testing.T) {
	t.Parallel()
	d, err := Parse("x", []byte(`{"openapi": "3.1.0", "paths": {"/n": {"get": {"description": "Nodes.",
	  "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}],
	  "responses": {"200": {"description": "A node", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}}},
	  "components": {"schemas": {
	    "Node": {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#/components/schemas/Node"},
	      "shape": {"oneOf": [{"title": "Circle", "type": "object", "properties": {"r": {"type": "number"}}}, {"title": "Square", "type": "object", "properties": {"side": {"type": "number"}}}]}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := Markdown(d.Operations[0], MarkdownOptions{Content: "Page **text**."})
	for _, want := range []string{
		"`GET /n`\n\nNodes.\n\nPage **text**.\n\n## Path parameters\n\n- `id` (string, path, required)\n",
		"- `name` (string)\n- `child` (object)\n  Same structure as `Node` above (circular reference).\n",
		"- `shape` (oneOf)\n  - One of:\n    - `Circle` (object)\n      - `r` (number)\n    - `Square` (object)\n      - `side` (number)\n",
		"## Example responses\n\n**200**\n\n```json\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown lacks\n%s\n---- in ----\n%s", want, got)
		}
	}
	if !strings.Contains(got, "## Example request") {
		t.Errorf("no request example:\n%s", got)
	}
	if own := Markdown(d.Operations[0], MarkdownOptions{OwnRequestExample: true, OwnResponseExample: true}); strings.Contains(own, "## Example") {
		t.Errorf("with the page's own examples, generated ones are left out:\n%s", own)
	}
}

func TestFence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lang, code, want string }{
		{"go", "x := 1\n", "```go\nx := 1\n```"},
		{"md", "```js\nx\n```", "````md\n```js\nx\n```\n````"},
		{"", "a ````` b", "``````\na ````` b\n``````"},
	} {
		if got := Fence(c.lang, c.code); got != c.want {
			t.Errorf("Fence(%q, %q) = %q, want %q", c.lang, c.code, got, c.want)
		}
	}
}
