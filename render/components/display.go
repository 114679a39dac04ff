package components

import (
	"net/url"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/icons"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// Components that show something: badges, tooltips, icons, frames,
// prompts, colour swatches and repository cards.

// badgeColors are the colours of <Badge color>.
var badgeColors = map[string]bool{
	"gray": true, "blue": true, "green": true, "yellow": true, "orange": true, "red": true, "purple": true,
	"white": true, "surface": true, "white-destructive": true, "surface-destructive": true,
}

// badge renders <Badge color size shape icon stroke disabled>.
func badge(c *call) string {
	color := strings.ToLower(c.str("color"))
	if !badgeColors[color] {
		color = "gray"
	}
	class := "lc-badge lc-badge-" + color
	switch size := c.str("size"); size {
	case "xs", "sm", "lg":
		class += " lc-badge-" + size
	}
	if c.str("shape") == "pill" {
		class += " lc-badge-pill"
	} else {
		class += " lc-badge-rounded"
	}
	if c.flag("stroke") {
		class += " lc-badge-stroke"
	}
	attrs := ""
	if c.flag("disabled") {
		class += " lc-badge-disabled"
		attrs = ` aria-disabled="true"`
	}
	tag := c.inlineTag()
	return "<" + tag + ` class="` + class + `"` + attrs + ">" + c.icon("icon") + unwrapParagraph(c.kids()) + "</" + tag + ">"
}

// tooltip renders <Tooltip tip headline cta href>: the text, which shows
// a bubble on hover and on keyboard focus (CSS only), with the headline,
// the tip and a link.
func tooltip(c *call) string {
	id := esc(string(c.r.ids.Generate([]byte("tooltip"), 0)))
	var b strings.Builder
	b.WriteString(`<span class="lc-tooltip" tabindex="0" aria-describedby="` + id + `">` + unwrapParagraph(c.kids()))
	b.WriteString(`<span class="lc-tooltip-bubble" role="tooltip" id="` + id + `">`)
	if h := c.text("headline"); h != "" {
		b.WriteString(`<span class="lc-tooltip-headline">` + h + "</span>")
	}
	b.WriteString(`<span class="lc-tooltip-tip">` + c.text("tip") + "</span>")
	if cta, href := c.text("cta"), c.href("href"); cta != "" && href != "" {
		b.WriteString(`<a class="lc-tooltip-cta" href="` + esc(href) + `">` + cta + "</a>")
	}
	b.WriteString("</span></span>")
	return b.String()
}

// iconComponent renders <Icon icon size color>, or <Icon src> for an
// image.
func iconComponent(c *call) string {
	size, _ := strconv.Atoi(strings.TrimSuffix(c.str("size"), "px"))
	if size < 0 || size > 512 {
		size = 0
	}
	attr := "icon"
	if c.str("icon") == "" && c.str("src") != "" {
		attr = "src"
	}
	return c.renderIcon(attr, size, safe.Color(c.str("color")))
}

// markdownAttr returns a string attribute rendered as inline Markdown
// (Frame captions, Prompt descriptions), or a JSX attribute rendered.
func (c *call) markdownAttr(name string) string {
	v := c.val(name)
	if v.Kind == mdx.VNodes {
		return c.r.valueHTML(v)
	}
	s := strings.TrimSpace(v.Str())
	if s == "" {
		return ""
	}
	return strings.TrimSpace(unwrapParagraph(c.r.MarkdownText(s, c.sc)))
}

// frame renders <Frame caption hint>: the content in a frame, the hint
// above it, the caption (Markdown) below.
func frame(c *call) string {
	var b strings.Builder
	if h := c.text("hint"); h != "" {
		b.WriteString(`<p class="lc-frame-hint">` + h + "</p>")
	}
	b.WriteString(`<figure class="lc-frame">`)
	b.WriteString(c.kids())
	if cap := c.markdownAttr("caption"); cap != "" {
		b.WriteString("<figcaption>" + cap + "</figcaption>")
	}
	b.WriteString("</figure>\n")
	return b.String()
}

// prompt renders <Prompt description icon actions>: a card with the
// description and buttons to copy the prompt (its children, as written)
// or open it in Cursor. The prompt itself is on the page, hidden, for
// site.js to copy.
func prompt(c *call) string {
	text := strings.TrimSpace(mdx.Dedent(strings.Trim(c.n.Raw, "\n"), false))
	actions := map[string]bool{"copy": true}
	if v := c.val("actions"); v.Kind == mdx.VArray {
		actions = map[string]bool{}
		for _, it := range v.Items {
			actions[strings.ToLower(it.Str())] = true
		}
	}
	var b strings.Builder
	b.WriteString(`<div class="lc-prompt"><div class="lc-prompt-head">`)
	icon := c.icon("icon")
	if icon == "" {
		icon = uiIcon("sparkles")
	}
	b.WriteString(`<span class="lc-prompt-icon">` + icon + "</span>")
	b.WriteString(`<div class="lc-prompt-description">` + c.markdownAttr("description") + "</div></div>")
	b.WriteString(`<div class="lc-prompt-actions">`)
	if actions["cursor"] {
		u := "https://cursor.com/link/prompt?text=" + url.QueryEscape(text)
		b.WriteString(`<a class="lc-prompt-action" href="` + esc(u) + `" rel="noopener">` + uiIcon("external-link") +
			"Open in Cursor</a>")
	}
	if actions["copy"] {
		b.WriteString(`<button class="lc-prompt-action lc-prompt-copy" type="button" aria-label="Copy prompt">` +
			uiIcon("copy") + "<span>Copy prompt</span></button>")
	}
	b.WriteString(`</div><pre class="lc-prompt-text" hidden>` + esc(text) + "</pre></div>\n")
	return b.String()
}

// colorGroup renders <Color variant="compact|table">.
func colorGroup(c *call) string {
	variant := "compact"
	if c.str("variant") == "table" {
		variant = "table"
	}
	return `<div class="lc-color lc-color-` + variant + `">` + c.kids() + "</div>\n"
}

// colorRow renders <Color.Row title>: a labelled row of a table.
func colorRow(c *call) string {
	return `<div class="lc-color-row"><div class="lc-color-row-title">` + c.text("title") + `</div><div class="lc-color-row-items">` +
		c.kids() + "</div></div>\n"
}

// colorItem renders <Color.Item name value>: a swatch, its name and
// value, a button that copies the value (site.js). value is a CSS colour,
// or {light, dark} for one per colour scheme.
func colorItem(c *call) string {
	v := c.val("value")
	light, dark := v.Str(), v.Str()
	if v.Kind == mdx.VObject {
		light, dark = v.Field("light").Str(), v.Field("dark").Str()
		if light == "" {
			light = dark
		}
		if dark == "" {
			dark = light
		}
	}
	sl, sd := safe.Color(light), safe.Color(dark)
	if sl == "" || sd == "" {
		c.r.warn(c.sc, c.n.Line, "<Color.Item value=%q>: not a CSS colour; no swatch is shown", strings.TrimSpace(light+" "+dark))
	}
	var b strings.Builder
	b.WriteString(`<button class="lc-color-item" type="button" data-copy="` + esc(light) + `"`)
	if dark != light {
		b.WriteString(` data-copy-dark="` + esc(dark) + `"`)
	}
	b.WriteString(` aria-label="Copy ` + esc(c.str("name")) + `">`)
	b.WriteString(`<span class="lc-color-swatch"`)
	if sl != "" && sd != "" {
		b.WriteString(` style="--lc-swatch: ` + sl + `; --lc-swatch-dark: ` + sd + `"`)
	}
	b.WriteString(`></span><span class="lc-color-name">` + c.text("name") + "</span>")
	if dark != light {
		b.WriteString(`<span class="lc-color-value lc-light-only">` + esc(light) + `</span><span class="lc-color-value lc-dark-only">` +
			esc(dark) + "</span>")
	} else {
		b.WriteString(`<span class="lc-color-value">` + esc(light) + "</span>")
	}
	b.WriteString("</button>\n")
	return b.String()
}

// githubRepo renders <GitHub.Repo repo variant>: a card that links to
// the repository. Mintlify fills in its description, stars and forks from
// GitHub's API when the page loads; pages here load nothing from other
// hosts, so the card shows its name.
func githubRepo(c *call) string {
	repo := strings.TrimSpace(c.str("repo"))
	for _, p := range []string{"https://github.com/", "http://github.com/", "github.com/"} {
		repo = strings.TrimPrefix(repo, p)
	}
	repo = strings.TrimSuffix(strings.TrimSuffix(repo, "/"), ".git")
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || !repoPart(owner) || !repoPart(name) {
		c.r.warn(c.sc, c.n.Line, "<GitHub.Repo repo=%q>: not an owner/name repository", c.str("repo"))
		return ""
	}
	variant := "inset"
	if c.str("variant") == "flat" {
		variant = "flat"
	}
	href := "https://github.com/" + owner + "/" + name
	return `<a class="lc-github-repo lc-github-` + variant + `" href="` + esc(href) + `" rel="noopener">` + icons.FontAwesome.SVG("github", "brands", 0, "") +
		`<span class="lc-github-text"><span class="lc-github-name">` + esc(owner) + "/<strong>" + esc(name) +
		`</strong></span><span class="lc-github-note">View the repository on GitHub</span></span></a>` + "\n"
}

// repoPart reports whether s can be a GitHub owner or repository name.
func repoPart(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; !(mdx.IsLetter(b) || '0' <= b && b <= '9' || b == '-' || b == '_' || b == '.') {
			return false
		}
	}
	return true
}
