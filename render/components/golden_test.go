package components_test

import (
	"context"
	"encoding/json"
	"flag"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"lectern.dev/lectern/internal/sitetest"
	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/components"
	"lectern.dev/lectern/render/output"
)

const fence = "```"

// componentPages holds one small MDX page per known component, each with
// Markdown inside where the component takes children. The key is the
// golden file's name under testdata/golden.
var componentPages = map[string]string{
	"Note":    "<Note>\n  A **note** with `code` and a [link](/target).\n</Note>\n",
	"Warning": "<Warning>\n  Do **not** run this in production.\n</Warning>\n",
	"Info":    "<Info>\n  Some _information_.\n\n  - one\n  - two\n</Info>\n",
	"Tip":     "<Tip>\n  A *tip*: see [the target](/target#part).\n</Tip>\n",
	"Check":   "<Check>\n  It **worked**.\n</Check>\n",
	"Danger":  "<Danger>\n  This **deletes** everything.\n</Danger>\n",
	"Callout": "<Callout icon=\"rocket\" color=\"#ff5500\">\n  A custom **callout**.\n</Callout>\n",
	"Card": "<Card title=\"Get started\" href=\"/target\" icon=\"rocket\" color=\"#ff5500\">\n" +
		"  Read the **guide**.\n</Card>\n\n" +
		"<Card title=\"Elsewhere\" href=\"https://example.com/\" cta=\"Visit\">\n  Another site.\n</Card>\n\n" +
		"<Card title=\"Careful\" type=\"warning\">\n  A typed card.\n</Card>\n",
	"CardGroup": "<CardGroup cols={2}>\n" +
		"  <Card title=\"One\" href=\"/target\">\n    First *card*.\n  </Card>\n" +
		"  <Card title=\"Two\">\n    Second **card**.\n  </Card>\n</CardGroup>\n",
	"Columns": "<Columns cols={3}>\n" +
		"  <Card title=\"A\">\n    Column *a*.\n  </Card>\n" +
		"  <Card title=\"B\">\n    Column *b*.\n  </Card>\n</Columns>\n",
	"Tabs": "<Tabs sync={false} defaultTabIndex={1} borderBottom>\n" +
		"  <Tab title=\"npm\">\n    Install with **npm**:\n\n    " + fence + "bash\n    npm i acme\n    " + fence + "\n  </Tab>\n" +
		"  <Tab title=\"yarn\" icon=\"rocket\">\n    Install with *yarn*.\n  </Tab>\n</Tabs>\n",
	"CodeGroup": "<CodeGroup>\n\n" +
		fence + "bash npm\nnpm i acme\n" + fence + "\n\n" +
		fence + "bash yarn\nyarn add acme\n" + fence + "\n\n</CodeGroup>\n",
	"Steps": "<Steps titleSize=\"h3\">\n" +
		"  <Step title=\"Prepare\" icon=\"rocket\" stepNumber={0} titleSize=\"p\" noAnchor>\n    Get ready.\n  </Step>\n" +
		"  <Step title=\"Install\">\n    Run `npm i acme`.\n  </Step>\n" +
		"  <Step title=\"Configure\">\n    Edit **acme.json**.\n  </Step>\n</Steps>\n",
	"Accordion": "<Accordion title=\"Why this?\" description=\"A question\" icon=\"rocket\">\n  Because of *that*.\n</Accordion>\n\n" +
		"<Accordion title=\"Other\" id=\"faq-other\" defaultOpen>\n  Open.\n</Accordion>\n",
	"AccordionGroup": "<AccordionGroup>\n" +
		"  <Accordion title=\"First\">\n    One **answer**.\n  </Accordion>\n" +
		"  <Accordion title=\"Second\" defaultOpen>\n    Another *answer*.\n  </Accordion>\n</AccordionGroup>\n",
	"Expandable": "<Expandable title=\"details\" defaultOpen>\n  Hidden **details**.\n</Expandable>\n",
	"Frame":      "<Frame caption=\"The **dashboard**, see [the target](/target)\" hint=\"Sign in first\">\n  ![Dashboard](/images/dash.png)\n</Frame>\n",
	"ParamField": "<ParamField path=\"id\" type=\"string\" required>\n  The **id** of the item.\n</ParamField>\n\n" +
		"<ParamField query=\"limit\" type=\"integer\" default=\"10\">\n  How many *items*.\n</ParamField>\n\n" +
		"<ParamField body=\"name\" type=\"string\" required default=\"acme\">\n  The `name`.\n</ParamField>\n",
	"ResponseField": "<ResponseField name=\"user\" type=\"object\" required pre={[\"beta\"]} post={[\"read-only\"]}>\n  The **user**.\n\n" +
		"  <Expandable title=\"properties\">\n" +
		"    <ResponseField name=\"id\" type=\"string\">\n      The user's *id*.\n    </ResponseField>\n" +
		"  </Expandable>\n</ResponseField>\n",
	"RequestExample": "<RequestExample>\n\n" + fence + "bash cURL\ncurl https://api.acme.test/items\n" + fence +
		"\n\n</RequestExample>\n",
	"ResponseExample": "<ResponseExample>\n\n" + fence + "json 200\n{\"items\": []}\n" + fence + "\n\n</ResponseExample>\n",
	"Icon":            "Ship it <Icon icon=\"rocket\" size={16} color=\"#ff0000\" /> **now** <Icon src=\"/images/dash.png\" size={20} />.\n",
	"Tooltip": "An <Tooltip tip=\"Application Programming Interface\">API</Tooltip> is **useful**; " +
		"<Tooltip headline=\"SDK\" tip=\"A library\" cta=\"Read more\" href=\"/target\">SDKs</Tooltip> too.\n",
	"Update": "<Update label=\"2024-05-01\" description=\"v1.2.0\">\n" +
		"  ## New\n\n  - Added **search**.\n</Update>\n",
	"Badge": "Status: <Badge color=\"green\">**stable**</Badge> <Badge icon=\"star\" color=\"blue\" size=\"lg\" shape=\"pill\">Premium</Badge> " +
		"<Badge stroke disabled size=\"xs\" color=\"nope\">Off</Badge>\n",
	// Attribute strings are text, not Markdown, as in Mintlify: the
	// description keeps its asterisks.
	"Tile": "<Tile href=\"/target\" title=\"Target\" description=\"The *target* page\">\n  ![Preview](/images/dash.png)\n</Tile>\n",
	"Tree": "<Tree>\n" +
		"  <Tree.Folder name=\"app\" defaultOpen>\n" +
		"    <Tree.File name=\"layout.tsx\" highlight />\n" +
		"    <Tree.Folder name=\"static\" openable={false}>\n      <Tree.File name=\"logo.svg\" />\n    </Tree.Folder>\n" +
		"    <Tree.Folder name=\"api\">\n      <Tree.File name=\"route.ts\" />\n    </Tree.Folder>\n" +
		"  </Tree.Folder>\n  <Tree.File name=\"package.json\" />\n</Tree>\n",
	"View": "<View title=\"Python\" icon=\"rocket\">\n  Use the **Python** client.\n</View>\n\n" +
		"<View title=\"JavaScript\">\n  Use the **JavaScript** client.\n</View>\n",
	"Panel":   "<Panel>\n  A side **panel**.\n</Panel>\n",
	"Banner":  "<Banner>\n  We **launched** v2. [Read more](/target).\n</Banner>\n",
	"Latex":   "Inline <Latex>x^2 + y^2</Latex> math and a block:\n\n<Latex>\\frac{a}{b}</Latex>\n",
	"Snippet": "<Snippet file=\"greeting.mdx\" />\n",
	"Visibility": "<Visibility for=\"humans\">\n  Only for **humans**.\n</Visibility>\n\n" +
		"<Visibility for=\"agents\">\n  Only for **agents**: call `POST /v1/accounts`.\n</Visibility>\n",
	"Mermaid": fence + "mermaid\ngraph TD\n  A-->B\n" + fence + "\n\n" +
		"<Mermaid chart=\"graph LR; C-->D\" />\n",
	"CodeBlock": "<CodeBlock filename=\"app.js\" language=\"javascript\" icon=\"rocket\" lines highlight=\"[2]\">\n" +
		"{`const a = 1;\\nconst b = \"<b>\";`}\n</CodeBlock>\n\n" +
		"<CodeBlock language=\"bash\" wrap>\n  npm i acme\n</CodeBlock>\n\n" +
		"<CodeGroup>\n<CodeBlock filename=\"one.py\" language=\"python\">{`print(1)`}</CodeBlock>\n" +
		"<CodeBlock filename=\"two.rb\" language=\"ruby\" nocopy>{`puts 2`}</CodeBlock>\n</CodeGroup>\n",
	"Column":   "<Columns cols={2}>\n  <Column>\n  **Install**\n  </Column>\n  <Column>\n  **Use**\n  </Column>\n</Columns>\n",
	"FileTree": "<FileTree>\n\n- docs/\n  - index.mdx\n  - `guides`/\n    - **setup.mdx**\n- docs.json\n\n</FileTree>\n",
	"Prompt": "<Prompt description=\"Write **clear** docs.\" actions={[\"copy\", \"cursor\"]}>\n" +
		"You are a **technical writer**.\n- Use the second person.\n</Prompt>\n",
	"Color": "<Color variant=\"compact\">\n  <Color.Item name=\"blue-500\" value=\"#3B82F6\" />\n" +
		"  <Color.Item name=\"bg\" value={{ light: \"#FFFFFF\", dark: \"oklch(20% 0.02 250)\" }} />\n</Color>\n\n" +
		"<Color variant=\"table\">\n  <Color.Row title=\"Primary\">\n    <Color.Item name=\"primary\" value=\"rgb(59, 130, 246)\" />\n" +
		"  </Color.Row>\n</Color>\n",
	"GitHub.Repo": "<GitHub.Repo repo=\"mintlify/docs\" />\n\n<GitHub.Repo repo=\"https://github.com/acme/site.git\" variant=\"flat\" />\n",
}

// componentSite returns the archive of a site with one page per entry of
// componentPages, under c/, plus the target page the links point at.
func componentSite(t *testing.T) string {
	t.Helper()
	names := slices.Sorted(maps.Keys(componentPages))
	pages := []string{"target"}
	for _, n := range names {
		pages = append(pages, "c/"+n)
	}
	cfg, err := json.Marshal(map[string]any{
		"name":       "Components",
		"navigation": map[string]any{"groups": []any{map[string]any{"group": "All", "pages": pages}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("-- docs.json --\n" + string(cfg) + "\n")
	b.WriteString("-- target.mdx --\n---\ntitle: Target\n---\n\n## Part\n\nThe target.\n")
	b.WriteString("-- images/dash.png --\nPNG\n")
	b.WriteString("-- snippets/greeting.mdx --\nHello from a **snippet**.\n")
	for _, n := range names {
		b.WriteString("-- c/" + n + ".mdx --\n---\ntitle: " + n + "\n---\n\n" + componentPages[n])
	}
	return b.String()
}

// ownAssetHash matches the names of Lectern's own assets with their hash
// (render: own_assets.go), written without it in the golden files, which
// would otherwise change with every change of a script.
var ownAssetHash = regexp.MustCompile(`(_lectern/[A-Za-z0-9.-]+?)\.[0-9a-f]{10}(\.(?:js|css))\b`)

// TestComponentsGolden renders one page per component and compares its
// article body with testdata/golden/<Name>.golden. Run
// `go test ./render/components -run TestComponentsGolden -update` after an intended
// change and review the diff.
func TestComponentsGolden(t *testing.T) {
	t.Parallel()
	site := sitetest.Archive(t, componentSite(t))
	out := t.TempDir()
	res, err := render.Build(context.Background(), site, output.Dir{Dir: out}, render.Options{BasePath: "/docs"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning: %s", w)
	}
	files := sitetest.ReadDir(t, out)
	for _, name := range slices.Sorted(maps.Keys(componentPages)) {
		got := sitetest.Content(t, string(files["c/"+name+".html"])) + "\n"
		got = ownAssetHash.ReplaceAllString(got, "$1$2")
		path := filepath.Join("testdata", "golden", name+".golden")
		sitetest.Golden(t, path, name, got, *updateGolden)
	}
	// Content for agents is left out of the web pages, search index
	// included, and is in the page's Markdown, where content for humans is
	// not (render/pagemd), as on Mintlify.
	forAgents := func(data string) bool {
		return strings.Contains(data, "Only for") && strings.Contains(data, "agents") && strings.Contains(data, "POST /v1/accounts")
	}
	for name, data := range files {
		if forAgents(string(data)) && !strings.HasSuffix(name, ".md") && name != "llms-full.txt" {
			t.Errorf("%s has the <Visibility for=\"agents\"> content", name)
		}
	}
	if md := string(files["c/Visibility.md"]); !forAgents(md) || strings.Contains(md, "humans") {
		t.Errorf("c/Visibility.md has not the content for agents only:\n%s", md)
	}
	// Every component of the table is used by a golden page, so that one
	// added later is not left out.
	var all strings.Builder
	for _, src := range componentPages {
		all.WriteString(src)
	}
	var missing []string
	for _, name := range components.Names() {
		if !strings.Contains(all.String(), "<"+name+" ") && !strings.Contains(all.String(), "<"+name+">") {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("components without a golden page: %v", missing)
	}
}

var updateGolden = flag.Bool("update", false, "rewrite the testdata/golden files with the current output")
