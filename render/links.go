package render

import (
	"lectern.dev/lectern/render/config"
	"net/url"
	"path"
	"strings"
)

// targetKind says what a link points at.
type targetKind uint8

const (
	tExternal targetKind = iota // another host or scheme: left as written
	tAnchor                     // "#id" on the same page, or empty
	tPage                       // a navigation page; path "" is the site root
	tFile                       // a file copied from the source
	tMissing                    // nothing the site produces
)

// target is a resolved link.
type target struct {
	kind   targetKind
	path   string // page path, file path or external URL
	suffix string // "?query#fragment"
	reason string // why a tMissing target is missing
}

// resolve resolves href, written in the page at fromPage, against the
// site: pages (with or without .mdx/.md/.html, or as folder/index), copied
// files and redirects.
func (s *site) resolve(fromPage, href string) target {
	href = strings.TrimSpace(href)
	switch {
	case href == "":
		return target{kind: tAnchor}
	case strings.HasPrefix(href, "#"):
		return target{kind: tAnchor, suffix: href}
	case config.IsExternal(href):
		return target{kind: tExternal, path: href}
	}
	p, suffix := splitSuffix(href)
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	} else {
		p = path.Join("/", path.Dir(fromPage), p)
	}
	return s.lookup(strings.TrimPrefix(p, "/"), suffix, 0)
}

func (s *site) lookup(p, suffix string, hops int) target {
	if p == "" || p == "." {
		return target{kind: tPage, suffix: suffix}
	}
	if s.files[p] && !isPageFile(p) {
		return target{kind: tFile, path: p, suffix: suffix}
	}
	base := strings.TrimSuffix(p, "/")
	for _, ext := range []string{".mdx", ".md", ".html"} {
		base = strings.TrimSuffix(base, ext)
	}
	switch {
	case s.pages[base] != nil:
		return target{kind: tPage, path: base, suffix: suffix}
	case s.pages[base+"/index"] != nil:
		return target{kind: tPage, path: base + "/index", suffix: suffix}
	case base == "index":
		return target{kind: tPage, suffix: suffix}
	}
	if hops < 5 {
		if dest, ok := s.redirects.Match("/" + base); ok {
			if config.IsExternal(dest) {
				return target{kind: tExternal, path: dest}
			}
			dp, dsuf := splitSuffix(dest)
			if suffix == "" {
				suffix = dsuf
			}
			return s.lookup(strings.TrimPrefix(path.Clean("/"+dp), "/"), suffix, hops+1)
		}
	}
	t := target{kind: tMissing, path: base, suffix: suffix, reason: "no page or file " + base}
	if s.files[base+".mdx"] || s.files[base+".md"] {
		t.reason = base + " is not in the navigation"
	} else if path.Ext(base) != "" {
		t.path = p
	}
	return t
}

func isPageFile(p string) bool {
	return strings.HasSuffix(p, ".mdx") || strings.HasSuffix(p, ".md")
}

// splitSuffix splits href before its query or fragment.
func splitSuffix(href string) (p, suffix string) {
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		return href[:i], href[i:]
	}
	return href, ""
}

// urlFor returns the URL of t as written in the output file fromOut:
// absolute and extensionless in the live form, relative to .html files in
// the export form, except in 404.html, which a server sends for missing
// paths at any depth (and is never opened from file://): there they are
// absolute .html paths under the site's path.
func (s *site) urlFor(fromOut string, t target) string {
	var file, live string
	switch t.kind {
	case tExternal:
		return t.path
	case tAnchor:
		return t.suffix
	case tFile:
		file, live = t.path, t.path
	default: // pages, and missing targets shown where a page would be
		switch {
		case t.path == "" || t.path == "index":
			file, live = "index.html", ""
		case t.kind == tMissing && path.Ext(t.path) != "":
			file, live = t.path, t.path
		default:
			file, live = t.path+".html", t.path
		}
	}
	if !s.opts.Export {
		return s.opts.BasePath + "/" + escapePath(live) + t.suffix
	}
	if fromOut == "404.html" {
		return s.sitePath() + "/" + escapePath(file) + t.suffix
	}
	return escapePath(relPath(path.Dir(fromOut), file)) + t.suffix
}

// sitePath is the URL path the site is served under: that of
// Options.SiteURL when it names one, else Options.BasePath ("" for the
// root).
func (s *site) sitePath() string {
	if s.opts.SiteURL != "" {
		if u, err := url.Parse(s.canonicalURL("index")); err == nil && u.Host != "" {
			return strings.TrimSuffix(u.EscapedPath(), "/")
		}
	}
	return s.opts.BasePath
}

// pageURL returns the URL of a page from the output file fromOut.
func (s *site) pageURL(fromOut, page string) string {
	return s.urlFor(fromOut, target{kind: tPage, path: page})
}

// assetURL returns the URL of a file produced by the build (a copied file
// or a theme asset) from the output file fromOut.
func (s *site) assetURL(fromOut, file string) string {
	return s.urlFor(fromOut, target{kind: tFile, path: file})
}

// relPath returns the relative path from folder fromDir ("." for the root)
// to the file target; both are clean and slash-separated.
func relPath(fromDir, target string) string {
	if fromDir == "." || fromDir == "" {
		return target
	}
	from := strings.Split(fromDir, "/")
	to := strings.Split(target, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(to[i:], "/")
}

// escapePath percent-encodes each segment of a slash-separated path.
func escapePath(p string) string {
	if p == "" {
		return ""
	}
	if unreservedPath(p) {
		return p // nothing to escape: the common case, without allocating
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// unreservedPath reports whether p has only unreserved characters of URLs
// (RFC 3986: letters, digits, "-", ".", "_", "~") and slashes, which
// url.PathEscape leaves as they are.
func unreservedPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			return false
		}
	}
	return true
}
