package safe

import (
	"html"
	"regexp"
	"strings"
)

// Active content.
//
// Page content must not run script on the docs origin. Scripts, styles and
// head elements are removed (htmlElement); what remains are attributes,
// and URLAllowed is the one check that every URL written into a page goes
// through: the href and src of HTML elements written in MDX and of
// components (Card, Tile, images, icons), Markdown links and images,
// OpenAPI descriptions (rendered as Markdown) and links of the
// configuration. Event handlers (on*) and srcdoc are dropped
// (htmlAttrName, htmlElement), each with a warning naming file and line.

// allowedSchemes are the URL schemes a page may carry; a URL without a
// scheme (relative, or a fragment) is always allowed.
var allowedSchemes = map[string]bool{"http": true, "https": true, "mailto": true, "tel": true}

// URLAttrs are the attributes whose value browsers read as a URL (or a
// list of URLs), besides href and src, which every element may use.
var URLAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "data": true, "poster": true,
	"xlink:href": true, "srcset": true, "imagesrcset": true, "background": true, "cite": true,
	"ping": true, "longdesc": true, "lowsrc": true, "dynsrc": true, "usemap": true, "manifest": true,
	"codebase": true, "archive": true, "classid": true, "icon": true, "profile": true, "itemtype": true,
}

// DroppedAttrs are attributes that are never written: srcdoc makes an
// iframe of HTML given inline, which runs its scripts.
var DroppedAttrs = map[string]bool{"srcdoc": true}

// URLAllowed reports whether u, as a browser reads it from an attribute,
// is relative, a fragment or of an allowed scheme (http, https, mailto,
// tel); image says that it is the source of an image, for which data:image
// URLs are allowed too (they make no request and run no script in <img>).
// It reads the URL as browsers do: character references decoded, leading
// and trailing spaces and control characters removed, tabs and line
// breaks inside ignored, the scheme case-insensitive. Both the value and
// its decoded form must pass, so that a value decoded once more by
// whoever reads the page does not turn into another scheme.
func URLAllowed(u string, image bool) bool {
	if !schemeAllowed(u, image) {
		return false
	}
	if strings.IndexByte(u, '&') >= 0 {
		return schemeAllowed(html.UnescapeString(u), image)
	}
	return true
}

// schemeAllowed is URLAllowed without decoding character references.
func schemeAllowed(u string, image bool) bool {
	scheme, rest, ok := Scheme(u)
	if !ok {
		return true
	}
	if allowedSchemes[scheme] {
		return true
	}
	return image && scheme == "data" && strings.HasPrefix(strings.ToLower(strings.TrimLeft(rest, " ")), "image/")
}

// Scheme returns the lower-cased scheme of u as the WHATWG URL parser
// finds it, and what follows its colon; ok is false for a URL without a
// scheme (relative).
func Scheme(u string) (scheme, rest string, ok bool) {
	// Leading and trailing C0 controls and spaces are stripped, and tabs
	// and line breaks anywhere are removed.
	u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(u, "\t\n\r") {
		u = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u)
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(u[:i]), u[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// SrcsetAllowed reports whether every URL of a srcset value (candidates
// separated by commas, each a URL and an optional descriptor) is allowed
// for an image, and none is on another host.
func SrcsetAllowed(s string) bool {
	if strings.Contains(s, "//") {
		return false
	}
	for _, cand := range strings.Split(s, ",") {
		f := strings.Fields(cand)
		if len(f) > 0 && !URLAllowed(f[0], true) {
			return false
		}
	}
	return URLAllowed(s, true)
}

// RawHTML returns the HTML of a RawNode (render/mdx) as a page may carry it. A
// comment is kept only when it is one comment for browsers too: "--!>"
// inside also ends a comment for them (what follows would be markup),
// and an unterminated one would swallow the rest of the page. A stray
// closing tag is kept as it is.
func RawHTML(text string) string {
	if !strings.HasPrefix(text, "<!--") {
		return text
	}
	if len(text) < len("<!---->") || !strings.HasSuffix(text, "-->") {
		return "" // "<!-->", "<!--->" or unterminated
	}
	inner := text[4 : len(text)-3]
	if strings.HasPrefix(inner, ">") || strings.HasPrefix(inner, "->") || strings.Contains(inner, "--!>") {
		inner = strings.NewReplacer("--!>", "-- !>").Replace(strings.TrimLeft(inner, "->"))
	}
	return "<!--" + inner + "-->"
}

// colorRE matches a hex colour, a named one, or a colour function whose
// arguments are numbers, units (deg, %) and separators only: no quote,
// bracket, colon or semicolon that could leave the declaration.
var colorRE = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|(hwb|lab|lch|oklab|oklch)\([0-9a-z.,%\s/+-]+\))$`)

// Color returns s when it is a plain CSS colour (hex, named, rgb(),
// hsl(), hwb(), lab(), lch(), oklab(), oklch()), else "".
func Color(s string) string {
	s = strings.TrimSpace(s)
	if colorRE.MatchString(s) {
		return s
	}
	return ""
}

// EventHandler reports whether attribute k is an event handler (onclick,
// onError, ...): "on" and a letter, except open.
func EventHandler(k string) bool {
	lower := strings.ToLower(strings.TrimSpace(k))
	return strings.HasPrefix(lower, "on") && len(lower) > 2 && lower != "open"
}

// Href keeps a link's URL whose scheme is harmless (URLAllowed) and
// replaces the others (javascript:, data:, ...) by "#".
func Href(u string) string {
	if URLAllowed(u, false) {
		return u
	}
	return "#"
}
