package components

import (
	"html"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/markdown"
	"lectern.dev/lectern/render/mdx"
)

// Components that arrange content: tabs, steps, accordions, expandables,
// views, panels and visibility. The interactive ones are HTML that works
// as it is (details, sections shown one after the other); site.js turns
// tabs into tab lists, views into a menu and moves a panel beside the
// page.

// tabs renders <Tabs sync defaultTabIndex borderBottom>.
func tabs(c *call) string {
	attrs := ""
	if v := c.val("sync"); (v.Kind == mdx.VBool && !v.B) || v.Str() == "false" {
		attrs += ` data-sync="false"`
	}
	if n, err := strconv.Atoi(c.val("defaultTabIndex").Str()); err == nil && n > 0 && n < 1000 {
		attrs += ` data-default-tab="` + strconv.Itoa(n) + `"`
	}
	class := "lc-tabs"
	if c.flag("borderBottom") {
		class += " lc-tabs-border"
	}
	return `<div class="` + class + `"` + attrs + ">" + c.kids() + "</div>\n"
}

// titled renders a title (and icon) above the children.
func titled(tag, class string) componentFunc {
	return func(c *call) string {
		head := ""
		if t := c.text("title"); t != "" || c.str("icon") != "" {
			head = `<div class="` + class + `-title">` + c.icon("icon") + t + "</div>"
		}
		return "<" + tag + ` class="` + class + `"` + c.idAttr("id") + ">" + head + `<div class="` + class + `-body">` +
			c.kids() + "</div></" + tag + ">\n"
	}
}

// idAttr returns ` id="..."` for the value of attribute attr, made unique
// on the page, or "" when there is none.
func (c *call) idAttr(attr string) string {
	v := strings.TrimSpace(c.str(attr))
	if v == "" {
		return ""
	}
	return ` id="` + esc(string(c.r.ids.Generate([]byte(v), 0))) + `"`
}

// anchorID returns an id for the element of a title: the id attribute, or
// the title's text, made unique on the page; "" with noAnchor.
func (c *call) anchorID(title string) string {
	if c.flag("noAnchor") {
		return ""
	}
	v := strings.TrimSpace(c.str("id"))
	if v == "" {
		v = html.UnescapeString(markdown.TagRE.ReplaceAllString(title, ""))
	}
	if strings.TrimSpace(v) == "" {
		return ""
	}
	return string(c.r.ids.Generate([]byte(v), 0))
}

// steps renders <Steps titleSize>; its steps take their title size from it
// unless they have their own.
func steps(c *call) string {
	outer := c.r.stepTitleSize
	c.r.stepTitleSize = c.str("titleSize")
	defer func() { c.r.stepTitleSize = outer }()
	return `<div class="lc-steps">` + c.kids() + "</div>\n"
}

// step renders <Step title icon stepNumber titleSize id noAnchor>: a
// numbered step (the number from CSS counters, or stepNumber), its title
// a heading when titleSize is h2, h3 or h4.
func step(c *call) string {
	size := c.str("titleSize")
	if size == "" {
		size = c.r.stepTitleSize
	}
	tag := "div"
	switch size {
	case "h2", "h3", "h4":
		tag = size
	}
	class, style := "lc-step", ""
	if n, err := strconv.Atoi(strings.TrimSpace(c.val("stepNumber").Str())); err == nil && n >= 0 && n < 1e6 {
		style = ` style="counter-set: lc-step ` + strconv.Itoa(n) + `"`
	}
	icon := c.icon("icon")
	if icon != "" {
		class += " lc-step-with-icon"
		icon = `<span class="lc-step-icon">` + icon + "</span>"
	}
	title := c.text("title")
	id := c.anchorID(title)
	var b strings.Builder
	b.WriteString(`<div class="` + class + `"` + style + ">" + icon)
	if title != "" {
		b.WriteString("<" + tag + ` class="lc-step-title"`)
		if id != "" {
			b.WriteString(` id="` + esc(id) + `"`)
		}
		b.WriteString(">" + title + "</" + tag + ">")
	}
	b.WriteString(`<div class="lc-step-body">` + c.kids() + "</div></div>\n")
	return b.String()
}

// accordion renders <Accordion title description icon defaultOpen id> as
// a details element; its id (the title's by default) is the hash that
// opens it.
func accordion(c *call) string {
	open := ""
	if c.flag("defaultOpen") {
		open = " open"
	}
	title := c.text("title")
	id := ""
	if a := c.anchorID(title); a != "" {
		id = ` id="` + esc(a) + `"`
	}
	desc := ""
	if d := c.text("description"); d != "" {
		desc = `<span class="lc-accordion-description">` + d + "</span>"
	}
	return `<details class="lc-accordion"` + id + open + "><summary>" + c.icon("icon") + `<span class="lc-accordion-text"><span class="lc-accordion-title">` +
		title + "</span>" + desc + `</span></summary><div class="lc-accordion-body">` + c.kids() + "</div></details>\n"
}

// expandable renders <Expandable title defaultOpen>: "Show properties",
// "Hide properties" once open.
func expandable(c *call) string {
	title := c.text("title")
	if title == "" {
		title = "properties"
	}
	open := ""
	if c.flag("defaultOpen") {
		open = " open"
	}
	return `<details class="lc-expandable"` + open + `><summary><span class="lc-expandable-show">Show</span><span class="lc-expandable-hide">Hide</span> ` +
		title + `</summary><div class="lc-expandable-body">` + c.kids() + "</div></details>\n"
}

// view renders <View title icon>: all views are on the page, each under
// its title; site.js shows the one chosen in a menu at the top of the
// page, as Mintlify's multi-view menu does.
func view(c *call) string {
	title := c.str("title")
	head := `<div class="lc-view-title">` + c.icon("icon") + esc(title) + "</div>"
	return `<section class="lc-view" data-view="` + esc(title) + `">` + head + `<div class="lc-view-body">` + c.kids() +
		"</div></section>\n"
}

// panel renders <Panel>: site.js moves it beside the page, in place of
// the table of contents, where there is room for one.
func panel(c *call) string {
	return `<aside class="lc-panel">` + c.kids() + "</aside>\n"
}

// visibility renders <Visibility for="humans|agents">: as in Mintlify,
// content for agents is left out of the web page.
func visibility(c *call) string {
	if strings.EqualFold(strings.TrimSpace(c.str("for")), "agents") {
		return ""
	}
	return c.kids()
}
