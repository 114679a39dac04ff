package components

import (
	"html"
	"path"
	"strings"
	"unicode"

	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/safe"
)

// htmlElement renders a lowercase (HTML) element written in MDX: JSX
// attribute names become HTML ones (className → class), style objects
// become CSS, links and media sources are rewritten for the page, and media
// on other hosts become poster cards (media.go) or plain links, so that
// pages load nothing from elsewhere. Scripts, styles and head elements are removed with a warning.
func (r *Renderer) htmlElement(n *mdx.Node, sc *mdx.Scope) string {
	name := strings.ToLower(n.Name)
	switch name {
	case "script", "style", "link", "meta", "base":
		r.warn(sc, n.Line, "<%s> is not allowed in page content; removed", name)
		return ""
	}
	if src := r.remoteMedia(name, n, sc); src != "" {
		return r.remoteMediaHTML(name, src, n, sc)
	}
	var b strings.Builder
	b.WriteString("<" + name)
	for _, a := range n.Attrs {
		if a.Kind == mdx.AttrSpread {
			continue // {...obj} on an HTML element: not expanded
		}
		if link := r.writeHTMLAttr(&b, name, a, n, sc); link != "" {
			return link
		}
	}
	b.WriteString(">")
	if mdx.IsVoid(name) {
		return b.String()
	}
	if mdx.KeepsRawContent(name) {
		// The content is text (as MDX reads it: braces and tags inside
		// stay as written), shown as such: a tag in it is never markup
		// that would escape the checks every element goes through.
		b.WriteString(html.EscapeString(html.UnescapeString(n.Raw)))
	} else {
		b.WriteString(r.kids(n, sc))
	}
	b.WriteString("</" + name + ">")
	return b.String()
}

// writeHTMLAttr writes attribute a of n, an HTML element named name, to b
// as HTML, or nothing when a is dropped. When a names media on another
// host, it writes nothing and returns the link that replaces the element;
// else it returns "".
func (r *Renderer) writeHTMLAttr(b *strings.Builder, name string, a mdx.Attr, n *mdx.Node, sc *mdx.Scope) (link string) {
	k := htmlAttrName(a.Name)
	if k == "" {
		if safe.EventHandler(a.Name) {
			r.warn(sc, n.Line, "<%s %s>: event handler attributes are not allowed in page content; removed", name, a.Name)
		}
		return ""
	}
	if safe.DroppedAttrs[k] {
		r.warn(sc, n.Line, "<%s %s>: not allowed in page content (it runs the HTML it holds); removed", name, k)
		return ""
	}
	v := r.attrValue(a, n, sc)
	var s string
	switch v.Kind {
	case mdx.VBool:
		if v.B {
			b.WriteString(" " + k)
		}
		return ""
	case mdx.VString, mdx.VNumber:
		s = v.S
	case mdx.VArray:
		s = v.Str()
	case mdx.VObject:
		if k != "style" {
			return ""
		}
		s = cssFromObject(v)
	default:
		return ""
	}
	s, keep, external := r.htmlAttrValue(name, k, s, n, sc)
	if external {
		return externalMedia(name, s, r.props(n, sc))
	}
	if keep {
		b.WriteString(" " + k + `="` + html.EscapeString(s) + `"`)
	}
	return ""
}

// htmlAttrValue checks the value s of attribute k of n, an HTML element
// named name, rewriting links and media sources for the page. It returns
// the value to write, with keep true, or keep false when the attribute is
// removed; external is set (with s returned as it is) when s names media
// on another host, for which the element is replaced by a link.
func (r *Renderer) htmlAttrValue(name, k, s string, n *mdx.Node, sc *mdx.Scope) (val string, keep, external bool) {
	switch k {
	case "href", "xlink:href":
		if s = r.linkAttr(s, "<"+name+" "+k+">", n.Line, sc); s == "" {
			return "", false, false
		}
	case "src", "poster", "data":
		if framesDocument(name) && activeFile(s) {
			r.warn(sc, n.Line, "<%s %s=%q>: a frame may not show an SVG or XML file, which can run script; removed", name, k, s)
			return "", false, false
		}
		u, external := r.asset(s, n.Line, sc, mediaWhat(name))
		if external {
			if k == "poster" {
				return "", false, false
			}
			return s, false, true
		}
		if u == "" {
			return "", false, false
		}
		s = u
	case "srcset", "imagesrcset":
		if !safe.SrcsetAllowed(s) {
			r.warn(sc, n.Line, "<%s %s> removed: its URLs must be relative or data:image/ URLs", name, k)
			return "", false, false
		}
	case "style":
		if unsafeCSS(s) {
			return "", false, false
		}
	case "attributename":
		// SVG animations (<set>, <animate>) that change a link or an
		// event handler could give it any URL or script.
		if l := strings.ToLower(strings.TrimSpace(s)); strings.Contains(l, "href") || safe.EventHandler(l) {
			r.warn(sc, n.Line, "<%s attributeName=%q>: animating a link or an event handler is not allowed; removed", name, s)
			return "", false, false
		}
	default:
		if safe.URLAttrs[k] {
			if !r.checkURL(s, "<"+name+" "+k+">", false, n.Line, sc) {
				return "", false, false
			}
		}
	}
	return s, true, false
}

// framesDocument reports whether element tag shows its source as a
// document of its own (which runs the scripts of an SVG or XML file).
func framesDocument(tag string) bool {
	switch tag {
	case "iframe", "frame", "object", "embed":
		return true
	}
	return false
}

// activeFile reports whether URL u names a file whose document can run
// script (SVG, XML, XHTML, XSLT): a frame must not show one, which on a
// host that does not sandbox the repository's files would run it on the
// docs origin.
func activeFile(u string) bool {
	p, _ := links.SplitSuffix(strings.TrimSpace(u))
	switch strings.ToLower(path.Ext(p)) {
	case ".svg", ".svgz", ".xml", ".xhtml", ".xht", ".xsl", ".xslt":
		return true
	}
	return false
}

func mediaWhat(tag string) string {
	switch tag {
	case "img":
		return "image"
	case "video", "audio", "source", "track":
		return "media file"
	case "iframe":
		return "embedded page"
	}
	return "file"
}

// externalMedia is the link that replaces media on another host that has
// no poster card (media.go): an image, an <embed> or <object>.
func externalMedia(tag, src string, props map[string]mdx.Value) string {
	label := props["alt"].Str()
	if label == "" {
		label = props["title"].Str()
	}
	if label == "" {
		switch tag {
		case "img":
			label = "External image"
		default:
			label = "External media"
		}
	}
	return `<a class="lc-external-media" href="` + html.EscapeString(src) + `" rel="noopener noreferrer">` +
		html.EscapeString(label) + `</a>`
}

// svgAttrs maps React's camelCase SVG attributes to their HTML names.
var svgAttrs = map[string]string{
	"strokeWidth": "stroke-width", "strokeLinecap": "stroke-linecap", "strokeLinejoin": "stroke-linejoin",
	"strokeDasharray": "stroke-dasharray", "strokeDashoffset": "stroke-dashoffset",
	"strokeMiterlimit": "stroke-miterlimit", "strokeOpacity": "stroke-opacity", "fillOpacity": "fill-opacity",
	"fillRule": "fill-rule", "clipRule": "clip-rule", "clipPath": "clip-path", "stopColor": "stop-color",
	"stopOpacity": "stop-opacity", "fontSize": "font-size", "fontFamily": "font-family",
	"fontWeight": "font-weight", "textAnchor": "text-anchor", "dominantBaseline": "dominant-baseline",
	"xlinkHref": "href", "xmlnsXlink": "",
}

// htmlAttrName maps a JSX attribute name to the HTML one, or "" to drop it
// (React-only props and event handlers).
func htmlAttrName(k string) string {
	switch k {
	case "className":
		return "class"
	case "htmlFor":
		return "for"
	case "key", "ref", "dangerouslySetInnerHTML", "":
		return ""
	}
	if h, ok := svgAttrs[k]; ok {
		return h
	}
	lower := strings.ToLower(k)
	if safe.EventHandler(k) {
		return ""
	}
	if strings.HasPrefix(lower, "aria-") || strings.HasPrefix(lower, "data-") {
		return k
	}
	return lower
}

var unitless = map[string]bool{
	"opacity": true, "z-index": true, "font-weight": true, "line-height": true, "flex": true,
	"flex-grow": true, "flex-shrink": true, "order": true, "zoom": true, "grid-row": true, "grid-column": true,
}

// cssFromObject turns a JSX style object into a CSS declaration list.
func cssFromObject(v mdx.Value) string {
	var decls []string
	for i, k := range v.Keys {
		prop := kebab(k)
		if strings.HasPrefix(prop, "webkit-") || strings.HasPrefix(prop, "moz-") || strings.HasPrefix(prop, "ms-") {
			prop = "-" + prop
		}
		var val string
		switch it := v.Items[i]; it.Kind {
		case mdx.VString:
			val = it.S
		case mdx.VNumber:
			val = it.S
			if !unitless[prop] && it.S != "0" {
				val += "px"
			}
		default:
			continue
		}
		if strings.ContainsAny(val, ";{}") || unsafeCSS(val) {
			continue
		}
		decls = append(decls, prop+": "+val)
	}
	return strings.Join(decls, "; ")
}

// kebab turns camelCase into kebab-case.
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unsafeCSS reports whether CSS text could load something from another
// host.
func unsafeCSS(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "@import") || strings.Contains(l, "expression(") ||
		(strings.Contains(l, "url(") && (strings.Contains(l, "//") || strings.Contains(l, "http")))
}
