package components

import (
	"strconv"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// calloutIcons are the icons of the typed callouts, as on Mintlify; a
// card of one of these types takes the same.
var calloutIcons = map[string]string{
	"note": "circle-alert", "warning": "triangle-alert", "info": "info",
	"tip": "lightbulb", "check": "check", "danger": "octagon-alert",
}

// calloutLabels name the typed callouts for assistive technology.
var calloutLabels = map[string]string{
	"note": "Note", "warning": "Warning", "info": "Info", "tip": "Tip", "check": "Check", "danger": "Danger",
}

// callout renders <Note>, <Warning>, <Info>, <Tip>, <Check>, <Danger>
// (kind is their name in lower case), each with its icon, and <Callout
// icon color> (kind "callout"), whose icon and colour are its own; an
// icon or color attribute on the others replaces theirs.
func callout(kind string) componentFunc {
	return func(c *call) string {
		var b strings.Builder
		b.WriteString(`<aside class="lc-callout lc-` + kind + `"`)
		if col := safe.Color(c.str("color")); col != "" {
			b.WriteString(` style="--lc-callout-color: ` + col + `"`)
		}
		b.WriteString(` role="note"`)
		if l := calloutLabels[kind]; l != "" {
			b.WriteString(` aria-label="` + l + `"`)
		}
		b.WriteString(">")
		icon := c.icon("icon")
		if icon == "" && c.str("icon") == "" {
			icon = uiIcon(calloutIcons[kind])
		}
		if icon != "" {
			b.WriteString(`<span class="lc-callout-icon">` + icon + "</span>")
		}
		b.WriteString(`<div class="lc-callout-body">` + c.kids() + "</div></aside>\n")
		return b.String()
	}
}

// grid renders <CardGroup cols> and <Columns cols>: a grid of 1 to 6
// columns (2 by default), one on small screens.
func grid(class string) componentFunc {
	return func(c *call) string {
		cols, err := strconv.Atoi(c.str("cols"))
		if err != nil || cols < 1 || cols > 6 {
			cols = 2
		}
		return `<div class="` + class + `" style="--lc-cols: ` + strconv.Itoa(cols) + `">` + c.kids() + "</div>\n"
	}
}

// card renders <Card title icon color href img cta arrow horizontal type>.
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
	typ := strings.ToLower(c.str("type"))
	if calloutIcons[typ] == "" {
		typ = ""
	} else {
		class += " lc-card-typed lc-" + typ
	}
	var b strings.Builder
	b.WriteString("<" + tag + ` class="` + class + `">`)
	if img := c.image("img"); img != "" {
		b.WriteString(`<img class="lc-card-img" src="` + esc(img) + `" alt="">`)
	}
	icon := c.renderIcon("icon", 0, safe.Color(c.str("color")))
	if icon == "" && typ != "" {
		icon = uiIcon(calloutIcons[typ])
	}
	if icon != "" {
		b.WriteString(`<span class="lc-card-icon">` + icon + "</span>")
	}
	b.WriteString("<" + tag + ` class="lc-card-text">`)
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
	b.WriteString("</" + tag + ">")
	if href != "" && c.showArrow() {
		b.WriteString(`<span class="lc-card-arrow">` + uiIcon("arrow-up-right") + "</span>")
	}
	b.WriteString("</" + tag + ">\n")
	return b.String()
}

// showArrow says whether a linked card shows an arrow: as its arrow
// attribute says, else when the link leaves the site, as on Mintlify.
func (c *call) showArrow() bool {
	switch v := c.val("arrow"); v.Kind {
	case mdx.VBool:
		return v.B
	case mdx.VString:
		return v.S != "false"
	}
	return config.IsExternal(c.str("href"))
}

// column renders <Column>, one cell of <Columns>.
func column(c *call) string {
	return `<div class="lc-column">` + c.kids() + "</div>\n"
}

// tile renders <Tile href title description>: a preview (the children)
// above a title and a description.
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

// uiIcon draws an icon of the components' own (a callout's, a tree's
// folders): Lucide's, whatever the site's library, for one style
// throughout.
func uiIcon(name string) string { return icons.Lucide.SVG(name, "", 0, "") }
