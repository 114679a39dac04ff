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
		SiteURL:   s.opts.SiteURL,
	}
	if s.opts.SiteURL != "" {
		if u, err := url.Parse(r.Canonical("index")); err == nil && u.Host != "" {
			r.SitePath = strings.TrimSuffix(u.EscapedPath(), "/")
		}
	}
	return r
}
