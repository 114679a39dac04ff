package components

import (
	"bytes"
	"html"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// componentFunc renders one known component to HTML.
type componentFunc func(c *call) string

// components are the Mintlify components Lectern knows. Each renders as
// semantic HTML with the class lc-<kebab-name>; children are MDX.
var components map[string]componentFunc

func init() {
	components = map[string]componentFunc{
		"Mermaid": mermaidComponent,
		"Note":    callout("note"), "Warning": callout("warning"), "Info": callout("info"),
		"Tip": callout("tip"), "Check": callout("check"), "Danger": callout("danger"),
		"Callout": callout("callout"),
		"Card":    card, "CardGroup": grid("lc-card-group"), "Columns": grid("lc-columns"),
		"Tabs": wrap("div", "lc-tabs"), "Tab": titled("section", "lc-tab"),
		"CodeGroup":      wrap("div", "lc-code-group"),
		"RequestExample": example("lc-request-example", "Request"), "ResponseExample": example("lc-response-example", "Response"),
		"Steps": wrap("div", "lc-steps"), "Step": titled("div", "lc-step"),
		"AccordionGroup": wrap("div", "lc-accordion-group"), "Accordion": accordion, "Expandable": expandable,
		"Frame": frame, "ParamField": field("lc-param-field"), "ResponseField": field("lc-response-field"),
		"Icon": iconComponent, "Tooltip": tooltip, "Update": update, "Badge": badge, "Tile": tile,
		"Tree": wrap("ul", "lc-tree"), "Tree.Folder": treeFolder, "Tree.File": treeFile,
		"View": titled("section", "lc-view"), "Panel": wrap("aside", "lc-panel"), "Banner": wrap("div", "lc-banner"),
		"Latex": latex, "Snippet": snippet, "Visibility": visibility,
	}
}

// call is one use of a component.
type call struct {
	r  *Renderer
	n  *mdx.Node
	sc *mdx.Scope
}

// val returns the value of attribute name, or undefined.
func (c *call) val(name string) mdx.Value {
	for _, a := range c.n.Attrs {
		if a.Name == name {
			return c.r.attrValue(a, c.n, c.sc)
		}
	}
	return mdx.Value{}
}

func (c *call) str(name string) string { return c.val(name).Str() }

func (c *call) flag(name string) bool { return c.val(name).Truthy() }

func (c *call) kids() string { return c.r.kids(c.n, c.sc) }

// text returns an attribute as HTML: escaped text, or rendered JSX.
func (c *call) text(name string) string {
	v := c.val(name)
	if v.Kind == mdx.VNodes {
		return c.r.valueHTML(v)
	}
	return esc(v.Str())
}

// href returns the rewritten link of an attribute, or "".
func (c *call) href(name string) string {
	h := c.str(name)
	if h == "" {
		return ""
	}
	return c.r.link(h, c.n.Line, c.sc)
}

// image returns the rewritten source of an image attribute, or "" when
// absent or on another host.
func (c *call) image(name string) string {
	src := c.str(name)
	if src == "" {
		return ""
	}
	u, external := c.r.asset(src, c.n.Line, c.sc, "image")
	if external {
		return ""
	}
	return u
}

// icon renders an icon attribute: a local image, or a named icon as
// inline SVG (render/icons).
func (c *call) icon(name string) string { return c.renderIcon(name, 0, "") }

func (c *call) inlineTag() string {
	if c.n.Block {
		return "div"
	}
	return "span"
}

func esc(s string) string { return html.EscapeString(s) }

func callout(kind string) componentFunc {
	return func(c *call) string {
		style := ""
		if col := safe.Color(c.str("color")); col != "" {
			style = ` style="--lc-callout-color: ` + col + `"`
		}
		return `<aside class="lc-callout lc-` + kind + `"` + style + ` role="note">` + c.icon("icon") +
			`<div class="lc-callout-body">` + c.kids() + "</div></aside>\n"
	}
}

// wrap renders the children inside one element.
func wrap(tag, class string) componentFunc {
	return func(c *call) string {
		return "<" + tag + ` class="` + class + `">` + c.kids() + "</" + tag + ">\n"
	}
}

// titled renders a title (and icon) above the children.
func titled(tag, class string) componentFunc {
	return func(c *call) string {
		head := ""
		if t := c.text("title"); t != "" || c.str("icon") != "" {
			head = `<div class="` + class + `-title">` + c.icon("icon") + t + "</div>"
		}
		return "<" + tag + ` class="` + class + `">` + head + `<div class="` + class + `-body">` + c.kids() +
			"</div></" + tag + ">\n"
	}
}

func grid(class string) componentFunc {
	return func(c *call) string {
		cols, err := strconv.Atoi(c.str("cols"))
		if err != nil || cols < 1 || cols > 6 {
			cols = 2
		}
		return `<div class="` + class + `" style="--lc-cols: ` + strconv.Itoa(cols) + `">` + c.kids() + "</div>\n"
	}
}

func example(class, label string) componentFunc {
	return func(c *call) string {
		return `<div class="` + class + `"><div class="lc-example-label">` + label + "</div>" + c.kids() + "</div>\n"
	}
}

func card(c *call) string {
	tag := c.inlineTag() // a card in a sentence stays valid phrasing content
	href := c.href("href")
	class := "lc-card"
	if href != "" {
		class += " lc-card-link"
	}
	if c.flag("horizontal") {
		class += " lc-card-horizontal"
	}
	var b strings.Builder
	b.WriteString("<" + tag + ` class="` + class + `">`)
	if img := c.image("img"); img != "" {
		b.WriteString(`<img class="lc-card-img" src="` + esc(img) + `" alt="">`)
	}
	b.WriteString(c.icon("icon"))
	title := c.text("title")
	switch {
	case href != "" && title != "":
		b.WriteString(`<a class="lc-card-title" href="` + esc(href) + `">` + title + "</a>")
	case href != "":
		b.WriteString(`<a class="lc-card-title" href="` + esc(href) + `" aria-label="Open"></a>`)
	case title != "":
		b.WriteString("<" + tag + ` class="lc-card-title">` + title + "</" + tag + ">")
	}
	b.WriteString("<" + tag + ` class="lc-card-body">` + c.kids() + "</" + tag + ">")
	if cta := c.str("cta"); cta != "" {
		b.WriteString(`<span class="lc-card-cta">` + esc(cta) + "</span>")
	}
	b.WriteString("</" + tag + ">\n")
	return b.String()
}

func accordion(c *call) string {
	open := ""
	if c.flag("defaultOpen") {
		open = " open"
	}
	desc := ""
	if d := c.text("description"); d != "" {
		desc = `<span class="lc-accordion-description">` + d + "</span>"
	}
	return `<details class="lc-accordion"` + open + "><summary>" + c.icon("icon") + `<span class="lc-accordion-title">` +
		c.text("title") + "</span>" + desc + `</summary><div class="lc-accordion-body">` + c.kids() + "</div></details>\n"
}

func expandable(c *call) string {
	title := c.text("title")
	if title == "" {
		title = "properties"
	}
	open := ""
	if c.flag("defaultOpen") {
		open = " open"
	}
	return `<details class="lc-expandable"` + open + "><summary>Show " + title + `</summary><div class="lc-expandable-body">` +
		c.kids() + "</div></details>\n"
}

func frame(c *call) string {
	var b strings.Builder
	b.WriteString(`<figure class="lc-frame">`)
	if h := c.text("hint"); h != "" {
		b.WriteString(`<p class="lc-frame-hint">` + h + "</p>")
	}
	b.WriteString(c.kids())
	if cap := c.text("caption"); cap != "" {
		b.WriteString("<figcaption>" + cap + "</figcaption>")
	}
	b.WriteString("</figure>\n")
	return b.String()
}

// fieldNameAttrs are the attributes that name a field, by location.
var fieldNameAttrs = []string{"path", "query", "body", "header", "cookie", "param", "name"}

func field(class string) componentFunc {
	return func(c *call) string {
		var name, loc string
		for _, a := range fieldNameAttrs {
			if v := c.str(a); v != "" {
				name, loc = v, a
				break
			}
		}
		var b strings.Builder
		b.WriteString(`<div class="lc-field ` + class + `"><div class="lc-field-head">`)
		b.WriteString(`<code class="lc-field-name">` + esc(name) + "</code>")
		if t := c.str("type"); t != "" {
			b.WriteString(`<span class="lc-field-type">` + esc(t) + "</span>")
		}
		if loc != "" && loc != "name" && loc != "param" {
			b.WriteString(`<span class="lc-field-location">` + loc + "</span>")
		}
		if c.flag("required") {
			b.WriteString(`<span class="lc-badge lc-required">required</span>`)
		}
		if c.flag("deprecated") {
			b.WriteString(`<span class="lc-badge lc-deprecated">deprecated</span>`)
		}
		if d := c.val("default"); d.Kind == mdx.VString || d.Kind == mdx.VNumber || d.Kind == mdx.VBool {
			s := d.Str()
			if d.Kind == mdx.VBool {
				s = strconv.FormatBool(d.B)
			}
			b.WriteString(`<span class="lc-field-default">default: <code>` + esc(s) + "</code></span>")
		}
		b.WriteString(`</div><div class="lc-field-body">` + c.kids() + "</div></div>\n")
		return b.String()
	}
}

func iconComponent(c *call) string {
	size, _ := strconv.Atoi(strings.TrimSuffix(c.str("size"), "px"))
	if size < 0 || size > 512 {
		size = 0
	}
	return c.renderIcon("icon", size, safe.Color(c.str("color")))
}

func tooltip(c *call) string {
	return `<span class="lc-tooltip" title="` + esc(c.str("tip")) + `">` + unwrapParagraph(c.kids()) + "</span>"
}

func badge(c *call) string {
	class := "lc-badge"
	if col := c.str("color"); col != "" && isWord(col) {
		class += " lc-badge-" + col
	}
	tag := c.inlineTag()
	return "<" + tag + ` class="` + class + `">` + unwrapParagraph(c.kids()) + "</" + tag + ">"
}

func update(c *call) string {
	var b strings.Builder
	b.WriteString(`<section class="lc-update"><div class="lc-update-meta">`)
	if label := c.text("label"); label != "" {
		idText := c.str("label")
		if idText == "" {
			idText = html.UnescapeString(markdown.TagRE.ReplaceAllString(label, ""))
		}
		id := c.r.ids.Generate([]byte(idText), 0)
		b.WriteString(`<h2 class="lc-update-label" id="` + esc(string(id)) + `">` + label + "</h2>")
	}
	if tags := c.val("tags"); tags.Kind == mdx.VArray {
		for _, t := range tags.Items {
			b.WriteString(`<span class="lc-badge">` + esc(t.Str()) + "</span>")
		}
	}
	if d := c.text("description"); d != "" {
		b.WriteString(`<div class="lc-update-description">` + d + "</div>")
	}
	b.WriteString(`</div><div class="lc-update-body">` + c.kids() + "</div></section>\n")
	return b.String()
}

func tile(c *call) string {
	href := c.href("href")
	var b strings.Builder
	b.WriteString(`<div class="lc-tile"><div class="lc-tile-media">` + c.kids() + "</div>")
	title := c.text("title")
	if href != "" {
		if title == "" {
			title = "Open"
		}
		b.WriteString(`<a class="lc-tile-title" href="` + esc(href) + `">` + title + "</a>")
	} else if title != "" {
		b.WriteString(`<div class="lc-tile-title">` + title + "</div>")
	}
	if d := c.text("description"); d != "" {
		b.WriteString(`<div class="lc-tile-description">` + d + "</div>")
	}
	b.WriteString("</div>\n")
	return b.String()
}

func treeFolder(c *call) string {
	open := ""
	if c.flag("defaultOpen") || c.flag("openable") {
		open = " open"
	}
	return `<li class="lc-tree-folder"><details` + open + "><summary>" + c.text("name") + "</summary><ul>" + c.kids() +
		"</ul></details></li>\n"
}

func treeFile(c *call) string {
	return `<li class="lc-tree-file">` + c.text("name") + "</li>\n"
}

// visibility renders <Visibility for="humans|agents">: as in Mintlify,
// content for agents is left out of the web page.
func visibility(c *call) string {
	if strings.EqualFold(strings.TrimSpace(c.str("for")), "agents") {
		return ""
	}
	return c.kids()
}

func latex(c *call) string {
	tag := c.inlineTag()
	return "<" + tag + ` class="lc-latex"><code>` + esc(strings.TrimSpace(c.n.Raw)) + "</code></" + tag + ">"
}

// snippet renders the legacy <Snippet file="name.mdx" />, a file under
// snippets/.
func snippet(c *call) string {
	name := strings.TrimPrefix(c.str("file"), "/")
	file := name
	if !strings.HasPrefix(file, "snippets/") {
		file = "snippets/" + file
	}
	if name == "" || !c.r.env.Links.Files[file] {
		c.r.warn(c.sc, c.n.Line, "<Snippet file=%q>: file not found", c.str("file"))
		return ""
	}
	mod := c.r.env.LoadModule(file)
	if mod == nil {
		return ""
	}
	return c.r.custom(c.n, c.sc, mod.Whole())
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !mdx.IsLetter(s[i]) && s[i] != '-' {
			return false
		}
	}
	return s != ""
}

// renderIcon renders an icon attribute value for a component: a local
// image, an inline SVG of the site's icon library in the style of the
// iconType attribute, or, for an unknown name, an empty placeholder and a
// warning.
func (c *call) renderIcon(attr string, size int, color string) string {
	ic := strings.TrimSpace(c.str(attr))
	switch {
	case ic == "":
		return ""
	case strings.HasPrefix(ic, "<"):
		return "" // inline SVG markup as a string is not trusted
	case icons.IsPath(ic):
		u := c.image(attr)
		if u == "" {
			return ""
		}
		dim := ""
		if size > 0 {
			s := strconv.Itoa(size)
			dim = ` width="` + s + `" height="` + s + `"`
		}
		return `<img class="lc-icon" src="` + esc(u) + `"` + dim + ` alt="" aria-hidden="true">`
	}
	if svg := c.r.env.Icons.SVG(ic, c.str("iconType"), size, color); svg != "" {
		return svg
	}
	c.r.warn(c.sc, c.n.Line, "unknown icon %q", ic)
	return `<span class="lc-icon" data-icon="` + esc(ic) + `" aria-hidden="true"></span>`
}

// mermaidComponent renders <Mermaid chart="graph TD; A-->B" />; without a
// chart, the children's text is the diagram.
func mermaidComponent(c *call) string {
	src := c.str("chart")
	if src == "" {
		src = strings.TrimSpace(c.n.Raw)
	}
	if src == "" {
		return ""
	}
	var b bytes.Buffer
	markdown.WriteMermaid(&b, src)
	return b.String()
}
