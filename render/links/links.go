// Package links resolves the links written in a site's pages and writes
// the URLs that point at their targets.
//
// A Resolver knows the site's pages, its files and its redirects: Resolve
// turns an href written in a page into a Target (another host, an anchor,
// a page, a copied file, or missing, with the reason), and URL writes it
// as the output file it appears in needs it: absolute and extensionless
// for a live site, relative to .html files for an export.
//
// It knows nothing of MDX or HTML: every link of a build, in content, the
// sidebar, the header or a redirect, goes through it.
package links

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/url"
	"path"
	"strconv"
	"strings"

	"lectern.dev/lectern/render/config"
)

// Kind says what a link points at.
type Kind uint8

const (
	External Kind = iota // another host or scheme: left as written
	Anchor               // "#id" on the same page, or empty
	Page                 // a navigation page; path "" is the site root
	File                 // a file copied from the source
	Missing              // nothing the site produces
)

// Resolver resolves the links of a site's pages and writes their URLs.
type Resolver struct {
	// HasPage reports whether a navigation page has the path p.
	HasPage func(p string) bool
	// Files holds every regular file of the source.
	Files map[string]bool
	// Unpublished holds the files of Files that the site does not publish
	// (a Makefile, a script): a link to one is broken.
	Unpublished map[string]bool
	// Redirects are the configuration's redirects.
	Redirects *config.RedirectTable
	// Export is set for the export form: relative links to .html files.
	Export bool
	// BasePath is the path the live site is served under ("" for the root).
	BasePath string
	// SiteURL is the site's public URL, "" when unknown: canonical URLs
	// (Canonical) are absolute with it.
	SiteURL string
	// SitePath is the URL path the site is served under, for the links of
	// 404.html: that of the site's URL when it names one, else BasePath.
	SitePath string
	// Assets maps the names of Lectern's own assets ("_lectern/style.css")
	// to those they are written under, with a hash of their content
	// ("_lectern/style.0123456789.css"): AssetURL links to the latter.
	// Read-only once pages are rendered.
	Assets map[string]string
	// Lookups, when not nil, records what Resolve and HasFile looked up in
	// the site, for the rebuild cache: a page that resolved its links
	// through a copy of the Resolver with its own Lookups is the same only
	// while LookupSum of what it looked up is (pages are added and removed
	// without a change of the cache's key).
	Lookups *Lookups
}

// Lookups are the lookups of a Resolver: "l", the length of the path, ":",
// the path and the suffix of each link looked up, "f" and the name of each file looked for, each
// once, in the order of their first lookup. Not safe for concurrent use.
type Lookups struct {
	List []string
	seen map[string]bool
}

func (l *Lookups) add(key string) {
	if l.seen[key] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[key] = true
	l.List = append(l.List, key)
}

// HasFile reports whether the source has the file name (a snippet or a
// module a page uses), recording the lookup.
func (r *Resolver) HasFile(name string) bool {
	if r.Lookups != nil {
		r.Lookups.add("f" + name)
	}
	return r.Files[name]
}

// LookupSum hashes the outcome of the lookups list (Lookups.List) in the
// site as r knows it.
func (r *Resolver) LookupSum(list []string) string {
	h := sha256.New()
	var buf []byte
	for _, k := range list {
		buf = buf[:0]
		switch {
		case strings.HasPrefix(k, "l"):
			n, rest, _ := strings.Cut(k[1:], ":")
			size, err := strconv.Atoi(n)
			if err != nil || size < 0 || size > len(rest) {
				buf = append(buf, 0)
				break
			}
			t := r.lookup(rest[:size], rest[size:], 0)
			buf = append(buf, byte('0'+t.Kind))
			for _, f := range []string{t.Path, t.Suffix, t.Reason} {
				buf = binary.AppendUvarint(buf, uint64(len(f)))
				buf = append(buf, f...)
			}
		case strings.HasPrefix(k, "f") && r.Files[k[1:]]:
			buf = append(buf, 1)
		default:
			buf = append(buf, 0)
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Target is a resolved link.
type Target struct {
	Kind   Kind
	Path   string // page path, file path or external URL
	Suffix string // "?query#fragment"
	Reason string // why a Missing target is missing
}

// Resolve resolves href, written in the page at fromPage, against the
// site: pages (with or without .mdx/.md/.html, or as folder/index), copied
// files and redirects.
func (r *Resolver) Resolve(fromPage, href string) Target {
	href = strings.TrimSpace(href)
	switch {
	case href == "":
		return Target{Kind: Anchor}
	case strings.HasPrefix(href, "#"):
		return Target{Kind: Anchor, Suffix: href}
	case config.IsExternal(href):
		return Target{Kind: External, Path: href}
	}
	p, suffix := SplitSuffix(href)
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	} else {
		p = path.Join("/", path.Dir(fromPage), p)
	}
	p = strings.TrimPrefix(p, "/")
	if r.Lookups != nil {
		r.Lookups.add("l" + strconv.Itoa(len(p)) + ":" + p + suffix)
	}
	return r.lookup(p, suffix, 0)
}

func (r *Resolver) lookup(p, suffix string, hops int) Target {
	if p == "" || p == "." {
		return Target{Kind: Page, Suffix: suffix}
	}
	if r.Files[p] && !IsPageFile(p) {
		if r.Unpublished[p] {
			return Target{Kind: Missing, Path: p, Suffix: suffix,
				Reason: p + " is not published: files of its type are part of the site only when a page links to them"}
		}
		return Target{Kind: File, Path: p, Suffix: suffix}
	}
	base := strings.TrimSuffix(p, "/")
	for _, ext := range []string{".mdx", ".md", ".html"} {
		base = strings.TrimSuffix(base, ext)
	}
	switch {
	case r.HasPage(base):
		return Target{Kind: Page, Path: base, Suffix: suffix}
	case r.HasPage(base + "/index"):
		return Target{Kind: Page, Path: base + "/index", Suffix: suffix}
	case base == "index":
		return Target{Kind: Page, Suffix: suffix}
	}
	if hops < 5 {
		if dest, ok := r.Redirects.Match("/" + base); ok {
			if config.IsExternal(dest) {
				return Target{Kind: External, Path: dest}
			}
			dp, dsuf := SplitSuffix(dest)
			if suffix == "" {
				suffix = dsuf
			}
			return r.lookup(strings.TrimPrefix(path.Clean("/"+dp), "/"), suffix, hops+1)
		}
	}
	t := Target{Kind: Missing, Path: base, Suffix: suffix, Reason: "no page or file " + base}
	if r.Files[base+".mdx"] || r.Files[base+".md"] {
		t.Reason = base + " is not in the navigation"
	} else if path.Ext(base) != "" {
		t.Path = p
	}
	return t
}

func IsPageFile(p string) bool {
	return strings.HasSuffix(p, ".mdx") || strings.HasSuffix(p, ".md")
}

// SplitSuffix splits href before its query or fragment.
func SplitSuffix(href string) (p, suffix string) {
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		return href[:i], href[i:]
	}
	return href, ""
}

// URL returns the URL of t as written in the output file fromOut:
// absolute and extensionless in the live form, relative to .html files in
// the export form, except in 404.html, which a server sends for missing
// paths at any depth (and is never opened from file://): there they are
// absolute .html paths under the site's path.
func (r *Resolver) URL(fromOut string, t Target) string {
	var file, live string
	switch t.Kind {
	case External:
		return t.Path
	case Anchor:
		return t.Suffix
	case File:
		file, live = t.Path, t.Path
	default: // pages, and missing targets shown where a page would be
		switch {
		case t.Path == "" || t.Path == "index":
			file, live = "index.html", ""
		case t.Kind == Missing && path.Ext(t.Path) != "":
			file, live = t.Path, t.Path
		default:
			file, live = t.Path+".html", t.Path
		}
	}
	if !r.Export {
		return r.BasePath + "/" + escapePath(live) + t.Suffix
	}
	if fromOut == "404.html" {
		return r.SitePath + "/" + escapePath(file) + t.Suffix
	}
	rel := escapePath(RelPath(path.Dir(fromOut), file))
	if first, _, _ := strings.Cut(rel, "/"); strings.Contains(first, ":") {
		rel = "./" + rel // "a:b.html" would read as a URL of scheme a
	}
	return rel + t.Suffix
}

// PageURL returns the URL of a page from the output file fromOut.
func (r *Resolver) PageURL(fromOut, page string) string {
	return r.URL(fromOut, Target{Kind: Page, Path: page})
}

// AssetURL returns the URL of a file produced by the build (a copied file
// or a theme asset) from the output file fromOut. A file of Assets is
// linked under the name written.
func (r *Resolver) AssetURL(fromOut, file string) string {
	if name, ok := r.Assets[file]; ok {
		file = name
	}
	return r.URL(fromOut, Target{Kind: File, Path: file})
}

// RelPath returns the relative path from folder fromDir ("." for the root)
// to the file target; both are clean and slash-separated.
func RelPath(fromDir, target string) string {
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
	if Unreserved(p) {
		return p // nothing to escape: the common case, without allocating
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// Unreserved reports whether p has only unreserved characters of URLs
// (RFC 3986: letters, digits, "-", ".", "_", "~") and slashes, which
// url.PathEscape leaves as they are.
func Unreserved(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			return false
		}
	}
	return true
}

// Canonical is the extensionless URL of a page for the sitemap and
// canonical links: SiteURL (if set) + BasePath + "/" + page, with "index"
// as the root.
func (r *Resolver) Canonical(page string) string {
	p := page
	if p == "index" {
		p = ""
	}
	prefix := r.SiteURL
	if !strings.HasSuffix(prefix, r.BasePath) || r.BasePath == "" {
		prefix += r.BasePath
	}
	return prefix + "/" + escapePath(p)
}
