package render

import (
	"bytes"
	"html"
	"io/fs"
	"strings"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/safe"
)

// redirectPages returns the static pages of the configuration's redirects:
// for a source "/old/page", old/page.html and, in the live form (whose
// server maps /old/page/ to the folder's index), old/page/index.html. Each
// sends the browser on with <meta http-equiv="refresh">, names the
// destination as canonical and shows a link to it. Sources with :params or
// wildcards cannot be static files: they go to _lectern/redirects.js
// (named with its hash, own_assets.go), which 404.html loads
// (redirects_wildcard.go); those it cannot express either are skipped
// with a warning (links in pages still follow them). A
// source that is a page or a file of the site is skipped: the page or file
// wins.
func (s *site) redirectPages() []siteFile {
	if s.cfg == nil || len(s.cfg.Redirects) == 0 {
		return nil
	}
	var out []siteFile
	// The wildcard redirects' warnings; their script is one of the build's
	// own assets (own_assets.go).
	s.redirectConfig(func(r config.Redirect, field string, err error) {
		s.cfg.Warn(s.w, field, "%s", err.Error())
	})
	var cspMeta []byte // an export's redirect pages carry its policy
	if s.opts.Export {
		cspMeta = []byte("<meta charset=\"utf-8\">\n" + features.CSPMetaTag(s.opts.features().MetaContentSecurityPolicy()) + "\n")
	}
	taken := map[string]bool{"index.html": true, "404.html": true, "sitemap.xml": true, "robots.txt": true}
	for f := range s.files {
		taken[f] = true
	}
	for _, p := range s.order {
		taken[p.Path+".html"] = true
	}
	for _, r := range s.cfg.Redirects {
		src := strings.Trim(strings.TrimSpace(r.Source), "/")
		switch {
		case isPattern(src):
			continue // redirects_wildcard.go
		case src == "" || strings.ContainsAny(src, "?#\\") || !fs.ValidPath(src) || reserved(src+"/"):
			s.cfg.Warn(s.w, r.Source, "redirect source %q is not a page path; no redirect page is written", r.Source)
			continue
		}
		base := strings.TrimSuffix(src, ".html")
		for _, ext := range []string{".mdx", ".md"} {
			base = strings.TrimSuffix(base, ext)
		}
		if s.pages[base] != nil || s.pages[base+"/index"] != nil || base == "index" {
			continue // the page is served; links resolve to it too
		}
		names := []string{base + ".html"}
		if !s.opts.Export {
			names = append(names, base+"/index.html")
		}
		tg := s.links.Resolve("", r.Destination)
		if tg.Kind == links.Missing {
			s.cfg.Warn(s.w, r.Destination, "redirect destination %q (from %q) not found: %s; no redirect page is written", r.Destination, r.Source, tg.Reason)
			continue
		}
		for _, name := range names {
			if taken[name] {
				continue
			}
			taken[name] = true
			u := safe.Href(s.links.URL(name, tg))
			canonical := u
			if s.opts.SiteURL != "" && tg.Kind == links.Page {
				canonical = s.links.Canonical(tg.Path) + tg.Suffix
			}
			data := redirectHTML(u, canonical, r.Permanent)
			if cspMeta != nil {
				data = bytes.Replace(data, []byte("<meta charset=\"utf-8\">\n"), cspMeta, 1)
			}
			out = append(out, siteFile{name: name, data: data})
		}
	}
	return out
}

// redirectHTML is a page that sends the browser to u at once.
func redirectHTML(u, canonical string, permanent bool) []byte {
	e := html.EscapeString(u)
	kind := "moved"
	if permanent {
		kind = "moved permanently"
	}
	return []byte(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Redirecting…</title>
<meta http-equiv="refresh" content="0; url=` + e + `">
<link rel="canonical" href="` + html.EscapeString(canonical) + `">
<meta name="robots" content="noindex">
</head>
<body>
<p>This page has ` + kind + ` to <a href="` + e + `">` + e + `</a>.</p>
</body>
</html>
`)
}
