package components

import (
	"bytes"
	"html"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/mdx"
)

// componentFunc renders one known component to HTML.
type componentFunc func(c *call) string

// components are the Mintlify components Lectern knows. Each renders as
// semantic HTML with the class lc-<kebab-name>; children are MDX.
var components map[string]componentFunc

func init() {
	components = map[string]componentFunc{
		"Note": callout("note"), "Warning": callout("warning"), "Info": callout("info"),
		"Tip": callout("tip"), "Check": callout("check"), "Danger": callout("danger"),
		"Callout": callout("callout"),
		"Card":    card, "CardGroup": grid("lc-card-group"), "Columns": grid("lc-columns"), "Column": column, "Tile": tile,
		"Tabs": tabs, "Tab": titled("section", "lc-tab"),
		"CodeGroup": codeGroup(""), "CodeBlock": codeBlock,
		"RequestExample": codeGroup("lc-request-example"), "ResponseExample": codeGroup("lc-response-example"),
		"Steps": steps, "Step": step,
		"AccordionGroup": wrap("div", "lc-accordion-group"), "Accordion": accordion, "Expandable": expandable,
		"Frame": frame, "ParamField": field("lc-param-field"), "ResponseField": field("lc-response-field"),
		"Icon": iconComponent, "Tooltip": tooltip, "Update": update, "Badge": badge,
		"Tree": tree, "FileTree": tree, "Tree.Folder": treeFolder, "Tree.File": treeFile,
		"View": view, "Panel": panel, "Banner": wrap("div", "lc-banner"), "Visibility": visibility,
		"Prompt": prompt, "Color": colorGroup, "Color.Row": colorRow, "Color.Item": colorItem, "GitHub.Repo": githubRepo,
		"Mermaid": mermaidComponent, "Latex": latex, "Snippet": snippet,
	}
}

// call is one use of a component.
type call struct {
	r  *Renderer
	n  *mdx.Node
	sc *mdx.Scope
}

// val returns the value of attribute name, or undefined: the last
// attribute of that name, or key of a spread object ({...props}), as in
// JSX.
func (c *call) val(name string) mdx.Value {
	return c.n.Prop(name, func(a mdx.Attr) mdx.Value { return c.r.attrValue(a, c.n, c.sc) })
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

// wrap renders the children inside one element.
func wrap(tag, class string) componentFunc {
	return func(c *call) string {
		return "<" + tag + ` class="` + class + `">` + c.kids() + "</" + tag + ">\n"
	}
}

// fieldNameAttrs are the attributes that name a field, by location.
var fieldNameAttrs = []string{"path", "query", "body", "header", "cookie", "param", "name"}

// field renders <ParamField> and <ResponseField>: the name, its labels
// (pre, then type, location, post), required, deprecated and default, then
// the description.
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
		c.fieldLabels(&b, "pre")
		b.WriteString(`<code class="lc-field-name">` + esc(name) + "</code>")
		if t := c.str("type"); t != "" {
			b.WriteString(`<span class="lc-field-type">` + esc(t) + "</span>")
		}
		if loc != "" && loc != "name" && loc != "param" {
			b.WriteString(`<span class="lc-field-location">` + loc + "</span>")
		}
		c.fieldLabels(&b, "post")
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

// fieldLabels writes the labels of a field's pre or post attribute, an
// array of strings.
func (c *call) fieldLabels(b *strings.Builder, attr string) {
	v := c.val(attr)
	if v.Kind != mdx.VArray {
		return
	}
	for _, it := range v.Items {
		if s := it.Str(); s != "" {
			b.WriteString(`<span class="lc-field-label">` + esc(s) + "</span>")
		}
	}
}

// update renders <Update label description tags>: the label (a heading
// with an anchor), tags and description beside the entry.
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
	if name == "" || !c.r.env.Links.HasFile(file) {
		c.r.warn(c.sc, c.n.Line, "<Snippet file=%q>: file not found", c.str("file"))
		return ""
	}
	mod := c.r.env.LoadModule(file)
	if mod == nil {
		return ""
	}
	return c.r.custom(c.n, c.sc, mod.Whole())
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
