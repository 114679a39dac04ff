package openapi

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Ref{
		"GET /plants":                  {Method: "GET", Path: "/plants"},
		"post /plants":                 {Method: "POST", Path: "/plants"},
		"api.json DELETE /plants/{id}": {File: "api.json", Method: "DELETE", Path: "/plants/{id}"},
		"WEBHOOK /plant/webhook":       {Method: "WEBHOOK", Path: "/plant/webhook"},
		"spec.yaml webhook order.done": {File: "spec.yaml", Method: "WEBHOOK", Path: "order.done"},
	} {
		got, ok := ParseRef(in)
		if !ok || got != want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "/plants", "FETCH /x", "a b c d"} {
		if _, ok := ParseRef(bad); ok {
			t.Errorf("ParseRef(%q) ok", bad)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"openapi": "3.0.0"`:               "invalid JSON",
		`{"swagger": "2.0", "paths": {}}`:   "Swagger 2.0",
		`{"openapi": "4.0.0", "paths": {}}`: "not supported",
		`{"openapi": "3.1.0"}`:              `no "paths"`,
		"openapi: 3.0.0\npaths: [\n":        "invalid YAML",
		`[1]`:                               "not an object",
	} {
		if _, err := Parse("x", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestCycleAndMissingRef(t *testing.T) {
	t.Parallel()
	d, err := Parse("x", []byte(`{"openapi": "3.1.0", "paths": {"/n": {"get": {"responses": {
	  "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
	  "500": {"$ref": "#/components/responses/Missing"}}}}},
	  "components": {"schemas": {"Node": {"type": "object", "properties": {
	    "next": {"$ref": "#/components/schemas/Node"}, "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
	    "a~b": {"$ref": "#/components/schemas/A~0b"}}}, "A~b": {"type": "string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	op := d.Find(Ref{Method: "GET", Path: "/n/"})
	if op == nil {
		t.Fatal("operation not found")
	}
	p := Render(op, Options{})
	if !strings.Contains(p.HTML, "circular reference") || !strings.Contains(p.HTML, `<code class="lc-field-name">a~b</code><span class="lc-field-type">string</span>`) {
		t.Errorf("unexpected HTML:\n%s", p.HTML)
	}
	if len(p.Problems) != 1 || p.Problems[0] != `missing $ref "#/components/responses/Missing"` {
		t.Errorf("problems = %q", p.Problems)
	}
	if p.Playground || strings.Contains(p.HTML, "data-lc-playground") {
		t.Error("playground without Options.Playground")
	}
}

// TestExampleBudget builds the example of a schema of nine levels of ten
// properties, each the schema of the next level (a billion values in
// full): it holds at most maxExampleValues values, and the page of an
// operation that sends and returns it is rendered.
func TestExampleBudget(t *testing.T) {
	t.Parallel()
	var schemas []string
	for l := 0; l < 9; l++ {
		var props []string
		for i := 0; i < 10; i++ {
			props = append(props, fmt.Sprintf(`"p%d": {"$ref": "#/components/schemas/N%d"}`, i, l+1))
		}
		schemas = append(schemas, fmt.Sprintf(`"N%d": {"type": "object", "properties": {%s}}`, l, strings.Join(props, ", ")))
	}
	schemas = append(schemas, `"N9": {"type": "array", "items": {"type": "string"}}`)
	ref := `{"schema": {"$ref": "#/components/schemas/N0"}}`
	d, err := Parse("x", []byte(`{"openapi": "3.1.0", "paths": {"/n": {"post": {
	  "requestBody": {"content": {"application/json": `+ref+`}},
	  "responses": {"200": {"description": "ok", "content": {"application/json": `+ref+`}}}}}},
	  "components": {"schemas": {`+strings.Join(schemas, ", ")+`}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var count func(v any) int
	count = func(v any) int {
		n := 1
		switch x := v.(type) {
		case *obj:
			for _, k := range x.keys {
				n += count(x.m[k])
			}
		case []any:
			for _, e := range x {
				n += count(e)
			}
		}
		return n
	}
	r := newResolver(d)
	ex := r.exampleOf(&obj{keys: []string{"$ref"}, m: map[string]any{"$ref": "#/components/schemas/N0"}}, true)
	if n := count(ex); n > maxExampleValues || n < maxExampleValues/2 {
		t.Errorf("the example holds %d values; want at most %d, and most of them", n, maxExampleValues)
	}
	var all []string
	for _, l := range languages {
		all = append(all, l.key)
	}
	p := Render(d.Find(Ref{Method: "POST", Path: "/n"}), Options{Playground: true, Examples: Examples{Languages: all}})
	if !strings.Contains(p.HTML, `class="lc-request-example"`) || !strings.Contains(p.HTML, `class="lc-response-example"`) {
		t.Errorf("the page lacks its examples")
	}
}

// TestPowerShellQuotes: PowerShell reads the typographic single quotes as
// quotes, so a value holding one is doubled like ' to stay in its string.
func TestPowerShellQuotes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":         "'plain'",
		"it's":          "'it''s'",
		"don’t ‘x’ ‚y‛": "'don’’t ‘‘x’’ ‚‚y‛‛'",
	} {
		if got := psq(in); got != want {
			t.Errorf("psq(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestLargeRequestOneLanguage: a request over maxSnippetRequest is written
// in the first language only, a smaller one in each.
func TestLargeRequestOneLanguage(t *testing.T) {
	t.Parallel()
	for size, want := range map[int]int{100: len(DefaultLanguages), maxSnippetRequest + 1: 1} {
		d, err := Parse("x", []byte(`{"openapi": "3.1.0", "paths": {"/n": {"post": {"requestBody": {"content": {"application/json": {
		  "example": {"text": "`+strings.Repeat("x", size)+`"}}}}}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		p := Render(d.Find(Ref{Method: "POST", Path: "/n"}), Options{})
		req := p.HTML[strings.Index(p.HTML, `class="lc-request-example"`):]
		if got := strings.Count(req[:strings.Index(req, "</div></div>")], `class="lc-code"`); got != want {
			t.Errorf("a body of %d bytes is written in %d languages, want %d", size, got, want)
		}
	}
}

// TestRequestParametersBounded: parameters that share a large schema
// through $refs stop being added to the request examples past
// maxSnippetRequest bytes, however many the operation lists.
func TestRequestParametersBounded(t *testing.T) {
	t.Parallel()
	var props, params []string
	for i := 0; i < 500; i++ {
		props = append(props, fmt.Sprintf(`"p%d": {"type": "string"}`, i))
	}
	for i := 0; i < 3000; i++ {
		params = append(params, fmt.Sprintf(`{"name": "q%d", "in": "query", "schema": {"$ref": "#/components/schemas/Big"}}`, i))
	}
	d, err := Parse("x", []byte(`{"openapi": "3.1.0", "paths": {"/p": {"get": {"parameters": [`+strings.Join(params, ", ")+`]}}},
	  "components": {"schemas": {"Big": {"type": "object", "properties": {`+strings.Join(props, ", ")+`}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := &writer{r: newResolver(d), ops: d.Operations[0]}
	one := len(paramExample(w.params()[0], w.r))
	req := w.request(w.params(), nil)
	if n := req.size(); n > 3*(maxSnippetRequest+one) { // URL escapes triple a byte at most
		t.Errorf("the request is %d bytes, with parameters of %d bytes each", n, one)
	}
	if !strings.Contains(req.URL, "q0=") {
		t.Errorf("the first parameter is left out: %.200s", req.URL)
	}
}

// TestCodeSamplesBounded: code samples that are $refs to one large sample
// stop past maxCodeSamples bytes together; the first is always kept.
func TestCodeSamplesBounded(t *testing.T) {
	t.Parallel()
	refs := strings.Repeat(`{"$ref": "#/components/x-samples/Big"}, `, 100)
	d, err := Parse("x", []byte(`{"openapi": "3.1.0", "paths": {"/p": {"get": {"x-codeSamples": [`+refs+`{"lang": "go", "source": "x"}]}}},
	  "components": {"x-samples": {"Big": {"lang": "python", "source": "`+strings.Repeat("x", maxCodeSamples/3)+`"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := &writer{r: newResolver(d), ops: d.Operations[0]}
	if got := len(w.codeSamples()); got != 3 {
		t.Errorf("%d code samples, want the 3 within %d bytes", got, maxCodeSamples)
	}
}
