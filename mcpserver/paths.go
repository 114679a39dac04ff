package mcpserver

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// siteRoot is where the site is served, from Info.URL: its origin
// ("https://docs.acme.test"; "" when unknown) and base path ("/docs";
// "" at the root).
type siteRoot struct {
	origin, base string
	host         string // the origin's host, lowercase
	export       bool   // pages' URLs are "x.html", relative to the root
}

// parseRoot reads Info.URL: "" or a root-relative path ("/docs"), or an
// absolute http(s) URL with no query or fragment.
func parseRoot(s string, export bool) (siteRoot, error) {
	r := siteRoot{export: export}
	if s == "" {
		return r, nil
	}
	u, err := url.Parse(s)
	bad := fmt.Errorf(`mcpserver: Info.URL %q is neither an http(s) URL ("https://docs.acme.test/docs") nor a path ("/docs")`, s)
	switch {
	case err != nil || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "":
		return r, bad
	case u.Scheme == "" && u.Host == "":
		if !strings.HasPrefix(u.Path, "/") {
			return r, bad
		}
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return r, bad
	default:
		r.origin = u.Scheme + "://" + u.Host
		r.host = strings.ToLower(u.Host)
	}
	r.base = strings.TrimRight(u.Path, "/")
	return r, nil
}

// link returns the URL of a passage or page, given as the search index
// holds it (root-relative, or relative to the site's root in an export):
// absolute when the origin is known, else root-relative.
func (r siteRoot) link(indexURL string) string {
	if !strings.HasPrefix(indexURL, "/") {
		indexURL = r.base + "/" + indexURL
	}
	return r.origin + indexURL
}

// pageLink returns the URL of the page at page path p.
func (r siteRoot) pageLink(p string) string {
	switch {
	case r.export:
		return r.link(p + ".html")
	case p == "index":
		return r.link(r.base + "/")
	}
	return r.link(r.base + "/" + p)
}

// pathOf returns the page path of a URL as the search index holds it:
// "/docs/guides/x#y" → "guides/x", "guides/x.html" → "guides/x",
// "/docs/" → "index".
func (r siteRoot) pathOf(indexURL string) string {
	p, _, _ := strings.Cut(indexURL, "#")
	p, _, _ = strings.Cut(p, "?")
	if strings.HasPrefix(p, "/") {
		p = r.stripBase(p)
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".html")
	if p == "" {
		return "index"
	}
	return p
}

// stripBase removes the base path from root-relative path p when p is
// under it.
func (r siteRoot) stripBase(p string) string {
	if r.base == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, r.base); ok && (rest == "" || rest[0] == '/') {
		return rest
	}
	return p
}

// pagePath turns the get_page tool's argument into a clean page path
// (checkPagePath). The argument is untrusted: a page path ("guides/x",
// "/guides/x", "guides/x.html", "guides/x.md", "/" for the home page),
// with or without the base path, or a full URL of the site. Percent
// escapes are decoded once, before the checks; a query or fragment is
// dropped.
func (r siteRoot) pagePath(arg string) (string, error) {
	arg = strings.TrimSpace(arg)
	switch {
	case len(arg) > maxPath:
		return "", fmt.Errorf("the path is longer than %d bytes", maxPath)
	case !utf8.ValidString(arg):
		return "", errors.New("the path is not valid UTF-8")
	case strings.ContainsFunc(arg, isControl):
		return "", errors.New("the path has a control character")
	case strings.ContainsRune(arg, '\\'):
		return "", errors.New(`the path has a backslash: separate its parts with "/"`)
	}
	var p string
	if i := strings.Index(arg, "://"); i >= 0 && !strings.ContainsAny(arg[:i], "/?#") {
		u, err := url.Parse(arg)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", errors.New("the URL is not an http(s) URL of a page")
		}
		if r.host != "" && strings.ToLower(u.Host) != r.host {
			return "", fmt.Errorf("%s is not a URL of this site (%s)", u.Host, r.host)
		}
		p = u.Path // decoded once
		if p == "" {
			p = "/"
		}
	} else {
		p, _, _ = strings.Cut(arg, "#")
		p, _, _ = strings.Cut(p, "?")
		var err error
		if p, err = url.PathUnescape(p); err != nil {
			return "", errors.New("the path has a broken percent escape")
		}
	}
	// Decoding may have made what the first checks refuse.
	if strings.ContainsRune(p, '\\') || strings.ContainsFunc(p, isControl) || !utf8.ValidString(p) {
		return "", errors.New("the path has a backslash, a control character or invalid UTF-8 once decoded")
	}
	if strings.HasPrefix(p, "//") {
		return "", errors.New(`the path starts with "//"`)
	}
	if strings.HasPrefix(p, "/") {
		p = r.stripBase(p)
	}
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	for _, ext := range []string{".html", ".md", ".mdx"} {
		if q, ok := strings.CutSuffix(p, ext); ok {
			p = q
			break
		}
	}
	if p == "" {
		p = "index"
	}
	if err := checkPagePath(p); err != nil {
		return "", err
	}
	return p, nil
}
