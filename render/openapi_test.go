package render

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern/render/features"
)

// spec30 is a small OpenAPI 3.0 document with a $ref'd nested schema, a
// cycle, an enum and several responses.
const spec30 = `{
  "openapi": "3.0.3",
  "info": {"title": "Pets", "version": "1"},
  "servers": [{"url": "https://api.pets.test/v1"}],
  "components": {
    "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}},
    "schemas": {
      "Pet": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "description": "The pet's name"},
        "kind": {"type": "string", "enum": ["cat", "dog"]},
        "owner": {"$ref": "#/components/schemas/Owner"},
        "friends": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}
      }},
      "Owner": {"type": "object", "properties": {"email": {"type": "string", "format": "email", "description": "Owner **email**"}}}
    }
  },
  "security": [{"key": []}],
  "paths": {
    "/pets/{petId}": {
      "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}, "description": "Pet id"}],
      "get": {
        "operationId": "getPet", "summary": "Get a pet", "tags": ["Pets"],
        "description": "Returns *one* pet.",
        "parameters": [
          {"name": "fields", "in": "query", "schema": {"type": "string", "enum": ["all", "short"], "default": "all"}},
          {"name": "X-Trace", "in": "header", "required": true, "schema": {"type": "string"}}
        ],
        "responses": {
          "200": {"description": "The pet", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}},
          "404": {"description": "Not found", "content": {"application/json": {"example": {"error": "no such pet"}}}}
        }
      }
    },
    "/pets": {
      "post": {
        "operationId": "createPet", "tags": ["Pets"],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}},
        "responses": {"201": {"description": "Created"}}
      }
    },
    "/broken": {
      "get": {"responses": {"200": {"description": "x", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}}
    }
  }
}
`

// spec31 is an OpenAPI 3.1 document in YAML with a webhook and type
// arrays.
const spec31 = `openapi: 3.1.0
info: {title: Store, version: "1"}
servers:
  - url: https://store.test
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
security: [{bearer: []}]
paths:
  /orders/{id}:
    delete:
      summary: Delete order
      parameters:
        - {name: id, in: path, required: true, schema: {type: [string, "null"]}}
      responses:
        "204": {description: Deleted}
webhooks:
  order.created:
    post:
      summary: Order created
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                id: {type: string, examples: ["ord_1"]}
      responses:
        "200": {description: OK}
`

func TestOpenAPIFrontMatterPages(t *testing.T) {
	t.Parallel()
	res, out := build(t, `
-- docs.json --
{"navigation": {"pages": ["index", "get", "create", "hook", "del", "unknown", "broken", "named"]}}
-- index.mdx --
Plain page.
-- specs/pets.json --
`+spec30+`
-- store.yaml --
`+spec31+`
-- get.mdx --
---
title: Get pet
openapi: "GET /pets/{petId}"
---
Extra **page content**.
-- create.mdx --
---
openapi: POST /pets
---
-- hook.mdx --
---
openapi: "WEBHOOK order.created"
---
-- del.mdx --
---
title: Delete
openapi: "store.yaml DELETE /orders/{id}"
---
-- unknown.mdx --
---
title: Unknown
openapi: "GET /nothing"
---
-- broken.mdx --
---
openapi: GET /broken
---
-- named.mdx --
---
title: Named
openapi: "specs/pets.json PATCH /pets"
---
`, Options{})
	get := out.get(t, "get.html")
	for _, want := range []string{
		`<span class="lc-method lc-method-get">GET</span><code class="lc-openapi-path">/pets/{petId}</code>`,
		`<p>Returns <em>one</em> pet.</p>`, `Extra <strong>page content</strong>.`,
		`<code class="lc-field-name">petId</code><span class="lc-field-type">integer</span><span class="lc-field-location">path</span><span class="lc-badge lc-required">required</span>`,
		`<code class="lc-field-name">fields</code><span class="lc-field-type">string</span><span class="lc-field-location">query</span><span class="lc-field-default">default: <code>all</code>`,
		`Available options: <code>all</code>, <code>short</code>`,
		`<code class="lc-field-name">X-Api-Key</code>`,
		`id="response-200"`, `id="response-404"`,
		`<code class="lc-field-name">owner</code><span class="lc-field-type">object</span>`,
		`Show child properties`, `<code class="lc-field-name">email</code>`, `Owner <strong>email</strong>`,
		`<code class="lc-field-name">friends</code><span class="lc-field-type">object[]</span>`,
		`circular reference`,
		`data-lc-playground`, `<option value="https://api.pets.test/v1">`, `data-pg-auth="apiKey"`,
		`<script src="/_lectern/playground.js" defer></script>`,
	} {
		if want = out.named(want); !strings.Contains(get, want) {
			t.Errorf("get.html lacks %s", want)
		}
	}
	for _, want := range []string{"curl --request GET \\\n  --url 'https://api.pets.test/v1/pets/{petId}?fields=all'",
		"--header 'X-Trace: <string>'", "--header 'X-Api-Key: <api-key>'",
		`"error": "no such pet"`, `"email": "jsmith@example.com"`,
		`response = requests.request("GET", url, headers=headers)`, `fetch("https://api.pets.test/v1/pets/{petId}?fields=all", options)`,
		`req, _ := http.NewRequest("GET", url, nil)`, `CURLOPT_CUSTOMREQUEST => 'GET'`, `Unirest.get(`} {
		if !strings.Contains(pageText(get), want) {
			t.Errorf("get.html's examples lack %s", want)
		}
	}
	create := out.get(t, "create.html")
	for _, want := range []string{`<span class="lc-method lc-method-post">POST</span>`, `id="body"`,
		`<code class="lc-field-name">name</code><span class="lc-field-type">string</span><span class="lc-field-location">body</span><span class="lc-badge lc-required">required</span>`,
		`"name": "<string>"`, `--data '{`, `data-pg-body`, `"kind": "cat"`, `json=payload`} {
		if !strings.Contains(create, want) && !strings.Contains(pageText(create), want) {
			t.Errorf("create.html lacks %s", want)
		}
	}
	hook := out.get(t, "hook.html")
	for _, want := range []string{`<span class="lc-method lc-method-webhook">WEBHOOK</span><code class="lc-openapi-path">order.created</code>`,
		`"id": "ord_1"`} {
		if !strings.Contains(hook, want) && !strings.Contains(pageText(hook), want) {
			t.Errorf("hook.html lacks %s", want)
		}
	}
	if strings.Contains(hook, "data-lc-playground") {
		t.Error("webhook page has a playground")
	}
	del := out.get(t, "del.html")
	for _, want := range []string{`<span class="lc-method lc-method-delete">DELETE</span>`, `string | null`,
		`--header 'Authorization: Bearer <token>'`, `data-pg-auth="bearer"`} {
		if !strings.Contains(del, want) && !strings.Contains(pageText(del), want) {
			t.Errorf("del.html lacks %s", want)
		}
	}
	index := out.get(t, "index.html")
	if strings.Contains(index, "data-lc-playground") || strings.Contains(index, "playground.js") || strings.Contains(index, "lc-openapi") {
		t.Error("a page without openapi has API markup")
	}
	if !out.has("_lectern/playground.js") {
		t.Error("no _lectern/playground.js")
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`unknown.mdx:3: unknown operation "GET /nothing": not in specs/pets.json, store.yaml`,
		`broken.mdx:2: OpenAPI specs/pets.json GET /broken: missing $ref "#/components/schemas/Nope"`,
		`named.mdx:3: unknown operation "specs/pets.json PATCH /pets": not in specs/pets.json`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %s; got:\n%s", want, all)
		}
	}
}

// pageText is the text of a page: its markup removed, its character
// references decoded.
func pageText(page string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(page, ""))
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

func TestOpenAPINavigationPages(t *testing.T) {
	t.Parallel()
	res, out := build(t, `
-- docs.json --
{"navigation": {"tabs": [
  {"tab": "Guides", "pages": ["index"]},
  {"tab": "API", "openapi": "/specs/pets.json"},
  {"tab": "Store", "groups": [{"group": "Orders", "openapi": {"source": "store.yaml", "directory": "store"}}]}
]}}
-- index.mdx --
Hi
-- specs/pets.json --
`+spec30+`
-- store.yaml --
`+spec31+`
`, Options{Export: true})
	// Mintlify's paths: the summary, else the method and path; the first
	// tag's folder; the openapi object's directory.
	for _, f := range []string{"api-reference/pets/get-a-pet.html", "api-reference/pets/post-pets.html", "api-reference/get-broken.html",
		"store/delete-order.html", "store/order-created.html"} {
		if !out.has(f) {
			t.Errorf("no %s; output: %v", f, slices.Sorted(maps.Keys(out.files)))
		}
	}
	if res.Pages != 6 {
		t.Errorf("Pages = %d, want 6", res.Pages)
	}
	page := out.get(t, "api-reference/pets/get-a-pet.html")
	for _, want := range []string{`<h1 class="lc-title">Get a pet</h1>`, `<p class="lc-nav-heading">Pets</p>`,
		`<script src="../../_lectern/playground.js" defer></script>`} {
		if want = out.named(want); !strings.Contains(page, want) {
			t.Errorf("get-a-pet.html lacks %s", want)
		}
	}
	if !strings.Contains(out.get(t, "store/delete-order.html"), `<p class="lc-nav-heading">Orders</p>`) {
		t.Error("store page not in its group")
	}
}

func TestOpenAPIInvalidSpecAndRemote(t *testing.T) {
	t.Parallel()
	res, out := build(t, `
-- docs.json --
{"navigation": {"pages": ["index", "a", "b", "c"]}}
-- index.mdx --
Hi
-- bad.json --
{"openapi": "3.0.0", "paths": {
-- old.yaml --
swagger: "2.0"
paths: {}
-- a.mdx --
---
openapi: "bad.json GET /x"
---
Still shown.
-- b.mdx --
---
openapi: "https://example.test/spec.json GET /x"
---
-- c.mdx --
---
openapi: "old.yaml GET /x"
---
`, Options{})
	var all []string
	for _, w := range res.Warnings {
		all = append(all, w.String())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		"a.mdx:2: invalid OpenAPI document bad.json: invalid JSON",
		"b.mdx:2: remote OpenAPI document https://example.test/spec.json not fetched (remote fetching is off)",
		"c.mdx:2: invalid OpenAPI document old.yaml: Swagger 2.0 documents are not supported",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning %q; got:\n%s", want, joined)
		}
	}
	if !strings.Contains(out.get(t, "a.html"), "Still shown.") {
		t.Error("page content lost")
	}
	if out.has("_lectern/playground.js") {
		t.Error("playground.js written without a playground")
	}
}

func TestOpenAPIDisablePlayground(t *testing.T) {
	t.Parallel()
	_, out := build(t, `
-- docs.json --
{"navigation": {"pages": ["get"]}}
-- pets.json --
`+spec30+`
-- get.mdx --
---
openapi: GET /pets/{petId}
---
`, Options{Features: &features.Site{Search: true}})
	if page := out.get(t, "get.html"); strings.Contains(page, "data-lc-playground") || strings.Contains(page, "playground.js") {
		t.Error("playground present with the playground off")
	}
	if out.has("_lectern/playground.js") {
		t.Error("playground.js written with the playground off")
	}
}

func TestOpenAPIStarterCorpus(t *testing.T) {
	t.Parallel()
	src := corpusDir + "mintlify-starter"
	if _, err := os.Stat(src + "/docs.json"); err != nil {
		t.Skipf("corpus not readable: %v", err)
	}
	out := newMemOutput()
	res, err := Build(context.Background(), os.DirFS(src), out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "OpenAPI") || strings.Contains(w.Message, "operation") {
			t.Errorf("warning: %s", w)
		}
	}
	for f, want := range map[string][]string{
		"api-reference/endpoint/get.html":     {`<span class="lc-method lc-method-get">GET</span><code class="lc-openapi-path">/plants</code>`, `<code class="lc-field-name">limit</code>`, `--url 'http://sandbox.mintlify.com/plants?limit=123'`},
		"api-reference/endpoint/create.html":  {`<span class="lc-method lc-method-post">POST</span><code class="lc-openapi-path">/plants</code>`, `id="body"`},
		"api-reference/endpoint/delete.html":  {`<span class="lc-method lc-method-delete">DELETE</span><code class="lc-openapi-path">/plants/{id}</code>`, `id="response-204"`},
		"api-reference/endpoint/webhook.html": {`<span class="lc-method lc-method-webhook">WEBHOOK</span><code class="lc-openapi-path">/plant/webhook</code>`},
	} {
		page := out.get(t, f)
		for _, w := range want {
			if !strings.Contains(page, w) && !strings.Contains(pageText(page), w) {
				t.Errorf("%s lacks %s", f, w)
			}
		}
	}
	if !out.has("_lectern/playground.js") {
		t.Error("no playground.js")
	}
	if strings.Contains(out.get(t, "quickstart.html"), "data-lc-playground") {
		t.Error("playground on a guide page")
	}
}

func TestOpenAPIRefsToOtherFiles(t *testing.T) {
	t.Parallel()
	const site = `
-- docs.json --
{"navigation": {"pages": ["index", "pets", "pets-again"], "groups": [{"group": "Reference", "openapi": "api/openapi.yaml"}]}}
-- index.mdx --
Hi
-- pets.mdx --
---
openapi: "api/openapi.yaml GET /pets"
---
-- pets-again.mdx --
---
openapi: GET /pets
---
-- api/openapi.yaml --
openapi: 3.1.0
info: {title: Pets}
paths:
  /pets:
    get:
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
                  missing: {$ref: "./schemas/missing.yaml#/X"}
                  outside: {$ref: "../../elsewhere.yaml#/X"}
                  remote: {$ref: "https://schemas.test/x.json#/X"}
-- api/common.json --
{"components": {"responses": {"Bad": {"description": "bad request", "content": {"application/json": {
  "schema": {"$ref": "./schemas/pet.yaml#/Nope"}}}}}}}
-- api/schemas/pet.yaml --
Pet:
  type: object
  properties:
    name: {type: string, description: What the pet answers to}
    owner: {$ref: "owner.yaml#/Owner"}
-- api/schemas/owner.yaml --
Owner:
  type: object
  properties:
    pets:
      type: array
      items: {$ref: "./pet.yaml#/Pet"}
`
	for _, export := range []bool{false, true} {
		res, out := build(t, site, Options{Export: export})
		var all []string
		for _, w := range res.Warnings {
			all = append(all, w.String())
		}
		want := []string{
			`api/openapi.yaml:21: OpenAPI $ref "./schemas/missing.yaml#/X": api/schemas/missing.yaml cannot be read: not found`,
			`api/openapi.yaml:22: OpenAPI $ref "../../elsewhere.yaml#/X": the file is outside the docs folder; not read`,
			`api/openapi.yaml:23: OpenAPI $ref "https://schemas.test/x.json#/X": https://schemas.test/x.json cannot be read: not fetched (remote fetching is off)`,
			`api/common.json:2: OpenAPI $ref "./schemas/pet.yaml#/Nope": no /Nope in api/schemas/pet.yaml`,
		}
		// Three pages show the operation; each problem is given once.
		if strings.Join(all, "\n") != strings.Join(want, "\n") {
			t.Errorf("export=%v: warnings:\n%s\nwant:\n%s", export, strings.Join(all, "\n"), strings.Join(want, "\n"))
		}
		for _, f := range []string{"pets.html", "pets-again.html", "api-reference/get-pets.html"} {
			page := out.get(t, f)
			for _, w := range []string{`<code class="lc-field-name">name</code>`, "What the pet answers to", `<code class="lc-field-name">pets</code>`,
				"circular reference", "bad request"} {
				if !strings.Contains(page, w) {
					t.Errorf("export=%v: %s lacks %s", export, f, w)
				}
			}
		}
	}
}

func TestOpenAPIRemoteRefs(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/specs/api.json": `{"openapi": "3.1.0", "paths": {"/x": {"get": {"responses": {"200": {"description": "ok",
  "content": {"application/json": {"schema": {"$ref": "common.json#/Thing"}}}}}}}}}`,
		"/specs/common.json": `{"Thing": {"type": "object", "properties": {"remoteField": {"type": "string"}}}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(data))
	}))
	defer srv.Close()
	site := "-- docs.json --\n{\"navigation\": {\"pages\": [\"x\"]}}\n-- x.mdx --\n---\nopenapi: \"" + srv.URL + "/specs/api.json GET /x\"\n---\n"
	res, out := build(t, site, Options{AllowRemote: true})
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	if !strings.Contains(out.get(t, "x.html"), `<code class="lc-field-name">remoteField</code>`) {
		t.Error("the remote $ref was not followed")
	}
}

// TestOpenAPIHostileSummaries builds the pages of operations whose
// summaries make paths that cannot be files as written: a summary too
// long for a file name is cut, summaries that differ only in characters
// a path cannot hold take the next suffixes, and an operation listed
// twice is one page.
func TestOpenAPIHostileSummaries(t *testing.T) {
	t.Parallel()
	var ops []string
	ops = append(ops, `"/long": {"get": {"summary": "`+strings.Repeat("long ", 100)+`"}}`)
	for i := 1; i <= 40; i++ {
		ops = append(ops, fmt.Sprintf(`"/x%d": {"get": {"summary": "x%s"}}`, i, strings.Repeat("?", i)))
	}
	_, out := build(t, `
-- docs.json --
{"navigation": {"tabs": [{"tab": "API", "openapi": "api.json"},
  {"tab": "More", "groups": [{"group": "G", "openapi": "api.json", "pages": ["GET /x1", "GET /x2"]}]}]}}
-- api.json --
{"openapi": "3.1.0", "paths": {`+strings.Join(ops, ",\n")+`}}
`, Options{})
	if long := "api-reference/" + strings.Repeat("long-", 40) + ".html"; !out.has(long) {
		t.Errorf("no %s; output: %v", long, slices.Sorted(maps.Keys(out.files)))
	}
	for i := 0; i < 40; i++ {
		if f := fmt.Sprintf("api-reference/x-%d.html", i); !out.has(f) && !(i == 0 && out.has("api-reference/x.html")) {
			t.Errorf("no page %s", f)
		}
	}
	if out.has("api-reference/x-40.html") {
		t.Error("an operation listed twice has two pages")
	}
}
