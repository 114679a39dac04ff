package pagemd_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/output"
)

const fence = "```"

// pageCases are pages of one site (pagesSite), each with the Markdown its
// PAGE.md must hold after "# Title" (the whole of it).
var pageCases = []struct {
	name, mdx, want string
}{
	{"callouts", "<Note>\n  A **note** with a [relative link](target#part) and `code`.\n</Note>\n\n<Warning>Careful.</Warning>\n\n<Callout icon=\"rocket\">Custom.</Callout>\n",
		"> **Note**\n>\n> A **note** with a [relative link](/guides/target#part) and `code`.\n\n> **Warning**\n>\n> Careful.\n\n> Custom.\n"},
	{"info-tip-check-danger", "<Info>i</Info>\n<Tip>t</Tip>\n<Check>c</Check>\n<Danger>d</Danger>\n",
		"> **Info**\n>\n> i\n\n> **Tip**\n>\n> t\n\n> **Check**\n>\n> c\n\n> **Danger**\n>\n> d\n"},
	{"cards", "<CardGroup cols={2}>\n  <Card title=\"One\" href=\"/guides/target\" icon=\"rocket\">\n    First card.\n  </Card>\n  <Card title=\"Two\">\n    Second card.\n  </Card>\n</CardGroup>\n\n<Columns cols={2}>\n  <Card title=\"Three\" href=\"https://example.com/x\">Elsewhere.</Card>\n</Columns>\n",
		"**[One](/guides/target)**\n\nFirst card.\n\n**Two**\n\nSecond card.\n\n**[Three](https://example.com/x)**\n\nElsewhere.\n"},
	{"tabs-and-fences", "<Tabs>\n  <Tab title=\"npm\">\n    " + fence + "bash npm theme={null} {1}\n    npm i acme\n    " + fence + "\n  </Tab>\n  <Tab title=\"yarn\">\n    Use yarn.\n  </Tab>\n</Tabs>\n",
		"**npm**\n\n" + fence + "bash npm\nnpm i acme\n" + fence + "\n\n**yarn**\n\nUse yarn.\n"},
	{"code-group", "<CodeGroup>\n\n" + fence + "js index.js\nconsole.log(1)\n" + fence + "\n\n" + fence + "python main.py icon=python\nprint(1)\n" + fence + "\n\n</CodeGroup>\n",
		fence + "js index.js\nconsole.log(1)\n" + fence + "\n\n" + fence + "python main.py\nprint(1)\n" + fence + "\n"},
	{"steps", "<Steps>\n  <Step title=\"Install\">\n    Run:\n\n    " + fence + "bash\n    npm i\n    " + fence + "\n  </Step>\n  <Step title=\"Use\">\n    Done.\n  </Step>\n</Steps>\n",
		"1. **Install**\n\n   Run:\n\n   " + fence + "bash\n   npm i\n   " + fence + "\n\n2. **Use**\n\n   Done.\n"},
	{"accordions", "<AccordionGroup>\n  <Accordion title=\"Why?\" description=\"A question\">\n    Because.\n  </Accordion>\n</AccordionGroup>\n\n<Expandable title=\"more\">\n  Hidden.\n</Expandable>\n",
		"**Why?** A question\n\nBecause.\n\n**More**\n\nHidden.\n"},
	{"fields", "<ParamField query=\"limit\" type=\"integer\" default={10} required>\n  How many *items*.\n\n  <Expandable title=\"properties\">\n    <ResponseField name=\"id\" type=\"Record<string, any>\">The id.</ResponseField>\n  </Expandable>\n</ParamField>\n\n<ParamField path=\"id\" />\n",
		"- `limit` (integer, query, required, default: `10`): How many *items*.\n\n  **Properties**\n\n  - `id` (Record\\<string, any>): The id.\n\n- `id` (path)\n"},
	{"frame", "<Frame caption=\"The **dashboard**\">\n  ![Dashboard](/images/pic.png)\n</Frame>\n",
		"![Dashboard](/images/pic.png)\n\nThe **dashboard**\n"},
	{"update", "<Update label=\"2024-05-01\" description=\"v1.2\" tags={[\"New\", \"Fix\"]}>\n  - Added search.\n</Update>\n",
		"## 2024-05-01\n\nTags: New, Fix\n\nv1.2\n\n- Added search.\n"},
	{"inline", "Text with <Tooltip tip=\"tarball\">archive</Tooltip>, <Badge>beta</Badge> and <Icon icon=\"star\" />.\n",
		"Text with archive, beta and .\n"},
	{"visibility", "<Visibility for=\"humans\">For humans.</Visibility>\n<Visibility for=\"agents\">For agents.</Visibility>\n", "For agents.\n"},
	{"unknown", "<Unknown thing=\"x\">Unknown's *children*.</Unknown>\n", "Unknown's *children*.\n"},
	{"expressions", "{/* a comment */}\n{false}\n{\"a string *value*\"}\n{someUnknown.call()}\n\nText {1 + 1} and {null} end.\n",
		"a string \\*value\\*\n\nText 2 and  end.\n"},
	{"diagram-math-code", "<Mermaid chart=\"graph LR; A-->B\" />\n\n<Latex>E = mc^2</Latex>\n\n<CodeBlock language=\"python\" filename=\"app.py\">print(\"hi\")</CodeBlock>\n\n<Prompt description=\"Ask *this*\">\n  Write a poem.\n</Prompt>\n",
		fence + "mermaid\ngraph LR; A-->B\n" + fence + "\n\n$$\nE = mc^2\n$$\n\n" + fence + "python app.py\nprint(\"hi\")\n" + fence + "\n\nAsk *this*\n\n" + fence + "text\nWrite a poem.\n" + fence + "\n"},
	{"html", "<table>\n  <thead><tr><th>Name</th><th>Type</th></tr></thead>\n  <tbody><tr><td>a|b</td><td><code>int</code></td></tr></tbody>\n</table>\n\n<ul>\n  <li>one</li>\n  <li><a href=\"/guides/target\">two</a></li>\n</ul>\n\n<details><summary>More</summary>Hidden text.</details>\n\n<img src=\"/images/pic.png\" alt=\"A picture\" />\n\n<script>alert(1)</script>\n",
		"| Name | Type |\n| --- | --- |\n| a\\|b | `int` |\n\n- one\n- [two](/guides/target)\n\n**More**\n\nHidden text.\n\n![A picture](/images/pic.png)\n"},
	{"snippets", "import Greet from '/snippets/greet.mdx'\n\nexport const Box = ({ title, children }) => (\n  <div>\n    <h3>{title}</h3>\n    <p>{children}</p>\n  </div>\n);\n\n<Greet name=\"Ada\" />\n\n<Box title=\"Boxed\">Inside the **box**.</Box>\n\n<Snippet file=\"greet.mdx\" name=\"Bob\" />\n",
		"Hello, **Ada**! See [the target](/guides/target).\n\n### Boxed\n\nInside the **box**.\n\nHello, **Bob**! See [the target](/guides/target).\n"},
	{"links", "[Bad](javascript:alert(1)) and ![pic](../images/pic.png \"Title\") and [ref][r], `[not](a-link)`.\n\n[![img](/images/pic.png)](target)\n\n[r]: /guides/target\n",
		"Bad and ![pic](/images/pic.png \"Title\") and [ref][r], `[not](a-link)`.\n\n[![img](/images/pic.png)](/guides/target)\n\n[r]: /guides/target\n"},
	{"list-nesting", "1. First\n\n   <Note>Inside the item.</Note>\n\n2. Second\n",
		"1. First\n\n   > **Note**\n   >\n   > Inside the item.\n\n2. Second\n"},
	{"inline-block", "Because <Card title=\"Nested\" href=\"/guides/target\">inside</Card> works.\n",
		"Because\n\n**[Nested](/guides/target)**\n\ninside\n\nworks.\n"},
}

// pagesSite is a site with a page per case of pageCases, under guides/.
func pagesSite() string {
	var b strings.Builder
	b.WriteString("-- docs.json --\n{\"name\": \"X\", \"navigation\": {\"pages\": [\"index\", \"guides/target\"")
	for _, c := range pageCases {
		b.WriteString(", \"guides/" + c.name + "\"")
	}
	b.WriteString("]}}\n-- index.mdx --\n---\ntitle: Home\n---\nHi.\n")
	b.WriteString("-- guides/target.mdx --\n---\ntitle: Target\n---\n## Part\n")
	b.WriteString("-- images/pic.png --\nPNG\n")
	b.WriteString("-- snippets/greet.mdx --\nHello, **{name}**! See [the target](/guides/target).\n")
	for _, c := range pageCases {
		b.WriteString("-- guides/" + c.name + ".mdx --\n---\ntitle: " + c.name + "\n---\n" + c.mdx)
	}
	return b.String()
}

// build builds the site archive in the given form and returns its files.
func build(t *testing.T, archive string, opts render.Options) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if _, err := render.Build(context.Background(), sitetest.Archive(t, archive), output.Dir{Dir: dir}, opts); err != nil {
		t.Fatal(err)
	}
	return sitetest.ReadDir(t, dir)
}

func TestPageMarkdown(t *testing.T) {
	t.Parallel()
	files := build(t, pagesSite(), render.Options{})
	for _, c := range pageCases {
		t.Run(c.name, func(t *testing.T) {
			md, ok := files["guides/"+c.name+".md"]
			if !ok {
				t.Fatalf("no guides/%s.md; the output has %v", c.name, slices.Sorted(maps.Keys(files)))
			}
			got, head := string(md), "# "+c.name+"\n\n"
			if !strings.HasPrefix(got, head) {
				t.Fatalf("does not start with %q:\n%s", head, got)
			}
			if got = got[len(head):]; got != c.want {
				t.Errorf("Markdown of\n%s\ngot:\n%s\nwant:\n%s\n(first difference: %s)", c.mdx, got, c.want, sitetest.FirstDiff(c.want, got))
			}
		})
	}
}

// TestPageMarkdownHeader: the title becomes "# Title" and the description
// a paragraph under it, both as text (escaped), and the page's own body
// follows.
func TestPageMarkdownHeader(t *testing.T) {
	t.Parallel()
	files := build(t, "-- docs.json --\n{\"name\": \"X\", \"navigation\": {\"pages\": [\"index\"]}}\n"+
		"-- index.mdx --\n---\ntitle: \"The *API* {v2}\"\ndescription: \"Calls <Tags> and {braces}\"\n---\nBody.\n", render.Options{})
	want := "# The \\*API\\* \\{v2\\}\n\nCalls \\<Tags> and \\{braces\\}\n\nBody.\n"
	if got := string(files["index.md"]); got != want {
		t.Errorf("index.md:\n%s\nwant:\n%s", got, want)
	}
}

// TestPageMarkdownExport: in an export, links are relative to the page,
// as in its HTML (the .md is beside the .html).
func TestPageMarkdownExport(t *testing.T) {
	t.Parallel()
	files := build(t, pagesSite(), render.Options{Export: true})
	got := string(files["guides/links.md"])
	for _, want := range []string{"![pic](../images/pic.png \"Title\")", "[![img](../images/pic.png)](target.html)", "[r]: target.html"} {
		if !strings.Contains(got, want) {
			t.Errorf("guides/links.md lacks %s:\n%s", want, got)
		}
	}
	if got := string(files["guides/callouts.md"]); !strings.Contains(got, "[relative link](target.html#part)") {
		t.Errorf("guides/callouts.md: relative link not written as in the export's HTML:\n%s", got)
	}
}

// TestOpenAPIPageMarkdown: an operation page is its method and path, its
// description, the page's own content, its parameters, body fields and
// responses as lists, and examples.
func TestOpenAPIPageMarkdown(t *testing.T) {
	t.Parallel()
	files := build(t, "-- docs.json --\n{\"name\": \"X\", \"navigation\": {\"pages\": [\"create\", \"webhook\"]}}\n"+
		"-- openapi.json --\n"+petstore+
		"-- create.mdx --\n---\ntitle: Create a plant\nopenapi: POST /plants\n---\nSome **notes** of the page.\n"+
		"-- webhook.mdx --\n---\ntitle: New plant\nopenapi: WEBHOOK newPlant\n---\n", render.Options{})
	got := string(files["create.md"])
	for _, want := range []string{
		"# Create a plant\n\n`POST /plants`\n\nCreates a new plant.\n\nSome **notes** of the page.\n",
		"## Authorizations\n\n- `Authorization` (string, header, required): Bearer authentication header",
		"## Query parameters\n\n- `dryRun` (boolean, query, default: `false`): Only check the plant.\n",
		"## Body\n\n`application/json` (required)\n\n- `name` (string, required): The name of the plant\n- `tags` (string[])\n- `soil` (object)\n  - `ph` (number): Acidity\n",
		"## Responses\n\n### 200 `application/json`\n\nThe plant\n\n- `id` (integer, required)\n  Format: `int64`\n- `kind` (string)\n  Available options: `tree`, `herb`\n",
		"### 400\n\nBad request\n",
		"## Example request\n\n" + fence + "bash\ncurl --request POST \\\n  --url 'https://api.plants.test/plants?dryRun=false'",
		"## Example responses\n\n**200**\n\n" + fence + "json\n{\n  \"id\": 123,",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("create.md lacks\n%s\n---- in ----\n%s", want, got)
		}
	}
	if hook := string(files["webhook.md"]); !strings.Contains(hook, "`WEBHOOK newPlant`\n\nSent by the API as an HTTP `POST` request") ||
		!strings.Contains(hook, "## Example payload\n\n"+fence+"json\n") {
		t.Errorf("webhook.md:\n%s", hook)
	}
}

const petstore = `{"openapi": "3.1.0", "info": {"title": "Plants", "version": "1"},
 "servers": [{"url": "https://api.plants.test"}],
 "security": [{"bearer": []}],
 "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
   "schemas": {"Plant": {"type": "object", "required": ["id"], "properties": {
     "id": {"type": "integer", "format": "int64"}, "kind": {"type": "string", "enum": ["tree", "herb"]}}}}},
 "paths": {"/plants": {"post": {"summary": "Create a plant", "description": "Creates a new plant.",
   "parameters": [{"name": "dryRun", "in": "query", "description": "Only check the plant.", "schema": {"type": "boolean", "default": false}}],
   "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["name"], "properties": {
     "name": {"type": "string", "description": "The name of the plant"}, "tags": {"type": "array", "items": {"type": "string"}},
     "soil": {"type": "object", "properties": {"ph": {"type": "number", "description": "Acidity"}}}}}}}},
   "responses": {"200": {"description": "The plant", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Plant"}}}},
     "400": {"description": "Bad request"}}}}},
 "webhooks": {"newPlant": {"post": {"description": "A plant was added.", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Plant"}}}},
   "responses": {"200": {"description": "Received"}}}}}}
`
