package openapi

import (
	"errors"
	"strings"
	"testing"
)

// refFiles is a docs folder whose OpenAPI document (api/openapi.yaml)
// $refs other files: YAML and JSON, a whole file, relative to the file
// holding the $ref, back into the document, in a cycle between two files,
// and targets that are missing, outside the folder or on another host.
var refFiles = map[string]string{
	"api/openapi.yaml": `openapi: 3.1.0
info: {title: Pets}
paths:
  /pets:
    get:
      parameters:
        - $ref: "common.json#/components/parameters/Limit"
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "./schemas/pet.yaml#/Pet"}
        "400":
          $ref: "common.json#/components/responses/Bad"
        "404":
          description: gone
          content:
            application/json:
              schema:
                type: object
                properties:
                  tag: {$ref: "schemas/tag.yaml"}
                  missing: {$ref: "./schemas/missing.yaml#/X"}
                  nope: {$ref: "./schemas/pet.yaml#/Nope"}
                  outside: {$ref: "../../secrets.yaml#/X"}
                  remote: {$ref: "https://schemas.test/x.json#/X"}
                  local: {$ref: "#/components/schemas/Id"}
components:
  schemas:
    Id: {type: string, description: An identifier}
`,
	"api/common.json": `{
  "components": {
    "parameters": {"Limit": {"name": "limit", "in": "query", "schema": {"type": "integer"}}},
    "responses": {"Bad": {"description": "bad request", "content": {"application/json": {
      "schema": {"$ref": "#/components/schemas/Error"}}}}},
    "schemas": {"Error": {"type": "object", "properties": {
      "message": {"type": "string"},
      "detail": {"$ref": "./schemas/nothing.json"}}}}
  }
}`,
	"api/schemas/pet.yaml": `Pet:
  type: object
  properties:
    id: {$ref: "../openapi.yaml#/components/schemas/Id"}
    category: {$ref: "#/Category"}
    owner: {$ref: "./owner.yaml#/Owner"}
Category:
  type: string
  enum: [dog, cat]
`,
	"api/schemas/owner.yaml": `Owner:
  type: object
  properties:
    name: {type: string}
    pets:
      type: array
      items: {$ref: "pet.yaml#/Pet"}
`,
	"api/schemas/tag.yaml": `type: object
properties:
  label: {type: string}
`,
}

func TestParseFilesRefs(t *testing.T) {
	t.Parallel()
	reads := map[string]int{}
	read := func(name string) ([]byte, error) {
		reads[name]++
		if strings.HasPrefix(name, "https://") {
			return nil, errors.New("not fetched (remote fetching is off)")
		}
		data, ok := refFiles[name]
		if !ok {
			return nil, errors.New("not found")
		}
		return []byte(data), nil
	}
	d, err := ParseFiles("api/openapi.yaml", []byte(refFiles["api/openapi.yaml"]), read)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", name, n)
		}
	}
	if _, ok := reads["secrets.yaml"]; ok || len(reads) != 7 {
		t.Errorf("files read: %v", reads)
	}
	var probs []string
	for _, p := range d.Problems {
		probs = append(probs, p.String())
	}
	want := []string{
		`api/openapi.yaml:24: $ref "./schemas/missing.yaml#/X": api/schemas/missing.yaml cannot be read: not found`,
		`api/openapi.yaml:25: $ref "./schemas/pet.yaml#/Nope": no /Nope in api/schemas/pet.yaml`,
		`api/openapi.yaml:26: $ref "../../secrets.yaml#/X": the file is outside the docs folder; not read`,
		`api/openapi.yaml:27: $ref "https://schemas.test/x.json#/X": https://schemas.test/x.json cannot be read: not fetched (remote fetching is off)`,
		`api/common.json:8: $ref "./schemas/nothing.json": api/schemas/nothing.json cannot be read: not found`,
	}
	if strings.Join(probs, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(probs, "\n"), strings.Join(want, "\n"))
	}

	op := d.Find(Ref{Method: "GET", Path: "/pets"})
	if op == nil {
		t.Fatal("operation not found")
	}
	p := Render(op, Options{})
	for _, w := range []string{
		`<code class="lc-field-name">limit</code>`, // parameter from common.json
		`bad request`, // response from common.json
		`<code class="lc-field-name">message</code>`,  // its schema, a local $ref of common.json
		`<code class="lc-field-name">category</code>`, // a local $ref of pet.yaml
		`dog`,           // its enum
		`An identifier`, // back into the document
		`<code class="lc-field-name">pets</code>`,                 // owner.yaml
		`circular reference`,                                      // Pet → Owner → Pet
		`<code class="lc-field-name">label</code>`,                // a whole file
		"Items have the same structure as <code>Pet</code> above", // named by its pointer
	} {
		if !strings.Contains(p.HTML, w) {
			t.Errorf("HTML lacks %s", w)
		}
	}
	// The $refs the document's Problems name are not reported again.
	if len(p.Problems) != 0 {
		t.Errorf("render problems: %q", p.Problems)
	}
}

func TestParseFilesWithoutReader(t *testing.T) {
	t.Parallel()
	d, err := ParseFiles("api/openapi.yaml", []byte(refFiles["api/openapi.yaml"]), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := Render(d.Find(Ref{Method: "GET", Path: "/pets"}), Options{})
	if len(d.Problems) != 0 || !strings.Contains(strings.Join(p.Problems, "\n"), `missing $ref "./schemas/pet.yaml#/Pet"`) {
		t.Errorf("doc problems %v, render problems %q", d.Problems, p.Problems)
	}
}

func TestRefTarget(t *testing.T) {
	t.Parallel()
	d := &Doc{Name: "api/openapi.yaml"}
	for _, c := range []struct{ file, ref, target, frag, err string }{
		{"api/openapi.yaml", "#/a", "api/openapi.yaml", "/a", ""},
		{"api/openapi.yaml", "x.yaml", "api/x.yaml", "", ""},
		{"api/openapi.yaml", "./s/x.yaml#/A/b", "api/s/x.yaml", "/A/b", ""},
		{"api/s/x.yaml", "../y.json#/B", "api/y.json", "/B", ""},
		{"api/s/x.yaml", "/shared/z.yaml#/C", "shared/z.yaml", "/C", ""},
		{"api/s/x.yaml", "a%20b.yaml", "api/s/a b.yaml", "", ""},
		{"api/openapi.yaml", "../../x.yaml", "", "", "outside the docs folder"},
		{"api/openapi.yaml", "../x.yaml", "x.yaml", "", ""},
		{"api/openapi.yaml", "file:///etc/passwd", "", "", "only files of the docs folder"},
		{"api/openapi.yaml", `..\x.yaml`, "", "", "only files of the docs folder"},
		{"api/openapi.yaml", "x.yaml#A", "", "", "not a JSON pointer"},
		{"api/openapi.yaml", "https://h.test/a/b.json#/X", "https://h.test/a/b.json", "/X", ""},
		{"https://h.test/a/b.json", "c.json#/Y", "https://h.test/a/c.json", "/Y", ""},
		{"https://h.test/a/b.json", "../../../c.json", "https://h.test/c.json", "", ""},
	} {
		target, frag, err := d.refTarget(c.file, c.ref)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("refTarget(%q, %q) error %v, want %q", c.file, c.ref, err, c.err)
		case c.err == "" && (err != nil || target != c.target || frag != c.frag):
			t.Errorf("refTarget(%q, %q) = %q, %q, %v; want %q, %q", c.file, c.ref, target, frag, err, c.target, c.frag)
		}
	}
}

func TestRefName(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]string{
		"#/components/schemas/Pet": "Pet", "api/schemas/pet.yaml#/Pet": "Pet", "api/schemas/tag.yaml": "tag",
		"api/x.json#/a~1b": "a/b", "https://h.test/s/common.json#/X": "X", "https://h.test/s/common.json": "common",
	} {
		if got := refName(ref); got != want {
			t.Errorf("refName(%q) = %q, want %q", ref, got, want)
		}
	}
}
