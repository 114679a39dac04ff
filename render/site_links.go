package render

import (
	"net/url"
	"strings"

	"lectern.dev/lectern/render/links"
)

// newLinks returns the link resolver of the site, once its pages and
// redirects are known.
func (s *site) newLinks() *links.Resolver {
	r := &links.Resolver{
		HasPage:   func(p string) bool { return s.pages[p] != nil },
		Files:     s.files,
		Redirects: s.redirects,
		Export:    s.opts.Export,
		BasePath:  s.opts.BasePath,
		SitePath:  s.opts.BasePath,
	}
	if s.opts.SiteURL != "" {
		if u, err := url.Parse(s.canonicalURL("index")); err == nil && u.Host != "" {
			r.SitePath = strings.TrimSuffix(u.EscapedPath(), "/")
		}
	}
	return r
}

func (s *site) resolve(fromPage, href string) links.Target   { return s.links.Resolve(fromPage, href) }
func (s *site) urlFor(fromOut string, t links.Target) string { return s.links.URL(fromOut, t) }
func (s *site) pageURL(fromOut, page string) string          { return s.links.PageURL(fromOut, page) }
func (s *site) assetURL(fromOut, file string) string         { return s.links.AssetURL(fromOut, file) }
