package pagemd

import (
	"strconv"
	"strings"

	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/openapi"
)

// componentFunc converts one known component to Markdown.
type componentFunc func(c *call) string

// table maps the Mintlify components (render/components' table) to their
// Markdown; a component not in it is its content.
var table map[string]componentFunc

func init() {
	table = map[string]componentFunc{
		"Note": callout("Note"), "Warning": callout("Warning"), "Info": callout("Info"),
		"Tip": callout("Tip"), "Check": callout("Check"), "Danger": callout("Danger"), "Callout": callout(""),
		"Card": card, "Tile": card, "CardGroup": content, "Columns": content, "Column": content,
		"Tabs": content, "Tab": titled, "View": titled,
		"CodeGroup": content, "CodeBlock": codeBlock,
		"RequestExample": labelled("Example request"), "ResponseExample": labelled("Example response"),
		"Steps": steps, "Step": step,
		"AccordionGroup": content, "Accordion": accordion, "Expandable": expandable,
		"Frame": frame, "ParamField": field, "ResponseField": field,
		"Icon": nothing, "Tooltip": content, "Update": update, "Badge": content,
		"Tree": content, "FileTree": content, "Tree.Folder": treeFolder, "Tree.File": treeFile,
		"Panel": content, "Banner": content, "Visibility": visibility,
		"Prompt": prompt, "Color": content, "Color.Row": colorRow, "Color.Item": colorItem, "GitHub.Repo": githubRepo,
		"Mermaid": mermaid, "Latex": latex, "Snippet": snippet,
	}
}

// blockNames are the components whose Markdown is a block of its own,
// even when it takes one line or the element was written within a line.
var blockNames = map[string]bool{
	"Note": true, "Warning": true, "Info": true, "Tip": true, "Check": true, "Danger": true, "Callout": true,
	"Card": true, "Tile": true, "CardGroup": true, "Columns": true, "Column": true, "Tabs": true, "Tab": true, "View": true,
	"CodeGroup": true, "CodeBlock": true, "RequestExample": true, "ResponseExample": true, "Steps": true, "Step": true,
	"AccordionGroup": true, "Accordion": true, "Expandable": true, "Frame": true, "ParamField": true, "ResponseField": true,
	"Update": true, "Tree": true, "FileTree": true, "Tree.Folder": true, "Tree.File": true, "Panel": true, "Banner": true,
	"Prompt": true, "Color": true, "Color.Row": true, "Color.Item": true, "Mermaid": true,
}

// blockElement reports whether element n converts to a block.
func blockElement(n *mdx.Node) bool {
	if mdx.IsComponentName(n.Name) {
		return blockNames[n.Name] || n.Name == "Latex" && n.Block
	}
	return htmlBlocks[strings.ToLower(n.Name)]
}

// call is one use of a component.
type call struct {
	c  *conv
	n  *mdx.Node
	sc *mdx.Scope
}

// val returns the value of attribute name, or undefined: the last
// attribute of that name, or key of a spread object, as in JSX.
func (c *call) val(name string) mdx.Value {
	return c.n.Prop(name, func(a mdx.Attr) mdx.Value { return c.c.attrValue(a, c.n, c.sc) })
}

func (c *call) str(name string) string { return c.val(name).Str() }

func (c *call) flag(name string) bool { return c.val(name).Truthy() }

func (c *call) kids() string { return c.c.kids(c.n, c.sc) }

// text returns an attribute as inline Markdown on one line: a string
// escaped, or JSX converted.
func (c *call) text(name string) string {
	v := c.val(name)
	if v.Kind == mdx.VNodes {
		return oneLine(c.c.value(v))
	}
	return oneLine(escape(v.Str()))
}

// bold makes a title bold, or "" for none.
func bold(title string) string {
	if title == "" {
		return ""
	}
	return "**" + title + "**"
}

// join joins the non-empty blocks with a blank line.
func join(blocks ...string) string {
	var out []string
	for _, b := range blocks {
		if b = strings.Trim(b, "\n"); strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	return strings.Join(out, "\n\n")
}

func content(c *call) string { return c.kids() }

func nothing(*call) string { return "" }

// callout converts a callout to a block quote led by its bold label.
func callout(label string) componentFunc {
	return func(c *call) string {
		return quote(join(bold(label), c.kids()))
	}
}

// card converts <Card> and <Tile>: the title in bold, a link when the
// card has one, then the description and the body.
func card(c *call) string {
	title := c.text("title")
	head := bold(title)
	if h := c.str("href"); h != "" {
		if u := c.c.href(h, false); u != "" {
			if title == "" {
				title = escape(h)
			}
			head = "**[" + title + "](" + wrapDest(u) + ")**"
		}
	}
	return join(head, c.text("description"), c.kids())
}

// titled converts <Tab> and <View>: the bold title over the content.
func titled(c *call) string { return join(bold(c.text("title")), c.kids()) }

// labelled converts a component by a bold label over its content.
func labelled(label string) componentFunc {
	return func(c *call) string { return join(bold(label), c.kids()) }
}

// accordion converts <Accordion>: the bold title (and description) over
// the content.
func accordion(c *call) string {
	head := bold(c.text("title"))
	if d := c.text("description"); d != "" {
		head = strings.TrimSpace(head + " " + d)
	}
	return join(head, c.kids())
}

// expandable converts <Expandable>: "**Properties**" (its title) over the
// content.
func expandable(c *call) string {
	title := c.text("title")
	if title == "" {
		title = "properties"
	}
	return join(bold(strings.ToUpper(title[:1])+title[1:]), c.kids())
}

// steps converts <Steps> to a numbered list of its steps.
func steps(c *call) string {
	c.c.steps = append(c.c.steps, 0)
	defer func() { c.c.steps = c.c.steps[:len(c.c.steps)-1] }()
	return c.kids()
}

// step converts <Step> to an item of a numbered list: its bold title
// over its content.
func step(c *call) string {
	num := 1
	if k := len(c.c.steps) - 1; k >= 0 {
		c.c.steps[k]++
		num = c.c.steps[k]
		if n, err := strconv.Atoi(strings.TrimSpace(c.str("stepNumber"))); err == nil && n >= 0 && n < 1e6 {
			num, c.c.steps[k] = n, n
		}
	}
	return listItem(strconv.Itoa(num)+". ", join(bold(c.text("title")), c.kids()))
}

// fieldNameAttrs are the attributes that name a field, by location.
var fieldNameAttrs = []string{"path", "query", "body", "header", "cookie", "param", "name"}

// field converts <ParamField> and <ResponseField> to a list item:
// "- `name` (type, location, required, default: `x`): description".
func field(c *call) string {
	var name, loc string
	for _, a := range fieldNameAttrs {
		if v := c.str(a); v != "" {
			name, loc = v, a
			break
		}
	}
	var labels []string
	add := func(v mdx.Value) {
		if v.Kind == mdx.VArray {
			for _, it := range v.Items {
				if s := oneLine(it.Str()); s != "" {
					labels = append(labels, escape(s))
				}
			}
		}
	}
	add(c.val("pre"))
	if t := oneLine(c.str("type")); t != "" {
		labels = append(labels, escape(t))
	}
	if loc != "" && loc != "name" && loc != "param" {
		labels = append(labels, loc)
	}
	add(c.val("post"))
	if c.flag("required") {
		labels = append(labels, "required")
	}
	if c.flag("deprecated") {
		labels = append(labels, "deprecated")
	}
	if d := c.val("default"); d.Kind == mdx.VString || d.Kind == mdx.VNumber || d.Kind == mdx.VBool {
		s := d.Str()
		if d.Kind == mdx.VBool {
			s = strconv.FormatBool(d.B)
		}
		labels = append(labels, "default: "+codeSpan(s))
	}
	head := codeSpan(name)
	if len(labels) > 0 {
		head += " (" + strings.Join(labels, ", ") + ")"
	}
	body := strings.Trim(c.kids(), "\n")
	switch first, _, _ := strings.Cut(body, "\n"); {
	case strings.TrimSpace(body) == "":
	case !blockStart(first):
		head += ": " + strings.TrimLeft(body, " ")
	default:
		head += "\n\n" + body
	}
	return listItem("- ", head)
}

// codeSpan writes s as a code span, its delimiters longer than any run of
// backticks in it.
func codeSpan(s string) string {
	s = oneLine(s)
	if s == "" {
		return ""
	}
	n, run := 1, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	d := strings.Repeat("`", n)
	if n > 1 || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return d + " " + s + " " + d
	}
	return d + s + d
}

// codeBlock converts <CodeBlock language filename> to a fence.
func codeBlock(c *call) string {
	code, ok := c.codeText(c.n.Children, c.sc, 0)
	if !ok {
		code = mdx.Dedent(c.n.Raw, false)
	}
	info := oneLine(c.str("language"))
	if t := oneLine(c.str("filename") + " " + c.str("title")); t != "" {
		info = strings.TrimSpace(info + " " + t)
	}
	return openapi.Fence(fenceInfo(info), strings.Trim(code, "\n"))
}

// codeText returns the text of a <CodeBlock>'s children: text, and
// expressions that are strings; false when a child is anything else.
func (c *call) codeText(nodes []*mdx.Node, sc *mdx.Scope, depth int) (string, bool) {
	if depth > 16 {
		return "", false
	}
	var b strings.Builder
	text := false
	for _, n := range nodes {
		switch n.Kind {
		case mdx.TextNode:
			if sc.JSX {
				b.WriteString(mdx.JSXText(n.Text))
			} else {
				b.WriteString(n.Text)
				text = true
			}
		case mdx.ExprNode:
			v := sc.Eval(n.Text, n.Line, c.c.fileOf(sc), c.c.w)
			switch v.Kind {
			case mdx.VString, mdx.VNumber:
				b.WriteString(v.S)
			case mdx.VUndefined:
			case mdx.VNodes:
				s, ok := c.codeText(v.Nodes, v.Scope, depth+1)
				if !ok {
					return "", false
				}
				b.WriteString(s)
			default:
				return "", false
			}
		default:
			return "", false
		}
	}
	if s := b.String(); text {
		return mdx.Dedent(s, false), true
	}
	return b.String(), true
}

// frame converts <Frame hint caption>: the hint, the content and the
// caption (Markdown, as in Mintlify).
func frame(c *call) string {
	return join(c.text("hint"), c.kids(), c.markdownAttr("caption"))
}

// markdownAttr returns an attribute that Mintlify reads as Markdown (a
// Frame's caption, a Prompt's description) on one line, or JSX converted.
func (c *call) markdownAttr(name string) string {
	v := c.val(name)
	if v.Kind == mdx.VNodes {
		return oneLine(c.c.value(v))
	}
	return oneLine(v.Str())
}

// update converts <Update label description tags>: a heading, the tags
// and the description, then the content.
func update(c *call) string {
	head := ""
	if l := c.text("label"); l != "" {
		head = "## " + l
	}
	tags := ""
	if v := c.val("tags"); v.Kind == mdx.VArray {
		var list []string
		for _, t := range v.Items {
			if s := oneLine(t.Str()); s != "" {
				list = append(list, escape(s))
			}
		}
		if len(list) > 0 {
			tags = "Tags: " + strings.Join(list, ", ")
		}
	}
	return join(head, tags, c.text("description"), c.kids())
}

func treeFolder(c *call) string {
	return listItem("- ", join(c.text("name")+"/", c.kids()))
}

func treeFile(c *call) string { return "- " + c.text("name") }

// visibility converts <Visibility for>: as in Mintlify, the content for
// humans is the web page's only, and the content for agents is here.
func visibility(c *call) string {
	if strings.EqualFold(strings.TrimSpace(c.str("for")), "humans") {
		return ""
	}
	return c.kids()
}

// prompt converts <Prompt description>: the description, then the prompt
// as a fence.
func prompt(c *call) string {
	text := strings.TrimSpace(mdx.Dedent(strings.Trim(c.n.Raw, "\n"), false))
	if text == "" {
		return c.markdownAttr("description")
	}
	return join(c.markdownAttr("description"), openapi.Fence("text", text))
}

func colorRow(c *call) string { return join(bold(c.text("title")), c.kids()) }

// colorItem converts <Color.Item name value> to "- name: `value`" (a
// light and a dark value when it has both).
func colorItem(c *call) string {
	v := c.val("value")
	val := codeSpan(v.Str())
	if v.Kind == mdx.VObject {
		light, dark := v.Field("light").Str(), v.Field("dark").Str()
		val = strings.TrimSpace(codeSpan(light) + " (light), " + codeSpan(dark) + " (dark)")
	}
	return "- " + c.text("name") + ": " + val
}

func githubRepo(c *call) string {
	repo := strings.TrimSpace(c.str("repo"))
	for _, p := range []string{"https://github.com/", "http://github.com/", "github.com/"} {
		repo = strings.TrimPrefix(repo, p)
	}
	repo = strings.TrimSuffix(strings.TrimSuffix(repo, "/"), ".git")
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(repo, " ()[]<>") {
		return ""
	}
	return "[" + escape(owner+"/"+name) + "](https://github.com/" + owner + "/" + name + ")"
}

func mermaid(c *call) string {
	src := c.str("chart")
	if src == "" {
		src = strings.TrimSpace(c.n.Raw)
	}
	if src == "" {
		return ""
	}
	return openapi.Fence("mermaid", src)
}

func latex(c *call) string {
	src := strings.TrimSpace(c.n.Raw)
	if src == "" {
		return ""
	}
	if c.n.Block {
		return "$$\n" + src + "\n$$"
	}
	return "$" + oneLine(src) + "$"
}

// snippet expands the legacy <Snippet file="name.mdx" />, a file under
// snippets/.
func snippet(c *call) string {
	name := strings.TrimPrefix(c.str("file"), "/")
	file := name
	if !strings.HasPrefix(file, "snippets/") {
		file = "snippets/" + file
	}
	if name == "" || c.c.env.LoadModule == nil || !c.c.env.Links.HasFile(file) {
		return ""
	}
	mod := c.c.env.LoadModule(file)
	if mod == nil {
		return ""
	}
	return c.c.custom(c.n, c.sc, mod.Whole())
}
