package pagemd

import (
	"html"
	"regexp"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/openapi"
)

// htmlBlocks are the HTML elements whose Markdown is a block of its own.
var htmlBlocks = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "footer": true, "aside": true,
	"nav": true, "figure": true, "center": true, "details": true, "blockquote": true, "pre": true, "ul": true, "ol": true,
	"li": true, "table": true, "hr": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"iframe": true, "video": true, "audio": true, "dl": true, "form": true,
}

// htmlElement converts a lowercase (HTML) element to its Markdown, or to
// its content.
func (c *conv) htmlElement(n *mdx.Node, sc *mdx.Scope) string {
	name := strings.ToLower(n.Name)
	a := &call{c: c, n: n, sc: sc}
	switch name {
	case "script", "style", "link", "meta", "base", "svg", "input", "textarea", "select", "noscript", "template", "source", "track":
		return ""
	case "br":
		return "\n"
	case "hr":
		return "---"
	case "a":
		text := oneLine(c.kids(n, sc))
		u := c.href(a.str("href"), false)
		switch {
		case u == "":
			return text
		case text == "":
			return "<" + u + ">"
		}
		return "[" + text + "](" + wrapDest(u) + ")"
	case "img":
		u := c.href(a.str("src"), true)
		if u == "" {
			return ""
		}
		return "![" + oneLine(escape(a.str("alt"))) + "](" + wrapDest(u) + ")"
	case "iframe", "video", "audio", "embed", "object":
		return c.mediaLink(n, a)
	case "strong", "b":
		return wrapInline("**", c.kids(n, sc))
	case "em", "i":
		return wrapInline("*", c.kids(n, sc))
	case "s", "del", "strike":
		return wrapInline("~~", c.kids(n, sc))
	case "code", "kbd", "samp", "tt", "var":
		return codeSpan(rawText(n))
	case "pre":
		return openapi.Fence(preLang(n, a), strings.Trim(mdx.Dedent(rawText(n), false), "\n"))
	case "h1", "h2", "h3", "h4", "h5", "h6":
		level, _ := strconv.Atoi(name[1:])
		if t := oneLine(c.kids(n, sc)); t != "" {
			return strings.Repeat("#", level) + " " + t
		}
		return ""
	case "ul", "ol":
		return c.list(n, sc, name == "ol", a)
	case "li":
		return listItem("- ", c.kids(n, sc))
	case "blockquote":
		return quote(c.kids(n, sc))
	case "table":
		return c.table(n, sc)
	case "details":
		return c.details(n, sc)
	case "summary", "dt", "th":
		return bold(oneLine(c.kids(n, sc)))
	}
	return c.kids(n, sc)
}

// wrapInline wraps inline content in a delimiter, outside its spaces.
func wrapInline(d, s string) string {
	t := oneLine(s)
	if t == "" {
		return ""
	}
	return d + t + d
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// rawText is the text of an element whose content is kept as written
// (pre, code): its tags removed, its entities decoded.
func rawText(n *mdx.Node) string {
	if n.Raw == "" && len(n.Children) > 0 {
		var b strings.Builder
		for _, k := range n.Children {
			if k.Kind == mdx.TextNode {
				b.WriteString(k.Text)
			}
		}
		return b.String()
	}
	return html.UnescapeString(tagRE.ReplaceAllString(n.Raw, ""))
}

var langClassRE = regexp.MustCompile(`language-([A-Za-z0-9_+#.-]+)`)

// preLang is the language of a <pre> block: its class or that of the
// <code> inside it, "language-x".
func preLang(n *mdx.Node, a *call) string {
	for _, s := range []string{a.str("className"), a.str("class"), n.Raw} {
		if m := langClassRE.FindStringSubmatch(s); m != nil {
			return fenceInfo(m[1])
		}
	}
	return ""
}

// list converts <ul> and <ol>: their <li> children as items.
func (c *conv) list(n *mdx.Node, sc *mdx.Scope, ordered bool, a *call) string {
	num := 1
	if v, err := strconv.Atoi(strings.TrimSpace(a.str("start"))); ordered && err == nil && v >= 0 && v < 1e6 {
		num = v
	}
	var items []string
	for _, k := range n.Children {
		if k.Kind != mdx.ElementNode {
			continue
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		body := c.kids(k, sc)
		if strings.ToLower(k.Name) != "li" {
			body = c.element(k, sc)
		}
		items = append(items, listItem(marker, body))
	}
	return strings.Join(items, "\n")
}

// details converts <details>: its summary in bold over its content.
func (c *conv) details(n *mdx.Node, sc *mdx.Scope) string {
	var head string
	var rest []*mdx.Node
	for _, k := range n.Children {
		if k.Kind == mdx.ElementNode && strings.ToLower(k.Name) == "summary" && head == "" {
			head = bold(oneLine(c.kids(k, sc)))
			continue
		}
		rest = append(rest, k)
	}
	m := *n
	m.Children = rest
	return join(head, c.kids(&m, sc))
}

// table converts a <table> to a Markdown table: its first row the
// header. A table without rows is its content.
func (c *conv) table(n *mdx.Node, sc *mdx.Scope) string {
	var rows [][]string
	var walk func(nodes []*mdx.Node, depth int)
	walk = func(nodes []*mdx.Node, depth int) {
		for _, k := range nodes {
			if k.Kind != mdx.ElementNode || depth > 4 {
				continue
			}
			switch strings.ToLower(k.Name) {
			case "thead", "tbody", "tfoot":
				walk(k.Children, depth+1)
			case "tr":
				var row []string
				for _, cell := range k.Children {
					if cell.Kind == mdx.ElementNode && (strings.EqualFold(cell.Name, "td") || strings.EqualFold(cell.Name, "th")) {
						row = append(row, strings.ReplaceAll(oneLine(c.kids(cell, sc)), "|", `\|`))
					}
				}
				rows = append(rows, row)
			}
		}
	}
	walk(n.Children, 0)
	if len(rows) == 0 {
		return c.kids(n, sc)
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return ""
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i := range cols {
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	b.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
	for _, r := range rows[1:] {
		line(r)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mediaLink converts a video, an audio, an iframe or an embed to a link
// to its source (its title, else its kind, as the text).
func (c *conv) mediaLink(n *mdx.Node, a *call) string {
	src := a.str("src")
	if src == "" {
		for _, k := range n.Children {
			if k.Kind == mdx.ElementNode && strings.EqualFold(k.Name, "source") {
				src = (&call{c: c, n: k, sc: a.sc}).str("src")
				break
			}
		}
	}
	u := c.href(src, false)
	if u == "" {
		return ""
	}
	text := oneLine(escape(a.str("title")))
	if text == "" {
		text = strings.ToUpper(n.Name[:1]) + strings.ToLower(n.Name[1:])
	}
	return "[" + text + "](" + wrapDest(u) + ")"
}
