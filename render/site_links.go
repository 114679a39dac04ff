package render

import (
	"net/url"
	"strings"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/links"
	"lectern.dev/lectern/render/safe"
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

// checkPageURLs warns, with the page's file, of a page whose front matter
// "url" (a sidebar link elsewhere) is not an allowed URL or names nothing
// of the site; the theme links such a page to "#" or to the missing page.
func (s *site) checkPageURLs() {
	for _, p := range s.order {
		u := p.Front.URL
		switch {
		case u == "":
		case !safe.URLAllowed(u, false):
			s.w.Add(p.File, 1, "url %q removed: only http, https, mailto and tel URLs and paths of the site are allowed", diag.FirstLine(u, 60))
		default:
			if tg := s.links.Resolve("", u); tg.Kind == links.Missing { // as the theme resolves it
				s.w.Add(p.File, 1, "url %q: broken link: %s", diag.FirstLine(u, 60), tg.Reason)
			}
		}
	}
}
